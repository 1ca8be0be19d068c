"""The finished lesson's pending ingest, built from what the session recorded: the concepts it
touched with their evidence, attempts, mistakes, glossary terms, verdicts, plan and the steps
taught with their receipts — for the Clerk to write into the learner's records."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from learning_system import ledger
from learning_system.curriculum import Curriculum, Lesson
from learning_system.ledger import ConceptStatus
from learning_system.outcome import IngestConcept, PendingIngest, TaughtStep
from learning_system.scheduling import concept_status as status_rule
from learning_system.store import Store, iso
from tutor.engine.concepts import evidence_for, lesson_concepts
from tutor.engine.records import Finish
from tutor.engine.selection import concept_id


def concept_status(store: Store, concept: str) -> ConceptStatus:
    """The status rule (learning_system.scheduling.concept_status) over every graded answer
    the store holds for the concept."""
    status = status_rule(
        (datetime.fromisoformat(a["created_at"]), a["outcome"], a["confidence"])
        for a in ledger.attempts(store, concept_id=concept)
    )
    return "advanced" if status == "advanced" else "held" if status == "held" else "developing"


def _lesson_text(lesson: Lesson) -> str:
    from learning_system.curriculum import lesson_document

    return lesson_document(lesson) or ""


def _names(curriculum: Curriculum, lesson: Lesson) -> dict[str, str]:
    """Concept names of the lesson and its prerequisites."""
    names = {concept_id(lesson): lesson.title}
    for ref in lesson.prerequisites:
        try:
            pre = curriculum.lesson(ref)
        except LookupError:
            continue
        names[concept_id(pre)] = pre.title
    return names


def _concepts(
    store: Store,
    curriculum: Curriculum,
    lesson: Lesson,
    attempts: list[dict[str, Any]],
    glossary: dict[str, str],
) -> list[IngestConcept]:
    """Each concept the session's answers touched, with those answers as evidence; then each
    of the lesson's own concepts not among them."""
    by_concept: dict[str, list[str]] = {}
    for a in attempts:
        if a["concept_id"]:
            by_concept.setdefault(a["concept_id"], []).append(a["id"])
    names = _names(curriculum, lesson)
    language = ", ".join(lesson.languages)
    concepts = [
        IngestConcept(
            id=cid,
            name=names.get(cid, cid),
            lesson_id=lesson.id,
            kind_hint=lesson.type,
            language=language,
            status_hint=concept_status(store, cid),
            evidence=ids,
        )
        for cid, ids in sorted(by_concept.items())
    ]
    own = [a for a in attempts if a["concept_id"] == concept_id(lesson)]
    known = {c.id for c in concepts}
    for c in lesson_concepts(lesson, glossary):  # each of the lesson's concepts
        if c["id"] not in known:
            concepts.append(
                IngestConcept(
                    id=c["id"],
                    name=c["name"],
                    lesson_id=lesson.id,
                    kind_hint=lesson.type,
                    language=language,
                    evidence=evidence_for(c, own),
                )
            )
    return concepts


def pending_ingest(
    store: Store, curriculum: Curriculum, lesson: Lesson, session_id: str, finish: Finish
) -> PendingIngest:
    attempts = ledger.attempts(store, session_id=session_id)
    mistakes = [
        m["id"] for m in ledger.mistakes(store) if m["attempt_id"].startswith(session_id + ":")
    ]
    text = _lesson_text(lesson)
    glossary = {
        term: meaning
        for term, meaning in sorted(curriculum.glossary.items())
        if re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE)
    }
    concepts = _concepts(store, curriculum, lesson, attempts, glossary)
    return PendingIngest(
        id=f"ingest:{session_id}",
        session_id=session_id,
        lesson_id=lesson.id,
        lesson_title=lesson.title,
        curriculum=str(curriculum.root),
        concepts=concepts,
        attempt_ids=[a["id"] for a in attempts],
        mistake_ids=mistakes,
        glossary=glossary,
        verdict=finish.verdicts,
        plan=finish.plan,
        taught=[
            TaughtStep(
                step_id=t.step_id,
                title=t.title,
                content=t.content,
                sources=t.sources,
                unverified=t.unverified,
                receipt_ids=[r["receipt_id"] for r in store.receipts.of_message(t.step_id)],
                concept_id=concept_id(lesson),
            )
            for t in finish.taught
        ],
        skipped=list(finish.skipped),
        created_at=iso(),
    )
