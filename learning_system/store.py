"""The learner's store: one SQLite file, WAL, versioned schema with forward migrations.

Every write commits before it returns, with `synchronous=FULL`, so a write that returned survives
a killed process (and a power cut). Writes keyed by a client-chosen id are idempotent.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from learning_system.errors import LearningSystemError

SCHEMA_VERSION = 1


class StoreError(LearningSystemError):
    """The store cannot be used as it is; the message says why and what to do."""

    title = "Store problem"


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(when: datetime | None = None) -> str:
    return (when or utcnow()).astimezone(UTC).isoformat(timespec="microseconds")


def _v1(db: sqlite_utils.Database) -> None:
    db["settings"].create({"key": str, "value": str}, pk="key")
    db["concepts"].create(
        {
            "id": str, "name": str, "track": str, "type": str, "language": str,
            "status": str, "notes": str, "lesson_id": str, "card": str,
            "interval_index": int, "next_review": str, "last_review": str,
            "mastery": float, "created_at": str, "updated_at": str,
        },
        pk="id",
        defaults={"status": "developing", "type": "concept", "interval_index": 0, "mastery": 0.0},
    )
    db["concepts"].create_index(["next_review"])
    db["attempts"].create(
        {
            "id": str, "session_id": str, "lesson_id": str, "concept_id": str, "item_id": str,
            "kind": str, "answer": str, "outcome": str, "confidence": str, "feynman": int,
            "payload": str, "created_at": str,
        },
        pk="id",
    )
    db["attempts"].create_index(["concept_id", "created_at"])
    db["attempts"].create_index(["session_id"])
    db["mistakes"].create(
        {
            "id": str, "attempt_id": str, "concept_id": str, "item_id": str, "lesson_id": str,
            "error_type": str, "attribution": str, "status": str, "retest_early": int,
            "item": str, "next_review": str, "created_at": str, "resolved_at": str,
        },
        pk="id",
        defaults={"status": "open", "retest_early": 0},
    )
    db["mistakes"].create_index(["status", "next_review"])
    db["sessions"].create(
        {
            "id": str, "lesson_id": str, "curriculum": str, "status": str, "position": str,
            "state": str, "created_at": str, "updated_at": str,
        },
        pk="id",
    )
    db["session_events"].create(
        {"session_id": str, "seq": int, "kind": str, "payload": str, "created_at": str},
        pk=("session_id", "seq"),
    )
    db["session_notes"].create(
        {"id": str, "session_id": str, "kind": str, "body": str, "created_at": str}, pk="id"
    )
    db["receipts"].create(
        {
            "receipt_id": str, "message_id": str, "gate": str, "outcome": str,
            "payload": str, "created_at": str,
        },
        pk="receipt_id",
    )
    db["receipts"].create_index(["message_id"])
    db["sources"].create(
        {"url": str, "hash": str, "status": str, "excerpt": str, "reason": str, "seen_at": str},
        pk="url",
    )
    db["digests"].create(
        {"id": str, "lesson_id": str, "payload": str, "created_at": str}, pk="id"
    )
    db["digests"].create_index(["lesson_id", "created_at"])
    db["model_calls"].create(
        {
            "call_id": str, "provider": str, "model": str, "purpose": str, "tokens_in": int,
            "tokens_out": int, "latency_ms": float, "outcome": str, "error_kind": str,
            "prompt": str, "created_at": str,
        },
        pk="call_id",
    )
    db["ingests"].create(
        {
            "id": str, "session_id": str, "lesson_id": str, "status": str, "payload": str,
            "reasons": str, "created_at": str, "updated_at": str,
        },
        pk="id",
    )
    db["glossary"].create({"term": str, "definition": str, "lesson_id": str}, pk="term")
    db["learning_records"].create(
        {"lesson_id": str, "payload": str, "created_at": str}, pk="lesson_id"
    )
    db["knowledge_pages"].create(
        {"concept_id": str, "markdown": str, "sources": str, "updated_at": str}, pk="concept_id"
    )


# MIGRATIONS[i] brings a store from version i to version i + 1. Append only.
MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1]
assert len(MIGRATIONS) == SCHEMA_VERSION


class Store:
    """One learner's store. Safe to share between threads of one process (calls are serialised)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=10
            )
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not a readable tutor store ({exc}). It was left untouched; "
                "move it aside (or set TUTOR_HOME to another folder) and run the command again."
            ) from None
        if version > SCHEMA_VERSION:
            conn.close()
            raise StoreError(
                f"{self.path} was written by a newer tutor (store schema v{version}; this tutor "
                f"knows up to v{SCHEMA_VERSION}). It was left untouched: upgrade tutor to open it."
            )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self._migrate(version)

    def _migrate(self, version: int) -> None:
        while version < SCHEMA_VERSION:
            with self.transaction():
                MIGRATIONS[version](self.db)
                version += 1
                self.conn.execute(f"PRAGMA user_version={version}")

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All or nothing; committed (and durable) when the block exits."""
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def execute(self, sql: str, params: tuple | dict = ()) -> sqlite3.Cursor:
        with self._lock:
            return self.conn.execute(sql, params)

    def rows(self, sql: str, params: tuple | dict = ()) -> list[dict[str, Any]]:
        with self._lock:
            cur = self.conn.execute(sql, params)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def health(self) -> dict[str, Any]:
        ok = self.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        return {"path": str(self.path), "schema_version": self.schema_version, "ok": ok}

    # settings -----------------------------------------------------------------------------
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self.transaction() as c:
            c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    # sessions, their event log and notes ---------------------------------------------------
    def save_session(
        self, session_id: str, lesson_id: str, curriculum: str, status: str, position: str,
        state: dict[str, Any],
    ) -> None:
        now = iso()
        with self.transaction() as c:
            c.execute(
                "INSERT INTO sessions (id, lesson_id, curriculum, status, position, state, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO "
                "UPDATE SET status=excluded.status, position=excluded.position, "
                "state=excluded.state, updated_at=excluded.updated_at",
                (session_id, lesson_id, curriculum, status, position, json.dumps(state), now, now),
            )

    def session(self, session_id: str) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return _decode(rows[0], "state") if rows else None

    def latest_session(self, curriculum: str | None = None, status: str | None = None
                       ) -> dict[str, Any] | None:
        sql, params = "SELECT * FROM sessions WHERE 1=1", []
        if curriculum is not None:
            sql += " AND curriculum = ?"
            params.append(curriculum)
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        rows = self.rows(sql + " ORDER BY updated_at DESC, rowid DESC LIMIT 1", tuple(params))
        return _decode(rows[0], "state") if rows else None

    def append_event(self, session_id: str, seq: int, kind: str, payload: dict[str, Any]) -> bool:
        """Append action `seq` of a session; a retried append of the same seq adds nothing."""
        with self.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO session_events (session_id, seq, kind, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (session_id, seq, kind, json.dumps(payload, sort_keys=True), iso()),
            )
            return cur.rowcount == 1

    def events(self, session_id: str) -> list[dict[str, Any]]:
        rows = self.rows(
            "SELECT seq, kind, payload, created_at FROM session_events WHERE session_id = ? "
            "ORDER BY seq",
            (session_id,),
        )
        return [_decode(r, "payload") for r in rows]

    def add_note(self, note_id: str, session_id: str, kind: str, body: dict[str, Any]) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO session_notes (id, session_id, kind, body, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (note_id, session_id, kind, json.dumps(body, sort_keys=True), iso()),
            )

    def notes(self, session_id: str | None = None) -> list[dict[str, Any]]:
        if session_id is None:
            rows = self.rows("SELECT * FROM session_notes ORDER BY created_at, id")
        else:
            rows = self.rows(
                "SELECT * FROM session_notes WHERE session_id = ? ORDER BY created_at, id",
                (session_id,),
            )
        return [_decode(r, "body") for r in rows]

    # gate receipts ---------------------------------------------------------------------------
    def save_receipt(
        self, receipt_id: str, message_id: str, gate: str, outcome: str, payload: dict[str, Any]
    ) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO receipts (receipt_id, message_id, gate, outcome, payload, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (receipt_id, message_id, gate, outcome, json.dumps(payload, sort_keys=True), iso()),
            )

    def receipts_for(self, message_id: str) -> list[dict[str, Any]]:
        rows = self.rows(
            "SELECT * FROM receipts WHERE message_id = ? ORDER BY created_at, receipt_id",
            (message_id,),
        )
        return [_decode(r, "payload") for r in rows]

    # model calls (never the key; the prompt only when the learner turned debug on) ----------
    def record_model_call(
        self, call_id: str, provider: str, model: str, purpose: str, tokens_in: int,
        tokens_out: int, latency_ms: float, outcome: str, error_kind: str | None = None,
        prompt: str | None = None,
    ) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO model_calls (call_id, provider, model, purpose, tokens_in, "
                "tokens_out, latency_ms, outcome, error_kind, prompt, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (call_id, provider, model, purpose, tokens_in, tokens_out, latency_ms, outcome,
                 error_kind, prompt, iso()),
            )

    def model_calls(self) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM model_calls ORDER BY created_at, call_id")

    # sources and digests (hashes and excerpts only; content is never cached) ---------------
    def last_source(self, url: str) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM sources WHERE url = ?", (url,))
        return rows[0] if rows else None

    def record_source(
        self, url: str, hash: str | None, status: str, excerpt: str, reason: str | None = None
    ) -> None:
        """Remember what a source looked like. An unreachable source keeps its last good hash."""
        with self.transaction() as c:
            if hash is None:
                c.execute(
                    "INSERT INTO sources (url, hash, status, excerpt, reason, seen_at) "
                    "VALUES (?, NULL, ?, '', ?, ?) ON CONFLICT(url) DO UPDATE SET "
                    "status=excluded.status, reason=excluded.reason, seen_at=excluded.seen_at",
                    (url, status, reason, iso()),
                )
            else:
                c.execute(
                    "INSERT OR REPLACE INTO sources (url, hash, status, excerpt, reason, seen_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (url, hash, status, excerpt, reason, iso()),
                )

    def save_digest(self, digest_id: str, lesson_id: str, payload: dict[str, Any]) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO digests (id, lesson_id, payload, created_at) "
                "VALUES (?, ?, ?, ?)",
                (digest_id, lesson_id, json.dumps(payload, sort_keys=True), iso()),
            )

    def digest(self, digest_id: str) -> dict[str, Any] | None:
        rows = self.rows("SELECT payload FROM digests WHERE id = ?", (digest_id,))
        return json.loads(rows[0]["payload"]) if rows else None

    def latest_digest(self, lesson_id: str) -> dict[str, Any] | None:
        rows = self.rows(
            "SELECT payload FROM digests WHERE lesson_id = ? ORDER BY created_at DESC LIMIT 1",
            (lesson_id,),
        )
        return json.loads(rows[0]["payload"]) if rows else None

    # pending ingests (the Tutor writes them at a lesson's end; the Clerk consumes them) --------
    def save_ingest(self, ingest_id: str, session_id: str, lesson_id: str,
                    payload: dict[str, Any]) -> None:
        now = iso()
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO ingests (id, session_id, lesson_id, status, payload, "
                "reasons, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, '[]', ?, ?)",
                (ingest_id, session_id, lesson_id, json.dumps(payload, sort_keys=True), now, now),
            )

    def ingests(self, status: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM ingests", ()
        if status is not None:
            sql, params = sql + " WHERE status = ?", (status,)
        rows = self.rows(sql + " ORDER BY created_at, id", params)
        for r in rows:
            r["payload"] = json.loads(r["payload"])
            r["reasons"] = json.loads(r["reasons"] or "[]")
        return rows

    def set_ingest_status(self, ingest_id: str, status: str, reasons: list[str]) -> None:
        with self.transaction() as c:
            c.execute(
                "UPDATE ingests SET status = ?, reasons = ?, updated_at = ? WHERE id = ?",
                (status, json.dumps(reasons), iso(), ingest_id),
            )


def _decode(row: dict[str, Any], field: str) -> dict[str, Any]:
    value = row.get(field)
    row[field] = json.loads(value) if value else {}
    return row
