"""The probe's model of how well a learner knows a strand: three levels, each right on a
question a fixed share of the time, weighed against the strand's answers. The search asks where
the answers leave the level most in doubt, and the verdict is the likeliest level."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

LEVELS = ("known", "half known", "unknown")
# the chance of a right answer at each level: known (a slip now and then), half known, unknown
# (a guess among four, or "I don't know")
RIGHT_CHANCE = (0.9, 0.5, 0.2)
# a free recall has no options to guess from: the program's grading rarely passes it unknown
RECALL_RIGHT_CHANCE = (0.9, 0.5, 0.05)


@dataclass(frozen=True)
class Weighed:
    """One answer as evidence: how much of it counts right and how much missed (1 and 0, or 0
    and 1, for a plain answer; less for weaker evidence), and whether it was free recall."""

    right: float
    missed: float
    recall: bool = False


def chances(answers: Iterable[Weighed]) -> tuple[float, ...]:
    """How likely each level is after these answers (alike before any): an answer that counts
    r right and m missed has the likelihood p^r · (1 − p)^m at a level right p of the time."""
    logs = [0.0] * len(LEVELS)
    for a in answers:
        rates = RECALL_RIGHT_CHANCE if a.recall else RIGHT_CHANCE
        for k, p in enumerate(rates):
            logs[k] += a.right * math.log(p) + a.missed * math.log(1 - p)
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    return tuple(w / sum(weights) for w in weights)


def likeliest(answers: Iterable[Weighed]) -> str:
    """The level most likely after these answers (the better known one on a tie)."""
    odds = chances(answers)
    return LEVELS[odds.index(max(odds))]


def doubts(answers: Iterable[Weighed]) -> tuple[float, float]:
    """How much in doubt it still is whether the strand is known (the chance of the less
    likely side), and its level (1 − the chance of the likeliest level)."""
    odds = chances(answers)
    return min(odds[0], 1 - odds[0]), 1 - max(odds)
