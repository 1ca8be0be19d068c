"""Prior (SPEC §4.0): one search over the learner's records from the digest's prereq keywords,
ranked per prerequisite and mapped to skip-fast / expand / reframe. A hypothesis the probe
overrules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from learning_system.store import Store
from learning_system.tables.rows import Match
from tutor.engine.words import words

RECENT = timedelta(days=30)
MAX_MATCHES = 40
# evidence rank, strongest first (SPEC §4.0)
RANKS = ["open mistake", "failed attempt", "stale attempt", "developing concept", "seen before"]
PLAN_FOR_VERDICT = {"solid": "skip-fast", "unstable": "expand", "unknown": "expand"}


@dataclass(frozen=True)
class Prerequisite:
    """A probe strand as the prior searches for it: its name and the words that find it."""

    name: str
    keywords: tuple[str, ...]

    @classmethod
    def of(cls, name: str, title: str, concept: str) -> Prerequisite:
        """Found by its concept id and the content words of its title: never by "the" or
        "and", which match nearly every record."""
        return cls(name, (*sorted(words(title)), concept))


@dataclass(frozen=True)
class PriorRow:
    """What the records suggest for one prerequisite: the strongest evidence and its plan."""

    prerequisite: str
    evidence: str
    plan: str

    def as_json(self) -> dict[str, str]:
        return asdict(self)


def search(store: Store, keywords: Iterable[str]) -> list[Match]:
    """The one query: concepts, open mistakes and attempts whose names or ids match a keyword."""
    words = sorted({k.lower() for k in keywords if len(k) >= 3})[:24]
    return store.sessions.matches(words, MAX_MATCHES)


def hypothesis(
    prereqs: Sequence[Prerequisite], matches: Sequence[Match], now: datetime | None = None
) -> list[PriorRow]:
    """Per prerequisite: the strongest evidence found and the plan it suggests."""
    now = now or datetime.now(UTC)
    rows = []
    for p in prereqs:
        keys = [k.lower() for k in p.keywords if len(k) >= 3]
        mine = [
            m
            for m in matches
            if any(k in (m["text"] or "").lower() or k in (m["ref"] or "").lower() for k in keys)
        ]
        rows.append(PriorRow(p.name, *_rank(mine, now)))
    return rows


def _rank(found: list[Match], now: datetime) -> tuple[str, str]:
    def recent(m: Match) -> bool:
        try:
            return now - datetime.fromisoformat(m["at"] or "") <= RECENT
        except (TypeError, ValueError):
            return False

    if any(m["src"] == "mistake" for m in found):
        kind = next(m["detail"] for m in found if m["src"] == "mistake")
        return f"open mistake ({kind or 'unattributed'})", "expand"
    attempts = [m for m in found if m["src"] == "attempt"]
    if any(m["detail"] in ("wrong", "idk") for m in attempts):
        return "failed attempt", "expand"
    if attempts and not any(recent(m) for m in attempts):
        return "stale attempt", "expand"
    concepts = [m for m in found if m["src"] == "concept"]
    if any(m["detail"] == "developing" for m in concepts):
        return "developing concept", "reframe"
    if found:
        if any(recent(m) for m in found):
            return "seen before, passed recently", "skip-fast"
        return "seen before", "reframe"
    return "nothing in your records", "expand"


def inherited(store: Store, session_id: str) -> dict[str, PriorRow]:
    """What the learner's previous session found, by prerequisite: its probe verdicts, which
    beat anything a search could find, so those prerequisites are not searched again."""
    last = store.sessions.previous(session_id)
    if last is None:
        return {}
    out: dict[str, PriorRow] = {}
    for note in store.sessions.notes(last["id"]):
        if note["kind"] != "verdict":
            continue
        for name, verdict in (note["body"].get("verdicts") or {}).items():
            plan = PLAN_FOR_VERDICT.get(verdict, "expand")
            out[name] = PriorRow(name, f"probe in {last['lesson_id']}: {verdict}", plan)
    return out


def table(store: Store, session_id: str, prereqs: Sequence[Prerequisite]) -> list[PriorRow]:
    """One row per prerequisite, in order: the previous session's verdict when it has one,
    else what the search finds."""
    known = inherited(store, session_id)
    rest = [p for p in prereqs if p.name not in known]
    found = {
        r.prerequisite: r
        for r in hypothesis(rest, search(store, (k for p in rest for k in p.keywords)))
    }
    return [known.get(p.name) or found[p.name] for p in prereqs]
