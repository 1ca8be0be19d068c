"""The packet compiler: nine stages, in order, each appended to `stage_log` when it completes.

Soft problems become warnings and never abort; a `PacketValidationError` (an invariant broken
at assembly) or a `LearningCapabilityError` (an unavailable capability, a topic the graph
cannot resolve, a missing or incompatible pack) aborts, carrying the stage log so far."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from learning_system.packets import modes
from learning_system.packets.errors import (
    LearningCapabilityError,
    PacketError,
    PacketValidationError,
)
from learning_system.packets.graph import CurriculumGraph, build_graph, resolve_topic
from learning_system.packets.model import (
    MODES,
    Body,
    Compiler,
    GeneratedSection,
    Packet,
    PacketSource,
    PacketWarning,
    PackRecord,
    RequestSnapshot,
    packet_id_for,
)
from learning_system.packets.packs import load_pack
from learning_system.packets.request import (
    LearningRequest,
    canonical_json,
    request_hash,
    sha256_hex,
)

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum
    from learning_system.store import Store

STAGES: tuple[str, ...] = (
    "plugin_compat_check",
    "request_normalization",
    "graph_source_resolution",
    "seed_tag_handling",
    "slice_conversion",
    "learning_ordering",
    "section_extraction",
    "packet_assembly_and_validation",
    "export",
)

# an exporter: the packet in, files out ({relative path: bytes}; a path ending in "/" is a
# folder). Pure: the same packet gives the same bytes.
Exporter = Callable[[Packet], dict[str, bytes]]
# the llm_expanded step, given by the application: (body so far, graph, packet id) in,
# generated sections and warnings out
Expander = Callable[
    [Body, CurriculumGraph, str], tuple[list[GeneratedSection], list[PacketWarning]]
]


class PacketResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    packet: Packet
    stage_log: list[str]
    warnings: list[PacketWarning]
    files: dict[str, bytes]
    export_paths: list[str]
    packet_path: str | None = None

    @property
    def packet_id(self) -> str:
        return self.packet.packet_id

    @property
    def request_hash(self) -> str:
        return self.packet.request.request_hash

    @property
    def graph_hash(self) -> str:
        return self.packet.source.graph_hash

    def summary(self) -> dict[str, Any]:
        """What `tutor packet --json` prints."""
        return {
            "packet_id": self.packet_id,
            "request_hash": self.request_hash,
            "graph_hash": self.graph_hash,
            "stage_log": list(self.stage_log),
            "packet_path": self.packet_path,
            "export_paths": list(self.export_paths),
            "warnings": [w.model_dump(mode="json") for w in self.warnings],
        }


def _now() -> datetime:
    return datetime.now(UTC)


def packet_json(packet: Packet) -> str:
    """The packet file's text: its canonical JSON (sorted keys, compact, UTF-8) and a final
    newline."""
    return canonical_json(packet.data()) + "\n"


def compile_packet(
    request: Mapping[str, Any] | LearningRequest,
    curriculum: Curriculum | CurriculumGraph,
    store: Store | None = None,
    *,
    out_dir: Path | str | None = None,
    exporters: Mapping[str, Exporter] | None = None,
    domain_pack: Path | str | None = None,
    source_pack: Path | str | None = None,
    expander: Expander | None = None,
    clock: Callable[[], datetime] = _now,
) -> PacketResult:
    """Compile one study packet. `curriculum` is a loaded curriculum (its graph is built here,
    with the store's mistakes when a store is given) or a graph built before. With `out_dir`,
    the packet is written as `<request_hash>.json` and the exports under `<request_hash>/`.
    `expander` runs only in llm_expanded mode; without it that mode compiles the
    deterministic outline."""
    log: list[str] = []
    warnings: list[PacketWarning] = []
    try:
        return _run(
            request,
            curriculum,
            store,
            out_dir,
            exporters,
            domain_pack,
            source_pack,
            expander,
            clock,
            log,
            warnings,
        )
    except PacketError as exc:
        exc.stage_log = list(log)
        raise


def _run(
    request: Mapping[str, Any] | LearningRequest,
    curriculum: Curriculum | CurriculumGraph,
    store: Store | None,
    out_dir: Path | str | None,
    exporters: Mapping[str, Exporter] | None,
    domain_pack: Path | str | None,
    source_pack: Path | str | None,
    expander: Expander | None,
    clock: Callable[[], datetime],
    log: list[str],
    warnings: list[PacketWarning],
) -> PacketResult:
    from learning_system.packets.exporters import EXPORTERS

    def done(stage: str) -> None:
        assert stage == STAGES[len(log)], f"stage {stage} out of order"
        log.append(stage)

    # 1. the compiler's plugin API against the packs it is given (data, never code)
    packs: list[PackRecord] = []
    if domain_pack is not None:
        packs.append(load_pack(domain_pack, "domain"))
    if source_pack is not None:
        packs.append(load_pack(source_pack, "source"))
    registry: dict[str, Exporter] = dict(EXPORTERS)
    registry.update(exporters or {})
    done("plugin_compat_check")

    # 2. the request: its eleven canonical fields, and a mode this compiler has
    req = LearningRequest.from_raw(request)
    if req.generation_option not in MODES:
        raise LearningCapabilityError(
            f"unknown generation option '{req.generation_option}'; this compiler offers "
            f"{', '.join(MODES)}"
        )
    r_hash = request_hash(req)
    done("request_normalization")

    # 3. the graph the request resolves against, and its seeds
    graph = (
        curriculum if isinstance(curriculum, CurriculumGraph) else build_graph(curriculum, store)
    )
    if not graph.nodes:
        raise LearningCapabilityError(f"the curriculum '{graph.name}' has no lessons to compile")
    seeds, rule = resolve_topic(graph, req.topic)
    g_hash = graph.graph_hash
    done("graph_source_resolution")

    # 4. seed tags, on a filtered copy
    view, found = modes.filter_graph(
        graph, seeds, req.seed_tags, req.include_pitfalls, req.include_code_links
    )
    warnings += found
    done("seed_tag_handling")

    # 5. the slice
    mode = req.generation_option
    chosen, found = modes.slice_graph(view, mode, req.max_nodes, req.max_depth)
    warnings += found
    query = {
        "topic": req.topic,
        "rule": rule,
        "seeds": list(view.seeds),
        "seed_tags": list(req.seed_tags),
        "max_nodes": req.max_nodes,
        "max_depth": req.max_depth,
        "mode": mode,
        "slice": chosen.ids,
    }
    done("slice_conversion")

    # 6. the learning order
    order, found = modes.reading_order(view, chosen)
    warnings += found
    pitfall_list = [modes.pitfall_view(p) for p in modes.pitfall_order(view, order, mode)]
    done("learning_ordering")

    # 7. sections, mode by mode
    # llm_expanded without its expander (off by default) is the deterministic outline
    expanding = mode == "llm_expanded" and expander is not None
    body = Body(
        mode="llm_expanded"
        if expanding
        else ("deterministic_outline" if mode == "llm_expanded" else mode),
        goal=req.goal,
        nodes=[modes.node_view(graph, graph.node(i), chosen) for i in order],
        edges=modes.edge_views(view, order, {p.id for p in pitfall_list}),
        pitfalls=pitfall_list,
        code_links=modes.code_views(graph, order) if req.include_code_links else [],
        references=modes.reference_views(graph, order),
        quiz_items=modes.quiz_views(graph, order),
        reading_order=order,
    )
    if mode in ("deterministic_outline", "llm_expanded"):
        body.outline = modes.outline(view, chosen, order, req.goal, pitfall_list)
    elif mode == "anthology":
        body.anthology, found = modes.anthology(view, order)
        warnings += found
    elif mode == "pitfall":
        body.pitfall_guide, found = modes.pitfall_guide(view, order, pitfall_list)
        warnings += found
    packet_id = packet_id_for(r_hash, g_hash)
    if expanding:
        assert expander is not None
        generated, found = expander(body, graph, packet_id)
        body.generated_sections = list(generated)
        warnings += found
    done("section_extraction")

    # 8. assembly: invariants (hard), then soft checks, then a round trip
    packet = Packet(
        packet_id=packet_id,
        created_at=clock().astimezone(UTC).isoformat(timespec="seconds"),
        compiler=Compiler(),
        source=PacketSource(
            graph_hash=g_hash,
            graph_path=graph.root.as_posix(),
            query_hash=sha256_hex(query),
            curriculum=graph.name,
            packs=packs,
        ),
        request=RequestSnapshot(canonical=req, request_hash=r_hash),
        body=body,
        warnings=[],
    )
    broken = invariants(packet)
    if broken:
        raise PacketValidationError(
            f"packet {packet_id} breaks its invariants: " + "; ".join(broken[:5])
        )
    warnings += validate_packet(packet)
    packet.warnings = _unique(warnings)
    text = packet_json(packet)
    try:
        again = Packet.model_validate_json(text)
    except ValidationError as exc:
        raise PacketValidationError(f"packet {packet_id} does not read back: {exc}") from None
    if again != packet or packet_json(again) != text:
        raise PacketValidationError(f"packet {packet_id} changes when read back")
    done("packet_assembly_and_validation")

    # 9. export
    files: dict[str, bytes] = {f"{r_hash}.json": text.encode("utf-8")}
    export_warnings: list[PacketWarning] = []
    for name in req.exporters:
        exporter = registry.get(name)
        if exporter is None:
            export_warnings.append(
                PacketWarning(
                    code="exporter_unavailable",
                    severity="warning",
                    message=f"no exporter named '{name}' (available: "
                    f"{', '.join(sorted(registry))}); skipped",
                )
            )
            continue
        for path, data in exporter(packet).items():
            files[f"{r_hash}/{path}"] = data
    written: list[str] = []
    packet_path = None
    if out_dir is not None:
        written = write_files(Path(out_dir), files)
        packet_path = written[0]
        written = written[1:]
    done("export")
    return PacketResult(
        packet=packet,
        stage_log=log,
        warnings=packet.warnings + export_warnings,
        files=files,
        export_paths=written,
        packet_path=packet_path,
    )


def write_files(out: Path, files: Mapping[str, bytes]) -> list[str]:
    """Write an export's files under `out` (a path ending in "/" makes a folder); their paths.
    A file already holding the same bytes is left alone. Raises PacketError when the folder
    cannot be written."""
    out = out.expanduser()
    written: list[str] = []
    try:
        for rel, data in files.items():
            target = out.joinpath(*rel.rstrip("/").split("/"))
            if rel.endswith("/"):
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.is_file() or target.read_bytes() != data:
                target.write_bytes(data)
            written.append(str(target))
    except OSError as exc:
        where = exc.filename or out
        raise PacketError(
            f"cannot write the packet under {out}: {where}: {exc.strerror or exc}"
        ) from None
    return written


def _unique(warnings: list[PacketWarning]) -> list[PacketWarning]:
    seen: set[str] = set()
    out = []
    for w in warnings:
        key = w.model_dump_json()
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out


def _bad_path(path: str) -> bool:
    return path.startswith("/") or ".." in path.split("/") or (len(path) > 1 and path[1] == ":")


def invariants(packet: Packet) -> list[str]:
    """Cross-field rules a packet must keep; an empty list when it keeps them all."""
    broken: list[str] = []
    body = packet.body
    snapshot = packet.request
    if request_hash(snapshot.canonical) != snapshot.request_hash:
        broken.append("request_hash is not the hash of the canonical request")
    if packet.packet_id != packet_id_for(snapshot.request_hash, packet.source.graph_hash):
        broken.append("packet_id does not derive from request_hash and graph_hash")
    asked = snapshot.canonical.generation_option
    if body.mode != asked and not (
        asked == "llm_expanded"
        and body.mode == "deterministic_outline"
        and not body.generated_sections
    ):
        broken.append("the body's mode is not the request's generation option")
    if body.generated_sections and body.mode != "llm_expanded":
        broken.append("generated sections outside llm_expanded mode")
    node_ids = [n.id for n in body.nodes]
    if len(set(node_ids)) != len(node_ids):
        broken.append("a node appears twice")
    if sorted(body.reading_order) != sorted(node_ids):
        broken.append("reading_order is not an order of the packet's nodes")
    pitfall_ids = {p.id for p in body.pitfalls}
    nodes = set(node_ids)
    for e in body.edges:
        ends = (e.source in pitfall_ids) if e.kind == "pitfall" else (e.source in nodes)
        if not ends or e.target not in nodes:
            broken.append(f"edge {e.id} leaves the packet")
    for p in body.pitfalls:
        if p.node_id not in nodes or not p.provenance:
            broken.append(f"pitfall {p.id} has no node or no provenance")
    provenances = [n.provenance for n in body.nodes] + [e.provenance for e in body.edges]
    provenances += [x for p in body.pitfalls for x in p.provenance]
    provenances += [c.provenance for c in body.code_links]
    provenances += [r.provenance for r in body.references]
    provenances += [q.provenance for q in body.quiz_items]
    provenances += [x for g in body.generated_sections for x in g.provenance]
    if body.outline:
        provenances += [o.provenance for o in body.outline.objectives]
        provenances += [s.provenance for s in body.outline.implementation_branches]
        provenances += [s.provenance for s in body.outline.derivation_branches]
        if not set(body.outline.core_path) <= nodes:
            broken.append("the outline's core path leaves the packet")
    if body.anthology:
        provenances += [s.provenance for c in body.anthology for s in c.sections]
    if body.pitfall_guide:
        provenances += [x for e in body.pitfall_guide for x in e.provenance]
    for prov in provenances:
        if _bad_path(prov.source_path):
            broken.append(f"source path {prov.source_path} is not relative to the curriculum")
        if prov.line_start is not None and (
            prov.line_start < 1 or prov.line_end is None or prov.line_end < prov.line_start
        ):
            broken.append(f"bad line range {prov.line_start}-{prov.line_end} in {prov.source_path}")
    return broken


def validate_packet(packet: Packet) -> list[PacketWarning]:
    """Soft checks of an assembled packet; never raises."""
    out: list[PacketWarning] = []
    body = packet.body
    if not body.nodes:
        out.append(
            PacketWarning(
                code="empty_packet", severity="error", message="the packet holds no lessons"
            )
        )
    for node in body.nodes:
        if node.provenance.line_start is None:
            out.append(
                PacketWarning(
                    code="node_without_document",
                    severity="warning",
                    node_id=node.id,
                    source_path=node.provenance.source_path,
                    message=f"{node.lesson_id} has no lesson document; it is listed by its folder",
                )
            )
    if body.outline is not None and not body.outline.objectives:
        out.append(
            PacketWarning(
                code="no_objectives",
                severity="info",
                message="the core lessons list no learning objectives",
            )
        )
    return out
