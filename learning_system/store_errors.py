"""What went wrong with a store, told apart, each with advice that loses nothing."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from learning_system.errors import LearningSystemError

# SQLite's primary result codes (the low byte of an extended code)
_PERM = 3
_BUSY = 5
_LOCKED = 6
_READONLY = 8
_IOERR = 10
_CORRUPT = 11
_FULL = 13
_CANTOPEN = 14
_NOTADB = 26
_AGAIN = "and run the command again"
_ELSEWHERE = "or set TUTOR_HOME to another folder"


class StoreError(LearningSystemError):
    """The store cannot be used as it is; the message says why and what to do."""

    title = "Store problem"


class StoreBusy(StoreError):
    """Another program held the store's write lock for longer than the wait allows."""

    title = "Store in use"


class StoreFull(StoreError):
    """The disk (or the store's quota) is full: what was being written was not saved."""

    title = "Disk full"


class StoreIOError(StoreError):
    """The operating system failed a read or write of the store."""

    title = "Disk error"


class StorePermission(StoreError):
    """The store or its folder cannot be opened or written with this user's permissions."""

    title = "No permission"


class StoreDamaged(StoreError):
    """An SQLite store whose pages or header are damaged."""

    title = "Store damaged"


class StoreForeign(StoreError):
    """A file that is not a tutor store (not SQLite, or SQLite without the tutor's tables)."""

    title = "Not a tutor store"


class StoreNewer(StoreError):
    """A sound store written by a newer tutor."""

    title = "Store from a newer tutor"


class StoreHistoryLost(StoreError):
    """A store holding fewer answers than the marker beside it knows it had."""

    title = "Answers missing"


class SessionConflict(StoreError):
    """A session event or update collided with another tutor writing the same session."""

    title = "Lesson taken over"


def is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_BUSY, _LOCKED)
    text = str(exc)
    return "database is locked" in text or "database is busy" in text


def diagnose(path: Path, exc: sqlite3.Error, waited: float | None = None) -> StoreError:
    """The one-line StoreError for an SQLite failure on `path` (`waited`: seconds spent waiting
    for a lock), told apart by SQLite's result code."""
    text = str(exc)
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    if is_busy(exc):
        how_long = f" for {waited:.1f} s" if waited is not None else ""
        return StoreBusy(
            f"{path} stayed locked by another program{how_long}, so nothing was written. Close "
            f"the other tutor (or program using it) {_AGAIN}."
        )
    if code == _FULL or "disk is full" in text or (code == _IOERR and _nearly_full(path)):
        return StoreFull(
            f"the disk holding {path} is full, so nothing more could be saved (everything "
            f"saved before is kept). Free some space {_AGAIN}."
        )
    if code == _IOERR:
        return StoreIOError(
            f"{path} could not be read or written ({text}); nothing more was changed. Check the "
            f"disk (is it unplugged or failing?) {_AGAIN}."
        )
    if code == _READONLY or "readonly" in text or "read-only" in text:
        return StorePermission(
            f"{path} is read-only ({text}). Make it writable, {_ELSEWHERE}, {_AGAIN}."
        )
    if code in (_PERM, _CANTOPEN):
        return StorePermission(
            f"{path} cannot be opened ({text}). Check that you may read and write it and its "
            f"folder, {_ELSEWHERE}, {_AGAIN}."
        )
    if code == _CORRUPT:
        return damaged(path, text)
    if code == _NOTADB:
        return foreign(path, text)
    return StoreError(
        f"{path} could not be used ({text}); nothing more was changed. Run `tutor doctor` to "
        "see what is wrong."
    )


def _nearly_full(path: Path) -> bool:
    """Whether the filesystem holding `path` has less than 1 MiB free: a write there fails as a
    generic I/O error when it is the `-shm` file that cannot grow."""
    try:
        disk = os.statvfs(path.parent)
    except OSError:
        return False
    return disk.f_bavail * disk.f_frsize < 1024 * 1024


def damaged(path: Path, why: str) -> StoreDamaged:
    return StoreDamaged(
        f"{path} is damaged ({why[:200]}). It was left untouched: restore it from a backup, or "
        f"move it aside to start afresh ({_ELSEWHERE}), {_AGAIN}."
    )


def foreign(path: Path, why: str) -> StoreForeign:
    return StoreForeign(
        f"{path} is not a tutor store ({why}). It was left untouched: point TUTOR_HOME at the "
        f"folder of your tutor store, or move this file aside, {_AGAIN}."
    )


def newer(path: Path, version: int, known: int) -> StoreNewer:
    return StoreNewer(
        f"{path} was written by a newer tutor (store schema v{version}; this tutor knows up "
        f"to v{known}). It was left untouched: upgrade tutor to open it."
    )
