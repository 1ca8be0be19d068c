"""What a teaching step takes from a ready pack, chosen by the program, deterministically.

For the step's `##` section: its invariants, procedures and evidence always; its cases and
errors filtered by the learner's recent error types; the invariants of prerequisites where the
probe found a gap. A selection missing essential data is `Declined(reason)` and the step is
taught from the raw digest: a model is never asked to fill a factual gap."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from tutor.dossier.model import Atom, KnowledgePack

ALWAYS = ("invariant", "procedure", "evidence")
ESSENTIAL = ("invariant", "procedure")
# with none of the error types that call for more, one case and one error are kept
MORE_CASES = frozenset({"application"})
MORE_ERRORS = frozenset({"structural", "deviation"})
FILTERED_MAX = 3
# an atom's kind as a learner may read it (a draft that keeps the excerpt's lines shows them)
LABELS = {
    "invariant": "Fact",
    "procedure": "Procedure",
    "case": "Example",
    "error": "Common error",
    "evidence": "Show that you can",
}
PREREQ_MAX = 5


@dataclass(frozen=True)
class Declined:
    reason: str


@dataclass(frozen=True)
class Selection:
    pack_sha: str
    part: str
    atoms: tuple[Atom, ...]
    unit_text: tuple[str, ...]  # the verbatim units the step's own atoms rest on, in order
    sha256: str

    def excerpt(self) -> str:
        """The text a draft is written from and fact-checked against: the selected atoms, then
        the source units they rest on, verbatim."""
        lines = [f"{LABELS.get(a.kind, a.kind.capitalize())}: {a.text}" for a in self.atoms]
        return "\n".join(lines) + "\n\n" + "\n\n".join(self.unit_text)


def select(
    pack: KnowledgePack | None,
    part: str,
    recent_errors: Collection[str] = (),
    prerequisites: Mapping[str, KnowledgePack] | None = None,
) -> Selection | Declined:
    """The step's selection from `pack` for the section titled `part`; `prerequisites`: the
    ready packs of the prerequisites the probe found a gap in."""
    if pack is None or pack.state != "ready":
        return Declined("no ready knowledge pack")
    in_part = {u.id for u in pack.units if u.part == part}
    own = [a for a in pack.atoms if in_part & set(a.units)]
    if not any(a.kind in ESSENTIAL for a in own):
        return Declined(f"the pack states no fact for {part!r}")
    chosen = [a for a in own if a.kind in ALWAYS]
    chosen += _some(own, "case", MORE_CASES, recent_errors)
    chosen += _some(own, "error", MORE_ERRORS, recent_errors)
    for other in (prerequisites or {}).values():
        chosen += [a for a in other.atoms if a.kind == "invariant"][:PREREQ_MAX]
    used = {u for a in own for u in a.units}
    texts = tuple(u.text for u in pack.units if u.id in used and u.part == part)
    ids = sorted(f"{pack_of(a, pack, prerequisites)}:{a.id}" for a in chosen)
    digest = hashlib.sha256("\n".join([pack.sha256, part, *ids]).encode()).hexdigest()
    return Selection(pack.sha256, part, tuple(chosen), texts, digest)


def _some(
    atoms: list[Atom], kind: str, more: frozenset[str], recent: Collection[str]
) -> list[Atom]:
    of_kind = [a for a in atoms if a.kind == kind]
    return of_kind[:FILTERED_MAX] if more & set(recent) else of_kind[:1]


def pack_of(atom: Atom, pack: KnowledgePack, others: Mapping[str, KnowledgePack] | None) -> str:
    """The id of the pack an atom came from (atom ids are unique within a pack only)."""
    if any(a is atom for a in pack.atoms):
        return pack.id
    return next((p.id for p in (others or {}).values() if any(a is atom for a in p.atoms)), "")
