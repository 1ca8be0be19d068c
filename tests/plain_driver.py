"""A learner at a `tutor ... --plain` process on pipes: reads until it waits for input, then
answers. Every process started here is ended, and its pipes closed, when the test that started it
is over (`Learner.end_all`, run by conftest), whichever way the test ended."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from typing import ClassVar

PROMPT_END = ("> ", "): ")


class Learner:
    """Drives `tutor ... --plain`: reads until the process waits for input, then answers."""

    started: ClassVar[list[Learner]] = []

    def __init__(self, home, *args: str) -> None:
        env = {**os.environ, "TUTOR_HOME": str(home), "PYTHONUNBUFFERED": "1"}
        env.pop("OPENAI_API_KEY", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tutor.cli", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.transcript = ""
        Learner.started.append(self)

    def read_prompt(self, timeout: float = 30) -> str:
        """What the process prints until it waits for input or ends. A process still running
        with no prompt after `timeout` fails the test: it waits for an answer the test did not
        send (a read with no send between), or it hangs."""
        out = b""
        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
                if out.decode(errors="replace").endswith(PROMPT_END):
                    break
            elif self.proc.poll() is not None:
                break
            elif time.monotonic() > deadline:
                self.transcript += out.decode(errors="replace")
                raise AssertionError(
                    f"no prompt in {timeout:g} s and still running: {self.transcript[-1500:]}"
                )
        text = out.decode(errors="replace")
        self.transcript += text
        return text

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def finish(self) -> str:
        self.proc.stdin.close()
        rest = self.proc.stdout.read().decode(errors="replace")
        self.transcript += rest
        assert self.proc.wait(timeout=30) == 0
        err = self.stderr = self.proc.stderr.read().decode(errors="replace")
        self.close()
        assert "Traceback" not in err and "Traceback" not in self.transcript, err
        return rest

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.close()

    def close(self) -> None:
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe and not pipe.closed:
                pipe.close()

    @classmethod
    def end_all(cls) -> None:
        """Kill what is still running of the processes started, reap them, close their pipes
        (a refused tutor read to its end, or a test that failed midway, leaves them open)."""
        while cls.started:
            learner = cls.started.pop()
            if learner.proc.poll() is None:
                learner.proc.kill()
                learner.proc.wait()
            learner.close()


def reply(screen: str, wrong: bool) -> str:
    """A learner who answers everything wrong (when `wrong`) or right-ish, tags 'sure'."""
    last = screen.rstrip().splitlines()[-1] if screen.strip() else ""
    if last.startswith("confidence"):
        return "s"
    if last.startswith("answer"):
        return "1 s" if "1/a" in screen else "12345 s"
    if last.startswith("your answer"):
        return "I think it multiplies things"
    if last.startswith("y / n"):
        return "n" if wrong else "y"
    if last.startswith("1-4"):
        return "3"
    if last.startswith("in your words"):
        return "I forgot the inner derivative"
    return ""
