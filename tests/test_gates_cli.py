"""`tutor gate check` and `tutor quiz audit`, through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tutor.cli import main
from tutor.gates.codes import MCQ_CODES
from tutor.gates.samples import DIGEST, LONG_KEY_QUESTION, fact_envelope, quiz_envelope

ROOT = Path(__file__).resolve().parents[1]
BLOCKING = {code for code, (severity, _, _) in MCQ_CODES.items() if severity != "low"}


def tutor(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_gate_check_passes_marks_and_blocks(tmp_path):
    fact = write(tmp_path / "fact.json", fact_envelope().model_dump(mode="json"))
    digest = write(
        tmp_path / "digest.json",
        {"sources": [{"url": k, "excerpt": v, "status": "ok"} for k, v in DIGEST.sources.items()]},
    )
    run = tutor("gate", "check", str(fact), "--digest", str(digest), "--json", cwd=ROOT)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["outcome"] == "emit" and report["unverified"] == ["c1", "c2"]
    assert report["digest_checked"] is True

    wrong = write(tmp_path / "digest2.json", {"sources": {"https://other.example": "nothing"}})
    run = tutor("gate", "check", str(fact), "--digest", str(wrong), cwd=ROOT)
    assert run.returncode == 1 and "F03" in run.stdout

    quiz = quiz_envelope().model_dump(mode="json")
    quiz["questions_json"][0] = LONG_KEY_QUESTION.model_dump(mode="json")
    run = tutor("gate", "check", str(write(tmp_path / "quiz.json", quiz)), "--json", cwd=ROOT)
    assert run.returncode == 1
    report = json.loads(run.stdout)
    assert report["verdict"] == "ISSUES" and report["code"] == "Q01"
    assert report["codes"][0] == "Q01" and "M04" in report["codes"]


def test_gate_check_invalid_input_exits_2(tmp_path):
    bad = write(tmp_path / "bad.json", {"gate": "fact_check", "claims": [], "surprise": 1})
    run = tutor("gate", "check", str(bad), cwd=ROOT)
    assert run.returncode == 2 and "invalid envelope" in run.stderr
    assert "Traceback" not in run.stderr
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    run = tutor("gate", "check", str(tmp_path / "broken.json"), cwd=ROOT)
    assert run.returncode == 2 and "not valid JSON" in run.stderr
    assert tutor("gate", "check", str(tmp_path / "missing.json"), cwd=ROOT).returncode == 2
    ok = write(tmp_path / "ok.json", fact_envelope().model_dump(mode="json"))
    run = tutor("gate", "check", str(ok), "--digest", str(bad), cwd=ROOT)
    assert run.returncode == 2 and "invalid digest" in run.stderr
    # no `gate`, or an unknown one: said in words; with --json, as JSON on stdout
    for envelope in ({"claims": []}, {"gate": "nope"}):
        run = tutor("gate", "check", str(write(tmp_path / "g.json", envelope)), "--json", cwd=ROOT)
        said = json.loads(run.stdout)["error"]
        assert run.returncode == 2 and "`gate` must be one of fact_check, quiz_audit" in said
        assert run.stderr.strip() == f"tutor: {said}"  # and the one-line refusal
        assert "discriminator" not in said and "Traceback" not in run.stderr
    # a refusal quoting a key with a line break and spaces in it: the JSON says what stderr says
    odd = {"gate": "fact_check", "claims": [], "two\nlines  here": 1}
    run = tutor("gate", "check", str(write(tmp_path / "odd.json", odd)), "--json", cwd=ROOT)
    said = json.loads(run.stdout)["error"]
    assert run.returncode == 2 and "two lines here" in said and run.stderr == f"tutor: {said}\n"


def test_gate_check_grade_and_review(tmp_path, capsys):
    item = quiz_envelope().questions_json[1].model_dump(mode="json")
    grade = {
        "gate": "grade_audit",
        "item": item,
        "learner_answer": "a",
        "proposed_grade": {"passed": True},
    }
    assert main(["gate", "check", str(write(tmp_path / "g.json", grade))]) == 1
    assert "R04" in capsys.readouterr().out
    grade["proposed_grade"]["passed"] = False
    assert main(["gate", "check", str(write(tmp_path / "g.json", grade))]) == 0
    assert "result: pass" in capsys.readouterr().out
    review = {
        "gate": "review",
        "batch_id": "b1",
        "writes": [{"kind": "concept", "id": "x"}, {"id": "y"}],
    }
    assert main(["gate", "check", str(write(tmp_path / "r.json", review)), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["code"] == "V01" and report["verdict"] == "ISSUES"


def test_quiz_audit_subprocess_both_shapes(tmp_path, corpus_root):
    banks = sorted(corpus_root.glob("phases/*/*/quiz.json"))
    shapes = {type(json.loads(p.read_text(encoding="utf-8"))).__name__: p for p in banks}
    assert set(shapes) == {"dict", "list"}
    for path in shapes.values():
        run = tutor("quiz", "audit", str(path), cwd=ROOT)
        assert run.returncode in (0, 1), run.stderr
        lines = run.stdout.splitlines()
        # plain: one line per item in words (the problem and the fix), then the summary
        assert all(line.startswith("item ") for line in lines[:-2])
        assert any(" — fix: " in line and "(M04, high)" in line for line in lines), lines[:3]
        assert lines[-1].startswith("summary: the key is the single longest option")
        run = tutor("quiz", "audit", str(path), "--json", cwd=ROOT)
        report = json.loads(run.stdout)
        assert set(report) == {"items", "summary"}


def test_quiz_audit_every_corpus_bank(corpus_root, capsys):
    totals = {"items": 0, "length_leak_flagged": 0, "key_single_longest": 0}
    banks = sorted(corpus_root.glob("phases/*/*/quiz.json"))
    assert len(banks) >= 60
    for path in banks:
        code = main(["quiz", "audit", str(path), "--json"])
        report = json.loads(capsys.readouterr().out)
        assert code == (0 if report["summary"]["not_ok"] == 0 else 1)
        for entry in report["items"]:
            assert entry["ok"] == BLOCKING.isdisjoint(entry["codes"])
        for key in totals:
            totals[key] += report["summary"][key]
    assert totals["key_single_longest"] / totals["items"] > 0.8  # the README's measured leak
    assert totals["length_leak_flagged"] / totals["items"] > 0.75  # and it is caught


def test_quiz_audit_malformed_items_and_bad_files(tmp_path, capsys):
    bank = [
        {
            "question": "Which maps keys?",
            "correct": 1,
            "id": "ok-1",
            "options": ["A sorted list", "A hash table", "A binary heap", "A linked list"],
        },
        {"question": "No options"},
        "not an item",
        {"question": "Q", "options": ["a", ["b"], "c", "d"], "correct": 0},
        {"question": "Q", "options": ["a", "b", "c", "d"], "correct": True},
        {"question": "Q", "options": ["a", "b", "c", "d"], "correct": 7},
    ]
    assert main(["quiz", "audit", str(write(tmp_path / "q.json", bank)), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [e["codes"] for e in report["items"]] == [
        [],
        ["M00"],
        ["M00"],
        ["M00"],
        ["M00"],
        ["M02"],
    ]
    assert report["items"][0] == {"index": 0, "id": "ok-1", "ok": True, "codes": []}
    assert report["summary"]["ok"] == 1 and report["summary"]["by_code"]["M00"] == 4
    assert main(["quiz", "audit", str(write(tmp_path / "q.json", bank))]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "item 0 (ok-1): ok"
    assert lines[1].startswith("item 1: not ok — the item is malformed") and "(M00)" in lines[1]
    assert "not an option position — fix: Set correct_index" in lines[5]
    assert main(["quiz", "audit", str(write(tmp_path / "one.json", {"questions": bank[:1]}))]) == 0
    capsys.readouterr()
    assert main(["quiz", "audit", str(write(tmp_path / "x.json", {"items": []}))]) == 2
    assert "quiz bank" in capsys.readouterr().err


def test_quiz_audit_reads_items_as_the_loader_does(tmp_path, capsys):
    """What the curriculum loader presents, the audit audits as presented: a numeric item with
    no options (key -1), options written as numbers, a key written as digits; what the loader
    drops, the audit calls not ok."""
    from learning_system.curriculum_quiz import parse_quiz_bank

    bank = [
        {
            "question": "How many strings has a violin?",
            "type": "numeric",
            "answer": 4,
            "options": [],
            "correct": -1,
        },
        {"question": "How many lines has a staff?", "options": [3, 4, 5, 6], "correct": 2},
        {
            "question": "How many beats fill a bar of 3/4?",
            "options": ["2", "3", "4", "6"],
            "correct": "1",
        },
        {"question": "How many flats has F major?", "type": "numeric"},
        {"question": "Q", "options": ["a", {"b": 1}, "c", "d"], "correct": 0},
    ]
    path = write(tmp_path / "q.json", bank)
    loaded, _ = parse_quiz_bank(path.read_text(), "t")
    assert [q.index for q in loaded] == [0, 1, 2]
    assert loaded[1].options == ["3", "4", "5", "6"]
    assert main(["quiz", "audit", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [e["ok"] for e in report["items"]] == [True, True, True, False, False]
    assert [e["codes"] for e in report["items"]][3:] == [["M19"], ["M00"]]
    assert main(["quiz", "audit", str(write(tmp_path / "ok.json", bank[:3]))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["item 0: ok", "item 1: ok", "item 2: ok"]


@pytest.mark.parametrize("args", [["gate"], ["quiz"]])
def test_subcommand_is_required(args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
