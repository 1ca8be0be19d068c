"""Study packets in the tutor: the pure compiler of `learning_system.packets` plus what needs the
tutor's gates: the `assessment` exporter (quiz items after quiz_audit) and the llm_expanded
step (source-locked prose, each section through fact_check via the Gatekeeper).

It sits in the engine's layer (it drives the Gatekeeper and a model provider, over the learning
system), below the front ends: `compile_packet(request, curriculum, store=None, ...)` is what
the app's Study packet command and `tutor packet` call."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from learning_system.packets import compile_packet as _compile
from learning_system.packets.model import GeneratedSection, Packet, PacketWarning, Provenance

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum
    from learning_system.packets import CurriculumGraph, LearningRequest, PacketResult
    from learning_system.packets.graph import GraphNode, SectionInfo
    from learning_system.packets.model import Body
    from learning_system.packets.pipeline import Expander
    from learning_system.store import Store
    from tutor.engine.gatekeeper import Gatekeeper
    from tutor.gates.verdicts import QuizIssue

# how many teaching sections of each core lesson an llm_expanded packet drafts prose for
EXPAND_SECTIONS = 2
EXPAND_KINDS = ("main_path", "motivation", "implementation")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`\"'])")


class SectionDraft(BaseModel):
    """A model's prose for one packet section, with its load-bearing claims."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1)
    claims: list[str] = Field(min_length=1)


# assessment -----------------------------------------------------------------------------------
def _placed(options: list[str], key: int, item_id: str) -> tuple[list[str], int]:
    """The options rotated so the key sits in a slot chosen by the item id (stable)."""
    slot = hashlib.sha256(item_id.encode()).digest()[0] % len(options)
    shift = (slot - key) % len(options)
    rotated = options[-shift:] + options[:-shift] if shift else list(options)
    return rotated, (key + shift) % len(options)


def _codes(issues: list[QuizIssue]) -> list[str]:
    """The codes of the gate's issues (every issue of tutor.gates.mcq carries one)."""
    return sorted({i.code for i in issues if i.code is not None})


def export_assessment(packet: Packet) -> dict[str, bytes]:
    """`assessment.json`: the packet's quiz items that pass the multiple-choice rules (no high
    or medium issue, item by item and over each stage's batch), as a quiz bank the tutor loads
    (`{"questions": [...]}`); the rest listed under `withheld` with their codes."""
    from tutor.gates import mcq
    from tutor.gates.envelopes import QuizQuestion

    kept: list[dict[str, Any]] = []
    withheld: list[dict[str, Any]] = []
    for stage in ("pre", "check", "post"):
        batch = []
        for item in (q for q in packet.body.quiz_items if q.stage == stage):
            options, key = _placed(item.options, item.correct, item.id)
            question = QuizQuestion(
                id=item.id, type="mcq", question=item.question, options=options, correct_index=key
            )
            codes = _codes(mcq.blocking(mcq.audit_item(question)))
            if codes:
                withheld.append({"id": item.id, "node_id": item.node_id, "codes": codes})
                continue
            batch.append((item, question))
        batch_codes = _codes(mcq.blocking(mcq.audit_batch([q for _, q in batch])))
        for item, question in batch:
            if batch_codes:
                withheld.append({"id": item.id, "node_id": item.node_id, "codes": batch_codes})
                continue
            kept.append(
                {
                    "id": item.id,
                    "stage": stage,
                    "question": question.question,
                    "options": question.options,
                    "correct": question.correct_index,
                    "explanation": item.explanation,
                    "source": {
                        "node_id": item.node_id,
                        "path": item.provenance.source_path,
                        "line": item.provenance.line_start,
                    },
                }
            )
    bank = {
        "packet_id": packet.packet_id,
        "questions": kept,
        "withheld": withheld,
        "audit": "tutor.gates.mcq item rules and stage batch rules; options rotated by id",
    }
    text = json.dumps(bank, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return {"assessment.json": text.encode("utf-8")}


EXPORTERS = {"assessment": export_assessment}


# llm_expanded -----------------------------------------------------------------------------------
def _sentences(text: str, n: int) -> list[str]:
    """The first n prose sentences of a markdown block, verbatim (lines of a paragraph joined)."""
    paragraphs: list[str] = []
    current: list[str] = []
    fence = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or stripped.startswith(("#", "|", ">", "-", "*", "+")) or not stripped:
            if current:
                paragraphs.append(" ".join(current))
                current = []
            continue
        current.append(stripped)
    if current:
        paragraphs.append(" ".join(current))
    out: list[str] = []
    for paragraph in paragraphs:
        for sentence in _SENTENCE.split(paragraph):
            if len(sentence) >= 30 and sentence[-1:] in ".!?":
                out.append(sentence)
            if len(out) >= n:
                return out
    return out


def make_expander(store: Store, provider: Any = None) -> Expander:
    """The llm_expanded step: for each core lesson, prose for its first teaching sections —
    drafted by the model from the section text when one is configured, else compiled from the
    section's own sentences — each passed through fact_check (Gatekeeper.teach) against the
    lesson document. A blocked section is left out with a warning; claims no verifier could
    check are listed as UNVERIFIED."""
    from tutor.engine.gatekeeper import Gatekeeper
    from tutor.gates.digest_view import GateDigest

    def expand(
        body: Body, graph: CurriculumGraph, packet_id: str
    ) -> tuple[list[GeneratedSection], list[PacketWarning]]:
        made: list[GeneratedSection] = []
        warnings: list[PacketWarning] = []
        core = body.outline.core_path if body.outline else []
        for node_id in core:
            node = graph.node(node_id)
            if node.doc_path is None:
                continue
            document = "\n".join(graph.lines(node_id))
            gate = Gatekeeper(store, GateDigest(sources={node.doc_path: document}), provider)
            drafted = 0
            for section in (s for s in node.sections if s.kind in EXPAND_KINDS):
                if drafted >= EXPAND_SECTIONS:
                    break
                excerpt = graph.text(node_id, section.line_start + 1, section.line_end).strip()
                if not _sentences(excerpt, 2):
                    continue
                drafted += 1
                one = _expand_section(store, gate, provider, packet_id, node, section, excerpt)
                if isinstance(one, GeneratedSection):
                    made.append(one)
                else:
                    warnings.append(one)
        if core and not made:
            warnings.append(
                PacketWarning(
                    code="nothing_generated",
                    severity="info",
                    message="llm_expanded: no section of the core lessons had prose to expand",
                )
            )
        return made, warnings

    return expand


def _expand_section(
    store: Store,
    gate: Gatekeeper,
    provider: Any,
    packet_id: str,
    node: GraphNode,
    section: SectionInfo,
    excerpt: str,
) -> GeneratedSection | PacketWarning:
    """One section drafted (or compiled) and fact-checked: the generated section, or the
    warning that it was withheld."""
    from tutor.gates.checker import Block

    source, node_id = node.doc_path or "", node.id
    compiled = _sentences(excerpt, 2)
    draft = _model_draft(provider, section.title, excerpt, source)
    origin = "model" if draft else "compiled"
    content, claims = draft or (" ".join(compiled), compiled)
    message_id = f"packet:{packet_id}:{node_id}:{section.line_start}"
    # the claims checked are the program's: every asserting sentence of the content
    outcome = gate.teach(
        message_id, content, [source], excerpt, context=f"study packet section {section.title}"
    )
    if isinstance(outcome, Block):
        return PacketWarning(
            code="generated_section_withheld",
            severity="warning",
            node_id=node_id,
            source_path=source,
            message=f"{node.lesson_id} § {section.title}: {outcome.reason} (code {outcome.code})",
        )
    receipts = [r for r in store.receipts.of_message(message_id) if r["gate"] == "fact_check"]
    payload = receipts[-1]["payload"] if receipts else {}
    receipt_id = receipts[-1]["receipt_id"] if receipts else ""
    checked = (payload.get("envelope") or {}).get("claims") or []
    ids = {c["id"]: c["claim"] for c in checked}
    return GeneratedSection(
        id=f"{node_id}:gen:{section.line_start}",
        node_id=node_id,
        title=section.title,
        origin=origin,
        content=outcome.content,
        claims=[c["claim"] for c in checked] or claims,
        unverified=[ids.get(i, i) for i in outcome.unverified],
        verifier=str(payload.get("verifier", "offline")),
        receipt_id=receipt_id,
        provenance=[
            Provenance(
                node_id=node_id,
                source_path=source,
                line_start=section.line_start,
                line_end=section.line_end,
            )
        ],
    )


def _model_draft(
    provider: Any, title: str, excerpt: str, source: str
) -> tuple[str, list[str]] | None:
    """The model's prose for a section, or None (no model, or it failed: compile instead)."""
    if provider is None or getattr(provider, "offline", True):
        return None
    from tutor import aio
    from tutor.gates.claims import is_scaffold
    from tutor.gates.text import normalise
    from tutor.llm.provider import ModelFailure

    try:
        made = aio.run(
            provider.structured(
                skill="tutor",
                data={
                    "task": "packet_section",
                    "section": title,
                    "untrusted_excerpts": excerpt,
                    "sources": [source],
                },
                schema=SectionDraft,
                purpose="packet",
            ),
            provider,
        )
    except ModelFailure:
        return None
    if any(is_scaffold(line) for line in made.content.splitlines()):
        return None  # [bracketed] lines are the program's marks, never a model's
    text = normalise(made.content)
    claims = [c for c in made.claims if normalise(c) in text]
    return (made.content, claims) if claims else None


# the entry points a front end calls -------------------------------------------------------------
def packet_curriculum(path: Path, topic: object) -> Curriculum:
    """The curriculum a packet on `topic` is compiled from: for a lesson id or a phase, just
    those lessons and their prerequisites (so the work grows with the packet, not with the
    curriculum); for a topic that takes the lessons' titles to find, all of it."""
    from learning_system.packets.graph import topic_lessons
    from tutor import learner

    outline: Curriculum = learner.load(path, only=[])
    ids = topic_lessons(outline, topic) if isinstance(topic, str) else None
    loaded: Curriculum = learner.load(path, only=ids)
    return loaded


def compile_packet(
    request: Mapping[str, Any] | LearningRequest,
    curriculum: Curriculum | CurriculumGraph,
    store: Store | None = None,
    *,
    out_dir: Path | str | None = None,
    expand: bool = False,
    provider: Any = None,
    domain_pack: Path | str | None = None,
    source_pack: Path | str | None = None,
    **options: Any,
) -> PacketResult:
    """Compile a study packet with every exporter the tutor has (assessment included). `expand`
    turns the llm_expanded step on (off by default: that mode then compiles the deterministic
    outline); it drafts with `provider` when it is a model, and needs a store for its gate
    receipts."""
    expander = None
    if expand:
        if store is None:
            from learning_system.packets import LearningCapabilityError

            raise LearningCapabilityError("llm_expanded needs a store to keep its gate receipts")
        expander = make_expander(store, provider)
    return _compile(
        request,
        curriculum,
        store,
        out_dir=out_dir,
        exporters=EXPORTERS,
        domain_pack=domain_pack,
        source_pack=source_pack,
        expander=expander,
        **options,
    )
