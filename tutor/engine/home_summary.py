"""The home screen's summary as plain data: what the store counts (in SQL) and where the learner
stands in the curriculum. Imports no pydantic and reads no lesson it does not name, so the first
screen can be painted from it; the store's modules are imported when the store is asked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from tutor.engine.calibration import Calibration, calibration
from tutor.engine.words import counted

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum
    from learning_system.store import Store
    from learning_system.tables.rows import SessionRow

MASTERY_DAYS = 30  # the mastery chart: the last 30 days, oldest first
DUE_DAYS = 14  # the due chart: the next 14 days, today first
# the mastery chart reads answers this far before its first day, and at most this many
MASTERY_LOOKBACK = timedelta(days=60)
MASTERY_ANSWERS = 5000


class RecordCounts(NamedTuple):
    """What the learner's records say, counted once per refresh."""

    due_mistakes: int = 0
    due_concepts: int = 0
    concepts: Mapping[str, int] = MappingProxyType({})
    mastery: float | None = None
    mastery_days: Sequence[float] = (0.0,) * MASTERY_DAYS
    due_days: Sequence[int] = (0,) * DUE_DAYS
    calibration: Calibration = Calibration()


class HomeSummary(NamedTuple):
    curriculum: str
    position: str  # "P1 L08 Optimization · paused at probe"; "…" until the curriculum is read
    counts: RecordCounts
    last_lesson: str | None = None


def record_counts(store: Store, now: datetime | None = None) -> RecordCounts:
    """Due counts, concepts by status and mastery counted in SQL; the mastery chart in one pass
    over the latest answers."""
    from learning_system.scheduling import mastery_at_ends
    from learning_system.store import iso, utcnow

    now = now or utcnow()
    counted = store.attempts.home_counts(
        iso(now), [iso(now + timedelta(days=d + 1)) for d in range(DUE_DAYS)]
    )
    rows = store.attempts.answers_since(
        iso(now - timedelta(days=MASTERY_DAYS) - MASTERY_LOOKBACK), MASTERY_ANSWERS
    )
    answers = [(datetime.fromisoformat(w), o, c) for w, o, c in rows]
    ends = [now - timedelta(days=d) for d in range(MASTERY_DAYS - 1, -1, -1)]
    return RecordCounts(
        due_mistakes=counted["due_mistakes"],
        due_concepts=counted["due_concepts"],
        concepts=counted["concepts"],
        mastery=counted["mastery"],
        mastery_days=mastery_at_ends(answers, ends),
        due_days=counted["due_days"],
        calibration=calibration(store, now),
    )


def from_store(store: Store, root: Path, counts: RecordCounts | None = None) -> HomeSummary:
    """What the store alone says, for the first paint: the paused lesson by its id, under the
    curriculum folder `root`'s name."""
    latest = store.sessions.latest(curriculum=str(root))
    paused = latest is not None and latest["status"] in ("active", "paused")
    return HomeSummary(
        curriculum=root.name,
        position=f"{latest['lesson_id']} · paused at {latest['position']}" if paused else "…",  # type: ignore[index]
        counts=counts if counts is not None else record_counts(store),
    )


def empty(root: Path) -> HomeSummary:
    """A learner with no store yet: nothing recorded, the position still to be found."""
    return HomeSummary(curriculum=root.name, position="…", counts=RecordCounts())


def with_curriculum(
    store: Store, curriculum: Curriculum, counts: RecordCounts | None = None
) -> HomeSummary:
    """The whole summary. Reads only the lessons it names (the paused, the last finished and
    the next one) when `curriculum` was loaded partially (`load_curriculum(root, only=[])`)."""
    root = str(curriculum.root)
    latest = store.sessions.latest(curriculum=root)
    done = store.sessions.latest(curriculum=root, status="done")
    if latest is not None and latest["status"] in ("active", "paused"):
        title = _title(curriculum, latest["lesson_id"])
        position = f"{latest['lesson_id']} {title}".strip() + f" · paused at {latest['position']}"
    else:
        upcoming = curriculum.next_lesson(done["lesson_id"] if done else None)
        position = (
            f"next: {upcoming.id} {upcoming.title}" if upcoming else f"finished {curriculum.name}"
        )
    return HomeSummary(
        curriculum=curriculum.name,
        position=position,
        counts=counts if counts is not None else record_counts(store),
        last_lesson=_last_result(store, curriculum, done),
    )


def due_now(mistakes: int, concepts: int) -> str:
    """What is due, as home and `tutor status` say it: "1 mistake · 2 concepts"."""
    return f"{counted(mistakes, 'mistake')} · {counted(concepts, 'concept')}"


def status_text(s: HomeSummary) -> str:
    """The summary as the lines `tutor status` prints them, for the app's Status command."""
    c = s.counts
    held = ", ".join(f"{n} {k}" for k, n in sorted(c.concepts.items())) or "none yet"
    lines = [
        f"Curriculum: {s.curriculum}",
        f"Position:   {s.position}",
        f"Due now:    {due_now(c.due_mistakes, c.due_concepts)}",
        f"Concepts:   {held}",
    ]
    if c.mastery is not None:
        lines.append(f"Mastery:    {c.mastery:.2f} of 0.80 (advisory)")
    if s.last_lesson:
        lines.append(f"Last:       {s.last_lesson}")
    return "\n".join([*lines, "", *c.calibration.lines()])


def _title(curriculum: Curriculum, lesson_id: str) -> str:
    try:
        return curriculum.lesson(lesson_id).title
    except LookupError:
        return ""


def _last_result(store: Store, curriculum: Curriculum, done: SessionRow | None) -> str | None:
    if done is None:
        return None
    right, total = store.attempts.quiz_score(done["id"])
    score = f" · quiz {right}/{total}" if total else ""
    return f"{done['lesson_id']} {_title(curriculum, done['lesson_id'])} · finished{score}".replace(
        "  ", " "
    )
