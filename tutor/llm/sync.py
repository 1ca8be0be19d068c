"""Run a model coroutine to completion from synchronous code, whatever the calling thread runs.

`asyncio.run` refuses to start when the calling thread already runs an event loop (a Textual
app, a test's loop, a notebook): the coroutine is never awaited and the call fails. `run_sync`
instead hands the coroutine to one private event loop that runs in its own daemon thread and
waits for the result there, so it works the same from a plain thread, from a worker, and from
a thread whose loop is running. One shared loop also means one SDK client and its kept-alive
connections for every call, instead of a new client (and new connections) per call.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _shared_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _loop.is_closed() or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="tutor-model-loop", daemon=True)
            thread.start()
            _loop, _thread = loop, thread
        return _loop


def run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """The result of the coroutine `make()` returns; its exception is raised here.

    `make` is a factory so the coroutine is created only when it is about to run."""
    loop = _shared_loop()
    if threading.current_thread() is _thread:  # called from the shared loop itself
        return _on_private_thread(make)
    return asyncio.run_coroutine_threadsafe(make(), loop).result()


def _on_private_thread(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(make())
        except BaseException as exc:  # handed to the caller below, re-raised there as it was
            box["error"] = exc

    helper = threading.Thread(target=work, name="tutor-model-sync", daemon=True)
    helper.start()
    helper.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
