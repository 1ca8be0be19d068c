"""`tutor items`: what the tutor would present for a lesson passes the gate, carries its receipt,
and cannot be answered by a no-knowledge strategy much better than chance."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.commands.items import collect
from tutor.config import builtin_course_path
from tutor.gates import mcq
from tutor.gates.envelopes import QuizQuestion

ROOT = Path(__file__).resolve().parents[1]
CORPUS_LESSONS = ["P0 L01", "P1 L03", "P1 L08", "P2 L10", "P3 L12"]  # none, 2, 2, 9, 10 prereqs
BUILTIN_LESSONS = ["P1 L01", "P1 L02", "P1 L03", "P1 L04"]
GUESS_BOUND = 0.30
MIN_POOLED_MCQ = 20
MIN_MCQ_SHARE = 0.5  # of the items `tutor items` lists, over the reference curriculum


def tutor(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUTOR_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def as_question(item: dict) -> QuizQuestion:
    return QuizQuestion(
        id=item["id"],
        type="mcq",
        question=item["question"],
        options=item["options"],
        correct_index=item["correct_index"],
    )


def stored_receipts(home: Path) -> dict[str, tuple[str, dict]]:
    with sqlite3.connect(home / "tutor.db") as db:
        rows = db.execute("SELECT receipt_id, gate, payload FROM receipts").fetchall()
    return {rid: (gate, json.loads(payload)) for rid, gate, payload in rows}


# 1. the command, as a learner would run it ---------------------------------------------------
@pytest.mark.parametrize(
    "curriculum,lessons", [("corpus", CORPUS_LESSONS), ("builtin", BUILTIN_LESSONS)]
)
def test_every_listed_item_has_a_receipt_and_passes_the_mcq_rules(
    tmp_path: Path, corpus_root: Path, curriculum: str, lessons: list[str]
) -> None:
    path = corpus_root if curriculum == "corpus" else builtin_course_path()
    listed = 0
    for lesson in lessons:
        run = tutor(tmp_path, "items", lesson, "--curriculum", str(path), "--json")
        assert run.returncode == 0, run.stderr
        report = json.loads(run.stdout)
        assert report["lesson"] == lesson
        assert set(report) == {"lesson", "items", "withheld", "summary"}
        receipts = stored_receipts(tmp_path)
        counts = {"mcq": 0, "numeric": 0, "free_recall": 0}
        withheld = {(w["purpose"], w["id"]) for w in report["withheld"]}
        for item in report["items"]:
            counts[item["type"]] += 1
            assert item["purpose"] in ("probe", "quiz")
            assert (item["purpose"], item["id"]) not in withheld
            assert item["receipt_id"] in receipts, f"{lesson} {item['id']}: receipt not stored"
            gate, payload = receipts[item["receipt_id"]]
            assert gate == "quiz_audit"
            audited = payload["envelope"]["questions_json"][0]
            assert (audited["question"], audited["options"], audited["correct_index"]) == (
                item["question"],
                item["options"],
                item["correct_index"],
            )
            if item["type"] == "mcq":
                assert len(item["options"]) == 4
                assert 0 <= item["correct_index"] < 4
                assert mcq.blocking(mcq.audit_item(as_question(item))) == [], item
            elif item["type"] == "numeric":
                assert isinstance(item["answer"], (int, float))
            else:
                assert item["options"] == [] and item["correct_index"] is None
            listed += 1
        for w in report["withheld"]:
            assert re.fullmatch(r"[A-Z]\d\d", w["code"]), w
        assert report["summary"] == counts
        assert any(i["purpose"] == "probe" for i in report["items"]), lesson
        assert any(i["purpose"] == "quiz" for i in report["items"]), lesson
    assert listed > 0


def test_readable_listing_and_errors(tmp_path: Path) -> None:
    run = tutor(tmp_path, "items", "p1l2", "--curriculum", str(builtin_course_path()))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("P1 L02 ")
    assert "Probe" in run.stdout and "End-of-lesson quiz" in run.stdout
    assert re.search(r"receipt: rcpt-[0-9a-f]+", run.stdout)
    assert "\x1b" not in run.stdout
    missing = tutor(tmp_path, "items", "P9 L99", "--curriculum", str(builtin_course_path()))
    assert missing.returncode == 2
    assert missing.stderr.startswith("tutor: ") and "Traceback" not in missing.stderr


def test_untrusted_text_is_printed_inert(tmp_path: Path) -> None:
    """A bank's text reaches the terminal as plain characters: no escape sequence, no markup."""
    folder = tmp_path / "course" / "phases" / "01-one" / "01-first"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "en.md").write_text(
        "# First Steps\n\n**Type:** Learn\n**Prerequisites:** None\n\n## The Concept\n\n"
        "Counting things one at a time is how every tally on a page begins, slowly.\n",
        encoding="utf-8",
    )
    (folder / "quiz.json").write_text(
        json.dumps(
            [
                {
                    "stage": "pre",
                    "question": "Which [bold]tally\x1b[31m mark stands for five?",
                    "options": [
                        "A gate of four strokes and a bar",
                        "A single stroke on its own",
                        "Two strokes side by side",
                        "A circle drawn around three",
                    ],
                    "correct": 0,
                    "explanation": "Four strokes crossed by a fifth.",
                },
            ]
        ),
        encoding="utf-8",
    )
    run = tutor(tmp_path / "home", "items", "P1 L01", "--curriculum", str(tmp_path / "course"))
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout
    assert "[bold]tally\\x1b[31m mark" in run.stdout


# 2. the guessing bound -----------------------------------------------------------------------
STOPWORDS = frozenset(
    "a an the of to in on at by for from with and or but not no is are was were be been being "
    "it its this that these those which what who whom whose when where why how do does did "
    "has have had can could will would should may might must as if than then so such into "
    "onto over under about you your we our they their there here".split()
)


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


def first_best(scores: Sequence[float]) -> int:
    """The index of the highest score; ties go to the first option in shown order."""
    best = 0
    for n, score in enumerate(scores):
        if score > scores[best]:
            best = n
    return best


Strategy = Callable[[str, Sequence[str]], int]


def strike_the_longest(stem: str, options: Sequence[str]) -> int:
    struck = first_best([len(o) for o in options])
    return first_best([len(o) if n != struck else -1 for n, o in enumerate(options)])


def odd_one_out(stem: str, options: Sequence[str]) -> int:
    mean = sum(len(o) for o in options) / len(options)
    return first_best([abs(len(o) - mean) for o in options])


def most_overlap(stem: str, options: Sequence[str]) -> int:
    words = content_words(stem)
    return first_best([len(words & content_words(o)) for o in options])


def fixed_position(k: int) -> Strategy:
    def pick(stem: str, options: Sequence[str]) -> int:
        return k

    return pick


def convergence(stem: str, options: Sequence[str]) -> int:
    """The option sharing the most words with the other options (distractors are often
    variations of the key)."""
    words = [content_words(o) for o in options]
    return first_best(
        [sum(len(w & v) for m, v in enumerate(words) if m != n) for n, w in enumerate(words)]
    )


STRATEGIES: dict[str, Strategy] = {
    "always-longest": lambda s, o: first_best([len(x) for x in o]),
    "always-shortest": lambda s, o: first_best([-len(x) for x in o]),
    "most-words": lambda s, o: first_best([len(x.split()) for x in o]),
    "most-overlap-with-stem": most_overlap,
    "odd-one-out-by-length": odd_one_out,
    "strike-the-longest": strike_the_longest,
    "convergence": convergence,
    **{f"position-{k}": fixed_position(k) for k in range(4)},
}


def scores(mcqs: Sequence[tuple[str, list[str], int]]) -> dict[str, float]:
    return {
        name: sum(pick(stem, options) == key for stem, options, key in mcqs) / len(mcqs)
        for name, pick in STRATEGIES.items()
    }


def test_strategies_follow_their_rules() -> None:
    options = ["bb", "dddd", "a", "dddd"]
    assert STRATEGIES["always-longest"]("", options) == 1
    assert STRATEGIES["always-shortest"]("", options) == 2
    assert STRATEGIES["strike-the-longest"]("", options) == 3
    assert STRATEGIES["odd-one-out-by-length"]("", ["aaa", "aaa", "a", "aaaaa"]) == 2
    assert STRATEGIES["most-words"]("", ["one", "two words", "three more words", "x y z"]) == 2
    assert (
        STRATEGIES["most-overlap-with-stem"](
            "Which of the layers normalises activations?",
            ["dropout", "layers that normalise activations", "the", "normalises"],
        )
        == 1
    )
    assert STRATEGIES["position-2"]("", options) == 2


def test_no_knowledge_strategy_beats_the_bound(tmp_path: Path, corpus_root: Path) -> None:
    pooled: list[tuple[str, list[str], int]] = []
    raw: list[tuple[str, list[str], int]] = []
    sequence_hits = sequence_n = 0
    corpus_shown = corpus_listed = 0
    last_revealed: int | None = None
    with Store(tmp_path / "tutor.db") as store:
        for root in (corpus_root, builtin_course_path()):
            curriculum = load_curriculum(root)
            assert not curriculum.errors
            for lesson in curriculum.lessons:
                report = collect(store, curriculum, lesson)
                shown = [
                    (i["question"], i["options"], i["correct_index"])
                    for i in report["items"]
                    if i["type"] == "mcq"
                ]
                pooled += shown
                if root == corpus_root:
                    corpus_shown += len(shown)
                    corpus_listed += len(report["items"])
                # "the slot after the last revealed key": keys are revealed when a batch ends,
                # so every item of a batch is guessed from the previous batch's last key
                for purpose in ("probe", "quiz"):
                    batch = [
                        i["correct_index"]
                        for i in report["items"]
                        if i["type"] == "mcq" and i["purpose"] == purpose
                    ]
                    if last_revealed is not None:
                        sequence_hits += sum((last_revealed + 1) % 4 == k for k in batch)
                        sequence_n += len(batch)
                    last_revealed = batch[-1] if batch else last_revealed
                if root == corpus_root:
                    raw += [
                        (q.question, q.options, q.correct)
                        for q in lesson.quiz
                        if q.type == "mcq" and len(q.options) == 4
                    ]
    assert len(pooled) >= MIN_POOLED_MCQ, f"only {len(pooled)} MCQs presented"
    share = corpus_shown / max(1, corpus_listed)  # over the course: a lesson may have fewer
    assert share >= MIN_MCQ_SHARE, f"{share:.0%} of the corpus's listed items are MCQs"
    measured = scores(pooled)
    print(f"\npooled MCQs: {len(pooled)}")
    for name, share in sorted(measured.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<24} {share:6.1%}")
    measured["next-slot-after-last-key"] = sequence_hits / max(1, sequence_n)
    print(f"  next-slot-after-last-key {measured['next-slot-after-last-key']:6.1%}")
    best = max(measured, key=measured.__getitem__)
    assert measured[best] <= GUESS_BOUND, f"{best} scores {measured[best]:.1%} of {len(pooled)}"
    # the same test on the raw banks fails: it can tell a guessable set from a fair one
    raw_longest = scores(raw)["always-longest"]
    print(f"raw corpus MCQs: {len(raw)}, always-longest {raw_longest:.1%}")
    assert raw_longest > 0.80
