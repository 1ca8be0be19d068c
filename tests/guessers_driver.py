"""`bench/guessers.py` run on one curriculum as the choice tests read it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_guessers(root: Path) -> tuple[float, list[str], str]:
    """The bench over `root` with one seed: the share of presented items that are choices (in
    percent), its output lines, and the whole output (for assertion messages)."""
    run = subprocess.run(
        [sys.executable, "bench/guessers.py", "--curriculum", str(root), "--seeds", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    share = next(line for line in lines if "choices:" in line)
    return float(share.split()[1].rstrip("%")), lines, run.stdout
