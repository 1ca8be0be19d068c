"""Long engine work (fetching sources, model drafts, verifications) says what it is doing and
learns when the learner has quit.

An `Activity` belongs to one session. Engine parts call `report` as work starts and advances;
a front end listens (from any thread: the listener must be thread-safe, e.g. `post_message`).
`cancel()` asks all work to stop; parts call `check()` between units of work and raise
`Cancelled`, or `stopping` to give up waiting. `skip_waiting()` lets the learner start before
slow optional work (external references) has finished."""

from __future__ import annotations

import threading
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from tutor.errors import Cancelled


class Progress(BaseModel):
    """One progress event: what is happening, and `done` of `total` units (0 of 0: unknown)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    what: str
    done: int = 0
    total: int = 0
    finished: bool = False

    def line(self) -> str:
        count = f" ({self.done}/{self.total})" if self.total else ""
        return self.what + count


Listener = Callable[[Progress], None]


class Activity:
    def __init__(self, listener: Listener | None = None) -> None:
        self.listener = listener
        self._cancel = threading.Event()
        self._skip = threading.Event()

    def report(self, what: str, done: int = 0, total: int = 0, finished: bool = False) -> None:
        if self.listener is not None:
            self.listener(Progress(what=what, done=done, total=total, finished=finished))

    def cancel(self) -> None:
        self._cancel.set()
        self._skip.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise Cancelled("stopped at your request; everything answered is saved")

    def skip_waiting(self) -> None:
        self._skip.set()

    @property
    def stopping(self) -> bool:
        """Optional work should stop now: the learner quit or chose not to wait for it."""
        return self._skip.is_set()
