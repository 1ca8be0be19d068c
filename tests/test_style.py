"""The code stays as the team agreed: ruff clean and ruff formatted, and mypy clean under the
configuration in pyproject.toml (strict on the engine, the learning system and the gates). Both
are pinned test dependencies."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.fail("ruff is not installed: install the test extra (pip install -e '.[test]')")
    return [exe]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]], ids=str)
def test_ruff(args):
    done = subprocess.run([*_ruff(), *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_mypy():
    """mypy over both packages with pyproject.toml's `[tool.mypy]`; any error fails."""
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is not installed: install the test extra (pip install -e '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "tutor", "learning_system"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
