"""One writer per session, and one tutor at a time choosing which session to open.

Two things together:

- **Liveness**: an exclusive `flock` on a lock file next to the store, held for as long as the
  session is open. The operating system releases it when the process ends however it ends (a
  `kill -9` included), so a crashed tutor never leaves a stale lock behind.
- **Fencing**: a lease token per session in the store's `settings` (`session-lease:<id>`). Every
  session write checks, inside its own transaction, that the token is still this tutor's
  (`Store.fence`). Taking a session over writes a new token, so the tutor it was taken from
  fails its next write with a clear message instead of interleaving answers.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from learning_system.store import LEASE_PREFIX, Store, StoreBusy, StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: fencing alone keeps writes safe
    fcntl = None  # type: ignore[assignment]

OPEN_WAIT = 120.0  # seconds a tutor waits for another one to finish opening a lesson
LESSON_BUSY = "this lesson is open in another tutor — close it or run `tutor continue --take-over`"
REVIEW = "review"  # the one review a home has open at a time is leased under this id
REVIEW_BUSY = "a review is open in another tutor — finish or close it there first"


class SessionBusy(StoreError):
    """The session is open in another tutor."""

    title = "Open in another tutor"


def _lock_dir(store: Store) -> Path:
    return store.path.parent / (store.path.name + ".locks")


def _lock_file(path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def _try_flock(fd: int) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextmanager
def opening(
    store: Store, *, wait: float = OPEN_WAIT, notify: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Serialise choosing (and starting) a session between tutors on one home: the second one
    waits (saying so once), then sees what the first one opened."""
    fd = _lock_file(_lock_dir(store) / "open.lock")
    try:
        deadline = time.monotonic() + wait
        told = False
        while not _try_flock(fd):
            if time.monotonic() >= deadline:
                raise StoreBusy(
                    f"another tutor kept opening a lesson on {store.path.parent} for "
                    f"{wait:g} s; close it and run the command again."
                )
            if not told and notify is not None:
                notify("another tutor is opening a lesson on this store; waiting for it…")
                told = True
            time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class SessionLease:
    """This tutor's right to write one session. Release it with `release()` (the store's close
    does it too); a killed process releases it by ending."""

    def __init__(
        self, store: Store, session_id: str, *, take_over: bool = False, busy: str = LESSON_BUSY
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.token = uuid.uuid4().hex
        name = hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()[:24]
        self._fd: int | None = _lock_file(_lock_dir(store) / f"session-{name}.lock")
        if not _try_flock(self._fd) and not take_over:
            os.close(self._fd)
            self._fd = None
            raise SessionBusy(busy)
        # taken over while the other tutor still holds the lock: the fence alone stops it
        store.set_setting(LEASE_PREFIX + session_id, self.token)
        store.fence(session_id, self.token)
        store.on_close(self.release)

    @property
    def held(self) -> bool:
        return self.store.get_setting(LEASE_PREFIX + self.session_id) == self.token

    def release(self) -> None:
        if self._fd is None:
            return
        self.store.fence(self.session_id, None)
        fd, self._fd = self._fd, None
        try:
            self.store.delete_setting(LEASE_PREFIX + self.session_id, self.token)
        finally:
            os.close(fd)  # the lock goes even when the store cannot be written any more


def lease(
    store: Store, session_id: str, *, take_over: bool = False, busy: str = LESSON_BUSY
) -> SessionLease:
    """The lease this store already holds on `session_id`, else a new one (SessionBusy with
    `busy` when another tutor holds it)."""
    held = store.leases
    current = held.get(session_id)
    if current is not None and current._fd is not None:
        return current
    held[session_id] = SessionLease(store, session_id, take_over=take_over, busy=busy)
    return held[session_id]
