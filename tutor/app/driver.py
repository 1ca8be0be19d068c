"""The app's terminal driver: Textual's Linux driver, reading its input with a decoder that turns
bytes that are not UTF-8 into U+FFFD instead of raising.

Textual's own input thread decodes with a strict UTF-8 decoder: a byte that is not UTF-8 (a
terminal set to Latin-1, a stray byte pasted) raises `UnicodeDecodeError` in that thread, and the
app dies with a traceback, losing what the learner had typed and not yet sent. The loop below is
Textual's `LinuxDriver.run_input_thread` (8.2) with only the decoder changed."""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder

from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver


def input_decoder():
    """The decode function of the input: incremental UTF-8 (a character split across two reads
    is joined), each undecodable byte read as U+FFFD."""
    return getincrementaldecoder("utf-8")(errors="replace").decode


class TutorDriver(LinuxDriver):
    def run_input_thread(self) -> None:
        """Wait for input and dispatch events (Textual's loop, with `input_decoder`)."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        fileno = self.fileno
        parser = XTermParser(self._debug)
        decode = input_decoder()

        def process_selector_events(events, final: bool = False) -> None:
            for last, (_key, mask) in loop_last(events):
                if mask & selectors.EVENT_READ:
                    text = decode(os.read(fileno, 1024 * 4), final=final and last)
                    if not text:  # stdin piped and at its end
                        break
                    for event in parser.feed(text):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process_selector_events(selector.select(0.1))
            selector.unregister(self.fileno)
            process_selector_events(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
