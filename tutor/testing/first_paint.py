"""Start an app in a fresh interpreter on a pseudo-terminal and note the moment its first screen
is painted: what `bench/cold_start.py` times and `tests/test_app_imports.py` checks.

The parent side is `first_paint(kind, args, env)`: it opens a pty of the given size, starts this
file by path in a new interpreter with the pty as stdin, stdout and stderr, drains the terminal
output, and returns the child's report with its wall time and peak memory (`ru_maxrss`, from
`wait4`). With `marker` (text the first screen shows), it also notes when the bytes that draw it
reach the terminal: the read from the pty that completes the marker in the output, escape
sequences removed (`bytes_s`, from just before the process is spawned), and the child's VmHWM
then. Textual posts Ready once the first frame is handed to its writer thread, before the bytes
are written; an app that exits at Ready may never write them.

The child side (`python first_paint.py OUT tutor ARGS...` or `... OUT bare`) makes the app's
`on_ready` write a JSON report to OUT and exit (without a marker) or run on:

    tutor  runs the real command line, `tutor.cli.main(ARGS)` (e.g. `continue`), which opens the
           app because both ends are a terminal;
    bare   runs a bare Textual app (one Static), the floor to measure against.

Only the standard library is imported here before the app's own imports; nothing in the product
changes. The report: `ready` (time.monotonic() at Ready, comparable with the parent's on
Linux), `screen` (class name of the painted screen), `heavy` (which of HEAVY_MODULES were
imported by then), `modules` (len(sys.modules)), `vmhwm_kb` (VmHWM at Ready)."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

HEAVY_MODULES = ("openai", "httpx2", "trafilatura")
RUNNER = Path(__file__).resolve()
# what each kind's first screen shows: the bytes that draw it are timed as they arrive
MARKERS = {"tutor": "Continue the lesson", "bare": "a bare Textual app"}
_ESCAPE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def _vmhwm_kb(pid: int | str = "self") -> int:
    """Peak resident memory so far of a process (this one by default), from /proc."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


STAY_ENV = "FIRST_PAINT_STAY"  # set: the app runs on after Ready, until the parent ends it


def _install(cls: Any, out: str) -> None:
    stay = bool(os.environ.pop(STAY_ENV, ""))
    own = getattr(cls, "on_ready", None)

    def on_ready(self: Any) -> None:
        report = {
            "ready": time.monotonic(),
            "screen": type(self.screen).__name__,
            "heavy": [m for m in HEAVY_MODULES if m in sys.modules],
            "modules": len(sys.modules),
            "vmhwm_kb": _vmhwm_kb(),
        }
        Path(f"{out}.part").write_text(json.dumps(report), encoding="utf-8")
        os.replace(f"{out}.part", out)  # whole when the parent sees it
        if not stay:
            self.exit(0)
        elif own is not None:
            own(self)  # what the app does after its first paint, as it does for a learner

    cls.on_ready = on_ready


def child(argv: list[str]) -> int:
    out, kind, args = argv[0], argv[1], argv[2:]
    if kind == "bare":
        from textual.app import App, ComposeResult
        from textual.widgets import Static

        class Bare(App[None]):
            def compose(self) -> ComposeResult:
                yield Static("a bare Textual app")

        _install(Bare, out)
        Bare().run()
        return 0
    from tutor.app.app import TutorApp

    _install(TutorApp, out)
    from tutor.cli import main

    return main(args)


def spawn_on_pty(
    argv: list[str], env: dict[str, str], size: tuple[int, int], cwd: Path | None = None
) -> tuple[int, Any]:
    """`argv` started in a session of its own on a new pseudo-terminal of `size` (columns,
    rows), as a terminal runs a program: (the terminal's master end, the process)."""
    import fcntl
    import pty
    import struct
    import subprocess
    import termios

    master, slave = pty.openpty()
    cols, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    proc = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    return master, proc


def first_paint(
    kind: str,
    args: list[str],
    env: dict[str, str],
    *,
    size: tuple[int, int] = (80, 24),
    timeout: float = 60.0,
    marker: str | None = None,
) -> dict[str, Any]:
    """Run `kind` ("tutor" with command-line `args`, or "bare") in a fresh interpreter on a pty
    and return its report plus `paint_s` (process start to first paint), `bytes_s` (process
    start to the terminal receiving `marker`, None without it or when it never came),
    `bytes_hwm_kb` (the child's peak RSS then), `maxrss_kb` (over its life), `rc` and `output`
    (the last of the terminal's bytes, for diagnosis). With `marker`, the app is not made to
    exit at Ready: it runs on as for a learner (its own Ready handler included) until the
    marker has arrived and the report is written, and is then killed."""
    import contextlib
    import select
    import signal
    import tempfile

    if marker:
        env = {**env, STAY_ENV: "1"}
    with tempfile.TemporaryDirectory(prefix="first-paint-") as tmp:
        out = Path(tmp) / "report.json"
        start = time.monotonic()
        master, proc = spawn_on_pty([sys.executable, str(RUNNER), str(out), kind, *args], env, size)
        tail = bytearray()
        seen = bytearray()  # the output without escape sequences, until the marker is in it
        wanted = marker.encode("utf-8") if marker else None
        marked: float | None = None
        marked_hwm: int | None = None
        deadline = start + timeout
        killed = False
        reaped: tuple[int, int, Any] | None = None
        try:
            while reaped is None:
                # out of time, or painted and reported: end it (a staying app never exits)
                if not killed and (
                    time.monotonic() > deadline
                    or (marked is not None and (out.is_file() or time.monotonic() > marked + 10))
                ):
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    killed = True
                ready, _, _ = select.select([master], [], [], 0.1)
                chunk = b""
                if ready:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:  # EIO: every end of the terminal in the child is closed
                        chunk = b""
                    tail = (tail + chunk)[-4000:]
                    if wanted and marked is None and chunk:
                        seen += chunk
                        if wanted in _ESCAPE.sub(b"", bytes(seen)):
                            marked = time.monotonic()
                            marked_hwm = _vmhwm_kb(proc.pid)
                if not chunk:
                    pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                    if pid:
                        reaped = (pid, status, usage)
                    elif ready:  # the terminal is closed but the child has not exited yet
                        time.sleep(0.005)
        finally:
            os.close(master)
        _, status, usage = reaped
        proc.returncode = os.waitstatus_to_exitcode(status)
        report: dict[str, Any] = (
            json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
        )
    report["rc"] = proc.returncode
    report["output"] = tail.decode("utf-8", "replace")
    if "ready" in report:
        report["paint_s"] = report["ready"] - start
    report["bytes_s"] = None if marked is None else marked - start
    report["bytes_hwm_kb"] = marked_hwm  # peak RSS when the marker reached the terminal
    report["maxrss_kb"] = usage.ru_maxrss
    return report


if __name__ == "__main__":
    sys.path.pop(0)  # this file's folder: run by path, it must not shadow anything
    sys.exit(child(sys.argv[1:]))
