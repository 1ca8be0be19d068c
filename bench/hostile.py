"""Hostile curricula: how long a lesson takes to start (to its first question) when one lesson
has a 1 MiB line of `[`…`]` brackets or a 10,000-item quiz bank, against a normal lesson of
the same generated course, measured in the same run.

    python bench/hostile.py

Each figure is a fresh `tutor continue --plain --offline` process driven to the first question
(process start and curriculum read included). Target (issue 23): each hostile lesson within
2 s on this machine; the ratio shows what the hostile part costs beyond a normal start.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TARGET_SECONDS = 2.0


def to_first_question(root: Path, lesson: str, home: Path) -> float:
    from plain_driver import Learner

    start = time.perf_counter()
    learner = Learner(
        home, "continue", "--plain", "--offline", "--curriculum", str(root), "--lesson", lesson
    )
    learner.read_prompt(timeout=600)
    learner.send("")
    shown = learner.read_prompt(timeout=600)
    took = time.perf_counter() - start
    learner.send("/p")
    learner.finish()
    if "answer" not in shown:
        raise SystemExit(f"no first question for {root}: {shown[-300:]}")
    return took


def main() -> int:
    from tutor.testing import hostile
    from tutor.testing.course_maker import write_course

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        normal = write_course(base / "normal", phases=1, lessons=2, items=6)
        baseline = to_first_question(normal, "P1 L01", base / "h0")
        print(f"normal lesson          {baseline:6.2f} s")
        worst = 0.0
        for name, make in (
            ("1 MiB bracket line", hostile.bracket_line_course),
            ("10,000-item bank", hostile.big_bank_course),
        ):
            root, lesson = make(base / name.replace(" ", "-"))
            took = to_first_question(root, lesson, base / f"h-{name[:4]}")
            worst = max(worst, took)
            print(f"{name:<22} {took:6.2f} s   {took / baseline:5.2f}x the normal lesson")
        verdict = "ok" if worst <= TARGET_SECONDS else "OVER"
        print(f"target: each within {TARGET_SECONDS:g} s — {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
