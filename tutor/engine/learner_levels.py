"""The probe's model of how well a learner knows a strand: three levels, each right on a
question a fixed share of the time, weighed against the strand's answers. The search asks where
the answers leave the level most in doubt, and the verdict is the likeliest level."""

from __future__ import annotations

LEVELS = ("known", "half known", "unknown")
# the chance of a right answer at each level: known (a slip now and then), half known, unknown
# (a guess among four, or "I don't know")
RIGHT_CHANCE = (0.9, 0.5, 0.2)


def chances(right: float, total: float) -> tuple[float, ...]:
    """How likely each level is after `right` of `total` answers (alike before any). The counts
    may be fractional: an answer worth w that is credited c counts w·c right and w·(1 − c)
    missed, so its likelihood is p^(w·c) · (1 − p)^(w·(1 − c))."""
    weights = [p**right * (1 - p) ** (total - right) for p in RIGHT_CHANCE]
    return tuple(w / sum(weights) for w in weights)


def likeliest(right: float, total: float) -> str:
    """The level most likely after `right` of `total` answers (the better known one on a tie)."""
    odds = chances(right, total)
    return LEVELS[odds.index(max(odds))]


def doubt(right: float, total: float) -> float:
    """How much in doubt the level still is: 1 − the chance of the likeliest level."""
    return 1 - max(chances(right, total))
