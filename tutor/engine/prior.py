"""Prior (SPEC §4.0): one search over the learner's records from the digest's prereq keywords,
ranked per prerequisite and mapped to skip-fast / expand / reframe. A hypothesis the probe
overrules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from learning_system.store import Store

RECENT = timedelta(days=30)
MAX_MATCHES = 40
# evidence rank, strongest first (SPEC §4.0)
RANKS = ["open mistake", "failed attempt", "stale attempt", "developing concept", "seen before"]


def search(store: Store, keywords: list[str]) -> list[dict[str, Any]]:
    """The one query: concepts, open mistakes and attempts whose names or ids match a keyword."""
    words = sorted({k.lower() for k in keywords if len(k) >= 3})[:24]
    return [dict(m) for m in store.sessions.matches(words, MAX_MATCHES)]


def hypothesis(
    prereqs: list[dict[str, Any]], matches: list[dict[str, Any]], now: datetime | None = None
) -> list[dict[str, str]]:
    """Per prerequisite: the strongest evidence found and the plan it suggests."""
    now = now or datetime.now(UTC)
    rows = []
    for p in prereqs:
        keys = [k.lower() for k in p.get("keywords", []) if len(k) >= 3]
        mine = [
            m
            for m in matches
            if any(k in (m["text"] or "").lower() or k in (m["ref"] or "").lower() for k in keys)
        ]
        evidence, plan = _rank(mine, now)
        rows.append({"prerequisite": p["concept"], "evidence": evidence, "plan": plan})
    return rows


def _rank(found: list[dict[str, Any]], now: datetime) -> tuple[str, str]:
    def recent(m: dict[str, Any]) -> bool:
        try:
            return now - datetime.fromisoformat(m["at"]) <= RECENT
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


PLAN_FOR_VERDICT = {"solid": "skip-fast", "unstable": "expand", "unknown": "expand"}


def inherited(store: Store, session_id: str) -> dict[str, dict[str, str]]:
    """What the learner's previous session found, by prerequisite: its probe verdicts, which
    beat anything a search could find, so those prerequisites are not searched again."""
    last = store.sessions.previous(session_id)
    if last is None:
        return {}
    out: dict[str, dict[str, str]] = {}
    for note in store.sessions.notes(last["id"]):
        if note["kind"] != "verdict":
            continue
        for name, verdict in (note["body"].get("verdicts") or {}).items():
            out[name] = {
                "prerequisite": name,
                "plan": PLAN_FOR_VERDICT.get(verdict, "expand"),
                "evidence": f"probe in {last['lesson_id']}: {verdict}",
            }
    return out
