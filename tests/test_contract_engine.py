"""CONTRACT.md's "Tutor engine" section, held to the code."""

from __future__ import annotations

from pathlib import Path

from tutor.engine import items, lesson, selection
from tutor.engine.lesson import strand_verdict

CONTRACT = (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8")
SECTION = " ".join(CONTRACT.split("## Tutor engine", 1)[1].split())


def test_the_numbers_in_the_contract_are_the_codes():
    assert items.GUESS_CAP == 0.30 and "30%" in SECTION
    assert items.STRATEGY_CAP == {"stem_overlap": 0.05} and "5%" in SECTION
    assert (lesson.MIN_STRAND_MCQ, lesson.MAX_STRAND_MCQ) == (3, 8) and "3–8 items" in SECTION
    assert lesson.CATCH_UP_MIN == 6 and "6–8 items" in SECTION
    assert selection.CATCH_UP_STRANDS == 3 and "Three strands or more" in SECTION
    assert len(lesson.FEYNMAN_RUBRIC) == 4 and "all four rubric points" in SECTION


def row(outcome="correct", confidence="sure", follow_up=""):
    return {"outcome": outcome, "confidence": confidence, "follow_up": follow_up}


def test_verdict_rules():
    assert strand_verdict([row(), row(confidence="hunch", follow_up="re-probe: right")],
                          True, False) == "solid"
    assert strand_verdict([row(), row()], False, False) == "unstable"  # free recall wrong
    assert strand_verdict([row(), row()], True, True) == "unstable"  # a misconception
    assert strand_verdict([row(), row("wrong"), row("idk", "no_idea")], True, False) == "unknown"
    assert strand_verdict([row(), row(confidence="hunch", follow_up="re-probe: wrong")],
                          True, False) == "unstable"
