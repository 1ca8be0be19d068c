"""The app's terminal driver: Textual's Linux driver, its input read with a UTF-8 decoder that
turns bytes that are not UTF-8 into U+FFFD instead of raising.

Textual's input thread decodes strictly: a byte that is not UTF-8 (a terminal set to Latin-1, a
stray byte pasted) raised `UnicodeDecodeError` in that thread, and the app died with a
traceback, losing what the learner had typed and not yet sent. The thread makes its decoder
with the `getincrementaldecoder` of its own module when it starts; the driver gives that module
one whose decoders replace what they cannot read."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from functools import partial

from textual.drivers import linux_driver
from textual.drivers.linux_driver import LinuxDriver


def lenient_decoders(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    """`codecs.getincrementaldecoder`, its decoders made with errors="replace"."""
    return partial(codecs.getincrementaldecoder(encoding), errors="replace")


def input_decoder() -> Callable[..., str]:
    """The decode function the input thread makes: incremental UTF-8 (a character split across
    two reads is joined), each undecodable byte read as U+FFFD."""
    return lenient_decoders("utf-8")().decode


class TutorDriver(LinuxDriver):
    def run_input_thread(self) -> None:
        linux_driver.getincrementaldecoder = lenient_decoders  # type: ignore[assignment]
        super().run_input_thread()
