"""`tutor packet`: flags or a request file in, the packet and its exports out; every input
error is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packet_course import write_packet_course

from learning_system.packets import STAGES
from tutor.cli import main


@pytest.fixture
def course(tmp_path, isolated_model_env):
    return write_packet_course(tmp_path / "course")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["packet", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_flags_compile_a_packet_and_json_reports_it(course, tmp_path, capsys):
    code, out, err = run(
        capsys,
        "--topic",
        "Averages and Spread",
        "--goal",
        "Summarise",
        "--mode",
        "pitfall",
        "--export",
        "markdown,html",
        "--export",
        "pdf",
        "--seed-tag",
        "median",
        "--max-nodes",
        "3",
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "out"),
        "--json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert set(report) == {
        "packet_id",
        "request_hash",
        "graph_hash",
        "stage_log",
        "packet_path",
        "export_paths",
        "warnings",
    }
    assert report["stage_log"] == list(STAGES)
    assert report["packet_path"].endswith(f"{report['request_hash']}.json")
    assert sorted(p.rsplit("/", 1)[1] for p in report["export_paths"]) == [
        "lesson.md",
        "packet.html",
    ]
    assert [w["code"] for w in report["warnings"]] == ["exporter_unavailable"]
    packet = json.loads((tmp_path / "out" / f"{report['request_hash']}.json").read_text())
    assert packet["packet_id"] == report["packet_id"]
    assert packet["request"]["canonical"]["generation_option"] == "pitfall"


def test_a_request_file_gives_the_same_packet_as_the_same_flags(course, tmp_path, capsys):
    request = tmp_path / "request.json"
    request.write_text(
        json.dumps(
            {
                "topic": "Averages and Spread",
                "goal": "Summarise",
                "generation_option": "pitfall",
                "exporters": ["markdown"],
                "session_id": "ui-123",
                "learner_profile": {"x": 1},
            }
        )
    )
    code, out, _ = run(
        capsys,
        "--request",
        str(request),
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "a"),
        "--json",
    )
    assert code == 0
    code2, out2, _ = run(
        capsys,
        "--topic",
        "Averages and Spread",
        "--goal",
        "Summarise",
        "--mode",
        "pitfall",
        "--export",
        "markdown",
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "b"),
        "--json",
    )
    assert code2 == 0
    assert json.loads(out)["packet_id"] == json.loads(out2)["packet_id"]


def test_plain_output_names_the_packet_its_order_and_its_files(course, tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "--topic",
        "P2 L01",
        "--goal",
        "Return",
        "--export",
        "bundle",
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "out"),
    )
    assert code == 0
    assert "Reading order: P1 L01, P1 L02, P2 L01" in out
    assert "export:" in out and "manifest.json" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--goal", "g"], "give --topic and --goal"),
        (["--topic", "quantum chromodynamics", "--goal", "g"], "no lesson in"),
        (["--topic", "P1 L01", "--goal", "g", "--max-nodes", "none"], "'max_nodes' must be"),
        (["--topic", "P1 L01", "--goal", "g", "--domain-pack", "/nowhere/pack"], "does not exist"),
        (["--topic", "P1 L01", "--goal", "g", "--expand"], "--expand goes with"),
    ],
)
def test_input_errors_are_one_line_and_exit_2(course, tmp_path, capsys, args, message):
    code, out, err = run(capsys, *args, "--curriculum", str(course), "--out", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "is not a JSON request"),
        ("[1, 2]", "is not a JSON object"),
        ('{"topic": "P1 L01", "goal": "g", "generation_option": "poetry"}', "unknown generation"),
        ('{"topic": "P1 L01", "goal": 5}', "'goal' must be text"),
    ],
)
def test_a_bad_request_file_is_one_line_and_exit_2(course, tmp_path, capsys, content, message):
    request = tmp_path / "request.json"
    request.write_text(content)
    code, _, err = run(
        capsys,
        "--request",
        str(request),
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "out"),
    )
    assert code == 2 and err.count("\n") == 1 and message in err


def test_a_request_file_with_request_flags_is_refused(course, tmp_path, capsys):
    request = tmp_path / "request.json"
    request.write_text('{"topic": "P1 L01", "goal": "g"}')
    code, _, err = run(
        capsys,
        "--request",
        str(request),
        "--topic",
        "x",
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "out"),
    )
    assert code == 2 and "drop --topic" in err


def test_printed_text_from_files_is_stripped_of_terminal_escapes(
    tmp_path, isolated_model_env, capsys
):
    root = write_packet_course(tmp_path / "course")
    doc = root / "phases" / "01-foundations" / "01-counting" / "docs" / "en.md"
    doc.write_text(doc.read_text().replace("# Counting Things", "# Counting \x1b]0;pwn\x07Things"))
    code, out, err = run(
        capsys,
        "--topic",
        "P1 L01",
        "--goal",
        "g",
        "--export",
        "pdf\x1b[2J",
        "--curriculum",
        str(root),
        "--out",
        str(tmp_path / "out"),
    )
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out


def test_expand_runs_offline_through_the_gate(course, tmp_path, capsys):
    code, out, err = run(
        capsys,
        "--topic",
        "P1 L02",
        "--goal",
        "g",
        "--mode",
        "llm_expanded",
        "--expand",
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "out"),
        "--json",
    )
    assert code == 0, err
    packet = json.loads(Path(json.loads(out)["packet_path"]).read_text())
    sections = packet["body"]["generated_sections"]
    assert sections and {s["verifier"] for s in sections} == {"offline"}
    assert all(s["receipt_id"].startswith("rcpt-") for s in sections)


def test_an_error_quoting_the_request_is_stripped_and_on_one_line(course, tmp_path, capsys):
    code, _, err = run(
        capsys,
        "--topic",
        "no\x1b]0;title\x07 such\nthing",
        "--goal",
        "g",
        "--curriculum",
        str(course),
        "--out",
        str(tmp_path / "out"),
    )
    assert code == 2 and err.count("\n") == 1
    assert "\x1b" not in err and "\x07" not in err and "no such thing" in err


def test_an_unwritable_out_folder_is_one_line_and_exit_2(course, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, out, err = run(
        capsys,
        "--topic",
        "P1 L01",
        "--goal",
        "g",
        "--curriculum",
        str(course),
        "--out",
        str(blocker / "packets"),
    )
    assert code == 2 and out == "" and err.count("\n") == 1 and "cannot write" in err


def test_a_packet_of_one_phase_reads_that_phase_only_and_keeps_its_id(course, tmp_path, capsys):
    """CONTRACT "Identity": a phase's packet is compiled from that phase (and prerequisites),
    so editing a lesson of another phase changes neither its graph nor its id; a topic found by
    title still reads every lesson."""

    def packet(topic: str) -> dict:
        code, out, err = run(
            capsys, "--topic", topic, "--goal", "Summarise", "--mode", "deterministic_outline",
            "--curriculum", str(course), "--out", str(tmp_path / "out"), "--json",
        )  # fmt: skip
        assert code == 0, err
        return json.loads(out)

    first = packet("Phase 1")
    by_title = packet("Averages and Spread")
    other = course / "phases" / "02-models" / "02-regression" / "docs" / "en.md"
    other.write_text(other.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    again = packet("Phase 1")
    assert again["graph_hash"] == first["graph_hash"]
    assert again["packet_id"] == first["packet_id"]
    assert packet("Averages and Spread")["graph_hash"] != by_title["graph_hash"]
    assert packet("phase 2")["graph_hash"] != first["graph_hash"]
