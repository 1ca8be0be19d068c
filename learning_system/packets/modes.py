"""Slicing, ordering and the mode-specific bodies of a packet: pure functions of the graph."""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field

from learning_system.packets.graph import (
    TEACHING_KINDS,
    CurriculumGraph,
    GraphEdge,
    GraphNode,
    Pitfall,
    SectionInfo,
)
from learning_system.packets.model import (
    Chapter,
    CodeLinkView,
    ConceptMap,
    ConceptMapEdge,
    ConceptMapNode,
    EdgeView,
    NodeView,
    Objective,
    Outline,
    PacketWarning,
    PitfallEntry,
    PitfallView,
    Provenance,
    QuizItemView,
    ReferenceView,
    SectionView,
)

_ORIGIN_RANK = {"ledger": 0, "text": 1, "quiz": 2}
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*\S)\s*$")


@dataclass(frozen=True)
class FilteredGraph:
    """Stage 4's copy: the graph's edges and pitfalls as the request wants them, and the seeds.
    The graph itself is shared, never changed."""

    graph: CurriculumGraph
    edges: tuple[GraphEdge, ...]
    pitfalls: tuple[Pitfall, ...]
    include_code: bool
    seeds: tuple[str, ...]

    def prerequisites(self, node_id: str) -> list[str]:
        return [e.target for e in self.edges if e.kind == "requires" and e.source == node_id]


@dataclass
class Slice:
    roles: dict[str, str] = field(default_factory=dict)
    depths: dict[str, int] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)


def filter_graph(
    graph: CurriculumGraph,
    seeds: list[str],
    seed_tags: tuple[str, ...],
    include_pitfalls: bool,
    include_code: bool,
) -> tuple[FilteredGraph, list[PacketWarning]]:
    """Seeds extended by the nodes carrying a seed tag; pitfall edges kept only when asked."""
    warnings: list[PacketWarning] = []
    chosen = list(seeds)
    for tag in seed_tags:
        tagged = [n.id for n in graph.nodes if tag in n.tags]
        if not tagged:
            warnings.append(
                PacketWarning(
                    code="unknown_seed_tag",
                    severity="warning",
                    message=f"no lesson carries the seed tag '{tag}'; it adds no seed",
                )
            )
        chosen += [t for t in tagged if t not in chosen]
    order = {n.id: n.order for n in graph.nodes}
    chosen.sort(key=lambda i: order[i])
    edges = tuple(e for e in graph.edges if include_pitfalls or e.kind != "pitfall")
    pitfalls = tuple(graph.pitfalls) if include_pitfalls else ()
    return FilteredGraph(
        graph=graph, edges=edges, pitfalls=pitfalls, include_code=include_code, seeds=tuple(chosen)
    ), warnings


def slice_graph(
    view: FilteredGraph, mode: str, max_nodes: int | None, max_depth: int | None
) -> tuple[Slice, list[PacketWarning]]:
    """Seeds, then their prerequisites through `requires` edges up to max_depth; in pitfall mode
    the prerequisites of every node with a pitfall join as corrective concepts. At most
    max_nodes nodes: seeds first, then by depth, then curriculum order."""
    graph = view.graph
    order = {n.id: n.order for n in graph.nodes}
    found = Slice()
    frontier = list(view.seeds)
    for seed in frontier:
        found.roles[seed], found.depths[seed] = "seed", 0
    depth = 0
    while frontier and (max_depth is None or depth < max_depth):
        depth += 1
        nxt: list[str] = []
        for node_id in sorted(frontier, key=lambda i: order[i]):
            for target in view.prerequisites(node_id):
                if target not in found.roles:
                    found.roles[target], found.depths[target] = "prerequisite", depth
                    nxt.append(target)
        frontier = nxt
    if mode == "pitfall":
        with_pitfalls = {p.node_id for p in view.pitfalls}
        for node_id in sorted(list(found.roles), key=lambda i: order[i]):
            if node_id not in with_pitfalls:
                continue
            for target in view.prerequisites(node_id):
                if target not in found.roles:
                    found.roles[target] = "corrective"
                    found.depths[target] = found.depths[node_id] + 1
    ids = sorted(found.roles, key=lambda i: (found.roles[i] != "seed", found.depths[i], order[i]))
    warnings: list[PacketWarning] = []
    if max_nodes is not None and len(ids) > max_nodes:
        dropped = ids[max_nodes:]
        ids = ids[:max_nodes]
        warnings.append(
            PacketWarning(
                code="slice_truncated",
                severity="info",
                message=f"max_nodes {max_nodes} kept {len(ids)} of {len(ids) + len(dropped)} "
                f"lessons; left out: {', '.join(graph.node(i).lesson_id for i in dropped)}",
            )
        )
        for node_id in dropped:
            del found.roles[node_id], found.depths[node_id]
    found.ids = ids
    for lost in graph.dangling:
        if (lost.node_id in found.roles) or (lost.node_id is None and view.pitfalls):
            warnings.append(
                PacketWarning(
                    code="dangling_reference",
                    severity="warning",
                    message=lost.message,
                    node_id=lost.node_id,
                    source_path=lost.source_path,
                )
            )
    return found, warnings


def reading_order(view: FilteredGraph, chosen: Slice) -> tuple[list[str], list[PacketWarning]]:
    """Prerequisites before the lessons that need them, curriculum order between equals; a
    prerequisite cycle is broken at its earliest lesson, with a warning."""
    graph = view.graph
    inside = set(chosen.ids)
    order = {n.id: n.order for n in graph.nodes}
    needs = {i: {t for t in view.prerequisites(i) if t in inside and t != i} for i in chosen.ids}
    waiting = {i: len(needs[i]) for i in chosen.ids}
    heap = [(order[i], i) for i in chosen.ids if waiting[i] == 0]
    heapq.heapify(heap)
    out: list[str] = []
    warnings: list[PacketWarning] = []
    placed: set[str] = set()
    while len(out) < len(chosen.ids):
        if not heap:
            rest = sorted((i for i in chosen.ids if i not in placed), key=lambda i: order[i])
            warnings.append(
                PacketWarning(
                    code="prerequisite_cycle",
                    severity="warning",
                    node_id=rest[0],
                    message=f"lessons {', '.join(graph.node(i).lesson_id for i in rest)} require "
                    "each other; read from the earliest",
                )
            )
            heap = [(order[rest[0]], rest[0])]
            waiting[rest[0]] = 0
        _, node_id = heapq.heappop(heap)
        if node_id in placed:
            continue
        placed.add(node_id)
        out.append(node_id)
        for other in chosen.ids:
            if node_id in needs[other] and other not in placed:
                waiting[other] -= 1
                if waiting[other] == 0:
                    heapq.heappush(heap, (order[other], other))
    return out, warnings


def pitfall_order(view: FilteredGraph, ids: list[str], mode: str) -> list[Pitfall]:
    """The slice's pitfalls lesson by lesson in reading order (the learner's mistakes, then the
    text's warnings, then quiz explanations); in pitfall mode the learner's own mistakes come
    first of all, then the text's warnings, then quiz explanations, each by reading position."""
    position = {node_id: n for n, node_id in enumerate(ids)}

    def key(p: Pitfall) -> tuple[int | str, ...]:
        rank = _ORIGIN_RANK[p.origin]
        return (
            (rank, position[p.node_id], p.id)
            if mode == "pitfall"
            else (position[p.node_id], rank, p.id)
        )

    return sorted((p for p in view.pitfalls if p.node_id in position), key=key)


# views ------------------------------------------------------------------------------------------
def _where(node: GraphNode) -> str:
    return node.doc_path or node.folder


def node_view(graph: CurriculumGraph, node: GraphNode, chosen: Slice) -> NodeView:
    lines = graph.lines(node.id)
    return NodeView(
        id=node.id,
        lesson_id=node.lesson_id,
        title=node.title,
        phase=node.phase,
        role=chosen.roles[node.id],
        depth=chosen.depths[node.id],
        tags=node.tags,
        content_hash=node.content_hash,
        provenance=Provenance(
            node_id=node.id,
            source_path=_where(node),
            line_start=1 if node.doc_path else None,
            line_end=len(lines) if node.doc_path else None,
        ),
    )


def edge_views(view: FilteredGraph, ids: list[str], pitfall_ids: set[str]) -> list[EdgeView]:
    inside = set(ids)
    out: list[EdgeView] = []
    for e in view.edges:
        keep = (e.kind in ("requires", "next") and e.source in inside and e.target in inside) or (
            e.kind == "pitfall" and e.source in pitfall_ids
        )
        if keep:
            out.append(
                EdgeView(
                    id=e.id,
                    kind=e.kind,
                    source=e.source,
                    target=e.target,
                    provenance=Provenance(
                        edge_id=e.id,
                        source_path=e.source_path,
                        line_start=e.line_start,
                        line_end=e.line_end,
                    ),
                )
            )
    return out


def pitfall_view(p: Pitfall) -> PitfallView:
    edge = f"pitfall:{p.id}->{p.node_id}"
    return PitfallView(
        id=p.id,
        node_id=p.node_id,
        origin=p.origin,
        symptom=p.symptom,
        cause=p.cause,
        correction=p.correction,
        diagnostics=p.diagnostics,
        error_type=p.error_type,
        status=p.status,
        provenance=[
            Provenance(
                node_id=p.node_id,
                edge_id=edge,
                source_path=s.source_path,
                line_start=s.line_start,
                line_end=s.line_end,
            )
            for s in p.sources
        ],
    )


def code_views(graph: CurriculumGraph, ids: list[str]) -> list[CodeLinkView]:
    out = []
    for node_id in ids:
        node = graph.node(node_id)
        for c in node.code_links:
            out.append(
                CodeLinkView(
                    id=c.id,
                    node_id=node_id,
                    language=c.language,
                    section=c.section,
                    text=c.text,
                    provenance=Provenance(
                        node_id=node_id,
                        source_path=_where(node),
                        line_start=c.line_start,
                        line_end=c.line_end,
                    ),
                )
            )
    return out


def reference_views(graph: CurriculumGraph, ids: list[str]) -> list[ReferenceView]:
    out = []
    for node_id in ids:
        node = graph.node(node_id)
        for r in node.references:
            out.append(
                ReferenceView(
                    id=r.id,
                    node_id=node_id,
                    title=r.title,
                    url=r.url,
                    provenance=Provenance(
                        node_id=node_id,
                        source_path=_where(node),
                        line_start=r.line,
                        line_end=r.line,
                    ),
                )
            )
    return out


def quiz_views(graph: CurriculumGraph, ids: list[str]) -> list[QuizItemView]:
    out = []
    for node_id in ids:
        node = graph.node(node_id)
        for q in node.quiz:
            out.append(
                QuizItemView(
                    id=q.id,
                    node_id=node_id,
                    stage=q.stage,
                    question=q.question,
                    options=q.options,
                    correct=q.correct,
                    explanation=q.explanation,
                    provenance=Provenance(
                        node_id=node_id,
                        source_path=node.quiz_path or node.folder,
                        line_start=q.line,
                        line_end=q.line,
                    ),
                )
            )
    return out


def section_view(
    graph: CurriculumGraph, node: GraphNode, s: SectionInfo, *, text: bool
) -> SectionView:
    body = graph.text(node.id, s.line_start + 1, s.line_end).strip() if text else None
    return SectionView(
        node_id=node.id,
        title=s.title,
        kind=s.kind,
        level=s.level,
        text=body,
        provenance=Provenance(
            node_id=node.id, source_path=_where(node), line_start=s.line_start, line_end=s.line_end
        ),
    )


def _branches(graph: CurriculumGraph, nodes: list[GraphNode], kind: str) -> list[SectionView]:
    out = []
    for node in nodes:
        for n, s in enumerate(node.sections):
            if s.kind != kind:
                continue
            has_children = (
                n + 1 < len(node.sections)
                and node.sections[n + 1].level > s.level
                and node.sections[n + 1].kind == kind
            )
            if s.level == 3 or not has_children:
                out.append(section_view(graph, node, s, text=False))
    return out


def objectives(graph: CurriculumGraph, nodes: list[GraphNode]) -> list[Objective]:
    out = []
    for node in nodes:
        lines = graph.lines(node.id)
        for s in node.sections:
            if s.kind != "learning_goal":
                continue
            for number in range(s.line_start + 1, s.line_end + 1):
                item = _LIST_ITEM.match(lines[number - 1])
                if item:
                    out.append(
                        Objective(
                            text=item.group(1),
                            provenance=Provenance(
                                node_id=node.id,
                                source_path=_where(node),
                                line_start=number,
                                line_end=number,
                            ),
                        )
                    )
            break
    return out


def outline(
    view: FilteredGraph, chosen: Slice, ids: list[str], goal: str, pitfalls: list[PitfallView]
) -> Outline:
    graph = view.graph
    core = [graph.node(i) for i in ids if chosen.roles[i] == "seed"]
    inside = set(ids)
    return Outline(
        learning_goal=goal,
        objectives=objectives(graph, core),
        prerequisites=[i for i in ids if chosen.roles[i] != "seed"],
        core_path=[n.id for n in core],
        implementation_branches=_branches(graph, core, "implementation"),
        derivation_branches=_branches(graph, core, "derivation"),
        pitfalls=[p.id for p in pitfalls],
        concept_map=ConceptMap(
            nodes=[
                ConceptMapNode(id=i, label=graph.node(i).title, role=chosen.roles[i]) for i in ids
            ],
            edges=[
                ConceptMapEdge(source=e.source, target=e.target, kind=e.kind)
                for e in view.edges
                if e.kind in ("requires", "next") and e.source in inside and e.target in inside
            ],
        ),
    )


def anthology(view: FilteredGraph, ids: list[str]) -> tuple[list[Chapter], list[PacketWarning]]:
    graph = view.graph
    chapters: list[Chapter] = []
    warnings: list[PacketWarning] = []
    for node_id in ids:
        node = graph.node(node_id)
        kinds = {s.kind for s in node.sections}
        for kind in TEACHING_KINDS:
            if kind not in kinds:
                warnings.append(
                    PacketWarning(
                        code="missing_teaching_section",
                        severity="warning",
                        node_id=node_id,
                        source_path=_where(node),
                        message=f"{node.lesson_id} {node.title} has no {kind.replace('_', ' ')} "
                        "section",
                    )
                )
        chapters.append(
            Chapter(
                node_id=node_id,
                title=node.title,
                sections=[
                    section_view(graph, node, s, text=True)
                    for s in node.sections
                    if s.kind != "references"
                ],
            )
        )
    return chapters, warnings


def pitfall_guide(
    view: FilteredGraph, ids: list[str], pitfalls: list[PitfallView]
) -> tuple[list[PitfallEntry], list[PacketWarning]]:
    position = {node_id: n for n, node_id in enumerate(ids)}
    entries: list[PitfallEntry] = []
    warnings: list[PacketWarning] = []
    for p in pitfalls:
        corrective = sorted(
            (t for t in view.prerequisites(p.node_id) if t in position), key=lambda t: position[t]
        )
        if not p.correction.strip() and not p.cause.strip():
            warnings.append(
                PacketWarning(
                    code="pitfall_without_content",
                    severity="warning",
                    node_id=p.node_id,
                    source_path=p.provenance[0].source_path,
                    message=f"pitfall {p.id} ({p.symptom[:60]}) has neither a cause nor a "
                    "correction",
                )
            )
        entries.append(
            PitfallEntry(
                pitfall_id=p.id,
                node_id=p.node_id,
                symptom=p.symptom,
                cause=p.cause,
                correction=p.correction,
                diagnostics=p.diagnostics,
                corrective_nodes=corrective,
                provenance=p.provenance,
            )
        )
    return entries, warnings
