"""Running async model and fetch work from sync code without leaking connections.

Each `asyncio.run` makes a fresh event loop, and a provider keeps one connection pool per loop;
a pool left open when its loop ends leaks its sockets (ResourceWarning: unclosed transport).
`run` closes the pools of the given objects on the same loop, before it ends."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


async def _closing(work: Awaitable[T], closing: tuple[Any, ...]) -> T:
    try:
        return await work
    finally:
        for obj in closing:
            aclose = getattr(obj, "aclose", None)
            if aclose is not None:
                await aclose()


def run(work: Awaitable[T], *closing: Any) -> T:
    """Run `work` to its end on a fresh loop (in a helper thread when this thread already runs
    one), then close the loop's connections of every object in `closing` that has `aclose`."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_closing(work, closing))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _closing(work, closing)).result()
