"""Spaced review (FSRS) and advisory mastery. The mapping below is stated in CONTRACT.md."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import fsrs

Outcome = Literal["correct", "wrong", "idk"]
Confidence = Literal["sure", "hunch", "no_idea"]
ConceptType = Literal["memory", "concept", "procedure", "design"]

MASTERY_CAP = 0.80
MASTERY_HALF_LIFE_DAYS = 14.0
MASTERY_MIN_EVIDENCE = 3
# How much one answer says about mastery, by outcome and confidence.
EVIDENCE: dict[tuple[str, str | None], float] = {
    ("correct", "sure"): 1.0,
    ("correct", "hunch"): 0.6,
    ("correct", "no_idea"): 0.3,
}
# A new concept starts at interval 0 and comes due after this long, by type.
FIRST_DUE = {
    "memory": timedelta(days=1),
    "procedure": timedelta(days=2),
    "concept": timedelta(days=3),
    "design": timedelta(days=4),
}
EARLY_RETEST_AFTER = timedelta(days=1)

_scheduler: fsrs.Scheduler | None = None


def _fsrs() -> tuple[ModuleType, fsrs.Scheduler]:
    """fsrs and the one scheduler, imported on first use (fsrs is slow to import)."""
    global _scheduler
    import fsrs

    if _scheduler is None:
        _scheduler = fsrs.Scheduler(enable_fuzzing=False)
    return fsrs, _scheduler


def rating_name(outcome: Outcome, confidence: Confidence) -> str:
    """Confidence × outcome → FSRS rating. Only a wrong answer (or "I don't know") is a lapse."""
    if outcome != "correct":
        return "Again"
    return "Good" if confidence == "sure" else "Hard"


def is_lapse(outcome: Outcome) -> bool:
    return outcome != "correct"


def needs_early_retest(outcome: Outcome, confidence: Confidence) -> bool:
    """A confident wrong answer: the learner believes something false."""
    return outcome == "wrong" and confidence == "sure"


def first_due(concept_type: str, now: datetime) -> datetime:
    return now + FIRST_DUE.get(concept_type, FIRST_DUE["concept"])


def review(
    card_json: str | None, outcome: Outcome, confidence: Confidence, when: datetime
) -> tuple[str, datetime]:
    """Apply one answer to a stored card; returns the new card (JSON) and its next due time."""
    fsrs, scheduler = _fsrs()
    when = when.astimezone(UTC)
    card = fsrs.Card.from_dict(json.loads(card_json)) if card_json else fsrs.Card(card_id=1)
    card, _ = scheduler.review_card(card, fsrs.Rating[rating_name(outcome, confidence)], when)
    return json.dumps(card.to_dict(), sort_keys=True), card.due


def next_interval_index(current: int, outcome: Outcome) -> int:
    return 0 if is_lapse(outcome) else current + 1


def mastery(answers: Iterable[tuple[datetime, str, str | None]], now: datetime) -> float:
    """Recency-weighted share of confident right answers, scaled to 0.00–0.80. Advisory only."""
    weight_sum = score_sum = 0.0
    count = 0
    for when, outcome, confidence in answers:
        if outcome == "pending":
            continue
        age_days = max(0.0, (now - when).total_seconds() / 86400)
        weight = math.pow(0.5, age_days / MASTERY_HALF_LIFE_DAYS)
        weight_sum += weight
        score_sum += weight * EVIDENCE.get((outcome, confidence), 0.0)
        count += 1
    if not count or weight_sum == 0:
        return 0.0
    evidence = min(1.0, count / MASTERY_MIN_EVIDENCE)
    return round(MASTERY_CAP * evidence * score_sum / weight_sum, 2)


def mastery_at_ends(
    answers: Iterable[tuple[datetime, str, str | None]], ends: Iterable[datetime]
) -> list[float]:
    """`mastery` of the answers up to each of `ends` (ascending), as of that end, in one pass
    over `answers` (oldest first). Each answer is weighed once against the last end: the
    weights at an earlier end differ by one common factor, which the ratio cancels."""
    ends = list(ends)
    if not ends:
        return []
    last = ends[-1]
    graded = [a for a in answers if a[1] != "pending"]
    out: list[float] = []
    weight_sum = score_sum = 0.0
    count = i = 0
    for end in ends:
        while i < len(graded) and graded[i][0] <= end:
            when, outcome, confidence = graded[i]
            weight = math.pow(0.5, (last - when).total_seconds() / 86400 / MASTERY_HALF_LIFE_DAYS)
            weight_sum += weight
            score_sum += weight * EVIDENCE.get((outcome, confidence), 0.0)
            count += 1
            i += 1
        if not count or weight_sum == 0:
            out.append(0.0)
            continue
        evidence = min(1.0, count / MASTERY_MIN_EVIDENCE)
        out.append(round(MASTERY_CAP * evidence * score_sum / weight_sum, 2))
    return out


HELD_KNOWN = 2  # right-and-sure answers that make a concept held …
ADVANCED_KNOWN = 4  # … and advanced, when they span ADVANCED_DAYS distinct days
ADVANCED_DAYS = 2


def concept_status(answers: Iterable[tuple[datetime, str, str | None]]) -> str:
    """Plain status from a concept's graded answers (oldest first): `held` with HELD_KNOWN or
    more right-and-sure answers and the latest answer right; `advanced` with ADVANCED_KNOWN or
    more over ADVANCED_DAYS or more distinct days and none of the last three wrong; otherwise
    `developing`. A wrong answer therefore moves a concept back."""
    graded = [(w, o, c) for w, o, c in answers if o in ("correct", "wrong", "idk")]
    if not graded:
        return "developing"
    known = [w for w, o, c in graded if o == "correct" and c == "sure"]
    days = {w.astimezone(UTC).date() for w in known}
    recent_wrong = any(o != "correct" for _, o, _ in graded[-3:])
    if len(known) >= ADVANCED_KNOWN and len(days) >= ADVANCED_DAYS and not recent_wrong:
        return "advanced"
    if len(known) >= HELD_KNOWN and graded[-1][1] == "correct":
        return "held"
    return "developing"
