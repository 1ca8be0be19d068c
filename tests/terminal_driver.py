"""A learner at `tutor` on a real pseudo-terminal: the full-screen app as a terminal runs it, with
Textual's own terminal driver (Pilot runs a headless one), so what reaches the terminal — the
bytes typed, a signal, what is printed after the app closes — is what a learner meets.

`Terminal(home, *args)` starts `python -m tutor.cli ARGS` from this checkout on a pty; `wait_for`
waits until the screen shows a text, `send` types bytes, `finish` waits for the exit code. Every
terminal started is ended by `Terminal.end_all` (run by conftest after each test)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path
from typing import ClassVar

from tutor.testing.first_paint import spawn_on_pty

ROOT = Path(__file__).resolve().parents[1]
ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


class Terminal:
    started: ClassVar[list[Terminal]] = []

    def __init__(self, home: Path, *args: str, size: tuple[int, int] = (100, 30)) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TUTOR_", "TEXTUAL"))}
        env.update(TUTOR_HOME=str(home), TERM="xterm-256color", PYTHONPATH=str(ROOT))
        self.master, self.proc = spawn_on_pty(
            [sys.executable, "-m", "tutor.cli", *args], env, size, cwd=ROOT
        )
        self.raw = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        Terminal.started.append(self)

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: every end of the terminal in the child is closed
                return
            if not chunk:
                return
            self.raw += chunk

    @property
    def text(self) -> str:
        """Everything written to the terminal, escape sequences removed."""
        return ESCAPE.sub("", bytes(self.raw).decode("utf-8", "replace"))

    def wait_for(self, shown: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while shown not in self.text:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"never shown: {shown!r}\n{self.text[-2000:]}")
            time.sleep(0.05)

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def signal(self, number: int) -> None:
        os.kill(self.proc.pid, number)

    def finish(self, timeout: float = 30) -> int:
        """The exit code, once the process has ended and all it wrote is read."""
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code

    def end(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._reader.join(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self.master)

    @classmethod
    def end_all(cls) -> None:
        while cls.started:
            cls.started.pop().end()
