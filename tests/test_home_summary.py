"""The home screen's summary: counted in SQL on a real store, the mastery chart in one pass, and
only the lessons it names read from the curriculum."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from learning_system import ledger, scheduling
from learning_system.curriculum import load_curriculum
from learning_system.ledger import Attempt, Concept, Mistake
from learning_system.store import Store, iso
from tutor.engine import home_summary

NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "tutor.db") as s:
        yield s


def test_the_mastery_chart_in_one_pass_equals_mastery_as_of_each_day():
    rng = random.Random(7)
    answers = sorted(
        (
            NOW - timedelta(minutes=rng.randrange(0, 90 * 24 * 60)),
            rng.choice(["correct", "wrong", "idk", "pending"]),
            rng.choice(["sure", "hunch", "no_idea"]),
        )
        for _ in range(400)
    )
    ends = [NOW - timedelta(days=d) for d in range(29, -1, -1)]
    expected = [scheduling.mastery((a for a in answers if a[0] <= end), end) for end in ends]
    got = scheduling.mastery_at_ends(answers, ends)
    assert got == pytest.approx(expected, abs=0.01)
    assert sum(g == e for g, e in zip(got, expected, strict=True)) >= 28  # rounding aside
    assert any(v > 0 for v in got) and scheduling.mastery_at_ends([], ends) == [0.0] * 30


def test_counts_come_from_sql_on_the_store(store):
    for n, days in enumerate([-3, 0.5, 1.5, 1.7, 6, 13.9, 20]):
        when = NOW + timedelta(days=days)
        ledger.record_mistake(store, Mistake(id=f"m{n}", attempt_id=f"a{n}"), when=when)
    ledger.record_mistake(store, Mistake(id="done", attempt_id="x"), when=NOW)
    store.execute("UPDATE mistakes SET status = 'resolved' WHERE id = 'done'")
    for n, kind in enumerate(["memory", "design", "concept"]):  # due after 1, 4 and 3 days
        ledger.upsert_concept(store, Concept(id=f"c{n}", name=kind, type=kind), when=NOW)
    store.execute("UPDATE concepts SET status = 'held', mastery = 0.6 WHERE id = 'c0'")
    counts = home_summary.record_counts(store, NOW)
    assert (counts.due_mistakes, counts.due_concepts) == (1, 0)
    # day 0 counts what is due by the end of today's 24 hours, the past included
    assert counts.due_days == [2, 3, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1]
    assert counts.concepts == {"held": 1, "developing": 2}
    assert counts.mastery == 0.2
    assert home_summary.record_counts(store, NOW - timedelta(days=30)).due_days[0] == 0


def test_the_mastery_chart_reads_the_stores_answers(store):
    for n in range(6):
        ledger.record_attempt(
            store,
            Attempt(
                id=f"a{n}",
                kind="quiz",
                outcome="correct",
                confidence="sure",
                created_at=NOW - timedelta(days=10 - n),
            ),
        )
    days = home_summary.record_counts(store, NOW).mastery_days
    assert len(days) == 30 and days[:19] == [0.0] * 19  # nothing answered before day 20
    assert days[-1] == 0.8 and days[20] > 0


def test_home_reads_only_the_lessons_it_names(store, tmp_path):
    from conftest import write_tiny_curriculum

    root = write_tiny_curriculum(tmp_path / "c", [])
    outline = load_curriculum(root, only=[])
    first = home_summary.with_curriculum(store, outline)
    assert first.position == "next: P1 L01 Counting Things" and first.last_lesson is None
    assert [lesson.id for lesson in outline.lessons] == ["P1 L01"]

    store.sessions.save("s1", "P1 L01", str(root), "done", "end", {})
    ledger.record_attempt(
        store, Attempt(id="q1", session_id="s1", kind="quiz", outcome="correct", confidence="sure")
    )
    ledger.record_attempt(
        store, Attempt(id="q2", session_id="s1", kind="quiz", outcome="wrong", confidence="sure")
    )
    after = home_summary.with_curriculum(store, load_curriculum(root, only=[]))
    assert after.position == "next: P1 L02 Averages and Spread"
    assert after.last_lesson == "P1 L01 Counting Things · finished · quiz 1/2"

    store.sessions.save("s2", "P1 L02", str(root), "paused", "probe", {})
    paused = home_summary.from_store(store, root)
    assert paused.position == "P1 L02 · paused at probe" and paused.curriculum == "c"
    whole = home_summary.with_curriculum(store, load_curriculum(root, only=[]))
    assert whole.position == "P1 L02 Averages and Spread · paused at probe"
    assert home_summary.empty(root).counts == home_summary.RecordCounts()


def test_iso_times_order_as_the_due_windows_assume():
    assert iso(NOW) < iso(NOW + timedelta(microseconds=1)) < iso(NOW + timedelta(days=1))


def test_one_due_is_said_in_the_singular_on_home_and_in_tutor_status(tmp_path, monkeypatch, capsys):
    from tutor.cli import main

    assert home_summary.due_now(1, 1) == "1 mistake · 1 concept"
    assert home_summary.due_now(0, 2) == "0 mistakes · 2 concepts"
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    with Store(tmp_path / "tutor.db") as store:
        ledger.record_mistake(store, Mistake(id="m", attempt_id="a"), when=NOW)
        ledger.upsert_concept(store, Concept(id="c", name="dot", type="concept"), when=NOW)
        store.execute("UPDATE concepts SET next_review = ?", (iso(NOW),))
    assert main(["status"]) == 0
    assert "Due now:    1 mistake · 1 concept\n" in capsys.readouterr().out
