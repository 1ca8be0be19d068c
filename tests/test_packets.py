"""Study packets on a curriculum of our own: the nine stages, modes, determinism, provenance,
warnings and hard errors, exporters, packs."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from packet_course import ESCAPE, write_packet_course

from learning_system import ledger
from learning_system.curriculum import load_curriculum
from learning_system.packets import (
    MODES,
    STAGES,
    LearningCapabilityError,
    PacketValidationError,
    build_graph,
    compile_packet,
    invariants,
    request_hash,
    resolve_topic,
    validate_packet,
)
from learning_system.packets import pipeline as pipeline_module

ALL_EXPORTERS = ["markdown", "bundle", "html", "notebook"]


def clock(hour: int):
    return lambda: datetime(2026, 1, 2, hour, 0, tzinfo=UTC)


@pytest.fixture
def course(tmp_path):
    return load_curriculum(write_packet_course(tmp_path / "course"))


def req(**over):
    base = {
        "topic": "Averages and Spread",
        "goal": "Summarise a sample",
        "generation_option": "deterministic_outline",
    }
    return {**base, **over}


def without_created_at(files: dict[str, bytes]) -> dict[str, bytes]:
    out = {}
    for path, data in files.items():
        if path.endswith(".json") and "/" not in path:
            packet = json.loads(data)
            packet.pop("created_at")
            data = json.dumps(packet, sort_keys=True).encode()
        elif path.endswith("packet.yaml"):
            data = b"\n".join(
                line for line in data.split(b"\n") if not line.startswith(b"created_at:")
            )
        out[path] = data
    return out


# the pipeline -----------------------------------------------------------------------------------
def test_a_run_logs_the_nine_stages_in_order_and_names_its_packet_by_its_hashes(course):
    result = compile_packet(req(), course)
    assert result.stage_log == list(STAGES) and len(STAGES) == 9
    packet = result.packet
    assert packet.schema_version == "learn/v0.1" and packet.data()["schema"] == "learn/v0.1"
    r_hash = request_hash(req())
    assert packet.request.request_hash == r_hash == result.request_hash
    assert packet.packet_id == f"lsp-{r_hash[:16]}-{packet.source.graph_hash[:8]}"
    assert f"{r_hash}.json" in result.files
    assert packet.source.graph_hash == build_graph(course).graph_hash
    assert packet.compiler.name and packet.compiler.plugin_api == "1"


@pytest.mark.parametrize("mode", MODES)
def test_two_compiles_are_byte_identical_but_for_created_at_in_every_mode_and_exporter(
    tmp_path, mode
):
    root = write_packet_course(tmp_path / "course")
    first = compile_packet(
        req(generation_option=mode, exporters=ALL_EXPORTERS),
        load_curriculum(root),
        clock=clock(1),
        out_dir=tmp_path / "a",
    )
    second = compile_packet(
        req(generation_option=mode, exporters=ALL_EXPORTERS),
        load_curriculum(root),
        clock=clock(9),
        out_dir=tmp_path / "b",
    )
    assert first.packet.created_at != second.packet.created_at
    assert set(first.files) == set(second.files)
    changed = [p for p in first.files if first.files[p] != second.files[p]]
    # only the packet file and the bundle's YAML copy carry created_at
    assert sorted(changed) == sorted(
        p for p in first.files if p.endswith("packet.yaml") or "/" not in p
    )
    assert without_created_at(first.files) == without_created_at(second.files)
    assert first.packet.content_hash() == second.packet.content_hash()
    for path in first.export_paths:  # what was written is what was compiled
        rel = path.split(str(tmp_path / "a") + "/", 1)[1]
        assert (tmp_path / "a" / rel).read_bytes() == first.files[rel]


def test_the_reading_order_puts_prerequisites_first(course):
    body = compile_packet(req(topic="P2 L01"), course).packet.body
    ids = [n.lesson_id for n in body.nodes]
    assert body.reading_order == ["p1l01", "p1l02", "p2l01"]
    assert ids == ["P1 L01", "P1 L02", "P2 L01"]
    roles = {n.id: n.role for n in body.nodes}
    assert roles == {"p2l01": "seed", "p1l01": "prerequisite", "p1l02": "prerequisite"}
    assert body.outline.core_path == ["p2l01"]
    assert body.outline.prerequisites == ["p1l01", "p1l02"]
    requires = {(e.source, e.target) for e in body.edges if e.kind == "requires"}
    assert ("p2l01", "p1l01") in requires and ("p1l02", "p1l01") in requires


def test_topics_resolve_deterministically(course):
    graph = build_graph(course)
    assert resolve_topic(graph, "P1 L02") == (["p1l02"], "lesson id")
    assert resolve_topic(graph, "Phase 1")[0] == ["p1l01", "p1l02"]
    assert resolve_topic(graph, "foundations")[0] == ["p1l01", "p1l02"]
    assert resolve_topic(graph, "02-averages") == (["p1l02"], "slug")
    assert resolve_topic(graph, "  j² return mapping ")[0] == ["p2l01"]
    assert resolve_topic(graph, "median")[0] == ["p1l02"]  # a glossary term, as a tag
    with pytest.raises(LearningCapabilityError, match="no lesson"):
        resolve_topic(graph, "quantum chromodynamics")


def test_max_nodes_and_max_depth_bound_the_slice(course):
    result = compile_packet(req(topic="P2 L01", max_nodes=2), course)
    assert [n.id for n in result.packet.body.nodes] == ["p1l01", "p2l01"]  # depth, then order
    assert [w.code for w in result.warnings] == ["slice_truncated"]
    seed_only = compile_packet(req(topic="P2 L01", max_depth=0), course).packet.body
    assert [n.id for n in seed_only.nodes] == ["p2l01"]


def test_seed_tags_add_seeds_on_a_copy_and_never_change_the_graph(course):
    graph = build_graph(course)
    before = graph.model_dump(mode="json")
    result = compile_packet(
        req(topic="P1 L01", seed_tags=["Median", "no-such-tag"], max_depth=0), graph
    )
    assert [n.id for n in result.packet.body.nodes if n.role == "seed"] == ["p1l01", "p1l02"]
    assert [w.code for w in result.warnings] == ["unknown_seed_tag"]
    compile_packet(req(include_pitfalls=False, include_code_links=False), graph)
    assert graph.model_dump(mode="json") == before
    assert graph.graph_hash == build_graph(course).graph_hash


def test_pitfalls_and_code_links_can_be_left_out(course):
    full = compile_packet(req(), course).packet.body
    assert full.pitfalls and full.code_links
    bare = compile_packet(req(include_pitfalls=False, include_code_links=False), course).packet
    assert bare.body.pitfalls == [] and bare.body.code_links == []
    assert not [e for e in bare.body.edges if e.kind == "pitfall"]
    assert bare.packet_id != compile_packet(req(), course).packet_id


# provenance ---------------------------------------------------------------------------------------
def test_every_view_points_at_real_lines_of_its_source(course):
    packet = compile_packet(req(topic="Phase 1", generation_option="anthology"), course).packet
    root = course.root

    def line(path, n):
        return (root / path).read_text(encoding="utf-8").split("\n")[n - 1]

    for chapter in packet.body.anthology:
        for s in chapter.sections:
            heading = line(s.provenance.source_path, s.provenance.line_start)
            assert heading.startswith("#") and s.title.split()[0] in heading
    for c in packet.body.code_links:
        assert line(c.provenance.source_path, c.provenance.line_start).startswith("```")
        assert line(c.provenance.source_path, c.provenance.line_end).strip() == "```"
        assert c.language == "python"  # the mermaid diagram is not a code link
    for r in packet.body.references:
        assert r.url in line(r.provenance.source_path, r.provenance.line_start)
    for q in packet.body.quiz_items:
        assert q.provenance.source_path.endswith("quiz.json")
        assert json.dumps(q.question)[1:-1] in line(
            q.provenance.source_path, q.provenance.line_start
        )
    for e in packet.body.edges:
        assert e.provenance.edge_id == e.id
        if e.kind == "requires":
            assert "Prerequisites" in line(e.provenance.source_path, e.provenance.line_start)
    assert all(not n.provenance.source_path.startswith("/") for n in packet.body.nodes)
    assert invariants(packet) == []


def test_text_is_stripped_of_terminal_escapes(course, tmp_path):
    result = compile_packet(req(generation_option="anthology", exporters=ALL_EXPORTERS), course)
    titles = [s.title for c in result.packet.body.anthology for s in c.sections]
    assert "Outliers matter" in titles
    for path, data in result.files.items():
        assert b"\x1b" not in data, path
    assert ESCAPE not in result.packet.model_dump_json()


# modes ----------------------------------------------------------------------------------------
def test_outline_mode_has_goal_prerequisites_core_path_branches_and_a_concept_map(course):
    o = compile_packet(req(), course).packet.body.outline
    assert o.learning_goal == "Summarise a sample"
    assert [x.text for x in o.objectives][0].startswith("Compute the mean")
    assert o.core_path == ["p1l02"] and o.prerequisites == ["p1l01"]
    assert [s.title for s in o.implementation_branches] == ["Step 1: The mean"]
    assert [s.title for s in o.derivation_branches] == ["Deriving the variance"]
    assert {(e.source, e.target, e.kind) for e in o.concept_map.edges} >= {
        ("p1l02", "p1l01", "requires")
    }
    assert o.pitfalls


def test_anthology_is_an_ordered_reader_and_warns_on_missing_teaching_sections(course):
    result = compile_packet(req(topic="P2 L01", generation_option="anthology"), course)
    chapters = result.packet.body.anthology
    assert [c.node_id for c in chapters] == ["p1l01", "p1l02", "p2l01"]
    concept = next(s for s in chapters[0].sections if s.title == "Frequency tables")
    assert concept.text.startswith("A frequency table maps")
    missing = [w for w in result.warnings if w.code == "missing_teaching_section"]
    assert [(w.node_id, w.message.split(" has no ")[1]) for w in missing] == [
        ("p2l01", "self check section")
    ]


def test_pitfall_mode_pulls_in_corrective_concepts_and_warns_on_empty_pitfalls(course):
    result = compile_packet(req(topic="P2 L02", generation_option="pitfall", max_depth=0), course)
    body = result.packet.body
    roles = {n.id: n.role for n in body.nodes}
    assert roles == {"p2l02": "seed", "p1l02": "corrective"}
    empty = [w for w in result.warnings if w.code == "pitfall_without_content"]
    assert len(empty) == 1 and empty[0].node_id == "p2l02"
    entry = next(e for e in body.pitfall_guide if e.node_id == "p2l02" and e.symptom == "Pitfalls")
    assert entry.corrective_nodes == ["p1l02"]
    dangling = [w for w in result.warnings if w.code == "dangling_reference"]
    assert dangling and "P9 L01" in dangling[0].message


def test_a_pitfall_packet_after_mistakes_contains_them_with_provenance(course, store):
    ledger.record_attempt(
        store,
        ledger.Attempt(
            id="a1", lesson_id="P1 L02", kind="probe", outcome="wrong", confidence="sure"
        ),
    )
    ledger.record_mistake(
        store,
        ledger.Mistake(
            id="m1",
            attempt_id="a1",
            lesson_id="P1 L02",
            item_id="p1l02-q01",
            error_type="application",
            attribution="I took the middle of the unsorted list",
            retest_early=True,
        ),
    )
    store.sessions.save("s-other", "P1 L01", "/elsewhere/course", "done", "end", {})
    ledger.record_attempt(
        store,
        ledger.Attempt(
            id="a2",
            session_id="s-other",
            lesson_id="P1 L02",
            kind="probe",
            outcome="wrong",
            confidence="hunch",
        ),
    )
    ledger.record_mistake(
        store, ledger.Mistake(id="m2", attempt_id="a2", lesson_id="P1 L02", error_type="structural")
    )
    result = compile_packet(req(generation_option="pitfall"), course, store)
    guide = result.packet.body.pitfall_guide
    mine = [e for e in guide if e.pitfall_id.startswith("ledger:")]
    assert [e.pitfall_id for e in mine] == ["ledger:m1"]  # m2 was made on another curriculum
    entry = mine[0]
    assert guide[0] is entry  # the learner's own mistakes come first
    assert entry.cause == "I took the middle of the unsorted list"
    assert entry.symptom == "Which value is the median of 3, 1, 2?"
    assert entry.correction.startswith("Sorted, the sample reads")
    assert "error type: application" in entry.diagnostics
    paths = [p.source_path for p in entry.provenance]
    assert paths == ["ledger:mistakes/m1", "phases/01-foundations/02-averages/quiz.json"]
    assert entry.provenance[1].line_start is not None
    outline = compile_packet(req(), course, store).packet.body
    assert [p.node_id for p in outline.pitfalls][0] == "p1l01"  # outline: by reading order
    assert [p.id for p in outline.pitfalls if p.node_id == "p1l02"][0] == "ledger:m1"
    without = compile_packet(req(generation_option="pitfall"), course)
    assert without.graph_hash != result.graph_hash  # the ledger is part of the graph
    md = result.files[f"{result.request_hash}.json"].decode()
    assert "ledger:mistakes/m1" in md


def test_llm_expanded_off_is_the_deterministic_outline(course):
    outline = compile_packet(req(), course)
    expanded = compile_packet(req(generation_option="llm_expanded"), course)
    assert expanded.packet.request.canonical.generation_option == "llm_expanded"
    assert expanded.packet.body.model_dump_json() == outline.packet.body.model_dump_json()
    assert expanded.warnings == outline.warnings
    assert expanded.packet.body.generated_sections == []


def test_llm_expanded_on_sends_every_section_through_fact_check(course, store):
    from tutor.engine.study_packets import compile_packet as tutor_compile

    result = tutor_compile(req(generation_option="llm_expanded"), course, store, expand=True)
    body = result.packet.body
    assert body.mode == "llm_expanded" and body.generated_sections
    for g in body.generated_sections:
        receipts = store.receipts.of_message(
            f"packet:{result.packet_id}:{g.node_id}:{g.provenance[0].line_start}"
        )
        assert [r["receipt_id"] for r in receipts] == [g.receipt_id]
        assert receipts[0]["gate"] == "fact_check" and g.verifier == "offline"
        assert g.origin == "compiled"  # no model: compiled from the section's own sentences
        source = (course.root / g.provenance[0].source_path).read_text(encoding="utf-8")
        assert all(" ".join(c.split()) in " ".join(source.split()) for c in g.claims)
    again = tutor_compile(req(generation_option="llm_expanded"), course, store, expand=True)
    assert again.packet.content_hash() == result.packet.content_hash()


# warnings and hard errors ---------------------------------------------------------------------
def test_an_unknown_exporter_warns_and_is_skipped(course):
    result = compile_packet(req(exporters=["markdown", "pdf"]), course)
    assert result.stage_log == list(STAGES)
    assert [w.code for w in result.warnings] == ["exporter_unavailable"]
    assert sorted(p.split("/", 1)[1] for p in result.files if "/" in p) == ["lesson.md"]


def test_an_unknown_mode_is_a_capability_error_after_the_first_stage(course):
    with pytest.raises(LearningCapabilityError, match="unknown generation option") as caught:
        compile_packet(req(generation_option="poetry"), course)
    assert caught.value.stage_log == ["plugin_compat_check"]


def test_a_broken_invariant_at_assembly_is_a_packet_validation_error(course, monkeypatch):
    real = pipeline_module.modes.reading_order

    def repeats_a_node(view, chosen):
        order, warnings = real(view, chosen)
        return order + order[:1], warnings

    monkeypatch.setattr(pipeline_module.modes, "reading_order", repeats_a_node)
    with pytest.raises(PacketValidationError, match="a node appears twice") as caught:
        compile_packet(req(), course)
    assert caught.value.stage_log == list(STAGES[:7])


def test_validate_packet_returns_warnings_and_invariants_name_tampering(course):
    packet = compile_packet(req(), course).packet
    assert validate_packet(packet) == []
    tampered = packet.model_copy(update={"packet_id": "lsp-0000000000000000-00000000"})
    assert any("packet_id" in b for b in invariants(tampered))
    assert isinstance(validate_packet(tampered), list)


# exporters ----------------------------------------------------------------------------------------
def test_the_bundle_holds_yaml_manifest_map_provenance_and_warnings(course, tmp_path):
    import yaml

    result = compile_packet(req(exporters=["bundle"]), course, out_dir=tmp_path / "out")
    folder = tmp_path / "out" / result.request_hash / "bundle"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "assets",
        "concept_map.json",
        "exports",
        "lesson.md",
        "manifest.json",
        "packet.yaml",
        "provenance.json",
        "warnings.json",
    ]
    assert (
        yaml.safe_load((folder / "packet.yaml").read_text(encoding="utf-8")) == result.packet.data()
    )
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["packet_id"] == result.packet_id
    assert manifest["content_hash"] == result.packet.content_hash()
    provenance = json.loads((folder / "provenance.json").read_text())
    assert {r["view"] for r in provenance} >= {
        "node",
        "edge",
        "pitfall",
        "code_link",
        "reference",
        "branch",
    }
    assert json.loads((folder / "warnings.json").read_text()) == []
    packet_file = tmp_path / "out" / f"{result.request_hash}.json"
    assert json.loads(packet_file.read_text())["packet_id"] == result.packet_id


def test_html_is_one_self_contained_page(course):
    result = compile_packet(req(generation_option="anthology", exporters=["html"]), course)
    page = result.files[f"{result.request_hash}/packet.html"].decode()
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    for needle in ("<script", "<link", "<img", "src=", "@import", "url("):
        assert needle not in page
    assert "Frequency tables" in page and "https://example.org/variance" in page


def test_the_notebook_holds_the_code_links_in_reading_order(course):
    result = compile_packet(req(topic="P2 L01", exporters=["notebook"]), course)
    notebook = json.loads(result.files[f"{result.request_hash}/notebook.ipynb"])
    assert notebook["nbformat"] == 4
    code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    assert code[0].startswith("def counts") and code[-1].startswith("def scale")
    assert len({c["id"] for c in notebook["cells"]}) == len(notebook["cells"])


def test_the_assessment_is_a_quiz_bank_of_audited_items(course):
    from learning_system.curriculum_quiz import parse_quiz_bank
    from tutor.engine.study_packets import compile_packet as tutor_compile
    from tutor.gates import mcq
    from tutor.gates.envelopes import QuizQuestion

    result = tutor_compile(req(topic="Phase 1", exporters=["assessment"]), course)
    text = result.files[f"{result.request_hash}/assessment.json"].decode()
    items, notes = parse_quiz_bank(text, "x")
    bank = json.loads(text)
    assert notes == [] and len(items) == len(bank["questions"]) >= 2
    for item in items:
        q = QuizQuestion(
            id=item.id,
            type="mcq",
            question=item.question,
            options=item.options,
            correct_index=item.correct,
        )
        assert mcq.blocking(mcq.audit_item(q)) == []
    withheld = {w["id"]: w["codes"] for w in bank["withheld"]}
    assert "p1l02-q02" in withheld  # its key is by far the longest option
    assert len(items) + len(withheld) == 4


# packs ----------------------------------------------------------------------------------------
def test_packs_are_recorded_as_data_and_bad_ones_refused(course, tmp_path):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "domain_pack.yaml").write_text("name: statistics\nversion: '1.2'\ntags: [Stats]\n")
    result = compile_packet(req(), course, domain_pack=pack)
    record = result.packet.source.packs[0]
    assert (record.kind, record.name, record.version, record.tags) == (
        "domain",
        "statistics",
        "1.2",
        ["stats"],
    )
    assert result.packet_id == compile_packet(req(), course).packet_id  # not part of identity
    with pytest.raises(LearningCapabilityError, match="does not exist"):
        compile_packet(req(), course, source_pack=tmp_path / "nowhere.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nentry_point: os:system\n")
    with pytest.raises(LearningCapabilityError, match="entry_point"):
        compile_packet(req(), course, domain_pack=bad)
    newer = tmp_path / "newer.yaml"
    newer.write_text("name: x\nplugin_api: '2'\n")
    with pytest.raises(LearningCapabilityError, match="plugin API 2") as caught:
        compile_packet(req(), course, source_pack=newer)
    assert caught.value.stage_log == []
