"""A strand's verdict from its own graded answers: the evidence rows and the scoring rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

MIN_EVIDENCE = 2  # a strand's verdict needs this many graded answers of its own concept
CONFIRM = 1  # or this many, all credited in full, when the learner's records show it solid
SELF_GRADED_WEIGHT = 0.5  # a self-graded free-recall answer counts half an MCQ's
SOLID_SHARE = 0.7
UNKNOWN_SHARE = 0.25
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


def recorded_solid(prior: Iterable[Mapping[str, str]]) -> frozenset[str]:
    """The strands the learner's records show solid: those the prior plans to skip fast (the
    previous session's probe found them solid, or they were passed recently)."""
    return frozenset(r["prerequisite"] for r in prior if r.get("plan") == "skip-fast")


def needed(recorded: bool, known: Iterable[bool]) -> int:
    """The answers a strand needs for a verdict: CONFIRM when its records show it solid and its
    answers so far all confirm it, else MIN_EVIDENCE."""
    return CONFIRM if recorded and all(known) else MIN_EVIDENCE


def strand_verdict(
    evidence: Sequence[Evidence], misconception: bool = False, recorded: bool = False
) -> str:
    """From a strand's own graded answers: the known share (each answer's credit, weighted 1,
    a self-graded one SELF_GRADED_WEIGHT). `solid` at SOLID_SHARE or more with no
    misconception; `unknown` below UNKNOWN_SHARE; otherwise `unstable`. Fewer graded answers
    than `needed` (MIN_EVIDENCE; CONFIRM, all credited in full, for a strand `recorded` solid):
    `not probed` (no verdict)."""
    graded = [r for r in evidence if r.outcome in GRADED_OUTCOMES]
    if len(graded) < needed(recorded, (credit(r) == 1.0 for r in graded)):
        return NOT_PROBED
    weight = [SELF_GRADED_WEIGHT if r.self_graded else 1.0 for r in graded]
    share = sum(w * credit(r) for w, r in zip(weight, graded, strict=True)) / sum(weight)
    if share < UNKNOWN_SHARE:
        return "unknown"
    if share >= SOLID_SHARE and not misconception:
        return "solid"
    return "unstable"
