"""CONTRACT.md's "Study packets" section, held to the code."""

from __future__ import annotations

import re
from pathlib import Path

from learning_system.packets import CANONICAL_FIELDS, EXPORTERS, MODES, STAGES
from tutor.engine.study_packets import EXPORTERS as TUTOR_EXPORTERS

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = (ROOT / "CONTRACT.md").read_text(encoding="utf-8")
SECTION = " ".join(CONTRACT.split("## Study packets", 1)[1].split("\n## ", 1)[0].split())


def ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def test_the_nine_stages_are_named_in_order():
    pipeline = SECTION.split("**The pipeline**", 1)[1]
    named = [t for t in ticked(pipeline) if t in STAGES]
    assert named[: len(STAGES)] == list(STAGES)


def test_the_eleven_canonical_fields_are_named():
    request = SECTION.split("**The request**", 1)[1].split("**Identity**", 1)[0]
    assert set(CANONICAL_FIELDS) <= set(ticked(request)) and len(CANONICAL_FIELDS) == 11


def test_every_mode_and_exporter_is_described():
    modes = SECTION.split("**Modes**", 1)[1].split("**Exporters**", 1)[0]
    assert [t for t in ticked(modes) if t in MODES] == list(MODES)
    exporters = SECTION.split("**Exporters**", 1)[1].split("**Packs**", 1)[0]
    assert set(EXPORTERS) | set(TUTOR_EXPORTERS) <= set(ticked(exporters))


def test_every_warning_code_the_code_can_emit_is_listed():
    sources = list((ROOT / "learning_system" / "packets").glob("*.py"))
    sources.append(ROOT / "tutor" / "engine" / "study_packets.py")
    codes = {
        c
        for path in sources
        for c in re.findall(r'code="([a-z_]+)"', path.read_text(encoding="utf-8"))
    }
    assert codes and codes <= set(ticked(SECTION.split("**Warnings**", 1)[1]))
