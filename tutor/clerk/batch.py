"""The write batch: every record a pending ingest asks for, as the review gate sees it.

Each write is a JSON object with a `kind` (`concept`, `glossary`, `learning_record`,
`knowledge_page`) and an `id`, holding the values the record will have once written. The batch
depends only on the ingest and the store's current rows, never on the clock, so the same outcome
over the same store gives the same batch (and the same receipt)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from learning_system import scheduling
from learning_system.outcome import IngestConcept, PendingIngest
from learning_system.store import Store
from tutor.clerk.concept_type import concept_type
from tutor.clerk.knowledge import build_page, page_sources, steps_for

if TYPE_CHECKING:
    from learning_system.tables.rows import AttemptRow, ConceptRow


class Evidence(TypedDict):
    attempt_id: str
    outcome: str | None  # None: the attempt is not in the store
    confidence: str | None


class ConceptWrite(TypedDict):
    kind: Literal["concept"]
    id: str
    name: str
    type: str
    language: str
    status: str
    mastery: float
    lesson_id: str
    track: str
    new: bool
    evidence: list[Evidence]


class GlossaryWrite(TypedDict):
    kind: Literal["glossary"]
    id: str
    term: str
    definition: str
    lesson_id: str


class LearningRecordWrite(TypedDict):
    kind: Literal["learning_record"]
    id: str
    lesson_id: str
    payload: dict[str, Any]


class KnowledgePageWrite(TypedDict):
    kind: Literal["knowledge_page"]
    id: str
    concept_id: str
    markdown: str
    sources: list[str]


Write = ConceptWrite | GlossaryWrite | LearningRecordWrite | KnowledgePageWrite
KINDS = ("concept", "glossary", "learning_record", "knowledge_page")


def lesson_end(pending: PendingIngest) -> datetime:
    """When the lesson ended (the ingest's creation time), as an aware UTC datetime."""
    try:
        when = datetime.fromisoformat(pending.created_at)
    except ValueError:
        return datetime.now(UTC)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _aware(value: str) -> datetime:
    when = datetime.fromisoformat(value)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _language(value: str) -> str:
    """A language name, or "" for a placeholder such as `--`."""
    value = value.strip()
    return value if any(ch.isalnum() for ch in value) else ""


def _track(curriculum: str) -> str:
    """The curriculum's name: the last part of its path when it is given as one."""
    if "/" in curriculum or "\\" in curriculum:
        return PurePath(curriculum.replace("\\", "/").rstrip("/")).name or curriculum
    return curriculum


def _mastery(store: Store, concept: IngestConcept, ended: datetime) -> float | None:
    """Advisory mastery from the concept's answers up to the lesson's end, at the lesson's end;
    None when it has no answers."""
    answers = []
    for r in store.attempts.answers_about(concept.id, list(concept.evidence)):
        when = _aware(r["created_at"])
        if when <= ended:
            answers.append((when, r["outcome"], r["confidence"]))
    return scheduling.mastery(answers, ended) if answers else None


def concept_write(
    store: Store,
    pending: PendingIngest,
    concept: IngestConcept,
    existing: ConceptRow | None,
    attempts: dict[str, AttemptRow],
) -> ConceptWrite:
    kind: str = concept_type(concept.name, concept.kind_hint)
    language = _language(concept.language)
    status: str = concept.status_hint
    ended = lesson_end(pending)
    mastery = _mastery(store, concept, ended)
    if existing is not None:
        # The row keeps where it was first met and how it is scheduled; a specific type
        # refines an ambiguous one, and a plain "developing" without evidence demotes nothing.
        if existing["type"] != "concept" or kind == "concept":
            kind = existing["type"]
        language = language or existing["language"] or ""
        if status == "developing" and not concept.evidence:
            status = existing["status"]
        last_review = existing["last_review"]
        reviewed_later = bool(last_review) and _aware(last_review or "") > ended
        if mastery is None or reviewed_later:
            mastery = existing["mastery"]
    return {
        "kind": "concept",
        "id": concept.id,
        "name": concept.name.strip() or (existing and existing["name"]) or "",
        "type": kind,
        "language": language,
        "status": status,
        "mastery": 0.0 if mastery is None else mastery,
        "lesson_id": (existing and existing["lesson_id"]) or concept.lesson_id or pending.lesson_id,
        "track": (existing and existing["track"]) or _track(pending.curriculum),
        "new": existing is None,
        "evidence": [
            {
                "attempt_id": a,
                "outcome": attempts[a]["outcome"] if a in attempts else None,
                "confidence": attempts[a]["confidence"] if a in attempts else None,
            }
            for a in concept.evidence
        ],
    }


def build_writes(store: Store, pending: PendingIngest) -> list[Write]:
    """Concepts (in the ingest's order), glossary terms (by term), the learning record, then a
    knowledge page per concept."""
    concept_ids = [c.id for c in pending.concepts]
    concepts = store.concepts.by_ids(concept_ids)
    evidence_ids = sorted(
        {a for c in pending.concepts for a in c.evidence} | set(pending.attempt_ids)
    )
    attempts = store.attempts.by_ids(evidence_ids)
    pages = {p["concept_id"] for p in store.records.knowledge_pages(concept_ids)}

    writes: list[Write] = []
    concept_writes: dict[str, ConceptWrite] = {}
    for concept in pending.concepts:
        w = concept_write(store, pending, concept, concepts.get(concept.id), attempts)
        concept_writes[concept.id] = w
        writes.append(w)
    for term in sorted(pending.glossary):
        writes.append(
            {
                "kind": "glossary",
                "id": f"glossary:{term.strip()}",
                "term": term.strip(),
                "definition": pending.glossary[term].strip(),
                "lesson_id": pending.lesson_id,
            }
        )
    writes.append(learning_record_write(pending, concept_writes, attempts))
    for concept in pending.concepts:
        steps = steps_for(pending, concept)
        if not steps and concept.id in pages:
            continue  # met again without being taught: its page stays as it was
        w = concept_writes[concept.id]
        writes.append(
            {
                "kind": "knowledge_page",
                "id": f"knowledge:{concept.id}",
                "concept_id": concept.id,
                "markdown": build_page(pending, concept, w["type"], w["language"], steps),
                "sources": page_sources(steps),
            }
        )
    return writes


def learning_record_write(
    pending: PendingIngest,
    concept_writes: dict[str, ConceptWrite],
    attempts: dict[str, AttemptRow],
) -> LearningRecordWrite:
    outcomes: dict[str, int] = {}
    for a in pending.attempt_ids:
        if a in attempts:
            outcome = attempts[a]["outcome"]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    payload = {
        "ingest_id": pending.id,
        "session_id": pending.session_id,
        "lesson_title": pending.lesson_title,
        "curriculum": pending.curriculum,
        "ended_at": pending.created_at,
        "verdict": dict(sorted(pending.verdict.items())),
        "plan": list(pending.plan),
        "taught": [s.title or s.step_id for s in pending.taught],
        **({"skipped": list(pending.skipped)} if pending.skipped else {}),
        "concepts": [
            {"id": w["id"], "name": w["name"], "status": w["status"], "type": w["type"]}
            for w in concept_writes.values()
        ],
        "glossary": sorted(t.strip() for t in pending.glossary),
        "attempts": len(pending.attempt_ids),
        "mistakes": len(pending.mistake_ids),
        "outcomes": dict(sorted(outcomes.items())),
        "sources": page_sources(pending.taught),
    }
    return {
        "kind": "learning_record",
        "id": f"record:{pending.lesson_id}",
        "lesson_id": pending.lesson_id,
        "payload": payload,
    }


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
