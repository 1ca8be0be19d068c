"""The knowledge pack (`knowledge-pack/1`) and the replies of the two skills that build it.

The model writes atoms only. Units, references' existence, hashes, identity and provenance are
the program's (`units.py`, `checks.py`, `build.py`). Every model is closed: an unknown field is
refused, never dropped."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

PACK_SCHEMA = "knowledge-pack/1"
AtomKind = Literal["invariant", "procedure", "case", "error", "evidence", "gap", "space"]
ATOM_KINDS: tuple[str, ...] = get_args(AtomKind)
# kinds that cover a unit: a gap says what the source leaves open, a space where wording may
# vary; neither states what the unit teaches
COVERING_KINDS = frozenset({"invariant", "procedure", "case", "error", "evidence"})
PackState = Literal["ready", "review_required", "failed", "stale"]

_ID = r"^[A-Za-z0-9_.-]{1,40}$"


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DraftAtom(_Closed):
    """An atom as a model writes it. `kind` is free text here: an unknown kind is read as
    `invariant` by the program, with a warning, instead of failing the whole reply."""

    id: str = Field(pattern=_ID)
    kind: str = Field(max_length=40)
    text: str = Field(min_length=1, max_length=4000)
    units: list[str] = Field(description="ids of the source units this atom rests on")
    steps: list[str] = Field(default_factory=list, description="procedure: the ordered steps")
    symptom: str = Field(default="", description="error: what the learner sees")
    cause: str = Field(default="", description="error: why it happens")
    correction: str = Field(default="", description="error: how to put it right")
    proves: list[str] = Field(
        default_factory=list, description="evidence: ids of the atoms it shows a learner knows"
    )
    requires: list[str] = Field(
        default_factory=list, description="ids of atoms this one builds on (no cycles)"
    )


class ExtractReply(_Closed):
    """The `pack_extract` skill's reply: the lesson's atoms."""

    atoms: list[DraftAtom] = Field(max_length=400)


class ReviewReply(_Closed):
    """The `pack_review` skill's reply: the atoms, corrected, and what was changed."""

    atoms: list[DraftAtom] = Field(max_length=400)
    corrections: list[str] = Field(default_factory=list, max_length=100)


class SourceUnit(_Closed):
    """A block of the lesson's source (a paragraph, a list, a code block, a table), set by the
    program. Headings are not units: they are kept as the unit's `section`."""

    id: str
    file: str  # relative to the curriculum root, `/`-separated
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    section: str  # the heading right above it
    part: str  # the `##` section it belongs to (a teaching step's section)
    text: str
    sha256: str


class Atom(_Closed):
    """An atom of a checked pack: a DraftAtom whose kind is known and whose text is as the
    reviewer wrote it (never corrected by the program)."""

    id: str
    kind: AtomKind
    text: str
    units: list[str]
    steps: list[str] = Field(default_factory=list)
    symptom: str = ""
    cause: str = ""
    correction: str = ""
    proves: list[str] = Field(default_factory=list)
    requires: list[str] = Field(default_factory=list)


class Provenance(_Closed):
    """How the pack was built: set by the program from the calls it made."""

    extract_model: str
    review_model: str
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)
    seconds: float = Field(ge=0)
    built_at: str
    corrections: list[str] = Field(default_factory=list)


class KnowledgePack(_Closed):
    schema_: Literal["knowledge-pack/1"] = Field(alias="schema", default="knowledge-pack/1")
    id: str  # `<lesson id>@<fingerprint[:12]>`
    lesson_id: str
    curriculum: str
    fingerprint: str  # of the sources the build started from (units.py)
    units: list[SourceUnit]
    atoms: list[Atom]
    problems: list[str]  # blocking: a pack with any is `review_required`
    warnings: list[str]  # not blocking (an unknown kind read as invariant, ...)
    sha256: str  # of units and atoms, canonical JSON
    provenance: Provenance

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @property
    def state(self) -> PackState:
        return "review_required" if self.problems else "ready"


def contract_schemas() -> dict[str, dict[str, object]]:
    """The JSON schemas kept in `contracts/` (file name -> schema), for servers written against
    them. tests/test_dossier_model.py keeps the files equal to these."""
    return {
        "knowledge-pack-extract.json": ExtractReply.model_json_schema(),
        "knowledge-pack-review.json": ReviewReply.model_json_schema(),
        "knowledge-pack-1.json": KnowledgePack.model_json_schema(by_alias=True),
    }


if __name__ == "__main__":  # python -m tutor.dossier.model CONTRACTS_DIR: write the schemas
    import json
    import sys
    from pathlib import Path

    folder = Path(sys.argv[1])
    for name, schema in contract_schemas().items():
        text = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (folder / name).write_text(text, encoding="utf-8")
