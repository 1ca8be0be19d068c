"""What the lesson's phases hand the session to write durably: answers, grades, mistakes,
notes and the finished lesson. Each is a frozen record; the session turns them into store rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from learning_system.ledger import ErrorType
from learning_system.scheduling import Confidence
from learning_system.scheduling import Outcome as Graded
from tutor.engine.items import Presented

Outcome = Graded | Literal["pending"]


@dataclass(frozen=True)
class Answer:
    """One answer as given (probe, checkpoint, quiz, why, Feynman), recorded as an attempt.
    `outcome` is `pending` while a free-recall answer waits for its grade."""

    attempt_id: str
    purpose: str
    concept: str
    item: Presented | None
    answer: str
    confidence: Confidence | None
    outcome: Outcome
    feynman: bool | None = None
    rubric_hits: tuple[str, ...] = ()
    withheld: bool = False  # its right or wrong is not shown until its batch's results


@dataclass(frozen=True)
class Revealed:
    """Withheld answers whose results are now shown: counted from here on (calibration)."""

    attempt_ids: tuple[str, ...]


@dataclass(frozen=True)
class Grade:
    """A pending answer's outcome, once graded."""

    attempt_id: str
    outcome: Graded


@dataclass(frozen=True)
class Mistake:
    """A wrong (or "I don't know") answer with the learner's own attribution."""

    answer: Answer
    error_type: ErrorType
    attribution: str
    retest_early: bool


@dataclass(frozen=True)
class Note:
    """A session note: its kind and its JSON body (the kind included, as it is stored)."""

    kind: str
    body: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Taught:
    """A teaching step the learner read (not skipped)."""

    step_id: str
    title: str
    content: str
    sources: list[str]
    unverified: list[str]


@dataclass(frozen=True)
class Finish:
    """The lesson reached its end having taught or asked something."""

    verdicts: dict[str, str]
    plan: list[str]
    taught: list[Taught]
    skipped: list[str]


Record = Answer | Grade | Revealed | Mistake | Note | Finish
