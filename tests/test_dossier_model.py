"""Knowledge packs, layers 1 and 2: the closed pack model, the units the program splits a
lesson into, and coverage by construction (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from learning_system.curriculum import load_curriculum
from tutor.dossier.checks import assemble, check_atoms
from tutor.dossier.model import DraftAtom, ExtractReply, KnowledgePack, Provenance, contract_schemas
from tutor.dossier.units import fingerprint, lesson_source, split_units

ROOT = Path(__file__).resolve().parents[1]
DOC = """# A lesson

> A motto that is not a fact.

**Type:** Learn

## The Concept

Variance is the mean squared deviation.

- a list item
- another one

```python
x = 1

y = 2
```

### A subheading

Under a subheading.

## Further Reading

- [a link](https://example.org)
"""


def source(tmp_path: Path, text: str = DOC):
    doc = tmp_path / "phases" / "01-a" / "01-b" / "docs" / "en.md"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text, encoding="utf-8")
    from tutor.dossier.units import LessonSource

    return LessonSource("P1 L01", "test", tmp_path, (doc,))


SOURCED = "Variance is the mean squared deviation."  # u1's text


def draft(atom_id: str, kind: str, units: list[str], **more) -> DraftAtom:
    more.setdefault("text", SOURCED if kind in ("invariant", "procedure", "case") else atom_id)
    return DraftAtom(id=atom_id, kind=kind, units=units, **more)


def provenance() -> Provenance:
    return Provenance(
        extract_model="m", review_model="m", tokens_in=0, tokens_out=0, seconds=0, built_at="t"
    )


def test_units_carry_file_and_lines_and_headings_are_not_units(tmp_path):
    units = split_units(source(tmp_path))
    assert [(u.start_line, u.end_line, u.section) for u in units] == [
        (9, 9, "The Concept"),
        (11, 12, "The Concept"),
        (14, 18, "The Concept"),  # a code fence is one unit, its blank line included
        (22, 22, "A subheading"),
    ]
    assert {u.file for u in units} == {"phases/01-a/01-b/docs/en.md"}
    assert not any(u.text.lstrip().startswith("#") for u in units)
    assert not any("example.org" in u.text for u in units)  # Further Reading: links, not facts


def test_the_fingerprint_changes_with_any_edit(tmp_path):
    before = fingerprint(source(tmp_path))
    assert fingerprint(source(tmp_path)) == before
    assert fingerprint(source(tmp_path, DOC.replace("mean squared", "mean square"))) != before


def test_a_real_lesson_splits_into_units_whose_lines_hold_their_text(corpus_root):
    curriculum = load_curriculum(corpus_root, only=["P1 L02"])
    lesson = curriculum.lesson("P1 L02")
    units = split_units(lesson_source(lesson, curriculum))
    lines = lesson.doc_path.read_text(encoding="utf-8").splitlines()
    assert len(units) > 10
    for unit in units:
        assert "\n".join(lines[unit.start_line - 1 : unit.end_line]) == unit.text


def test_unknown_fields_are_refused_everywhere():
    with pytest.raises(ValidationError, match="extra"):
        ExtractReply.model_validate({"atoms": [], "confidence": 1})
    with pytest.raises(ValidationError, match="extra"):
        DraftAtom.model_validate({"id": "a", "kind": "case", "text": "t", "units": [], "x": 1})


def test_an_unknown_kind_is_read_as_invariant_with_a_warning_and_text_is_kept(tmp_path):
    units = split_units(source(tmp_path))
    odd = DraftAtom(id="a1", kind="theorem", text="  Kept  as  written ", units=["u1"])
    found = check_atoms([odd], units)
    assert found.atoms[0].kind == "invariant"
    assert found.atoms[0].text == "  Kept  as  written "
    assert found.warnings == ["atom a1: unknown kind 'theorem' read as invariant"]


def test_a_unit_no_atom_covers_is_a_blocking_gap_naming_its_lines(tmp_path):
    units = split_units(source(tmp_path))
    drafts = [
        draft("a1", "invariant", ["u1", "u2", "u3"]),
        draft("e1", "evidence", ["u1"], proves=["a1"]),
        draft("g1", "gap", ["u4"]),  # a gap does not cover the unit it names
    ]
    found = check_atoms(drafts, units)
    assert found.problems == [
        "gap: unit u4 (phases/01-a/01-b/docs/en.md lines 22-22, 'A subheading') is covered by "
        "no atom"
    ]


def test_references_must_exist_evidence_must_point_at_atoms_and_links_have_no_cycles(tmp_path):
    units = split_units(source(tmp_path))
    drafts = [
        draft("a1", "invariant", ["u1", "u2", "u3", "u4"], requires=["a2"]),
        draft("a2", "procedure", ["u9"], requires=["a1"]),
        draft("e1", "evidence", ["u1"], proves=["a7"]),
        draft("e2", "evidence", ["u1"]),
        draft("a1", "case", ["u1"]),
    ]
    problems = check_atoms(drafts, units).problems
    assert "atom a1 appears twice" in problems
    assert "atom a2 names unit u9, which does not exist" in problems
    assert "atom e1 proves a7, which is no atom of this pack" in problems
    assert "evidence e2 points at no atom" in problems
    assert "atoms a2 and a1 are on a cycle" in problems


def test_every_sentence_of_a_fact_must_be_found_in_the_units_it_names(tmp_path):
    """A model that prefixes an invented sentence to a true one, and approves its own review,
    does not get a `ready` pack: the program finds the invented sentence in no unit."""
    invented = "The technique is mandatory under ISO standard 99812 since 2019."
    units = split_units(source(tmp_path))
    covering = [draft("c1", "case", ["u3", "u4"], text="Under a subheading.")]
    evidence = draft("e1", "evidence", ["u1"], proves=["a1"])
    for atom in (
        draft("a1", "invariant", ["u1", "u2"], text=f"{invented} {SOURCED}"),
        draft("a1", "procedure", ["u1", "u2"], text=SOURCED, steps=["- a list item", invented]),
        draft("a1", "invariant", ["u2"], text=SOURCED),  # true, but not in the unit it names
    ):
        found = check_atoms([atom, *covering, evidence], units)
        (problem,) = found.problems
        assert problem.startswith("atom a1: the sentence ") and "in none of its units" in problem
    grounded = draft("a1", "procedure", ["u1", "u2"], text=SOURCED, steps=["- another one"])
    assert check_atoms([grounded, *covering, evidence], units).problems == []
    pack = assemble(
        source(tmp_path), "f" * 64, units, [grounded, *covering, evidence], provenance()
    )
    assert pack.state == "ready"


def test_terminal_escapes_and_control_characters_are_stripped_from_model_text(tmp_path):
    units = split_units(source(tmp_path))
    hostile = "\x1b]0;pwned-title\x07Variance is the mean \x1b[31msquared\x1b[0m deviation.\x00"
    atom = draft("a1", "error", ["u1"], text=hostile, symptom="\x9b2Jsee\u202e", steps=["\x07x"])
    (kept,) = check_atoms([atom], units).atoms
    assert kept.text == SOURCED and kept.symptom == "see" and kept.steps == ["x"]


def test_the_program_sets_identity_hash_and_fingerprint_and_a_clean_pack_is_ready(tmp_path):
    src = source(tmp_path)
    units = split_units(src)
    drafts = [draft("a1", "invariant", ["u1", "u2", "u3", "u4"])]
    drafts.append(draft("e1", "evidence", ["u1"], proves=["a1"]))
    pack = assemble(src, fingerprint(src), units, drafts, provenance())
    assert pack.state == "ready" and pack.id == f"P1 L01@{fingerprint(src)[:12]}"
    again = KnowledgePack.model_validate_json(pack.model_dump_json(by_alias=True))
    assert again == pack and json.loads(pack.model_dump_json(by_alias=True))["schema"] == (
        "knowledge-pack/1"
    )
    changed = drafts[:1] + [draft("e1", "evidence", ["u2"], proves=["a1"])]
    assert assemble(src, fingerprint(src), units, changed, provenance()).sha256 != pack.sha256


def test_the_contracts_folder_holds_the_skills_reply_schemas():
    for name, schema in contract_schemas().items():
        stored = json.loads((ROOT / "contracts" / name).read_text(encoding="utf-8"))
        assert stored == schema, f"regenerate: python -m tutor.dossier.model contracts ({name})"
