"""The study packet (schema `learn/v0.1`) and its views. Every view carries provenance: the node
or edge it comes from, the source path (relative to the curriculum, or `ledger:mistakes/<id>`
for the learner's own mistakes) and the line range."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from learning_system.packets.request import LearningRequest, sha256_hex

SCHEMA: Final = "learn/v0.1"
COMPILER_NAME = "learning_system.packets"
COMPILER_VERSION = "0.1.0"
PLUGIN_API = "1"

Severity = Literal["info", "warning", "error"]
Mode = Literal["deterministic_outline", "anthology", "pitfall", "llm_expanded"]
MODES: tuple[str, ...] = ("deterministic_outline", "anthology", "pitfall", "llm_expanded")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Provenance(_Model):
    node_id: str | None = None
    edge_id: str | None = None
    source_path: str
    line_start: int | None = None
    line_end: int | None = None


class PacketWarning(_Model):
    code: str
    severity: Severity
    message: str
    node_id: str | None = None
    source_path: str | None = None


class NodeView(_Model):
    id: str
    lesson_id: str
    title: str
    phase: int
    role: Literal["seed", "prerequisite", "corrective"]
    depth: int
    tags: list[str]
    content_hash: str
    provenance: Provenance


class EdgeView(_Model):
    id: str
    kind: Literal["requires", "next", "pitfall"]
    source: str
    target: str
    provenance: Provenance


class PitfallView(_Model):
    id: str
    node_id: str
    origin: Literal["ledger", "text", "quiz"]
    symptom: str
    cause: str
    correction: str
    diagnostics: list[str]
    error_type: str | None = None
    status: str | None = None
    provenance: list[Provenance]


class CodeLinkView(_Model):
    id: str
    node_id: str
    language: str
    section: str
    text: str
    provenance: Provenance


class ReferenceView(_Model):
    id: str
    node_id: str
    title: str
    url: str
    provenance: Provenance


class QuizItemView(_Model):
    """A quiz-bank item of one of the packet's lessons, as written (a candidate, not yet audited:
    the assessment exporter runs quiz_audit over it)."""

    id: str
    node_id: str
    stage: str
    question: str
    options: list[str]
    correct: int
    explanation: str
    provenance: Provenance


class SectionView(_Model):
    node_id: str
    title: str
    kind: str
    level: int
    text: str | None = None
    provenance: Provenance


class Objective(_Model):
    text: str
    provenance: Provenance


class ConceptMapNode(_Model):
    id: str
    label: str
    role: str


class ConceptMapEdge(_Model):
    source: str
    target: str
    kind: str


class ConceptMap(_Model):
    nodes: list[ConceptMapNode]
    edges: list[ConceptMapEdge]


class Outline(_Model):
    learning_goal: str
    objectives: list[Objective]
    prerequisites: list[str]
    core_path: list[str]
    implementation_branches: list[SectionView]
    derivation_branches: list[SectionView]
    pitfalls: list[str]
    concept_map: ConceptMap


class Chapter(_Model):
    node_id: str
    title: str
    sections: list[SectionView]


class PitfallEntry(_Model):
    pitfall_id: str
    node_id: str
    symptom: str
    cause: str
    correction: str
    diagnostics: list[str]
    corrective_nodes: list[str]
    provenance: list[Provenance]


class GeneratedSection(_Model):
    """Prose made for an llm_expanded packet, locked to its sources: it passed fact_check (a
    model's, or the deterministic verifier offline); `unverified` names the claims no verifier
    could check."""

    id: str
    node_id: str
    title: str
    origin: Literal["model", "compiled"]
    content: str
    claims: list[str]
    unverified: list[str]
    verifier: str
    receipt_id: str
    provenance: list[Provenance]


class Body(_Model):
    mode: Mode
    goal: str
    nodes: list[NodeView]
    edges: list[EdgeView]
    pitfalls: list[PitfallView]
    code_links: list[CodeLinkView]
    references: list[ReferenceView]
    quiz_items: list[QuizItemView]
    reading_order: list[str]
    outline: Outline | None = None
    anthology: list[Chapter] | None = None
    pitfall_guide: list[PitfallEntry] | None = None
    generated_sections: list[GeneratedSection] = Field(default_factory=list)


class Compiler(_Model):
    name: str = COMPILER_NAME
    version: str = COMPILER_VERSION
    plugin_api: str = PLUGIN_API


class PackRecord(_Model):
    """A domain or source pack descriptor the packet was compiled with (data, never code)."""

    kind: Literal["domain", "source"]
    name: str
    version: str
    plugin_api: str
    file: str
    sha256: str
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class PacketSource(_Model):
    graph_hash: str
    graph_path: str
    query_hash: str
    curriculum: str
    packs: list[PackRecord] = Field(default_factory=list)


class RequestSnapshot(_Model):
    canonical: LearningRequest
    request_hash: str


class Packet(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_version: Literal["learn/v0.1"] = Field(SCHEMA, alias="schema")
    packet_id: str
    created_at: str
    compiler: Compiler
    source: PacketSource
    request: RequestSnapshot
    body: Body
    warnings: list[PacketWarning]

    def data(self) -> dict[str, Any]:
        """The packet as JSON data, keys as written in the schema."""
        return self.model_dump(mode="json", by_alias=True)

    def content_hash(self) -> str:
        """SHA-256 of the packet without `created_at`: equal for two compiles of one request."""
        data = self.data()
        data.pop("created_at")
        return sha256_hex(data)


def packet_id_for(request_hash: str, graph_hash: str) -> str:
    return f"lsp-{request_hash[:16]}-{graph_hash[:8]}"
