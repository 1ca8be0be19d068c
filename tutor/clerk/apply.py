"""Writing an accepted batch. The caller holds one transaction around the batch (every table
write joins it); each function here compares before it writes, so a write that would change
nothing touches nothing (not even an `updated_at`). Each returns whether it changed a row."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Literal

from learning_system import scheduling
from learning_system.store import Store, iso
from tutor.clerk.batch import (
    ConceptWrite,
    GlossaryWrite,
    KnowledgePageWrite,
    LearningRecordWrite,
    Write,
)

ConceptField = Literal["name", "type", "language", "status", "mastery"]
CONCEPT_FIELDS: tuple[ConceptField, ...] = ("name", "type", "language", "status", "mastery")


def write_concept(store: Store, w: ConceptWrite, *, now: datetime, ended: datetime) -> bool:
    existing = store.concepts.get(w["id"])
    if existing is None:
        store.concepts.insert(
            {
                "id": w["id"],
                "name": w["name"],
                "track": w["track"],
                "type": w["type"],
                "language": w["language"],
                "status": w["status"],
                "notes": "",
                "lesson_id": w["lesson_id"],
                "card": None,
                "interval_index": 0,
                "next_review": iso(scheduling.first_due(w["type"], ended)),
                "last_review": None,
                "mastery": w["mastery"],
                "created_at": iso(now),
                "updated_at": iso(now),
            }
        )
        return True
    changed: dict[str, object] = {k: w[k] for k in CONCEPT_FIELDS if existing[k] != w[k]}
    if not changed:
        return False
    store.concepts.update(w["id"], {**changed, "updated_at": iso(now)})
    return True


def write_glossary(store: Store, w: GlossaryWrite) -> bool:
    existing = store.records.glossary_term(w["term"])
    if (
        existing
        and existing["definition"] == w["definition"]
        and existing["lesson_id"] == w["lesson_id"]
    ):
        return False
    store.records.put_glossary(
        {"term": w["term"], "definition": w["definition"], "lesson_id": w["lesson_id"]}
    )
    return True


def write_learning_record(store: Store, w: LearningRecordWrite) -> bool:
    payload = json.dumps(w["payload"], sort_keys=True, ensure_ascii=False)
    created = w["payload"].get("ended_at") or ""
    existing = store.records.learning_record(w["lesson_id"])
    if existing and existing["payload"] == payload and existing["created_at"] == created:
        return False
    store.records.put_learning_record(
        {"lesson_id": w["lesson_id"], "payload": payload, "created_at": created}
    )
    return True


def write_knowledge_page(store: Store, w: KnowledgePageWrite, *, now: datetime) -> bool:
    sources = json.dumps(w["sources"], ensure_ascii=False)
    existing = store.records.knowledge_page(w["concept_id"])
    if existing and existing["markdown"] == w["markdown"] and existing["sources"] == sources:
        return False
    store.records.put_knowledge_page(
        {
            "concept_id": w["concept_id"],
            "markdown": w["markdown"],
            "sources": sources,
            "updated_at": iso(now),
        }
    )
    return True


def apply_writes(store: Store, writes: list[Write], *, now: datetime, ended: datetime) -> int:
    """Write the batch; returns how many records changed. Call it inside `store.transaction()`
    so the batch is all or nothing."""
    changed = 0
    for w in writes:
        if w["kind"] == "concept":
            changed += write_concept(store, w, now=now, ended=ended)
        elif w["kind"] == "glossary":
            changed += write_glossary(store, w)
        elif w["kind"] == "learning_record":
            changed += write_learning_record(store, w)
        elif w["kind"] == "knowledge_page":
            changed += write_knowledge_page(store, w, now=now)
        else:
            raise ValueError(f"unknown write kind {w['kind']!r}")
    return changed
