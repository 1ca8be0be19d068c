"""Study packets over the reference curriculum (`../shared/corpus/aiefs`): every mode compiles
with warnings but no errors, deterministically; a pitfall packet after a lesson with mistakes
holds them with their provenance."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from learning_system import ledger
from learning_system.curriculum import load_curriculum
from learning_system.packets import MODES, STAGES, build_graph, compile_packet, invariants
from learning_system.packets.pipeline import packet_json

EXPORTERS = ["markdown", "bundle", "html", "notebook"]


@pytest.fixture(scope="module")
def curriculum(corpus_root):
    return load_curriculum(corpus_root)


@pytest.fixture(scope="module")
def graph(curriculum):
    return build_graph(curriculum)


def test_the_graph_holds_every_lesson_with_its_edges(graph):
    assert len(graph.nodes) == 65
    kinds = {e.kind for e in graph.edges}
    assert kinds == {"requires", "next", "pitfall"}
    autodiff = graph.node("p1l05")
    assert [e.target for e in graph.edges if e.kind == "requires" and e.source == "p1l05"] == [
        "p1l04"
    ]
    assert "backpropagation" in autodiff.tags
    assert autodiff.code_links and autodiff.references and autodiff.quiz
    assert {s.kind for s in autodiff.sections} >= {
        "learning_goal",
        "main_path",
        "implementation",
        "self_check",
    }


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_compiles_with_warnings_but_no_errors(graph, mode):
    whole_phase = compile_packet(
        {"topic": "Phase 1", "goal": "Math for deep learning", "generation_option": mode}, graph
    )
    assert whole_phase.stage_log == list(STAGES)
    assert not [w for w in whole_phase.warnings if w.severity == "error"]
    assert len(whole_phase.packet.body.nodes) == 22 and invariants(whole_phase.packet) == []


@pytest.mark.parametrize("mode", MODES)
def test_two_compiles_give_the_same_bytes_but_created_at(graph, tmp_path, mode):
    from tutor.engine.study_packets import EXPORTERS as TUTOR_EXPORTERS

    request = {
        "topic": "chain rule",
        "goal": "Backprop by hand",
        "generation_option": mode,
        "exporters": [*EXPORTERS, "assessment"],
    }
    first = compile_packet(
        request,
        graph,
        exporters=TUTOR_EXPORTERS,
        out_dir=tmp_path,
        clock=lambda: datetime(2026, 1, 1, tzinfo=UTC),
    )
    second = compile_packet(
        request, graph, exporters=TUTOR_EXPORTERS, clock=lambda: datetime(2027, 6, 1, tzinfo=UTC)
    )
    assert not [w for w in first.warnings if w.severity == "error"]
    assert len(first.files) == len(second.files) >= 10
    for path, data in first.files.items():
        if "/" not in path or path.endswith("packet.yaml"):
            continue
        assert second.files[path] == data, path
    assert first.packet.content_hash() == second.packet.content_hash()
    one = packet_json(first.packet).replace(first.packet.created_at, "T")
    assert one == packet_json(second.packet).replace(second.packet.created_at, "T")


def test_anthology_over_the_setup_phase_warns_where_teaching_sections_are_missing(graph):
    result = compile_packet(
        {"topic": "Phase 0", "goal": "Set up", "generation_option": "anthology"}, graph
    )
    assert result.stage_log == list(STAGES)
    codes = {w.code for w in result.warnings}
    assert codes <= {"missing_teaching_section", "dangling_reference"}
    assert all(c.sections for c in result.packet.body.anthology)


def test_a_pitfall_packet_after_a_lesson_with_mistakes_contains_them(curriculum, store):
    lesson = curriculum.lesson("P1 L05")
    item = lesson.quiz[0]
    store.sessions.save("s1", lesson.id, str(curriculum.root), "done", "end", {})
    ledger.record_attempt(
        store,
        ledger.Attempt(
            id="s1:probe:1",
            session_id="s1",
            lesson_id=lesson.id,
            item_id=item.id,
            kind="probe",
            answer="c",
            outcome="wrong",
            confidence="sure",
        ),
    )
    ledger.record_mistake(
        store,
        ledger.Mistake(
            id="m:s1:probe:1",
            attempt_id="s1:probe:1",
            lesson_id=lesson.id,
            item_id=item.id,
            error_type="structural",
            attribution="I added the derivatives instead of multiplying",
            retest_early=True,
            item={"question": item.question},
        ),
    )
    result = compile_packet(
        {
            "topic": "chain rule",
            "goal": "Backprop by hand",
            "generation_option": "pitfall",
            "exporters": ["markdown"],
        },
        curriculum,
        store,
    )
    assert not [w for w in result.warnings if w.severity == "error"]
    guide = result.packet.body.pitfall_guide
    first = guide[0]
    assert first.pitfall_id == "ledger:m:s1:probe:1" and first.node_id == "p1l05"
    assert first.cause == "I added the derivatives instead of multiplying"
    assert first.symptom == item.question and first.correction == item.explanation
    sources = [(p.source_path, p.line_start) for p in first.provenance]
    assert sources[0] == ("ledger:mistakes/m:s1:probe:1", None)
    quiz_file = curriculum.root / sources[1][0]
    assert (
        quiz_file.name == "quiz.json"
        and item.question[:30]
        in quiz_file.read_text(encoding="utf-8").split("\n")[sources[1][1] - 1]
    )
    lesson_md = result.files[f"{result.request_hash}/lesson.md"].decode()
    assert "I added the derivatives instead of multiplying" in lesson_md
    assert "ledger:mistakes/m:s1:probe:1" in lesson_md
