"""Attempts, mistakes and concepts over the store, and the due queue: the rules (what a new
mistake or concept starts as, how an answer moves a schedule) over the store's tables
(`store.attempts`, `store.mistakes`, `store.concepts`), which hold the SQL."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from learning_system import scheduling
from learning_system.scheduling import Confidence, Outcome
from learning_system.store import Store, iso, utcnow
from learning_system.text import valid_data, valid_text

if TYPE_CHECKING:
    from learning_system.tables.rows import MistakeRow

ErrorType = Literal["structural", "deviation", "application", "metacognitive"]
ConceptStatus = Literal["developing", "held", "advanced"]


class Attempt(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="chosen by the caller; a retried write is a no-op")
    session_id: str | None = None
    lesson_id: str | None = None
    concept_id: str | None = None
    item_id: str | None = None
    kind: str  # probe, reprobe, why, free_recall, checkpoint, quiz, review, ...
    answer: str = ""
    outcome: Outcome | Literal["pending"]  # pending: a free-recall answer awaiting its grade
    confidence: Confidence | None = None
    feynman: bool | None = None
    payload: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime | None = None


class Mistake(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    attempt_id: str
    concept_id: str | None = None
    item_id: str | None = None
    lesson_id: str | None = None
    error_type: ErrorType | None = None
    attribution: str = ""
    retest_early: bool = False
    item: dict[str, Any] = Field(default_factory=dict)


class Concept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    name: str
    track: str = ""
    type: scheduling.ConceptType = "concept"
    language: str = ""
    status: ConceptStatus = "developing"
    notes: str = ""
    lesson_id: str = ""


class DueItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["mistake", "concept"]
    id: str
    concept_id: str | None
    due: str
    retest_early: bool = False


def record_attempt(store: Store, attempt: Attempt) -> bool:
    """Durable when it returns. Returns False when this attempt id was already recorded."""
    return store.attempts.insert(
        {
            "id": attempt.id,
            "session_id": attempt.session_id,
            "lesson_id": attempt.lesson_id,
            "concept_id": attempt.concept_id,
            "item_id": attempt.item_id,
            "kind": attempt.kind,
            "answer": valid_text(attempt.answer),
            "outcome": attempt.outcome,
            "confidence": attempt.confidence,
            "feynman": None if attempt.feynman is None else int(attempt.feynman),
            "payload": json.dumps(valid_data(attempt.payload), sort_keys=True),
            "created_at": iso(attempt.created_at),
        }
    )


def grade_attempt(store: Store, attempt_id: str, outcome: Outcome) -> bool:
    """Grade an answer recorded as pending, once. Returns False when it was already graded."""
    return store.attempts.grade(attempt_id, outcome)


def reveal_attempts(store: Store, attempt_ids: Sequence[str]) -> None:
    """Mark withheld answers as shown with their results (idempotent)."""
    store.attempts.reveal(attempt_ids)


def attempts(
    store: Store, *, session_id: str | None = None, concept_id: str | None = None
) -> list[dict[str, Any]]:
    """The attempts as stored (`payload` is JSON text), oldest first."""
    return [dict(r) for r in store.attempts.where(session_id=session_id, concept_id=concept_id)]


def record_mistake(store: Store, mistake: Mistake, when: datetime | None = None) -> bool:
    """A new mistake is due at once: the next review asks it first."""
    now = iso(when)
    return store.mistakes.insert(
        {
            "id": mistake.id,
            "attempt_id": mistake.attempt_id,
            "concept_id": mistake.concept_id,
            "item_id": mistake.item_id,
            "lesson_id": mistake.lesson_id,
            "error_type": mistake.error_type,
            "attribution": valid_text(mistake.attribution),
            "status": "open",
            "retest_early": int(mistake.retest_early),
            "item": json.dumps(valid_data(mistake.item), sort_keys=True),
            "next_review": now,
            "created_at": now,
            "resolved_at": None,
        }
    )


def attribute_mistake(
    store: Store, mistake_id: str, error_type: ErrorType, attribution: str
) -> None:
    store.mistakes.attribute(mistake_id, error_type, valid_text(attribution))


def _decoded(row: MistakeRow) -> dict[str, Any]:
    out: dict[str, Any] = dict(row)
    out["item"] = json.loads(row["item"]) if row["item"] else {}
    return out


def mistakes(store: Store, status: str | None = None) -> list[dict[str, Any]]:
    """The mistakes (or those with `status`), oldest first, each `item` decoded."""
    return [_decoded(r) for r in store.mistakes.all(status)]


def mistake(store: Store, mistake_id: str) -> dict[str, Any] | None:
    """One mistake by id, its item decoded; None when there is none."""
    row = store.mistakes.get(mistake_id)
    return None if row is None else _decoded(row)


def review_mistake(
    store: Store,
    mistake_id: str,
    outcome: Outcome,
    confidence: Confidence,
    when: datetime | None = None,
) -> str:
    """Answering a due mistake again (its options reshuffled). Right on a later day than the
    mistake: resolved (after one more early retest if it was a confident wrong answer); right
    on the same day: it stays open and comes back tomorrow. Wrong: stays open and comes back
    tomorrow. Returns the new status."""
    now = when or utcnow()
    with store.transaction():  # read and write as one: two reviews never lose an update
        return _review_mistake(store, mistake_id, outcome, now)


def _review_mistake(store: Store, mistake_id: str, outcome: Outcome, now: datetime) -> str:
    m = store.mistakes.get(mistake_id)
    if m is None:
        raise KeyError(mistake_id)
    same_day = (
        datetime.fromisoformat(m["created_at"]).astimezone(UTC).date() >= now.astimezone(UTC).date()
    )
    tomorrow = iso(now + scheduling.EARLY_RETEST_AFTER)
    if outcome == "correct" and same_day:  # not yet a test of memory: once more tomorrow
        status, retest, due = "open", 0, tomorrow
    elif outcome == "correct" and m["retest_early"]:
        status, retest, due = "open", 0, tomorrow
    elif outcome == "correct":
        status, retest, due = "resolved", 0, m["next_review"]
    else:
        status, retest, due = "open", m["retest_early"], tomorrow
    store.mistakes.reschedule(
        mistake_id,
        status=status,
        retest_early=retest,
        next_review=due,
        resolved_at=iso(now) if status == "resolved" else None,
    )
    return status


def upsert_concept(store: Store, concept: Concept, when: datetime | None = None) -> bool:
    """Create a concept scheduled from interval 0, or update its descriptive fields. Returns True
    when something changed."""
    now = when or utcnow()
    existing = store.concepts.get(concept.id)
    fields = concept.model_dump()
    if existing and all(existing.get(k) == v for k, v in fields.items()):
        return False
    if existing:
        del fields["id"]
        store.concepts.update(concept.id, {**fields, "updated_at": iso(now)})
    else:
        store.concepts.insert(
            {
                "id": concept.id,
                "name": concept.name,
                "track": concept.track,
                "type": concept.type,
                "language": concept.language,
                "status": concept.status,
                "notes": concept.notes,
                "lesson_id": concept.lesson_id,
                "card": None,
                "interval_index": 0,
                "next_review": iso(scheduling.first_due(concept.type, now)),
                "last_review": None,
                "mastery": 0.0,
                "created_at": iso(now),
                "updated_at": iso(now),
            }
        )
    return True


def concept_row(store: Store, concept_id: str) -> dict[str, Any] | None:
    row = store.concepts.get(concept_id)
    return None if row is None else dict(row)


def concepts(store: Store) -> list[dict[str, Any]]:
    return [dict(r) for r in store.concepts.all()]


def review_concept(
    store: Store,
    concept_id: str,
    outcome: Outcome,
    confidence: Confidence,
    when: datetime | None = None,
) -> dict[str, Any]:
    """One answer about a concept (already recorded as an attempt): the FSRS card, interval
    index, next review, mastery and plain status (scheduling.concept_status) move."""
    now = when or utcnow()
    with store.transaction():  # read and write as one: two reviews never lose an update
        return _review_concept(store, concept_id, outcome, confidence, now)


def _review_concept(
    store: Store, concept_id: str, outcome: Outcome, confidence: Confidence, now: datetime
) -> dict[str, Any]:
    row = store.concepts.get(concept_id)
    if row is None:
        raise KeyError(concept_id)
    card, due = scheduling.review(row["card"], outcome, confidence, now)
    history = [
        (datetime.fromisoformat(h["created_at"]), h["outcome"], h["confidence"])
        for h in store.attempts.recent_answers(concept_id, 50)
    ]
    update: dict[str, Any] = {
        "status": scheduling.concept_status(list(reversed(history))),
        "card": card,
        "interval_index": scheduling.next_interval_index(row["interval_index"] or 0, outcome),
        "next_review": iso(due),
        "last_review": iso(now),
        "mastery": scheduling.mastery(history, now),
        "updated_at": iso(now),
    }
    store.concepts.update(concept_id, update)
    return {**row, **update}


def revealed_items(store: Store, lesson_ids: list[str]) -> list[str]:
    """The items of these lessons answered and graded before now, sorted."""
    return sorted(store.attempts.revealed_items(lesson_ids))


def due_queue(store: Store, now: datetime | None = None, limit: int = 50) -> list[DueItem]:
    """Due mistakes first (early retests at the front), then due concepts, oldest due first."""
    at = iso(now)
    rows = store.mistakes.due(at, limit)
    if len(rows) < limit:
        rows += store.concepts.due(at, limit - len(rows))
    # rows from our own tables: built without re-validation, on the hot path of every review
    return [DueItem.model_construct(**r) for r in rows]


def due_counts(store: Store, now: datetime | None = None) -> dict[str, int]:
    at = iso(now)
    return {"mistakes": store.mistakes.count_due(at), "concepts": store.concepts.count_due(at)}


def concepts_by_status(store: Store) -> dict[str, int]:
    return store.concepts.count_by_status()


def mean_mastery(store: Store) -> float | None:
    value = store.concepts.mean_mastery()
    return None if value is None else round(value, 2)
