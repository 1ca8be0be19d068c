"""Coverage by construction: the program checks a reply's atoms against the lesson's units and
assembles the pack. Nothing here rewords an atom's text (terminal escapes and control
characters are stripped from every string a model wrote, nothing else); a problem blocks the
pack (`review_required`), a warning does not.

Grounding: every sentence that asserts something (tutor.gates.claims) of an `invariant`,
`procedure` or `case` atom's text and steps must be found in one of the units the atom names,
by the deterministic verifier's test (tutor.gates.offline_verifier.supported) — the same floor
a teaching draft's claims are held to. A sentence found in none is a blocking problem."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from learning_system.terminal import strip_terminal
from tutor.dossier.model import (
    ATOM_KINDS,
    COVERING_KINDS,
    Atom,
    DraftAtom,
    KnowledgePack,
    Provenance,
    SourceUnit,
)
from tutor.dossier.units import LessonSource
from tutor.gates.claims import extract_claims
from tutor.gates.offline_verifier import supported

# the kinds whose text states what is true of the lesson, so every sentence must be sourced
GROUNDED_KINDS = frozenset({"invariant", "procedure", "case"})


@dataclass
class Findings:
    atoms: list[Atom] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def check_atoms(drafts: Iterable[DraftAtom], units: list[SourceUnit]) -> Findings:
    found = Findings()
    seen: set[str] = set()
    for draft in drafts:
        if draft.id in seen:
            found.problems.append(f"atom {draft.id} appears twice")
            continue
        seen.add(draft.id)
        kind = draft.kind
        if kind not in ATOM_KINDS:
            found.warnings.append(f"atom {draft.id}: unknown kind {kind!r} read as invariant")
            kind = "invariant"
        found.atoms.append(Atom.model_validate({**_inert(draft.model_dump()), "kind": kind}))
    unit_ids = {u.id for u in units}
    texts = {u.id: u.text for u in units}
    for atom in found.atoms:
        found.problems += _reference_problems(atom, unit_ids, seen)
        found.problems += [
            f"atom {atom.id}: the sentence {s[:80]!r} is found in none of its units"
            for s in unsupported_sentences(atom, texts)
        ]
    found.problems += _cycles(found.atoms)
    covered = {u for a in found.atoms if a.kind in COVERING_KINDS for u in a.units}
    for unit in units:
        if unit.id not in covered:
            found.problems.append(
                f"gap: unit {unit.id} ({unit.file} lines {unit.start_line}-{unit.end_line}, "
                f"{unit.section!r}) is covered by no atom"
            )
    if units and not any(a.kind == "evidence" for a in found.atoms):
        found.problems.append("no evidence atom: nothing says what a learner must show")
    return found


def _inert(fields: dict[str, Any]) -> dict[str, Any]:
    """A draft atom's fields with every string (alone or in a list) without terminal escapes
    or control characters."""

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return strip_terminal(value)
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return {k: clean(v) for k, v in fields.items()}


def unsupported_sentences(atom: Atom, unit_texts: dict[str, str]) -> list[str]:
    """The sentences of a grounded atom (GROUNDED_KINDS) that none of the units it names
    holds; [] for the other kinds."""
    if atom.kind not in GROUNDED_KINDS:
        return []
    return sentences_not_found([atom.text, *atom.steps], atom.units, unit_texts)


def sentences_not_found(
    texts: Iterable[str], units: Iterable[str], unit_texts: dict[str, str]
) -> list[str]:
    """The asserting sentences of `texts` that none of `units` holds (by the deterministic
    verifier's test)."""
    sources = [unit_texts[u] for u in units if u in unit_texts]
    sentences = [c for text in texts for c in extract_claims(text)]
    return [c for c in sentences if not any(supported(c, source) for source in sources)]


def _reference_problems(atom: Atom, unit_ids: set[str], atom_ids: set[str]) -> list[str]:
    problems: list[str] = []
    if not atom.units:
        problems.append(f"atom {atom.id} names no unit it rests on")
    missing = [u for u in atom.units if u not in unit_ids]
    problems += [f"atom {atom.id} names unit {u}, which does not exist" for u in missing]
    if atom.kind == "evidence" and not atom.proves:
        problems.append(f"evidence {atom.id} points at no atom")
    if atom.proves and atom.kind != "evidence":
        problems.append(f"atom {atom.id} is a {atom.kind} but lists atoms it proves")
    for name, refs in (("proves", atom.proves), ("requires", atom.requires)):
        problems += [
            f"atom {atom.id} {name} {ref}, which is no atom of this pack"
            for ref in refs
            if ref not in atom_ids
        ]
    return problems


def _cycles(atoms: list[Atom]) -> list[str]:
    """One problem per atom found on a cycle of `requires` and `proves` links."""
    links = {a.id: [*a.requires, *a.proves] for a in atoms}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    problems: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        for nxt in links.get(node, []):
            if state.get(nxt) == 1:
                problems.append(f"atoms {node} and {nxt} are on a cycle")
            elif nxt in links and nxt not in state:
                visit(nxt)
        state[node] = 2

    for atom_id in links:
        if atom_id not in state:
            visit(atom_id)
    return problems


def pack_hash(units: list[SourceUnit], atoms: list[Atom]) -> str:
    canonical = json.dumps(
        {
            "units": [u.model_dump(mode="json") for u in units],
            "atoms": [a.model_dump(mode="json") for a in atoms],
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def assemble(
    source: LessonSource,
    fingerprint: str,
    units: list[SourceUnit],
    drafts: Iterable[DraftAtom],
    provenance: Provenance,
) -> KnowledgePack:
    """The pack, its identity, hash and provenance set here from what the program knows."""
    found = check_atoms(drafts, units)
    return KnowledgePack(
        id=f"{source.lesson_id}@{fingerprint[:12]}",
        lesson_id=source.lesson_id,
        curriculum=source.curriculum,
        fingerprint=fingerprint,
        units=units,
        atoms=found.atoms,
        problems=found.problems,
        warnings=found.warnings,
        sha256=pack_hash(units, found.atoms),
        provenance=provenance,
    )
