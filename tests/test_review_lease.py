"""Leased reviews and atomic schedule updates (issue 23, part 3): one review open per home at a
time, and two processes moving the same schedule lose no update."""

from __future__ import annotations

import subprocess
import sys

from plain_driver import Learner, reply

from learning_system import ledger
from learning_system.store import Store


def test_a_second_review_is_refused_while_one_is_open_and_nothing_is_doubled(tmp_path):
    lesson = Learner(tmp_path, "continue", "--plain", "--offline")
    for _ in range(200):  # wrong answers through the probe: mistakes come due at once
        screen = lesson.read_prompt()
        if "Step 1/" in screen:
            break
        lesson.send(reply(screen, wrong=True))
    lesson.finish()
    with Store(tmp_path / "tutor.db") as store:
        due = [d.id for d in ledger.due_queue(store) if d.kind == "mistake"]
    assert len(due) >= 2

    first = Learner(tmp_path, "review", "--plain")
    screen = first.read_prompt()
    assert "Review · mistake" in screen  # the first review holds the lease from here on
    second = Learner(tmp_path, "review", "--plain")
    code = second.proc.wait(timeout=60)
    said = second.proc.stdout.read().decode() + second.proc.stderr.read().decode()
    second.close()
    assert code == 2 and "a review is open in another tutor" in said, said
    assert "Traceback" not in said
    for _ in range(200):
        if first.proc.poll() is not None or "Review done" in screen:
            break
        first.send(reply(screen, wrong=False))
        screen = first.read_prompt()
    first.finish()
    with Store(tmp_path / "tutor.db") as store:
        reviews = [a for a in ledger.attempts(store) if a["kind"] == "review"]
    asked = [a["item_id"] for a in reviews]
    assert len(asked) == len(set(asked)) >= 2  # each due mistake asked and recorded once

    third = Learner(tmp_path, "review", "--plain")  # the lease went with the first review
    assert "a review is open" not in third.read_prompt()
    third.finish()
    assert third.proc.returncode == 0


UPDATES = """
import sys
from learning_system import ledger
from learning_system.store import Store
with Store(sys.argv[1]) as store:
    for _ in range(int(sys.argv[2])):
        ledger.review_concept(store, "c1", "correct", "sure")
"""


def test_two_processes_reviewing_one_concept_lose_no_update(tmp_path):
    db = tmp_path / "tutor.db"
    with Store(db) as store:
        ledger.upsert_concept(
            store, ledger.Concept(id="c1", name="Dot product", lesson_id="P1 L01", type="concept")
        )
    n = 60
    runs = [
        subprocess.Popen([sys.executable, "-c", UPDATES, str(db), str(n)], stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for run in runs:
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()
    with Store(db) as store:
        row = store.concepts.get("c1")
    assert row is not None and row["interval_index"] == 2 * n
