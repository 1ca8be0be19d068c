"""Calibration the learner can see: how often their confidence tags match their answers.

Counted from the store (in SQL) over the last `CALIBRATION_DAYS`: only answers that were right
or wrong and carry a tag (sure, hunch, no idea); "I don't know" and ungraded answers say nothing
about confidence. A sure answer that was wrong is over-confidence; a hunch or no-idea answer
that was right is under-confidence. Imports no pydantic: the home screen paints from it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from learning_system.store import Store
    from learning_system.tables.rows import ConfidenceCount

CALIBRATION_DAYS = 30
TAGS = ("sure", "hunch", "no_idea")
# "sure" should be right at least this often; below it, with OVER_AT sure-and-wrong answers,
# the advice is about over-confidence
SURE_TARGET = 0.8
OVER_AT = 2
UNDER_AT = 3  # unsure answers that were right, at least this many and mostly right


class Tally(NamedTuple):
    right: int = 0
    wrong: int = 0

    @property
    def total(self) -> int:
        return self.right + self.wrong

    def line(self) -> str:
        return f"{self.right}/{self.total}" if self.total else "none"


class Calibration(NamedTuple):
    """The tags against the outcomes; `over` and `under` list (concept, count), most first.
    (Records of the first screen are named tuples: a dataclass costs it a compile each.)"""

    tags: Mapping[str, Tally] = MappingProxyType({})
    over: Sequence[tuple[str, int]] = ()
    under: Sequence[tuple[str, int]] = ()

    def tally(self, tag: str) -> Tally:
        return self.tags.get(tag, Tally())

    @property
    def answers(self) -> int:
        return sum(t.total for t in self.tags.values())

    def summary(self) -> str:
        sure, hunch, no_idea = (self.tally(t) for t in TAGS)
        rate = f" right ({round(100 * sure.right / sure.total)}%)" if sure.total else ""
        return f"sure {sure.line()}{rate} · hunch {hunch.line()} · no idea {no_idea.line()}"

    def concepts(self) -> str:
        """The concepts of the over- and under-confident answers, most first ('' for none)."""
        parts = []
        if self.over:
            parts.append("sure & wrong: " + _named(self.over))
        if self.under:
            parts.append("unsure & right: " + _named(self.under))
        joined = " · ".join(parts)
        return joined[:1].upper() + joined[1:]

    def advice(self) -> str:
        """One sentence on what to do about it."""
        sure = self.tally("sure")
        unsure = Tally(
            self.tally("hunch").right + self.tally("no_idea").right,
            self.tally("hunch").wrong + self.tally("no_idea").wrong,
        )
        if not self.answers:
            return "Nothing tagged yet: tag honestly and this shows when your sure is right."
        if sure.wrong >= OVER_AT and sure.right < SURE_TARGET * sure.total:
            where = f", most on {self.over[0][0]}" if self.over and self.over[0][0] else ""
            return f"{sure.wrong} sure answers were wrong{where}: say why before tagging sure."
        if unsure.right >= UNDER_AT and unsure.right >= SURE_TARGET * unsure.total:
            return "Your hunches are mostly right: when you can say why, tag them sure."
        if (sure.wrong and sure.right < SURE_TARGET * sure.total) or (
            unsure.right and unsure.right >= SURE_TARGET * unsure.total
        ):  # leaning one way, on too few answers to say so
            return "Too few tagged answers to tell yet: keep tagging honestly."
        return "Your confidence matches your answers: keep tagging honestly."

    def lines(self) -> list[str]:
        """What the line dialogue and `tutor status` print."""
        concepts = self.concepts()
        return [
            f"Calibration, last {CALIBRATION_DAYS} days: {self.summary()}.",
            *([concepts + "."] if concepts else []),
            self.advice(),
        ]

    def as_json(self) -> dict[str, object]:
        return {
            "days": CALIBRATION_DAYS,
            "tags": {t: {"right": self.tally(t).right, "wrong": self.tally(t).wrong} for t in TAGS},
            "over_confident": [{"concept": c, "sure_wrong": n} for c, n in self.over],
            "under_confident": [{"concept": c, "unsure_right": n} for c, n in self.under],
            "advice": self.advice(),
        }


def _named(pairs: Sequence[tuple[str, int]], most: int = 3) -> str:
    shown = ", ".join(f"{c or 'no concept'} {n}" for c, n in pairs[:most])
    return shown + (f" and {len(pairs) - most} more" if len(pairs) > most else "")


def from_counts(rows: list[ConfidenceCount]) -> Calibration:
    right: dict[str, int] = {}
    wrong: dict[str, int] = {}
    over: dict[str, int] = {}
    under: dict[str, int] = {}
    for r in rows:
        tag, n, correct = r["confidence"], r["n"], r["outcome"] == "correct"
        (right if correct else wrong)[tag] = (right if correct else wrong).get(tag, 0) + n
        if tag == "sure" and not correct:
            over[r["concept"]] = over.get(r["concept"], 0) + n
        elif tag != "sure" and correct:
            under[r["concept"]] = under.get(r["concept"], 0) + n
    return Calibration(
        tags={t: Tally(right.get(t, 0), wrong.get(t, 0)) for t in TAGS},
        over=_most_first(over),
        under=_most_first(under),
    )


def _most_first(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def calibration(store: Store, now: datetime | None = None) -> Calibration:
    """The learner's calibration over the last `CALIBRATION_DAYS` before `now`."""
    from learning_system.store import iso, utcnow

    since = (now or utcnow()) - timedelta(days=CALIBRATION_DAYS)
    return from_counts(store.attempts.confidence_counts(iso(since)))
