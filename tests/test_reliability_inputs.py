"""Issue 14, breaks 4-7: the exact hostile inputs of the report, through the real command line:
one line and exit 2 (or a report), linear work, no blocking read, no raw escapes printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tutor.cli import main
from tutor.commands import quiz as quiz_command
from tutor.gates.samples import fact_envelope

ESCAPES = ("\x1b", "\x9b", "\u202e", "\x07")


def tutor(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_one_line_refusal(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("tutor: "), result.stderr
    for word in words:
        assert word in result.stderr


def test_nested_brackets_huge_numbers_and_lone_surrogates(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    number = tmp_path / "number.json"
    number.write_text('{"gate": "fact_check", "claims": [], "x": ' + "1" * 5000 + "}")
    for command in (("gate", "check"), ("quiz", "audit")):
        assert_one_line_refusal(tutor(*command, str(deep), cwd=tmp_path), "nested more than")
        assert_one_line_refusal(tutor(*command, str(number), cwd=tmp_path), "number longer")
    surrogate = fact_envelope().model_dump(mode="json")
    surrogate["claims"][0]["id"] = "\ud800"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(surrogate))  # `\ud800` as a JSON escape, as an attacker writes it
    result = tutor("gate", "check", str(path), "--json", cwd=tmp_path)
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
    assert "\ufffd" in json.loads(result.stdout)["claims"][0]["id"]
    bank = tmp_path / "bank.json"
    bank.write_text(
        '[{"id": "\\ud800", "question": "Which one?", "options": ["a", "b", "c", '
        '"d"], "correct": 1}]'
    )
    result = tutor("quiz", "audit", str(bank), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["items"][0]["id"] == "\ufffd"


def test_special_files_and_oversized_files_are_refused_not_read(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert_one_line_refusal(tutor("quiz", "audit", str(fifo), cwd=tmp_path), "not a regular file")
    assert_one_line_refusal(tutor("gate", "check", str(tmp_path), cwd=tmp_path))
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(17 * 1024 * 1024)
    assert_one_line_refusal(tutor("quiz", "audit", str(big), cwd=tmp_path), "limit")


def test_quiz_audit_work_is_linear_when_every_item_shares_one_id(tmp_path, capsys, monkeypatch):
    n = 3000
    bank = [
        {
            "id": "same",
            "stage": "pre",
            "question": f"Which value {i} fits here?",
            "options": [f"alpha {i}", f"beta {i}", f"gamma {i}", f"delta {i}"],
            "correct": 0,
        }
        for i in range(n)
    ]
    (tmp_path / "dup.json").write_text(json.dumps(bank))
    calls = 0
    original = quiz_command._add

    def counting(entry, issue):
        nonlocal calls
        calls += 1
        original(entry, issue)

    monkeypatch.setattr(quiz_command, "_add", counting)
    assert main(["quiz", "audit", str(tmp_path / "dup.json"), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["by_code"]["M18"] == n and report["summary"]["by_code"]["M03"] == n
    assert calls <= 4 * n  # was n * n: every M03 issue went to every item sharing the id


def write_lesson(root: Path, folder: str, doc: str | None) -> Path:
    lesson = root / "phases" / "01-phase" / folder
    (lesson / "docs").mkdir(parents=True)
    if doc is not None:
        (lesson / "docs" / "en.md").write_text(doc, encoding="utf-8")
    return lesson


def test_curriculum_check_on_fifos_bracket_lines_and_huge_documents(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    os.mkfifo(root / "README.md")
    write_lesson(
        root,
        "01-brackets",
        "# Brackets\n\n## Further Reading\n\n- "
        + "[" * 192_000
        + "\n- [A real one](https://example.org/x)\n",
    )
    huge = write_lesson(root, "02-huge", None)
    with (huge / "docs" / "en.md").open("w") as f:
        for _ in range(3 * 1024 * 1024 // 5):
            f.write("## h\n")
    os.mkfifo(huge / "quiz.json")
    result = tutor("curriculum", "check", str(root), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["lessons"] == 2
    messages = {(w["file"], w["message"]) for w in report["warnings"]}
    assert (
        "phases/01-phase/02-huge/docs/en.md",
        "larger than the 1024 KiB limit; only the first 1024 KiB were read",
    ) in messages
    from learning_system.curriculum import load_curriculum

    lesson = load_curriculum(root).lessons[0]
    assert [link.url for link in lesson.further_reading] == ["https://example.org/x"]


def test_escapes_from_files_never_reach_the_terminal(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    (root / "README.md").write_text("# Course \x1b]0;owned\x07\x1b[2J\u202eevil\n")
    lesson = write_lesson(root, "01-\x1b[31mred", "# Lesson \x1b[5mblink\n")
    (lesson / "quiz.json").write_text(
        json.dumps(
            [
                {
                    "id": "q\x1b[31m1",
                    "question": "Which?",
                    "options": ["a", "b", "c", "d"],
                    "correct": 7,
                }
            ]
        )
    )
    envelope = fact_envelope().model_dump(mode="json")
    envelope["claims"][0]["claim"] += " \x1b]52;c;Y2xpcA==\x07"
    envelope["gate"] = "fact_check"
    (tmp_path / "e.json").write_text(json.dumps(envelope))
    runs = [
        tutor("curriculum", "check", str(root), cwd=tmp_path),
        tutor("curriculum", "check", str(root), "--json", cwd=tmp_path),
        tutor("gate", "check", "e.json", cwd=tmp_path),
        tutor("gate", "check", "e.json", "--json", cwd=tmp_path),
        tutor("quiz", "audit", str(lesson / "quiz.json"), cwd=tmp_path),
    ]
    for result in runs:
        assert "Traceback" not in result.stderr, result.stderr
        for mark in ESCAPES:
            assert mark not in result.stdout and mark not in result.stderr, (mark, result.args)
            assert json.dumps(mark)[1:-1] not in result.stdout, (mark, result.args)  # JSON too
    assert "Course" in runs[0].stdout and "evil" in runs[0].stdout


def test_the_contract_states_the_limits_the_code_enforces():
    from learning_system import curriculum, store, store_files, text
    from tutor import inputs

    contract = " ".join(
        (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8").split()
    )
    mib = 1024 * 1024
    assert f"at most {inputs.MAX_INPUT_BYTES // mib} MiB" in contract
    assert f"nested at most {text.MAX_JSON_DEPTH} levels" in contract
    assert f"numbers of at most {text.MAX_NUMBER_CHARS} characters" in contract
    assert f"`docs/en.md` is read up to {curriculum.MAX_DOC_BYTES // mib} MiB" in contract
    assert f"`glossary/terms.md` up to {curriculum.MAX_GLOSSARY_BYTES // mib} MiB" in contract
    assert f"a `quiz.json` over {curriculum.MAX_QUIZ_BYTES // mib} MiB is not read" in contract
    assert f"at most {store_files.QUICK_CHECK_MAX_BYTES // mib} MiB or was not closed" in contract
    assert f"(default {store.DEFAULT_WAIT:g})" in contract


def test_an_unknown_option_is_named_with_its_command_usage(capsys):
    """`tutor continue --bogus` says so under `tutor continue`'s usage (exit 2); it printed the
    top-level usage, which lists commands, not the options the learner got wrong."""
    import pytest

    for argv, command in (
        (["continue", "--bogus"], "continue"),
        (["items", "X", "--nope"], "items"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2
        assert err.startswith(f"usage: tutor {command} ") and "unrecognized arguments" in err
