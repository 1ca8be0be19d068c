"""What a lesson's phases share: one typed context, and the journal they write through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from learning_system.curriculum import Curriculum, Lesson
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.items import Presented
from tutor.engine.prior import PriorRow
from tutor.engine.projection import Declared, Evidence
from tutor.engine.records import Record, Taught
from tutor.engine.selection import concept_id

if TYPE_CHECKING:
    from tutor.dossier.model import KnowledgePack
    from tutor.engine.drafter import Drafter
    from tutor.engine.prefetch import Prefetcher
    from tutor.scout.digest import Digest

T = TypeVar("T")


class Journal(Protocol):
    """The session's durable log as the phases see it. `memo` keeps anything read from the
    store or made by a model, so a replay gets the same value; `record` writes an answer, a
    grade, a mistake or a note the moment it is given; `replaying` is true while a resumed
    session replays its recorded actions."""

    @property
    def replaying(self) -> bool: ...

    def memo(self, key: str, compute: Callable[[], T]) -> T: ...

    def memoized(self, key: str) -> bool: ...

    def record(self, record: Record) -> None: ...

    @property
    def error_types(self) -> list[str]:
        """The error types of the mistakes recorded this session, in order."""
        ...


@dataclass
class LessonContext:
    """The lesson being taught, the gate and the journal, and what the phases learn as they
    go (what was asked, the verdicts, the plan, what was taught) — read by the phases after."""

    session_id: str
    lesson: Lesson
    curriculum: Curriculum
    digest: Digest
    gate: Gatekeeper
    journal: Journal
    drafter: Drafter | None = None
    pack: KnowledgePack | None = None  # the lesson's ready knowledge pack (tutor/dossier)
    # the prerequisites' ready packs (by lesson id), as the session started
    prerequisite_packs: dict[str, KnowledgePack] = field(default_factory=dict)
    learner: Declared | None = None  # None: steps are planned unpersonalised
    evidence: Evidence = field(default_factory=Evidence)
    asked: set[str] = field(default_factory=set)
    # the strands' items the learner answered and saw graded before this session: the probe
    # asks the others first where it may choose
    revealed: frozenset[str] = frozenset()
    verdicts: dict[str, str] = field(default_factory=dict)
    # per prerequisite lesson, the questions the probe found missed, with their right answers:
    # what a refresh of it teaches first
    missed: dict[str, list[str]] = field(default_factory=dict)
    prior_table: list[PriorRow] = field(default_factory=list)
    plan_titles: list[str] = field(default_factory=list)
    taught: list[Taught] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    position: str = ""
    completed: bool = True  # False when the lesson ends not done (phases/end.py says why)
    withheld: int = 0  # questions whose gate withheld them
    revisions: dict[int, int] = field(default_factory=dict)  # revision cycles per step
    screens: int = 0  # screens made so far (message ids count them)

    def __post_init__(self) -> None:
        from tutor.engine.prefetch import Prefetcher

        self.concept = concept_id(self.lesson)
        primary = self.digest.primary
        self.primary: str = primary.url if primary else str(self.lesson.doc_path)
        self.prep: Prefetcher = Prefetcher(self)

    def mid(self, label: str) -> str:
        """A new message id: the session's, then a count of the screens so far, then a label.
        A replay makes the same ids in the same order."""
        self.screens += 1
        return f"{self.session_id}:{self.screens}:{label}"

    def concept_of(self, item: Presented) -> str:
        """The concept an item tests: its lesson's (this lesson's when it is not found)."""
        try:
            return concept_id(self.curriculum.lesson(item.lesson_id))
        except LookupError:
            return self.concept
