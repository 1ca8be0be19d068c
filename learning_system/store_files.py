"""The store's files before SQLite opens them for writing: the read-only opening checks, and
the answers marker kept beside the store (it knows the store had answers when the store itself
may not)."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Set
from pathlib import Path

from learning_system.store_errors import (
    StoreError,
    StoreHistoryLost,
    StorePermission,
    damaged,
    diagnose,
    foreign,
    is_busy,
    newer,
)

SQLITE_MAGIC = b"SQLite format 3\x00"
# Opening runs `PRAGMA quick_check` when the file is at most this big, or when it was not closed
# cleanly (a non-empty `-wal` is left); a bigger, cleanly closed store gets the cheap checks only.
QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024


def check_file(path: Path, known: int, tables_of_v1: Set[str]) -> None:
    """Refuse, read-only and without SQLite writing anything, a path that is not a store this
    tutor (knowing schema versions up to `known`) can open: a dangling or looping symlink, a
    special file, a file that is not SQLite, a damaged file, a newer schema. A missing or empty
    file is a fresh store."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise StoreError(
                f"{path} is a symlink to nothing ({os.readlink(path)}). Fix or "
                "remove the link, or set TUTOR_HOME to another folder."
            ) from None
        return
    except OSError as exc:  # ELOOP (a symlink loop), EACCES, ...
        raise StorePermission(_unreadable(path, exc)) from None
    if not stat.S_ISREG(info.st_mode):
        raise foreign(path, "not a regular file")
    if info.st_size == 0:
        return
    try:
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise StorePermission(_unreadable(path, exc)) from None
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise foreign(path, "not an SQLite file")
    flaw = _header_flaw(header)
    if flaw:
        raise damaged(path, f"its SQLite header is not valid: {flaw}")
    _check_writable(path)
    _check_contents(path, info.st_size, known, tables_of_v1)


def _unreadable(path: Path, exc: OSError) -> str:
    return (
        f"{path} cannot be read ({exc.strerror}); it was left untouched. Give your user read "
        "and write access to it and its folder (or fix the link), or set TUTOR_HOME to another "
        "folder, and run the command again."
    )


def _header_flaw(header: bytes) -> str:
    """What makes a 100-byte SQLite header impossible (the fixed values of the file format),
    or ''. Nothing else in a header is believed until this passes: a version read from
    garbage is garbage."""
    page_size = int.from_bytes(header[16:18], "big")
    if not (page_size == 1 or (512 <= page_size <= 32768 and page_size & (page_size - 1) == 0)):
        return f"page size {page_size}"
    if header[18] not in (1, 2) or header[19] not in (1, 2):
        return "file format version"
    if header[21:24] != bytes([64, 32, 32]):
        return "payload fractions"
    return ""


def _check_writable(path: Path) -> None:
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        raise StorePermission(
            f"{path} is read-only (or its folder is). It was left untouched: make "
            "it writable, or set TUTOR_HOME to another folder, and run the command "
            "again."
        )


def _check_contents(path: Path, size: int, known: int, tables_of_v1: Set[str]) -> None:
    """The schema version and tables, and a quick check of the pages, through a read-only
    connection. A version is believed only from a file whose header is sound and whose schema
    SQLite could read."""
    wal = path.with_name(path.name + "-wal")
    unclean = wal.exists() and wal.stat().st_size > 0
    # With no `-wal` beside it the file is all there is: `immutable` then keeps SQLite from
    # creating `-wal`/`-shm` files just to look.
    uri = path.resolve().as_uri() + ("?mode=ro" if wal.exists() else "?mode=ro&immutable=1")
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=1.0)
    except sqlite3.Error as exc:
        raise foreign(path, str(exc)) from None
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version > known:  # its schema was read, so the version is the store's own
            raise newer(path, version, known)
        theirs = sorted(t for t in tables if not t.startswith("sqlite_"))
        # none of a tutor's tables: another program's file. (Read unlocked while another tutor
        # migrates a fresh store, the tutor's own tables can show before the version does.)
        if version == 0 and theirs and not tables_of_v1 & set(theirs):
            raise foreign(path, f"it holds other tables: {', '.join(theirs)[:120]}")
        if version >= 1 and not tables_of_v1 <= tables:
            missing = ", ".join(sorted(tables_of_v1 - tables))
            raise foreign(path, f"schema v{version} without its tables: {missing}")
        if unclean or size <= QUICK_CHECK_MAX_BYTES:
            result = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
            if result != ["ok"]:
                raise damaged(path, "; ".join(result))
        # counted here, read-only: a writing connection would fold what is left of a damaged
        # -wal into tutor.db and delete it as it closed, so the files could not be restored
        check_history(conn, path)
    except sqlite3.DatabaseError as exc:
        if is_busy(exc):  # another tutor is writing: the checks above ran as far as they could
            return
        error = diagnose(path, exc)
        raise (damaged(path, str(exc)) if type(error) is StoreError else error) from None
    finally:
        conn.close()


def marker_path(path: Path) -> Path:
    return path.with_name(path.name + ".answers")


def answers_marked(path: Path) -> int:
    """How many answers the marker beside the store says it held (its highest answer row),
    0 when there is no readable marker."""
    try:
        return max(0, int(marker_path(path).read_text(encoding="ascii").strip() or 0))
    except (OSError, ValueError):
        return 0


def mark_answers(path: Path, highest: int) -> None:
    """Written after a commit that added answers, so the marker never runs ahead of what the
    store durably holds. Best effort: a marker that could not be written (a full disk) only
    weakens the check of `check_history`, it never refuses a sound store."""
    marker = marker_path(path)
    temporary = marker.with_name(marker.name + ".tmp")
    try:
        temporary.write_text(f"{highest}\n", encoding="ascii")
        os.replace(temporary, marker)
    except OSError:
        pass


def check_history(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a store holding fewer answers than its marker knows it had: its `-wal` (where
    the latest answers live until a checkpoint) was lost or the file was replaced."""
    marked = answers_marked(path)
    if not marked:
        return
    held = 0
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'attempts'").fetchone():
        held = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM attempts").fetchone()[0])
    if held < marked:
        raise StoreHistoryLost(
            f"{path} holds fewer answers than it had ({held} of {marked}): its -wal file, "
            "which holds the latest answers, was probably removed, or the file was replaced by "
            "an older copy. It was left untouched. Restore tutor.db together with tutor.db-wal "
            f"from a backup; or, to go on from what it holds, remove {marker_path(path)} and "
            "run the command again."
        )
