"""Attempts, mistakes and concepts over the store, and the due queue."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from learning_system import scheduling
from learning_system.scheduling import Confidence, Outcome
from learning_system.store import Store, iso, utcnow
from learning_system.text import valid_data, valid_text

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
    created = iso(attempt.created_at)
    with store.transaction() as c:
        cur = c.execute(
            "INSERT OR IGNORE INTO attempts (id, session_id, lesson_id, concept_id, item_id, kind, "
            "answer, outcome, confidence, feynman, payload, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                attempt.id,
                attempt.session_id,
                attempt.lesson_id,
                attempt.concept_id,
                attempt.item_id,
                attempt.kind,
                valid_text(attempt.answer),
                attempt.outcome,
                attempt.confidence,
                None if attempt.feynman is None else int(attempt.feynman),
                json.dumps(valid_data(attempt.payload), sort_keys=True),
                created,
            ),
        )
        return cur.rowcount == 1


def grade_attempt(store: Store, attempt_id: str, outcome: Outcome) -> bool:
    """Grade an answer recorded as pending, once. Returns False when it was already graded."""
    with store.transaction() as c:
        cur = c.execute(
            "UPDATE attempts SET outcome = ? WHERE id = ? AND outcome = 'pending'",
            (outcome, attempt_id),
        )
        return cur.rowcount == 1


def attempts(
    store: Store, *, session_id: str | None = None, concept_id: str | None = None
) -> list[dict[str, Any]]:
    sql, params = "SELECT * FROM attempts WHERE 1=1", []
    if session_id is not None:
        sql += " AND session_id = ?"
        params.append(session_id)
    if concept_id is not None:
        sql += " AND concept_id = ?"
        params.append(concept_id)
    return store.rows(sql + " ORDER BY created_at, id", tuple(params))


def record_mistake(store: Store, mistake: Mistake, when: datetime | None = None) -> bool:
    """A new mistake is due at once: the next review asks it first."""
    now = iso(when)
    with store.transaction() as c:
        cur = c.execute(
            "INSERT OR IGNORE INTO mistakes (id, attempt_id, concept_id, item_id, lesson_id, "
            "error_type, attribution, status, retest_early, item, next_review, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?)",
            (
                mistake.id,
                mistake.attempt_id,
                mistake.concept_id,
                mistake.item_id,
                mistake.lesson_id,
                mistake.error_type,
                valid_text(mistake.attribution),
                int(mistake.retest_early),
                json.dumps(valid_data(mistake.item), sort_keys=True),
                now,
                now,
            ),
        )
        return cur.rowcount == 1


def attribute_mistake(
    store: Store, mistake_id: str, error_type: ErrorType, attribution: str
) -> None:
    with store.transaction() as c:
        c.execute(
            "UPDATE mistakes SET error_type = ?, attribution = ? WHERE id = ?",
            (error_type, valid_text(attribution), mistake_id),
        )


def mistakes(store: Store, status: str | None = None) -> list[dict[str, Any]]:
    if status is None:
        rows = store.rows("SELECT * FROM mistakes ORDER BY created_at, id")
    else:
        rows = store.rows(
            "SELECT * FROM mistakes WHERE status = ? ORDER BY created_at, id", (status,)
        )
    for r in rows:
        r["item"] = json.loads(r["item"]) if r["item"] else {}
    return rows


def mistake(store: Store, mistake_id: str) -> dict[str, Any] | None:
    """One mistake by id, its item decoded; None when there is none."""
    rows = store.rows("SELECT * FROM mistakes WHERE id = ?", (mistake_id,))
    if not rows:
        return None
    row = rows[0]
    row["item"] = json.loads(row["item"]) if row["item"] else {}
    return row


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
    row = store.rows("SELECT * FROM mistakes WHERE id = ?", (mistake_id,))
    if not row:
        raise KeyError(mistake_id)
    m = row[0]
    same_day = (
        datetime.fromisoformat(m["created_at"]).astimezone(UTC).date() >= now.astimezone(UTC).date()
    )
    if outcome == "correct" and same_day:  # not yet a test of memory: once more tomorrow
        status, retest, due = "open", 0, iso(now + scheduling.EARLY_RETEST_AFTER)
    elif outcome == "correct" and m["retest_early"]:
        status, retest, due = "open", 0, iso(now + scheduling.EARLY_RETEST_AFTER)
    elif outcome == "correct":
        status, retest, due = "resolved", 0, m["next_review"]
    else:
        status, retest, due = "open", m["retest_early"], iso(now + scheduling.EARLY_RETEST_AFTER)
    with store.transaction() as c:
        c.execute(
            "UPDATE mistakes SET status = ?, retest_early = ?, next_review = ?, resolved_at = ? "
            "WHERE id = ?",
            (status, retest, due, iso(now) if status == "resolved" else None, mistake_id),
        )
    return status


def upsert_concept(store: Store, concept: Concept, when: datetime | None = None) -> bool:
    """Create a concept scheduled from interval 0, or update its descriptive fields. Returns True
    when something changed."""
    now = when or utcnow()
    existing = concept_row(store, concept.id)
    fields = concept.model_dump()
    if existing and all(existing.get(k) == v for k, v in fields.items()):
        return False
    with store.transaction() as c:
        if existing:
            sets = ", ".join(f"{k} = :{k}" for k in fields if k != "id")
            c.execute(
                f"UPDATE concepts SET {sets}, updated_at = :now WHERE id = :id",
                {**fields, "now": iso(now)},
            )
        else:
            c.execute(
                "INSERT INTO concepts (id, name, track, type, language, status, notes, lesson_id, "
                "card, interval_index, next_review, mastery, created_at, updated_at) VALUES "
                "(:id, :name, :track, :type, :language, :status, :notes, :lesson_id, NULL, 0, "
                ":due, 0.0, :now, :now)",
                {**fields, "due": iso(scheduling.first_due(concept.type, now)), "now": iso(now)},
            )
    return True


def concept_row(store: Store, concept_id: str) -> dict[str, Any] | None:
    rows = store.rows("SELECT * FROM concepts WHERE id = ?", (concept_id,))
    return rows[0] if rows else None


def concepts(store: Store) -> list[dict[str, Any]]:
    return store.rows("SELECT * FROM concepts ORDER BY lesson_id, id")


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
    row = concept_row(store, concept_id)
    if row is None:
        raise KeyError(concept_id)
    card, due = scheduling.review(row["card"], outcome, confidence, now)
    history = store.rows(
        "SELECT created_at, outcome, confidence FROM attempts WHERE concept_id = ? "
        "ORDER BY created_at DESC LIMIT 50",
        (concept_id,),
    )
    answers = [
        (datetime.fromisoformat(h["created_at"]), h["outcome"], h["confidence"]) for h in history
    ]
    graded = [
        (datetime.fromisoformat(h["created_at"]), h["outcome"], h["confidence"])
        for h in reversed(history)
    ]
    update = {
        "status": scheduling.concept_status(graded),
        "card": card,
        "interval_index": scheduling.next_interval_index(row["interval_index"] or 0, outcome),
        "next_review": iso(due),
        "last_review": iso(now),
        "mastery": scheduling.mastery(answers, now),
        "updated_at": iso(now),
    }
    with store.transaction() as c:
        sets = ", ".join(f"{k} = :{k}" for k in update)
        c.execute(f"UPDATE concepts SET {sets} WHERE id = :id", {**update, "id": concept_id})
    return {**row, **update}


def due_queue(store: Store, now: datetime | None = None, limit: int = 50) -> list[DueItem]:
    """Due mistakes first (early retests at the front), then due concepts, oldest due first."""
    at = iso(now)
    rows = []
    for early in (1, 0):  # each a range scan of idx_mistakes_due, in order, stopping at `limit`
        rows += store.execute(
            "SELECT id, concept_id, next_review, retest_early FROM mistakes "
            "WHERE status = 'open' AND retest_early = ? AND next_review <= ? "
            "ORDER BY next_review, id LIMIT ?",
            (early, at, limit - len(rows)),
        ).fetchall()
        if len(rows) >= limit:
            break
    # rows from our own tables: built without re-validation, on the hot path of every review
    items = [
        DueItem.model_construct(kind="mistake", id=i, concept_id=c, due=d, retest_early=bool(r))
        for i, c, d, r in rows
    ]
    if len(items) < limit:
        rows = store.execute(
            "SELECT id, next_review FROM concepts WHERE next_review <= ? "
            "ORDER BY next_review, id LIMIT ?",
            (at, limit - len(items)),
        ).fetchall()
        items += [
            DueItem.model_construct(kind="concept", id=i, concept_id=i, due=d, retest_early=False)
            for i, d in rows
        ]
    return items


def due_counts(store: Store, now: datetime | None = None) -> dict[str, int]:
    at = iso(now)
    m = store.execute(
        "SELECT count(*) FROM mistakes WHERE status = 'open' AND next_review <= ?", (at,)
    ).fetchone()[0]
    c = store.execute("SELECT count(*) FROM concepts WHERE next_review <= ?", (at,)).fetchone()[0]
    return {"mistakes": m, "concepts": c}


def concepts_by_status(store: Store) -> dict[str, int]:
    rows = store.rows("SELECT status, count(*) AS n FROM concepts GROUP BY status")
    return {r["status"]: r["n"] for r in rows}


def mean_mastery(store: Store) -> float | None:
    value = store.execute("SELECT avg(mastery) FROM concepts").fetchone()[0]
    return None if value is None else round(value, 2)
