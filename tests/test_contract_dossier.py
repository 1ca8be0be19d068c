"""CONTRACT.md's "Knowledge packs" section, held to the code."""

from __future__ import annotations

import re
from pathlib import Path

from tutor.dossier.build import TEMPERATURE, BuildOptions
from tutor.dossier.model import ATOM_KINDS, COVERING_KINDS, PACK_SCHEMA, contract_schemas
from tutor.dossier.report import WIDTH

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = (ROOT / "CONTRACT.md").read_text(encoding="utf-8")
SECTION = " ".join(CONTRACT.split("## Knowledge packs", 1)[1].split("\n## ", 1)[0].split())


def ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def test_the_schema_and_every_atom_kind_are_named_in_order():
    pack = SECTION.split("**The pack**", 1)[1].split("**Units and coverage**", 1)[0]
    assert PACK_SCHEMA in ticked(pack)
    assert [t for t in ticked(pack) if t in ATOM_KINDS][: len(ATOM_KINDS)] == list(ATOM_KINDS)


def test_the_covering_kinds_are_the_ones_the_checks_use():
    coverage = SECTION.split("**Units and coverage**", 1)[1].split("**Identity", 1)[0]
    said = coverage.split("a unit covered by no", 1)[1].split("is a blocking gap", 1)[0]
    assert set(ticked(said)) == set(COVERING_KINDS)


def test_the_build_limits_are_the_code_s():
    build = SECTION.split("**The build**", 1)[1].split("**States**", 1)[0]
    options = BuildOptions()
    assert TEMPERATURE == 0 and "temperature 0" in build
    assert f"output cap of {options.max_tokens} tokens" in build
    assert f"at most {options.concurrency} lessons at a time" in build
    assert f"{options.timeout:g} s per lesson" in build


def test_the_contract_files_and_the_status_width_are_the_code_s():
    assert all((ROOT / "contracts" / name).is_file() for name in contract_schemas())
    assert f"within {WIDTH} columns" in SECTION
