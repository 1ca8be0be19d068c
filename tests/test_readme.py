"""The README's first two commands are what a new user types; CI runs the second one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def code_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_first_command_installs_and_continues_second_installs_and_tests():
    first, second = code_blocks()[:2]
    assert first.startswith("python3 -m venv .venv") and first.endswith("tutor continue")
    assert "pip install -e ." in first
    assert second.startswith("python3 -m venv .venv") and second.endswith("pytest")
    assert "pip install -e '.[test]'" in second


def test_ci_runs_exactly_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    pattern = re.search(r'grep -m1 -F "(.*?)" README\.md', script).group(1)
    lines = [line for line in (ROOT / "README.md").read_text().splitlines() if pattern in line]
    assert lines[0] == code_blocks()[1]
