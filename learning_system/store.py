"""The learner's store: one SQLite file, WAL, versioned schema with forward migrations.

Every write commits before it returns, with `synchronous=FULL`, so a write that returned survives
a killed process (and a power cut). Writes keyed by a client-chosen id are idempotent.
"""

from __future__ import annotations

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

__all__ = ["SessionConflict", "Store", "StoreBusy", "StoreError"]

if TYPE_CHECKING:
    import sqlite_utils

    from learning_system.session_lock import SessionLease
    from learning_system.tables.attempts import Attempts
    from learning_system.tables.concepts import Concepts
    from learning_system.tables.ingests import Ingests
    from learning_system.tables.mistakes import Mistakes
    from learning_system.tables.packs import Packs
    from learning_system.tables.receipts import ModelCalls, Receipts
    from learning_system.tables.records import Records
    from learning_system.tables.sessions import Sessions
    from learning_system.tables.sources import Digests, Sources

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
        self.lock = threading.RLock()
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

    @cached_property
    def receipts(self) -> Receipts:
        from learning_system.tables.receipts import Receipts

        return Receipts(self)

    @cached_property
    def model_calls(self) -> ModelCalls:
        from learning_system.tables.receipts import ModelCalls

        return ModelCalls(self)

    @cached_property
    def sources(self) -> Sources:
        from learning_system.tables.sources import Sources

        return Sources(self)

    @cached_property
    def digests(self) -> Digests:
        from learning_system.tables.sources import Digests

        return Digests(self)

    @cached_property
    def ingests(self) -> Ingests:
        from learning_system.tables.ingests import Ingests

        return Ingests(self)

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
        with self.lock:
            if self._closed:
                return
            callbacks, self._on_close = self._on_close, []
        for callback in reversed(callbacks):  # outside the lock: they may wait for threads
            callback()
        with self.lock:
            self._closed = True
            self.conn.close()

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run `callback` when the store closes (before the connection goes)."""
        with self.lock:
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
        with self.lock:
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
        with self.lock:
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
        with self.lock:
            try:
                return self.conn.execute(sql, params)
            except sqlite3.IntegrityError:
                raise
            except sqlite3.DatabaseError as exc:
                raise self._error(exc) from None

    def rows(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        with self.lock:
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

    # one writer per session: a lease token in settings, checked inside each session write ----
    def fence(self, session_id: str, token: str | None) -> None:
        """From now on this Store writes `session_id` only while the lease token in the store is
        `token` (None: stop checking)."""
        with self.lock:
            if token is None:
                self._fences.pop(session_id, None)
            else:
                self._fences[session_id] = token

    def check_fence(self, c: sqlite3.Connection, session_id: str) -> None:
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
