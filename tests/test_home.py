"""An unusable TUTOR_HOME is one line and exit 2, never a traceback (issue 23, part 4)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def tutor(home: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUTOR_HOME": home}
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("command", [["status"], ["continue", "--plain", "--offline"]])
def test_a_home_that_is_a_file_or_cannot_be_made_is_one_line(tmp_path, command):
    a_file = tmp_path / "home"
    a_file.write_text("not a folder", encoding="utf-8")
    for home, says in ((a_file, "is a file, not a folder"), (a_file / "below", "cannot be used")):
        done = tutor(str(home), *command)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and "TUTOR_HOME" in lines[0], done.stderr
        assert "Traceback" not in done.stderr + done.stdout
    assert a_file.read_text(encoding="utf-8") == "not a folder"  # left as it was


def test_the_app_with_an_unusable_home_is_one_line_before_any_screen(tmp_path):
    """`tutor continue` on a terminal (the app, not --plain) says the same one line, exit 2."""
    import pty
    import select

    a_file = tmp_path / "home"
    a_file.write_text("not a folder", encoding="utf-8")
    for home, says in ((a_file, "is a file, not a folder"), (a_file / "below", "cannot be used")):
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "tutor.cli", "continue", "--offline"],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env={**os.environ, "TUTOR_HOME": str(home), "TERM": "xterm"},
        )
        os.close(follower)
        out = b""
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            try:
                chunk = os.read(leader, 65536) if ready else b""
            except OSError:  # the terminal closed: the tutor has exited
                chunk = b""
            if not chunk:
                break
            out += chunk
        os.close(leader)
        assert proc.wait(timeout=60) == 2
        lines = out.decode(errors="replace").strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and "TUTOR_HOME" in lines[0], out
