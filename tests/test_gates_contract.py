"""The codes in code, in contracts/learning-core.json and in CONTRACT.md agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tutor.gates.codes import BLOCK_CODES, MCQ_CODES
from tutor.gates.receipts import MAX_CYCLES
from tutor.gates.turns import REQUIRED_GATES

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = json.loads((ROOT / "contracts" / "learning-core.json").read_text(encoding="utf-8"))
CONTRACT_MD = (ROOT / "CONTRACT.md").read_text(encoding="utf-8")
SOURCES = [*sorted((ROOT / "tutor" / "gates").glob("*.py")), ROOT / "tutor/commands/quiz.py"]


def used_codes(pattern: str) -> set[str]:
    found: set[str] = set()
    for path in SOURCES:
        if path.name == "codes.py":
            continue
        found |= set(re.findall(pattern, path.read_text(encoding="utf-8")))
    return found


def test_block_codes_match_both_ways():
    listed = {e["code"]: e for e in CONTRACT["block_codes"]}
    assert set(listed) == set(BLOCK_CODES)
    for code, rule in BLOCK_CODES.items():
        assert listed[code]["rule"] == rule and listed[code]["kind"] == "block"


def test_mcq_codes_match_both_ways():
    listed = {e["code"]: e for e in CONTRACT["mcq_codes"]}
    assert set(listed) == set(MCQ_CODES)
    for code, (severity, scope, rule) in MCQ_CODES.items():
        assert (listed[code]["severity"], listed[code]["scope"], listed[code]["rule"]) == (
            severity,
            scope,
            rule,
        )


def test_codes_used_in_code_are_defined_and_every_defined_code_is_used():
    assert used_codes(r'"([GFQRV]\d\d)"') == set(BLOCK_CODES)
    assert used_codes(r'"(M\d\d)"') == set(MCQ_CODES)


def test_every_code_is_in_contract_md():
    for code, rule in BLOCK_CODES.items():
        assert f"| {code} | {rule} |" in CONTRACT_MD, code
    for code, (severity, scope, rule) in MCQ_CODES.items():
        assert f"| {code} | {severity} | {scope} | {rule} |" in CONTRACT_MD, code
    for heading in ("## Gates", "## Block codes", "## Multiple-choice rules"):
        assert f"\n{heading}\n" in CONTRACT_MD


def test_turn_gates_and_cycles_match():
    assert CONTRACT["turn_gates"] == {k: sorted(v) for k, v in REQUIRED_GATES.items()}
    assert CONTRACT["max_correction_cycles"] == MAX_CYCLES
