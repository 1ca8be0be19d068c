"""A strand's verdict from its own graded answers: the evidence rows and the scoring rules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tutor.engine.learner_levels import Weighed, likeliest
from tutor.engine.prior import PriorRow

MIN_EVIDENCE = 2  # a strand's verdict needs this many graded answers of its own concept
CONFIRM = 1  # or this many, all credited in full, when the learner's records show it solid
SELF_GRADED_WEIGHT = 0.5  # a self-graded free-recall answer counts half an MCQ's
HUNCH_WEIGHT = 0.5  # a right answer tagged a hunch counts half a sure one
REPROBE = {  # what a hunch's re-probe adds: (right, missed)
    "re-probe: right, sure": (1.0, 0.0),
    "re-probe: right, unsure": (HUNCH_WEIGHT, 0.0),
    "re-probe: wrong": (0.0, 1.0),
}
VERDICT_OF_LEVEL = {"known": "solid", "half known": "unstable", "unknown": "unknown"}
NOT_PROBED = "not probed"
GRADED_OUTCOMES = ("correct", "wrong", "idk")


@dataclass(frozen=True)
class Evidence:
    """One row of a strand's evidence: the item, the answer as shown, its confidence, the
    outcome and the follow-up the rules called for."""

    item: str
    lesson: str
    answer: str
    confidence: str | None
    outcome: str
    follow_up: str = ""
    self_graded: bool = False
    question: str = ""
    given: str = ""  # the answer in words (an option's text, not its number)
    right: str = ""  # the right answer in words


def credit(row: Evidence) -> float:
    """How known an answer shows the strand to be: 1 when right and sure, or right with a hunch
    and then right and sure on its re-probe; 0.5 when the re-probe is right but unsure again
    (two lucky guesses in a row are unlikely), when no item was left to re-probe with (the
    search had asked them all), and for a free-recall answer right but unsure (it cannot be
    guessed from options); otherwise 0."""
    if row.outcome != "correct":
        return 0.0
    if row.confidence == "sure" or row.follow_up == "re-probe: right, sure":
        return 1.0
    if row.follow_up in ("re-probe: right, unsure", "re-probe: none available", "free recall"):
        return 0.5  # right twice, or with nothing left to check it, or in one's own words
    return 0.0


def recorded_solid(prior: Iterable[PriorRow]) -> frozenset[str]:
    """The strands the learner's records show solid: those the prior plans to skip fast (the
    previous session's probe found them solid, or they were passed recently)."""
    return frozenset(r.prerequisite for r in prior if r.plan == "skip-fast")


def needed(recorded: bool, known: Iterable[bool]) -> int:
    """The answers a strand needs for a verdict: CONFIRM when its records show it solid and its
    answers so far all confirm it, else MIN_EVIDENCE."""
    return CONFIRM if recorded and all(known) else MIN_EVIDENCE


def weighed(row: Evidence) -> list[Weighed]:
    """A graded answer as the level model's evidence, weighing SELF_GRADED_WEIGHT when
    self-graded: right and sure counts right; right with a hunch counts HUNCH_WEIGHT right
    (weaker evidence, not a miss), and its re-probe — another item — counts on its own (right
    and sure 1, right but unsure HUNCH_WEIGHT, wrong a miss); wrong with a hunch counts
    HUNCH_WEIGHT missed (the learner said it was a guess from some knowledge: one who knows a
    strand and slips says so); anything else (wrong and sure or "no idea", "I don't know",
    right tagged "no idea") counts a miss."""
    w = SELF_GRADED_WEIGHT if row.self_graded else 1.0
    recall = row.follow_up == "free recall"
    if row.outcome == "wrong" and row.confidence == "hunch":
        return [Weighed(0.0, w * HUNCH_WEIGHT, recall)]
    if row.outcome != "correct" or row.confidence not in ("sure", "hunch"):
        return [Weighed(0.0, w, recall)]
    if row.confidence == "sure":
        return [Weighed(w, 0.0, recall)]
    again = [Weighed(*REPROBE[row.follow_up])] if row.follow_up in REPROBE else []
    return [Weighed(w * HUNCH_WEIGHT, 0.0, recall), *again]


def strand_verdict(
    evidence: Sequence[Evidence], misconception: bool = False, recorded: bool = False
) -> str:
    """From a strand's own graded answers (`weighed`): the likeliest level of the search's
    model (tutor.engine.learner_levels) — known `solid` (`unstable` with a misconception or
    when no answer was right and sure: `sure_right`), half known `unstable`, unknown `unknown`.
    Fewer graded answers than `needed` (MIN_EVIDENCE; CONFIRM, all credited in full, for a
    strand `recorded` solid): `not probed` (no verdict)."""
    graded = [r for r in evidence if r.outcome in GRADED_OUTCOMES]
    if len(graded) < needed(recorded, (credit(r) == 1.0 for r in graded)):
        return NOT_PROBED
    verdict = VERDICT_OF_LEVEL[likeliest(w for r in graded for w in weighed(r))]
    held_back = misconception or not any(map(sure_right, graded))
    return "unstable" if verdict == "solid" and held_back else verdict


def sure_right(row: Evidence) -> bool:
    """Whether an answer, or its re-probe, was right and sure."""
    return row.outcome == "correct" and (
        row.confidence == "sure" or row.follow_up == "re-probe: right, sure"
    )
