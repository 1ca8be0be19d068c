"""What the learner's records say at a glance: the home screen's summary, and a lesson's end."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from learning_system import ledger, scheduling
from learning_system.store import Store, utcnow

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum


class HomeSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    curriculum: str
    position: str  # "P1 L08 Optimization · paused at probe · strand 1/2 · question 3"
    due_mistakes: int
    due_concepts: int
    concepts: dict[str, int]
    mastery: float | None
    mastery_days: list[float]  # the last 30 days, oldest first
    due_days: list[int]  # the next 14 days, today first
    last_lesson: str | None


class LessonEnd(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lesson: str
    quiz_right: int
    quiz_total: int
    mastery_before: float
    mastery_after: float
    next_reviews: list[str]
    records: str
    next: str

    def lines(self) -> list[str]:
        out = []
        if self.quiz_total:
            out.append(f"Quiz: {self.quiz_right} of {self.quiz_total} right.")
        out.append(
            f"Mastery (advisory): {self.mastery_before:.2f} → {self.mastery_after:.2f} of 0.80."
        )
        if self.next_reviews:
            out.append("Next reviews: " + "; ".join(self.next_reviews) + ".")
        out.append(f"Records: {self.records}")
        out.append(self.next)
        return out


def _last_result(store: Store, curriculum: Curriculum) -> str | None:
    done = store.latest_session(curriculum=str(curriculum.root), status="done")
    if done is None:
        return None
    quiz = [a for a in ledger.attempts(store, session_id=done["id"]) if a["kind"] == "quiz"]
    right = sum(a["outcome"] == "correct" for a in quiz)
    try:
        title = curriculum.lesson(done["lesson_id"]).title
    except LookupError:
        title = ""
    score = f" · quiz {right}/{len(quiz)}" if quiz else ""
    return f"{done['lesson_id']} {title} · finished{score}".replace("  ", " ")


def home_summary(
    store: Store,
    curriculum: Curriculum | None,
    root: str | None = None,
    now: datetime | None = None,
) -> HomeSummary:
    """The home screen's data. Without the curriculum loaded yet (the first paint), what the
    store alone says: the position by lesson id, under the curriculum folder `root`."""
    root = str(curriculum.root) if curriculum is not None else root
    latest = store.latest_session(curriculum=root)
    if latest is not None and latest["status"] in ("active", "paused"):
        title = ""
        if curriculum is not None:
            try:
                title = curriculum.lesson(latest["lesson_id"]).title
            except LookupError:
                pass
        position = f"{latest['lesson_id']} {title}".strip() + f" · paused at {latest['position']}"
    elif curriculum is None:
        position = "…"
    else:
        done = store.latest_session(curriculum=root, status="done")
        upcoming = curriculum.next_lesson(done["lesson_id"] if done else None)
        position = (
            f"next: {upcoming.id} {upcoming.title}" if upcoming else f"finished {curriculum.name}"
        )
    due = ledger.due_counts(store, now)
    return HomeSummary(
        curriculum=curriculum.name if curriculum is not None else Path(root or "").name,
        position=position,
        due_mistakes=due["mistakes"],
        due_concepts=due["concepts"],
        concepts=ledger.concepts_by_status(store),
        mastery=ledger.mean_mastery(store),
        mastery_days=ledger.mastery_by_day(store, 30, now),
        due_days=ledger.due_load(store, 14, now),
        last_lesson=_last_result(store, curriculum) if curriculum is not None else None,
    )


def _mastery(rows: list[dict[str, Any]], now: datetime) -> float:
    return scheduling.mastery(
        ((datetime.fromisoformat(a["created_at"]), a["outcome"], a["confidence"]) for a in rows),
        now,
    )


def lesson_end(
    store: Store, curriculum: Curriculum, session_id: str, lesson_id: str, records: str
) -> LessonEnd:
    from tutor.engine.selection import concept_id

    lesson = curriculum.lesson(lesson_id)
    now = utcnow()
    mine = ledger.attempts(store, session_id=session_id)
    quiz = [a for a in mine if a["kind"] == "quiz"]
    history = ledger.attempts(store, concept_id=concept_id(lesson))
    before = [a for a in history if a["session_id"] != session_id]
    reviews = []
    for cid in sorted({a["concept_id"] for a in mine if a["concept_id"]}):
        row = ledger.concept_row(store, cid)
        if row and row["next_review"]:
            days = (datetime.fromisoformat(row["next_review"]) - now).total_seconds() / 86400
            when = "now" if days < 0.5 else f"in {round(days)} day{'s' * (round(days) != 1)}"
            reviews.append(f"{row['name']} {when}")
    upcoming = curriculum.next_lesson(lesson.id)
    return LessonEnd(
        lesson=f"{lesson.id} {lesson.title}",
        quiz_right=sum(a["outcome"] == "correct" for a in quiz),
        quiz_total=len(quiz),
        mastery_before=_mastery(before, now),
        mastery_after=_mastery(history, now),
        next_reviews=reviews[:6],
        records=records,
        next=(
            f"Next: {upcoming.id} {upcoming.title}."
            if upcoming
            else f"You have finished {curriculum.name}."
        ),
    )
