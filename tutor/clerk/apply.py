"""Writing an accepted batch. Every function here runs inside the caller's transaction and
compares before it writes, so a write that would change nothing touches nothing (not even an
`updated_at`). Each returns whether it changed a row."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from learning_system import scheduling
from learning_system.store import iso
from tutor.clerk.batch import Write

CONCEPT_FIELDS = ("name", "type", "language", "status", "mastery")


def _row(conn: sqlite3.Connection, sql: str, params: tuple) -> dict[str, Any] | None:
    cur = conn.execute(sql, params)
    found = cur.fetchone()
    if found is None:
        return None
    return dict(zip([d[0] for d in cur.description], found, strict=True))


def write_concept(conn: sqlite3.Connection, w: Write, *, now: datetime, ended: datetime) -> bool:
    existing = _row(conn, "SELECT * FROM concepts WHERE id = ?", (w["id"],))
    if existing is None:
        conn.execute(
            "INSERT INTO concepts (id, name, track, type, language, status, notes, lesson_id, "
            "card, interval_index, next_review, last_review, mastery, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, '', ?, NULL, 0, ?, NULL, ?, ?, ?)",
            (
                w["id"],
                w["name"],
                w["track"],
                w["type"],
                w["language"],
                w["status"],
                w["lesson_id"],
                iso(scheduling.first_due(w["type"], ended)),
                w["mastery"],
                iso(now),
                iso(now),
            ),
        )
        return True
    changed = {k: w[k] for k in CONCEPT_FIELDS if existing[k] != w[k]}
    if not changed:
        return False
    sets = ", ".join(f"{k} = :{k}" for k in changed)
    conn.execute(
        f"UPDATE concepts SET {sets}, updated_at = :now WHERE id = :id",
        {**changed, "now": iso(now), "id": w["id"]},
    )
    return True


def write_glossary(conn: sqlite3.Connection, w: Write) -> bool:
    existing = _row(conn, "SELECT * FROM glossary WHERE term = ?", (w["term"],))
    if (
        existing
        and existing["definition"] == w["definition"]
        and existing["lesson_id"] == w["lesson_id"]
    ):
        return False
    conn.execute(
        "INSERT OR REPLACE INTO glossary (term, definition, lesson_id) VALUES (?, ?, ?)",
        (w["term"], w["definition"], w["lesson_id"]),
    )
    return True


def write_learning_record(conn: sqlite3.Connection, w: Write) -> bool:
    payload = json.dumps(w["payload"], sort_keys=True, ensure_ascii=False)
    created = w["payload"].get("ended_at") or ""
    existing = _row(conn, "SELECT * FROM learning_records WHERE lesson_id = ?", (w["lesson_id"],))
    if existing and existing["payload"] == payload and existing["created_at"] == created:
        return False
    conn.execute(
        "INSERT OR REPLACE INTO learning_records (lesson_id, payload, created_at) VALUES (?, ?, ?)",
        (w["lesson_id"], payload, created),
    )
    return True


def write_knowledge_page(conn: sqlite3.Connection, w: Write, *, now: datetime) -> bool:
    sources = json.dumps(w["sources"], ensure_ascii=False)
    existing = _row(conn, "SELECT * FROM knowledge_pages WHERE concept_id = ?", (w["concept_id"],))
    if existing and existing["markdown"] == w["markdown"] and existing["sources"] == sources:
        return False
    conn.execute(
        "INSERT OR REPLACE INTO knowledge_pages (concept_id, markdown, sources, updated_at) "
        "VALUES (?, ?, ?, ?)",
        (w["concept_id"], w["markdown"], sources, iso(now)),
    )
    return True


def apply_writes(
    conn: sqlite3.Connection, writes: list[Write], *, now: datetime, ended: datetime
) -> int:
    """Write the batch; returns how many records changed."""
    changed = 0
    for w in writes:
        kind = w["kind"]
        if kind == "concept":
            changed += write_concept(conn, w, now=now, ended=ended)
        elif kind == "glossary":
            changed += write_glossary(conn, w)
        elif kind == "learning_record":
            changed += write_learning_record(conn, w)
        elif kind == "knowledge_page":
            changed += write_knowledge_page(conn, w, now=now)
        else:
            raise ValueError(f"unknown write kind {kind!r}")
    return changed
