"""The rows the tables return: times are ISO strings; JSON columns are text unless a row says it
decodes them."""

from __future__ import annotations

from typing import Any, Literal, TypedDict


class AttemptRow(TypedDict):
    id: str
    session_id: str | None
    lesson_id: str | None
    concept_id: str | None
    item_id: str | None
    kind: str
    answer: str
    outcome: str
    confidence: str | None
    feynman: int | None
    payload: str  # JSON
    created_at: str


class Answer(TypedDict):
    """An answer as the mastery rule reads it."""

    created_at: str
    outcome: str
    confidence: str | None


class ConfidenceCount(TypedDict):
    """How many answers about one concept, with one confidence tag, had one outcome."""

    concept: str  # the concept's name, else the answer's lesson ('' for neither)
    confidence: str
    outcome: str
    n: int


class MistakeRow(TypedDict):
    id: str
    attempt_id: str
    concept_id: str | None
    item_id: str | None
    lesson_id: str | None
    error_type: str | None
    attribution: str
    status: str
    retest_early: int
    item: str  # JSON
    next_review: str
    created_at: str
    resolved_at: str | None


class LedgerMistake(TypedDict):
    """A mistake with the curriculum of the session it was made in (None when unknown)."""

    id: str
    lesson_id: str | None
    item_id: str | None
    error_type: str | None
    attribution: str
    status: str
    retest_early: int
    item: str  # JSON
    curriculum: str | None


class DueRow(TypedDict):
    """A mistake or concept that is due: `kind` says which."""

    kind: Literal["mistake", "concept"]
    id: str
    concept_id: str | None
    due: str
    retest_early: bool


class ConceptRow(TypedDict):
    id: str
    name: str
    track: str | None
    type: str
    language: str | None
    status: str
    notes: str | None
    lesson_id: str | None
    card: str | None  # JSON (an FSRS card)
    interval_index: int | None
    next_review: str | None
    last_review: str | None
    mastery: float | None
    created_at: str
    updated_at: str


class GlossaryRow(TypedDict):
    term: str
    definition: str
    lesson_id: str | None


class LearningRecordRow(TypedDict):
    lesson_id: str
    payload: str  # JSON
    created_at: str


class KnowledgePageRow(TypedDict):
    concept_id: str
    markdown: str
    sources: str  # JSON list
    updated_at: str


class NoteRow(TypedDict):
    id: str
    session_id: str
    kind: str
    body: str  # JSON
    created_at: str


class SessionRow(TypedDict):
    """A session as read back: `state` decoded from its JSON."""

    id: str
    lesson_id: str
    curriculum: str
    status: str  # active, paused, done or abandoned
    position: str
    state: dict[str, Any]
    created_at: str
    updated_at: str


class EventRow(TypedDict):
    """One entry of a session's event log, `payload` decoded."""

    seq: int
    kind: str
    payload: dict[str, Any]
    created_at: str


class SessionNote(TypedDict):
    """A session note as read back, `body` decoded."""

    id: str
    session_id: str
    kind: str
    body: dict[str, Any]
    created_at: str


class ReceiptRow(TypedDict):
    """A gate receipt as stored, `payload` decoded."""

    receipt_id: str
    message_id: str
    gate: str
    outcome: str
    payload: dict[str, Any]
    created_at: str


class SessionRef(TypedDict):
    id: str
    lesson_id: str


class Match(TypedDict):
    """One hit of `Store.lookup.matches`: a concept, an open mistake or an attempt."""

    src: str  # "concept", "mistake" or "attempt"
    ref: str
    text: str | None
    detail: str | None
    at: str | None


class PackRow(TypedDict):
    """One knowledge-pack build (tutor/dossier). `pack` is the pack's JSON when one was made."""

    id: str
    curriculum: str
    lesson_id: str
    fingerprint: str
    schema: str
    state: str  # ready | review_required | failed | stale
    pack: str | None  # JSON
    problems: str  # JSON list of strings
    error: str | None
    tokens_in: int
    tokens_out: int
    seconds: float
    built_at: str
