"""Start an app in a fresh interpreter on a pseudo-terminal, note the moment its first screen is
painted, and exit: what `bench/cold_start.py` times and `tests/test_app_imports.py` checks.

The parent side is `first_paint(kind, args, env)`: it opens a pty of the given size, starts this
file by path in a new interpreter with the pty as stdin, stdout and stderr, drains the terminal
output, and returns the child's report with its wall time and peak memory (`ru_maxrss`, from
`wait4`). The child side (`python first_paint.py OUT tutor ARGS...` or `... OUT bare`) makes the
app's `on_ready` (Textual posts Ready right after the first screen's first compositor refresh,
i.e. the first paint) write a JSON report to OUT and exit:

    tutor  runs the real command line, `tutor.cli.main(ARGS)` (e.g. `continue`), which opens the
           app because both ends are a terminal;
    bare   runs a bare Textual app (one Static), the floor to measure against.

Only the standard library is imported here before the app's own imports; nothing in the product
changes. The report: `ready` (time.monotonic() at first paint, comparable with the parent's on
Linux), `screen` (class name of the painted screen), `heavy` (which of HEAVY_MODULES were
imported by then), `modules` (len(sys.modules)), `vmhwm_kb` (VmHWM at first paint)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HEAVY_MODULES = ("openai", "httpx2", "trafilatura")
RUNNER = Path(__file__).resolve()


def _vmhwm_kb() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _install(cls: Any, out: str) -> None:
    def on_ready(self: Any) -> None:
        report = {
            "ready": time.monotonic(),
            "screen": type(self.screen).__name__,
            "heavy": [m for m in HEAVY_MODULES if m in sys.modules],
            "modules": len(sys.modules),
            "vmhwm_kb": _vmhwm_kb(),
        }
        Path(out).write_text(json.dumps(report), encoding="utf-8")
        self.exit(0)

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


def first_paint(
    kind: str,
    args: list[str],
    env: dict[str, str],
    *,
    size: tuple[int, int] = (80, 24),
    timeout: float = 60.0,
) -> dict[str, Any]:
    """Run `kind` ("tutor" with command-line `args`, or "bare") in a fresh interpreter on a pty
    and return its report plus `paint_s` (process start to first paint), `maxrss_kb`, `rc`
    and `output` (the last of the terminal's bytes, for diagnosis)."""
    import fcntl
    import pty
    import select
    import struct
    import subprocess
    import tempfile
    import termios

    with tempfile.TemporaryDirectory(prefix="first-paint-") as tmp:
        out = Path(tmp) / "report.json"
        master, slave = pty.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, str(RUNNER), str(out), kind, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        tail = bytearray()
        deadline = start + timeout
        reaped: tuple[int, int, Any] | None = None
        try:
            while reaped is None:
                if time.monotonic() > deadline:
                    proc.kill()
                    deadline = float("inf")
                ready, _, _ = select.select([master], [], [], 0.1)
                chunk = b""
                if ready:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:  # EIO: every end of the terminal in the child is closed
                        chunk = b""
                    tail = (tail + chunk)[-4000:]
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
    report["maxrss_kb"] = usage.ru_maxrss
    return report


if __name__ == "__main__":
    sys.path.pop(0)  # this file's folder: run by path, it must not shadow anything
    sys.exit(child(sys.argv[1:]))
