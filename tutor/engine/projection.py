"""The learner as teaching sees them (`personalization/1`): a pure projection of declared
preferences and stored evidence onto a closed vocabulary. It holds no identity, no free text and
no raw events — only buckets — so a plan (and a draft cached by it) can never carry the learner."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal, get_args

from learning_system.ledger import ErrorType
from tutor.engine.turns import ERROR_TYPES

PROJECTION_VERSION = "personalization/1"
CALIBRATION_LESSONS = 3  # a learner's first lessons: nothing is inferred from them yet
RECENT_MISTAKES = 10  # the error signal reads this many of the newest mistakes
SIGNAL_MIN = 2  # an error type is a signal once it is the most common, at least this often

Presentation = Literal["prose", "table", "code", "diagram", "worked_example"]
PRESENTATIONS: tuple[Presentation, ...] = get_args(Presentation)
Bucket = Literal["unknown", "prose", "table", "code", "diagram", "worked_example"]
Band = Literal["novice", "developing", "fluent"]
Capability = Literal["keyboard", "screen_reader", "no_colour", "reduced_motion"]
CAPABILITIES: tuple[Capability, ...] = get_args(Capability)
DENSITIES = (1, 2, 3)

# after calibration, the presentation the dominant kind of mistake calls for
_BUCKET_FOR_ERROR: dict[ErrorType, Bucket] = {
    "application": "worked_example",
    "deviation": "worked_example",
    "structural": "table",
    "metacognitive": "prose",
}


@dataclass(frozen=True)
class Declared:
    """What the learner said in `[learner]`: presentations to include, density, what they
    operate the tutor with."""

    presentations: tuple[Presentation, ...] = ()
    density: int = 2
    capabilities: tuple[Capability, ...] = ("keyboard",)


@dataclass(frozen=True)
class Evidence:
    """What the store holds about the learner, as the projection reads it: the probe's verdicts
    on the lesson's strands, their mastery (0–1), the error types of recent mistakes (newest
    first) and how many lessons they began before this one."""

    verdicts: tuple[str, ...] = ()
    mastery: tuple[float, ...] = ()
    error_types: tuple[str, ...] = ()
    lessons_seen: int = 0


@dataclass(frozen=True)
class Projection:
    version: str
    declared: tuple[Presentation, ...]
    inferred: Bucket
    band: Band
    density: int
    capabilities: tuple[Capability, ...]
    error_signal: ErrorType | None
    calibrating: bool

    def buckets(self) -> dict[str, object]:
        """Every field, as the plan and the cache key hold it."""
        return {
            "version": self.version,
            "declared": list(self.declared),
            "inferred": self.inferred,
            "band": self.band,
            "density": self.density,
            "capabilities": list(self.capabilities),
            "error_signal": self.error_signal,
            "calibrating": self.calibrating,
        }


def project(declared: Declared, evidence: Evidence) -> Projection:
    """The projection: anything outside the closed vocabulary is dropped, never passed on."""
    calibrating = evidence.lessons_seen < CALIBRATION_LESSONS
    signal = error_signal(evidence.error_types)
    inferred: Bucket = "unknown" if calibrating or signal is None else _BUCKET_FOR_ERROR[signal]
    caps = {c for c in declared.capabilities if c in CAPABILITIES} | {"keyboard"}
    return Projection(
        version=PROJECTION_VERSION,
        declared=tuple(dict.fromkeys(p for p in declared.presentations if p in PRESENTATIONS)),
        inferred=inferred,
        band=support_band(evidence.verdicts, evidence.mastery),
        density=declared.density if declared.density in DENSITIES else 2,
        capabilities=tuple(c for c in CAPABILITIES if c in caps),
        error_signal=signal,
        calibrating=calibrating,
    )


def support_band(verdicts: tuple[str, ...], mastery: tuple[float, ...]) -> Band:
    """novice when a strand is unknown or mastery is low; fluent when every probed strand is
    solid and mastery is high; developing otherwise (and without evidence)."""
    probed = [v for v in verdicts if v in ("solid", "unstable", "unknown")]
    known = [m for m in mastery if 0.0 <= m <= 1.0]
    mean = sum(known) / len(known) if known else None
    if "unknown" in probed or (mean is not None and mean < 0.4):
        return "novice"
    solid = bool(probed) and all(v == "solid" for v in probed)
    if solid and (mean is None or mean >= 0.8):
        return "fluent"
    return "developing"


def error_signal(error_types: tuple[str, ...]) -> ErrorType | None:
    """The most common error type of the newest RECENT_MISTAKES, seen at least SIGNAL_MIN
    times (ties go to the earlier type in ERROR_TYPES); None otherwise."""
    counts = Counter(t for t in error_types[:RECENT_MISTAKES] if t in ERROR_TYPES)
    if not counts:
        return None
    best = max(ERROR_TYPES, key=lambda t: (counts[t], -ERROR_TYPES.index(t)))
    return best if counts[best] >= SIGNAL_MIN else None
