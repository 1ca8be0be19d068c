"""The learner's store: one SQLite file, WAL, versioned schema with forward migrations.

Every write commits before it returns, with `synchronous=FULL`, so a write that returned survives
a killed process (and a power cut). Writes keyed by a client-chosen id are idempotent.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from learning_system.store_errors import (
    SessionConflict,
    StoreBusy,
    StoreError,
    diagnose,
    is_busy,
    newer,
)
from learning_system.store_files import check_file, check_history, mark_answers
from learning_system.text import valid_data, valid_text

__all__ = ["SessionConflict", "Store", "StoreBusy", "StoreError"]

if TYPE_CHECKING:
    import sqlite_utils

    from learning_system.session_lock import SessionLease
    from learning_system.tables.attempts import Attempts
    from learning_system.tables.concepts import Concepts
    from learning_system.tables.mistakes import Mistakes
    from learning_system.tables.packs import Packs
    from learning_system.tables.records import Records
    from learning_system.tables.sessions import Sessions

T = TypeVar("T")
Params = Sequence[object] | Mapping[str, object]

SCHEMA_VERSION = 3

# How long a write waits for another program's write lock before giving up (seconds).
DEFAULT_WAIT = 30.0
# Tables every store of schema v1 or later has.
V1_TABLES = frozenset(
    {
        "settings",
        "concepts",
        "attempts",
        "mistakes",
        "sessions",
        "session_events",
        "session_notes",
        "receipts",
        "sources",
        "digests",
        "model_calls",
        "ingests",
        "glossary",
        "learning_records",
        "knowledge_pages",
    }
)
LEASE_PREFIX = "session-lease:"


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(when: datetime | None = None) -> str:
    return (when or utcnow()).astimezone(UTC).isoformat(timespec="microseconds")


def _v1(db: sqlite_utils.Database) -> None:
    db.table("settings").create({"key": str, "value": str}, pk="key")
    db.table("concepts").create(
        {
            "id": str,
            "name": str,
            "track": str,
            "type": str,
            "language": str,
            "status": str,
            "notes": str,
            "lesson_id": str,
            "card": str,
            "interval_index": int,
            "next_review": str,
            "last_review": str,
            "mastery": float,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        defaults={"status": "developing", "type": "concept", "interval_index": 0, "mastery": 0.0},
    )
    db.table("concepts").create_index(["next_review"])
    db.table("attempts").create(
        {
            "id": str,
            "session_id": str,
            "lesson_id": str,
            "concept_id": str,
            "item_id": str,
            "kind": str,
            "answer": str,
            "outcome": str,
            "confidence": str,
            "feynman": int,
            "payload": str,
            "created_at": str,
        },
        pk="id",
    )
    db.table("attempts").create_index(["concept_id", "created_at"])
    db.table("attempts").create_index(["session_id"])
    db.table("mistakes").create(
        {
            "id": str,
            "attempt_id": str,
            "concept_id": str,
            "item_id": str,
            "lesson_id": str,
            "error_type": str,
            "attribution": str,
            "status": str,
            "retest_early": int,
            "item": str,
            "next_review": str,
            "created_at": str,
            "resolved_at": str,
        },
        pk="id",
        defaults={"status": "open", "retest_early": 0},
    )
    db.table("mistakes").create_index(["status", "next_review"])
    db.table("sessions").create(
        {
            "id": str,
            "lesson_id": str,
            "curriculum": str,
            "status": str,
            "position": str,
            "state": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
    )
    db.table("session_events").create(
        {"session_id": str, "seq": int, "kind": str, "payload": str, "created_at": str},
        pk=("session_id", "seq"),
    )
    db.table("session_notes").create(
        {"id": str, "session_id": str, "kind": str, "body": str, "created_at": str}, pk="id"
    )
    db.table("receipts").create(
        {
            "receipt_id": str,
            "message_id": str,
            "gate": str,
            "outcome": str,
            "payload": str,
            "created_at": str,
        },
        pk="receipt_id",
    )
    db.table("receipts").create_index(["message_id"])
    db.table("sources").create(
        {"url": str, "hash": str, "status": str, "excerpt": str, "reason": str, "seen_at": str},
        pk="url",
    )
    db.table("digests").create(
        {"id": str, "lesson_id": str, "payload": str, "created_at": str}, pk="id"
    )
    db.table("digests").create_index(["lesson_id", "created_at"])
    db.table("model_calls").create(
        {
            "call_id": str,
            "provider": str,
            "model": str,
            "purpose": str,
            "tokens_in": int,
            "tokens_out": int,
            "latency_ms": float,
            "outcome": str,
            "error_kind": str,
            "prompt": str,
            "created_at": str,
        },
        pk="call_id",
    )
    db.table("ingests").create(
        {
            "id": str,
            "session_id": str,
            "lesson_id": str,
            "status": str,
            "payload": str,
            "reasons": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
    )
    db.table("glossary").create({"term": str, "definition": str, "lesson_id": str}, pk="term")
    db.table("learning_records").create(
        {"lesson_id": str, "payload": str, "created_at": str}, pk="lesson_id"
    )
    db.table("knowledge_pages").create(
        {"concept_id": str, "markdown": str, "sources": str, "updated_at": str}, pk="concept_id"
    )


def _v2(conn: sqlite3.Connection) -> None:
    """An index in the due queue's order: open mistakes by early retest, then oldest due."""
    conn.execute(
        "CREATE INDEX IF NOT EXISTS idx_mistakes_due ON mistakes "
        "(status, retest_early, next_review, id)"
    )


def _v3(conn: sqlite3.Connection) -> None:
    """Knowledge packs: one row per pack build (tutor/dossier), kept for audit."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS knowledge_packs ("
        "id TEXT PRIMARY KEY, curriculum TEXT NOT NULL, lesson_id TEXT NOT NULL, "
        "fingerprint TEXT NOT NULL, schema TEXT NOT NULL, state TEXT NOT NULL, pack TEXT, "
        "problems TEXT NOT NULL DEFAULT '[]', error TEXT, tokens_in INTEGER NOT NULL DEFAULT 0, "
        "tokens_out INTEGER NOT NULL DEFAULT 0, seconds REAL NOT NULL DEFAULT 0, "
        "built_at TEXT NOT NULL)"
    )
    conn.execute(
        "CREATE INDEX IF NOT EXISTS idx_knowledge_packs_lesson ON knowledge_packs "
        "(curriculum, lesson_id, built_at)"
    )


def _with_sqlite_utils(
    step: Callable[[sqlite_utils.Database], None],
) -> Callable[[sqlite3.Connection], None]:
    """A migration written with sqlite-utils, imported only when that migration runs."""

    def run(conn: sqlite3.Connection) -> None:
        import sqlite_utils

        step(sqlite_utils.Database(conn))

    return run


# MIGRATIONS[i] brings a store from version i to version i + 1. Append only. Later migrations
# are plain SQL, so opening a migrated store never imports sqlite-utils.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_with_sqlite_utils(_v1), _v2, _v3]
assert len(MIGRATIONS) == SCHEMA_VERSION


class Store:
    """One learner's store. Safe to share between threads of one process (calls are serialised)."""

    def __init__(
        self,
        path: Path | str,
        *,
        wait: float = DEFAULT_WAIT,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.wait = wait
        self.notify = notify
        self._lock = threading.RLock()
        self._fences: dict[str, str] = {}
        self._on_close: list[Callable[[], None]] = []
        self.leases: dict[str, SessionLease] = {}  # by session id (session_lock.py)
        self._closed = False
        self._depth = 0  # transactions open on the thread holding the lock
        self._after_commit: list[Callable[[], None]] = []
        check_file(self.path, SCHEMA_VERSION, V1_TABLES)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder for {self.path}: {exc.strerror}. "
                "Set TUTOR_HOME to a folder you can write to."
            ) from None
        conn = self._until_free(self._connect)
        try:
            # switching a fresh file to WAL can meet another tutor's lock without SQLite's busy
            # handler being called (it would deadlock), so it is retried like a busy BEGIN
            self._until_free(lambda: conn.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=FULL")
            check_history(conn, self.path)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise self._error(exc) from None
        except StoreError:
            conn.close()
            raise
        self.conn = conn
        self._migrate()

    # the tables (learning_system/tables/): the rest of the store layer's SQL, each imported on
    # first use so that a command imports only the tables it reads
    @cached_property
    def attempts(self) -> Attempts:
        from learning_system.tables.attempts import Attempts

        return Attempts(self)

    @cached_property
    def mistakes(self) -> Mistakes:
        from learning_system.tables.mistakes import Mistakes

        return Mistakes(self)

    @cached_property
    def concepts(self) -> Concepts:
        from learning_system.tables.concepts import Concepts

        return Concepts(self)

    @cached_property
    def packs(self) -> Packs:
        from learning_system.tables.packs import Packs

        return Packs(self)

    @cached_property
    def records(self) -> Records:
        from learning_system.tables.records import Records

        return Records(self)

    @cached_property
    def sessions(self) -> Sessions:
        from learning_system.tables.sessions import Sessions

        return Sessions(self)

    @property
    def db(self) -> sqlite_utils.Database:
        """The connection through sqlite-utils (imported on first use, for tools and tests)."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def _connect(self) -> sqlite3.Connection:
        """The read-write connection, once the file passed its checks."""
        return sqlite3.connect(
            str(self.path),
            isolation_level=None,
            check_same_thread=False,
            timeout=min(self.wait, 1.0),
        )

    def _until_free(self, action: Callable[[], T]) -> T:
        """`action`, tried again while another program holds the lock (saying so once), until
        `self.wait` seconds have passed; then StoreBusy with the time actually waited."""
        start = time.monotonic()
        told = False
        while True:
            try:
                return action()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise self._error(exc) from None
                if not told and self.notify is not None:
                    self.notify(
                        f"waiting for {self.path.name}: another program is writing to it "
                        f"(giving up after {self.wait:g} s)"
                    )
                told = True
                waited = time.monotonic() - start
                if waited >= self.wait:
                    raise self._error(exc, waited) from None
                time.sleep(0.01)

    def _migrate(self) -> None:
        """Forward migrations, one transaction per version. The version is read again inside
        each transaction, so two tutors opening a fresh home at once migrate it once."""
        while True:
            with self.transaction() as c:
                version = int(c.execute("PRAGMA user_version").fetchone()[0])
                if version > SCHEMA_VERSION:
                    raise newer(self.path, version, SCHEMA_VERSION)
                if version == SCHEMA_VERSION:
                    return
                MIGRATIONS[version](self.conn)
                c.execute(f"PRAGMA user_version={version + 1}")

    def _error(self, exc: sqlite3.Error, waited: float | None = None) -> StoreError:
        return diagnose(self.path, exc, waited)

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            callbacks, self._on_close = self._on_close, []
        for callback in reversed(callbacks):  # outside the lock: they may wait for threads
            callback()
        with self._lock:
            self._closed = True
            self.conn.close()

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run `callback` when the store closes (before the connection goes)."""
        with self._lock:
            self._on_close.append(callback)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All or nothing; committed (and durable) when the block exits. Waits (saying so once)
        while another program holds the write lock, then gives up with StoreBusy. A transaction
        opened inside another on the same thread joins it: it commits or rolls back with the
        outer one (so a batch of table writes is all or nothing)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.conn
                finally:
                    self._depth -= 1
                return
            self._begin()
            self._depth = 1
            try:
                yield self.conn
            except sqlite3.DatabaseError as exc:
                self._rollback()
                if isinstance(exc, sqlite3.IntegrityError):
                    raise
                raise self._error(exc) from None
            except BaseException:
                self._rollback()
                raise
            finally:
                self._depth = 0
            try:
                self.conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._rollback()
                raise self._error(exc) from None
            callbacks, self._after_commit = self._after_commit, []
            for callback in callbacks:
                callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the open transaction has committed (now, when none is open);
        never when it rolls back."""
        with self._lock:
            if self._depth:
                self._after_commit.append(callback)
                return
        callback()

    def mark_answers(self) -> None:
        """Note beside the store how many answers it holds (store_files.check_history)."""
        highest = self.execute("SELECT coalesce(max(rowid), 0) FROM attempts").fetchone()[0]
        mark_answers(self.path, int(highest))

    def _begin(self) -> None:
        self._until_free(lambda: self.conn.execute("BEGIN IMMEDIATE"))

    def _rollback(self) -> None:
        self._after_commit = []
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.DatabaseError:  # a failed COMMIT may have rolled back already
                pass

    def execute(self, sql: str, params: Params = ()) -> sqlite3.Cursor:
        with self._lock:
            try:
                return self.conn.execute(sql, params)
            except sqlite3.IntegrityError:
                raise
            except sqlite3.DatabaseError as exc:
                raise self._error(exc) from None

    def rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        with self._lock:
            try:
                cur = self.conn.execute(sql, params)
                names = [d[0] for d in cur.description]
                return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
            except sqlite3.DatabaseError as exc:
                raise self._error(exc) from None

    def health(self) -> dict[str, Any]:
        ok = self.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        return {"path": str(self.path), "schema_version": self.schema_version, "ok": ok}

    # settings -----------------------------------------------------------------------------
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self.transaction() as c:
            c.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    def delete_setting(self, key: str, value: str) -> None:
        """Remove `key` if it still holds `value` (a lease released only by its holder)."""
        with self.transaction() as c:
            c.execute("DELETE FROM settings WHERE key = ? AND value = ?", (key, value))

    # sessions, their event log and notes ---------------------------------------------------
    def save_session(
        self,
        session_id: str,
        lesson_id: str,
        curriculum: str,
        status: str,
        position: str,
        state: dict[str, Any],
    ) -> None:
        now = iso()
        with self.transaction() as c:
            self._check_fence(c, session_id)
            c.execute(
                "INSERT INTO sessions (id, lesson_id, curriculum, status, position, state, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO "
                "UPDATE SET status=excluded.status, position=excluded.position, "
                "state=excluded.state, updated_at=excluded.updated_at",
                (
                    session_id,
                    lesson_id,
                    curriculum,
                    status,
                    valid_text(position),
                    json.dumps(valid_data(state)),
                    now,
                    now,
                ),
            )

    def session(self, session_id: str) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return _decode(rows[0], "state") if rows else None

    def latest_session(
        self, curriculum: str | None = None, status: str | None = None
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

    def latest_unfinished_session(self) -> dict[str, Any] | None:
        """The latest session not done or abandoned, whatever its curriculum."""
        rows = self.rows(
            "SELECT * FROM sessions WHERE status NOT IN ('done', 'abandoned') "
            "ORDER BY updated_at DESC, rowid DESC LIMIT 1"
        )
        return _decode(rows[0], "state") if rows else None

    def append_event(self, session_id: str, seq: int, kind: str, payload: dict[str, Any]) -> bool:
        """Append action `seq` of a session; a retried append of the same event adds nothing
        (False). A different event already at `seq` — another tutor writing the same session —
        raises SessionConflict: an answer is never silently dropped. Text is stored valid."""
        body = json.dumps(valid_data(payload), sort_keys=True)
        with self.transaction() as c:
            self._check_fence(c, session_id)
            cur = c.execute(
                "INSERT OR IGNORE INTO session_events (session_id, seq, kind, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (session_id, seq, kind, body, iso()),
            )
            if cur.rowcount == 1:
                return True
            row = c.execute(
                "SELECT kind, payload FROM session_events WHERE session_id = ? AND seq = ?",
                (session_id, seq),
            ).fetchone()
        if row is not None and (row[0], row[1]) == (kind, body):
            return False
        raise SessionConflict(
            f"session {session_id} already has a different event {seq}: another tutor is "
            "writing to this lesson. Nothing of yours was overwritten; close the other tutor and "
            "run `tutor continue`."
        )

    # one writer per session: a lease token in settings, checked inside each session write ----
    def fence(self, session_id: str, token: str | None) -> None:
        """From now on this Store writes `session_id` only while the lease token in the store is
        `token` (None: stop checking)."""
        with self._lock:
            if token is None:
                self._fences.pop(session_id, None)
            else:
                self._fences[session_id] = token

    def _check_fence(self, c: sqlite3.Connection, session_id: str) -> None:
        token = self._fences.get(session_id)
        if token is None:
            return
        row = c.execute(
            "SELECT value FROM settings WHERE key = ?", (LEASE_PREFIX + session_id,)
        ).fetchone()
        if row is None or row[0] != token:
            raise SessionConflict(
                "this lesson was taken over by another tutor (`tutor continue --take-over`); "
                "everything you answered before this line is saved there. Nothing more is written "
                "here."
            )

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
                (note_id, session_id, kind, json.dumps(valid_data(body), sort_keys=True), iso()),
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
        self,
        receipt_id: str,
        message_id: str,
        gate: str,
        outcome: str,
        payload: dict[str, Any],
        when: datetime | None = None,
    ) -> None:
        body = json.dumps(payload, sort_keys=True)
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO receipts (receipt_id, message_id, gate, outcome, payload, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (receipt_id, message_id, gate, outcome, body, iso(when)),
            )

    def receipts_for(self, message_id: str) -> list[dict[str, Any]]:
        rows = self.rows(
            "SELECT * FROM receipts WHERE message_id = ? ORDER BY created_at, receipt_id",
            (message_id,),
        )
        return [_decode(r, "payload") for r in rows]

    def receipts_of_session(self, session_id: str) -> list[dict[str, Any]]:
        """The receipts of every turn of one session (message ids `<session>:…`)."""
        rows = self.rows(
            "SELECT * FROM receipts WHERE message_id >= ? AND message_id < ? "
            "ORDER BY created_at, receipt_id",
            (f"{session_id}:", f"{session_id};"),
        )
        return [_decode(r, "payload") for r in rows]

    # model calls (never the key; the prompt only when the learner turned debug on) ----------
    def record_model_call(
        self,
        call_id: str,
        provider: str,
        model: str,
        purpose: str,
        tokens_in: int,
        tokens_out: int,
        latency_ms: float,
        outcome: str,
        error_kind: str | None = None,
        prompt: str | None = None,
    ) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO model_calls (call_id, provider, model, purpose, tokens_in, "
                "tokens_out, latency_ms, outcome, error_kind, prompt, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    call_id,
                    provider,
                    model,
                    purpose,
                    tokens_in,
                    tokens_out,
                    latency_ms,
                    outcome,
                    error_kind,
                    prompt,
                    iso(),
                ),
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
    def save_ingest(
        self, ingest_id: str, session_id: str, lesson_id: str, payload: dict[str, Any]
    ) -> None:
        now = iso()
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO ingests (id, session_id, lesson_id, status, payload, "
                "reasons, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, '[]', ?, ?)",
                (ingest_id, session_id, lesson_id, json.dumps(payload, sort_keys=True), now, now),
            )

    def ingests(self, status: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM ingests", []
        if status is not None:
            sql, params = sql + " WHERE status = ?", [status]
        rows = self.rows(sql + " ORDER BY created_at, id", params)
        for r in rows:
            r["payload"] = json.loads(r["payload"])
            r["reasons"] = json.loads(r["reasons"] or "[]")
        return rows

    def ingest_status(self, ingest_id: str) -> tuple[str, list[str]] | None:
        """An ingest's status and reasons; None when there is no such ingest."""
        rows = self.rows("SELECT status, reasons FROM ingests WHERE id = ?", (ingest_id,))
        return (rows[0]["status"], json.loads(rows[0]["reasons"] or "[]")) if rows else None

    def set_ingest_status(
        self, ingest_id: str, status: str, reasons: list[str], when: datetime | None = None
    ) -> None:
        with self.transaction() as c:
            c.execute(
                "UPDATE ingests SET status = ?, reasons = ?, updated_at = ? WHERE id = ?",
                (status, json.dumps(reasons), iso(when), ingest_id),
            )

    # what the home screen counts ------------------------------------------------------------
    def home_counts(self, at: str, ends: list[str]) -> dict[str, Any]:
        """Counted in SQL: open mistakes and concepts due at `at` (an ISO time), concepts by
        status, their mean mastery, and `due_days`: how many of both come due in each window
        ending at `ends` (ISO times, ascending), the first counting everything due before it."""
        with self._lock:
            due_mistakes, due_concepts, mastery = self.execute(
                "SELECT (SELECT count(*) FROM mistakes WHERE status = 'open' "
                "AND next_review <= :at), "
                "(SELECT count(*) FROM concepts WHERE next_review <= :at), "
                "(SELECT avg(mastery) FROM concepts)",
                {"at": at},
            ).fetchone()
            by_status = self.execute(
                "SELECT status, count(*) FROM concepts GROUP BY status"
            ).fetchall()
            before = (
                [
                    n or 0
                    for n in self.execute(
                        "WITH due(at) AS (SELECT next_review FROM mistakes WHERE status = 'open' "
                        "AND next_review < :last UNION ALL SELECT next_review FROM concepts "
                        "WHERE next_review < :last) SELECT "
                        + ", ".join(
                            f"count(CASE WHEN at < :e{i} THEN 1 END)" for i in range(len(ends))
                        )
                        + " FROM due WHERE at != ''",
                        {"last": ends[-1], **{f"e{i}": end for i, end in enumerate(ends)}},
                    ).fetchone()
                ]
                if ends
                else []
            )
        return {
            "due_mistakes": due_mistakes,
            "due_concepts": due_concepts,
            "concepts": dict(by_status),
            "mastery": None if mastery is None else round(mastery, 2),
            "due_days": [n - (before[i - 1] if i else 0) for i, n in enumerate(before)],
        }

    def answers_since(self, since: str, limit: int) -> list[tuple[str, str, str | None]]:
        """(created_at, outcome, confidence) of the graded answers from `since` (ISO), oldest
        first; the latest `limit` of them."""
        rows = self.execute(
            "SELECT created_at, outcome, confidence FROM attempts WHERE outcome != 'pending' "
            "AND created_at >= ? ORDER BY created_at DESC LIMIT ?",
            (since, limit),
        ).fetchall()
        return rows[::-1]

    def quiz_score(self, session_id: str) -> tuple[int, int]:
        """(right, asked) of the session's quiz answers."""
        right, total = self.execute(
            "SELECT count(CASE WHEN outcome = 'correct' THEN 1 END), count(*) FROM attempts "
            "WHERE session_id = ? AND kind = 'quiz'",
            (session_id,),
        ).fetchone()
        return right, total


def _decode(row: dict[str, Any], field: str) -> dict[str, Any]:
    value = row.get(field)
    row[field] = json.loads(value) if value else {}
    return row
