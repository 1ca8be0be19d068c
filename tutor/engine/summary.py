"""What the learner's records say at a lesson's end (the home screen's summary is in
home_summary.py)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from learning_system import ledger, scheduling
from learning_system.store import Store, utcnow

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum


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
    calibration: list[str] = []

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
        out.extend(self.calibration)
        out.append(self.next)
        return out


def _mastery(rows: list[dict[str, Any]], now: datetime) -> float:
    return scheduling.mastery(
        ((datetime.fromisoformat(a["created_at"]), a["outcome"], a["confidence"]) for a in rows),
        now,
    )


def lesson_end(
    store: Store,
    curriculum: Curriculum,
    session_id: str,
    lesson_id: str,
    records: str,
    done: bool = True,
) -> LessonEnd:
    """What the lesson's end says; a lesson not `done` names no next lesson: it is tried again."""
    from tutor.engine.calibration import calibration
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
        calibration=calibration(store, now).lines(),
        next=(
            f"{lesson.id} is not done: it is tried again when you continue."
            if not done
            else f"Next: {upcoming.id} {upcoming.title}."
            if upcoming
            else f"You have finished {curriculum.name}."
        ),
    )
