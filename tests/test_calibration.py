"""Calibration the learner can see (issue 25 part 6), read from a real store holding several
sure-and-wrong answers: the rule of CONTRACT.md ("Calibration"), `tutor status` and its JSON,
and the lesson end's lines."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta

from plain_driver import Learner
from test_plain import drive_until

from learning_system import ledger
from learning_system.ledger import Attempt, Concept
from learning_system.store import Store, utcnow
from tutor.engine.calibration import CALIBRATION_DAYS, calibration

# (concept, confidence, outcome, days ago)
ANSWERS = [
    ("vectors", "sure", "wrong", 1),
    ("vectors", "sure", "wrong", 2),
    ("vectors", "sure", "wrong", 3),
    ("gradients", "sure", "wrong", 1),
    ("gradients", "sure", "correct", 1),
    ("vectors", "sure", "correct", 1),
    ("gradients", "hunch", "correct", 1),
    ("gradients", "no_idea", "wrong", 1),
    # not counted: "I don't know", ungraded, no tag, older than the window
    ("vectors", "sure", "idk", 1),
    ("vectors", "sure", "pending", 1),
    ("vectors", None, "wrong", 1),
    ("gradients", "sure", "wrong", CALIBRATION_DAYS + 1),
]


def seed(store: Store) -> None:
    now = utcnow()
    for name in ("vectors", "gradients"):
        ledger.upsert_concept(store, Concept(id=f"c-{name}", name=name.title(), type="concept"))
    for n, (concept, tag, outcome, days) in enumerate(ANSWERS):
        ledger.record_attempt(
            store,
            Attempt(
                id=f"a{n}",
                concept_id=f"c-{concept}",
                kind="probe",
                outcome=outcome,
                confidence=tag,
                created_at=now - timedelta(days=days, hours=1),
            ),
        )


def test_sure_and_wrong_answers_count_as_over_confidence_by_concept(tmp_path):
    with Store(tmp_path / "tutor.db") as store:
        seed(store)
        c = calibration(store)
    sure = c.tally("sure")
    assert (sure.right, sure.wrong) == (2, 4)  # idk, pending, untagged and old ones left out
    assert (c.tally("hunch").right, c.tally("no_idea").wrong) == (1, 1)
    assert c.over == [("Vectors", 3), ("Gradients", 1)]
    assert c.under == [("Gradients", 1)]
    assert c.concepts() == "Sure & wrong: Vectors 3, Gradients 1 · unsure & right: Gradients 1"
    assert c.advice() == "4 sure answers were wrong, most on Vectors: say why before tagging sure."


def test_no_tagged_answers_say_so_and_what_to_do(tmp_path):
    with Store(tmp_path / "tutor.db") as store:
        c = calibration(store)
    assert c.answers == 0 and c.over == []
    assert "tag honestly" in c.advice()


def test_right_hunches_are_under_confidence(tmp_path):
    with Store(tmp_path / "tutor.db") as store:
        for n in range(4):
            ledger.record_attempt(
                store,
                Attempt(id=f"h{n}", kind="probe", outcome="correct", confidence="hunch"),
            )
        c = calibration(store)
    assert c.under == [("", 4)]
    assert c.advice().startswith("Your hunches are mostly right")


def tutor(home, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "TUTOR_HOME": str(home)},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_tutor_status_shows_calibration_and_its_advice(tmp_path):
    with Store(tmp_path / "tutor.db") as store:
        seed(store)
    shown = tutor(tmp_path, "status")
    assert shown.returncode == 0, shown.stderr
    assert "Calibration, last 30 days: sure 2/6 right (33%) · hunch 1/1" in shown.stdout
    assert "Sure & wrong: Vectors 3, Gradients 1" in shown.stdout
    assert "most on Vectors: say why before tagging sure." in shown.stdout
    data = json.loads(tutor(tmp_path, "status", "--json").stdout)["calibration"]
    assert data["days"] == 30
    assert data["tags"]["sure"] == {"right": 2, "wrong": 4}
    assert data["over_confident"][0] == {"concept": "Vectors", "sure_wrong": 3}
    assert data["advice"].startswith("4 sure answers were wrong")


def test_the_line_dialogue_ends_a_lesson_with_the_calibration_and_its_advice(tmp_path):
    """A whole lesson in `--plain`, answered wrong and sure: the lesson end says so."""
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    drive_until(learner, r"Calibration, last 30 days")
    learner.finish()
    end = learner.transcript[learner.transcript.index("Calibration, last 30 days") :]
    sure = re.match(r"Calibration, last 30 days: sure (\d+)/(\d+) right", end)
    assert sure and int(sure[2]) - int(sure[1]) >= 2  # several sure and wrong
    assert "Sure & wrong: Vectors and Dot Products" in end
    assert "sure answers were wrong, most on Vectors and Dot Products: say why" in end


def test_one_sure_and_wrong_answer_is_too_few_to_tell_not_a_match(tmp_path):
    with Store(tmp_path / "tutor.db") as store:
        ledger.record_attempt(
            store, Attempt(id="w", kind="probe", outcome="wrong", confidence="sure")
        )
        leaning = calibration(store).advice()
        for n in range(4):  # then 4 of 5 sure answers right: at the 80% mark
            ledger.record_attempt(
                store, Attempt(id=f"r{n}", kind="probe", outcome="correct", confidence="sure")
            )
            ledger.record_attempt(
                store, Attempt(id=f"n{n}", kind="probe", outcome="wrong", confidence="no_idea")
            )
        matched = calibration(store).advice()
    assert leaning.startswith("Too few tagged answers to tell yet")
    assert matched.startswith("Your confidence matches your answers")


def test_a_withheld_answer_is_not_counted_until_its_batch_results_are_shown(tmp_path):
    """SPEC §4.1: no right or wrong before the batch ends — so calibration (home, `tutor
    status`) and the home screen's mastery chart cannot count a withheld probe answer either,
    paused or not."""
    from learning_system.curriculum import load_curriculum
    from tutor.config import builtin_course_path
    from tutor.engine import home_summary
    from tutor.engine.session import Session
    from tutor.engine.turns import Action

    course = load_curriculum(builtin_course_path())
    with Store(tmp_path / "tutor.db") as store:
        session = Session.start(store, course, course.lesson("P1 L01"), offline=True)
        while session.prompt.kind != "choice":
            session.act(Action(kind="next"))
        session.act(
            Action(kind="answer", value=str(session.prompt.item.correct_index), confidence="sure")
        )
        session.pause()
        assert calibration(store).tally("sure").right == 0  # answered, results not shown
        assert not any(home_summary.record_counts(store).mastery_days)  # nor in the chart
        shown = tutor(tmp_path, "status")
        assert "Sure & wrong" not in shown.stdout
        session = Session.resume(store, course, store.sessions.latest())
        while session.prompt.stage != "results":
            p = session.prompt
            if p.kind == "choice":
                session.act(
                    Action(kind="answer", value=str(p.item.correct_index), confidence="hunch")
                )
            elif p.kind == "text":
                session.act(Action(kind="text", value="idk"))
            else:
                session.act(Action(kind="next"))
        assert calibration(store).tally("sure").right == 1
        assert any(home_summary.record_counts(store).mastery_days)
        session.close()
