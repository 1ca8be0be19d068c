"""Knowledge packs, part 5: what a teaching step takes from a ready pack — deterministic, and
Declined when essential data is missing (issue 24)."""

from __future__ import annotations

from learning_system.curriculum import load_curriculum
from tutor.config import builtin_course_path
from tutor.dossier.checks import assemble
from tutor.dossier.model import DraftAtom, Provenance
from tutor.dossier.selection import Declined, Selection, select
from tutor.dossier.units import fingerprint, lesson_source, split_units
from tutor.testing.pack_model import PackModel

PROVENANCE = Provenance(
    extract_model="m", review_model="m", tokens_in=0, tokens_out=0, seconds=0, built_at="t"
)


def pack_of(lesson_id: str, extra: list[DraftAtom] = (), model: PackModel | None = None):
    curriculum = load_curriculum(builtin_course_path())
    source = lesson_source(curriculum.lesson(lesson_id), curriculum)
    units = split_units(source)
    drafts = [
        DraftAtom.model_validate(a)
        for a in (model or PackModel()).extract(
            [{"id": u.id, "part": u.part, "section": u.section, "text": u.text} for u in units]
        )
    ]
    return assemble(source, fingerprint(source), units, [*drafts, *extra], PROVENANCE)


def test_a_step_takes_its_own_invariants_and_evidence_and_one_case_and_error():
    pack = pack_of("P1 L02")
    part = pack.units[0].part
    in_part = {u.id for u in pack.units if u.part == part}
    errors = [
        DraftAtom(id=f"x{n}", kind="error", text=f"error {n}", units=[pack.units[0].id])
        for n in range(4)
    ]
    pack = pack_of("P1 L02", errors)
    chosen = select(pack, part)
    assert isinstance(chosen, Selection)
    kinds = [a.kind for a in chosen.atoms]
    assert kinds.count("error") == 1
    assert all(set(a.units) & in_part for a in chosen.atoms)
    assert "evidence" in kinds and "invariant" in kinds
    more = select(pack, part, recent_errors={"structural"})
    assert [a.kind for a in more.atoms].count("error") == 3
    assert more.sha256 != chosen.sha256


def test_the_selection_is_deterministic_and_its_excerpt_quotes_the_units():
    pack = pack_of("P1 L02")
    part = pack.units[0].part
    one, two = select(pack, part), select(pack, part)
    assert one == two
    assert pack.units[0].text in one.excerpt()


def test_prerequisite_invariants_join_where_the_probe_found_a_gap():
    pack, prereq = pack_of("P1 L02"), pack_of("P1 L01")
    part = pack.units[0].part
    plain = select(pack, part)
    with_gap = select(pack, part, prerequisites={"P1 L01": prereq})
    added = [a for a in with_gap.atoms if a not in plain.atoms]
    assert added and all(a.kind == "invariant" for a in added)
    assert with_gap.sha256 != plain.sha256


def test_missing_essential_data_is_declined_never_filled():
    assert select(None, "Anything") == Declined("no ready knowledge pack")
    pack = pack_of("P1 L02")
    assert isinstance(select(pack, "A section it does not have"), Declined)
    blocked = pack_of("P1 L02", model=PackModel(uncovered={"u2"}))
    assert blocked.state == "review_required"
    assert select(blocked, pack.units[0].part) == Declined("no ready knowledge pack")
