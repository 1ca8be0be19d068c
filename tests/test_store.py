import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta

import pytest

from learning_system import ledger
from learning_system.ledger import Attempt, Concept, Mistake
from learning_system.store import SCHEMA_VERSION, SessionConflict, Store, StoreError


def test_new_store_is_wal_and_at_current_schema(store):
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.schema_version == SCHEMA_VERSION
    tables = set(store.db.table_names())
    for name in (
        "concepts",
        "attempts",
        "mistakes",
        "sessions",
        "session_notes",
        "receipts",
        "digests",
        "model_calls",
        "sources",
        "session_events",
    ):
        assert name in tables


def test_store_from_newer_version_is_refused_and_untouched(tmp_path):
    path = tmp_path / "tutor.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE keep (x)")
    conn.execute("INSERT INTO keep VALUES (42)")
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer tutor"):
        Store(path)
    assert path.read_bytes() == before


def test_corrupt_store_gives_clear_error_and_is_left_alone(tmp_path):
    path = tmp_path / "tutor.db"
    path.write_bytes(b"this is not a database at all" * 100)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="is not a tutor store"):
        Store(path)
    assert path.read_bytes() == before


def test_reopen_keeps_data_and_does_not_migrate_again(tmp_path):
    path = tmp_path / "tutor.db"
    with Store(path) as s:
        ledger.record_attempt(
            s, Attempt(id="a1", kind="probe", outcome="correct", confidence="sure")
        )
    with Store(path) as s:
        assert [a["id"] for a in ledger.attempts(s)] == ["a1"]
        assert s.schema_version == SCHEMA_VERSION


def test_attempt_write_is_idempotent(store):
    a = Attempt(id="x", kind="probe", outcome="wrong", confidence="hunch", answer="2")
    assert ledger.record_attempt(store, a) is True
    assert ledger.record_attempt(store, a) is False
    assert len(ledger.attempts(store)) == 1


def test_attempt_rejects_unknown_fields():
    with pytest.raises(ValueError):
        Attempt(id="x", kind="probe", outcome="wrong", colour="red")


WRITER = textwrap.dedent("""
    import sys
    from learning_system.store import Store
    from learning_system.ledger import Attempt, record_attempt
    store = Store(sys.argv[1])
    i = 0
    while True:
        record_attempt(store, Attempt(id=f"att-{i}", kind="probe", outcome="correct",
                                      confidence="sure", concept_id=f"c{i % 7}"))
        print(f"att-{i}", flush=True)
        i += 1
""")


def test_sigkill_loses_no_returned_attempt_and_retry_adds_nothing(tmp_path):
    path = tmp_path / "tutor.db"
    Store(path).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    acknowledged = []
    deadline = time.monotonic() + 30
    while len(acknowledged) < 200 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acknowledged.append(line.strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acknowledged += [line.strip() for line in proc.stdout.read().splitlines() if line.strip()]
    proc.stdout.close()
    assert len(acknowledged) >= 200
    with Store(path) as s:
        ids = [r["id"] for r in s.rows("SELECT id FROM attempts")]
        assert len(ids) == len(set(ids))
        assert set(acknowledged) <= set(ids)
        count = len(ids)
        for att_id in acknowledged[:50]:
            assert not ledger.record_attempt(
                s, Attempt(id=att_id, kind="probe", outcome="correct", confidence="sure")
            )
        assert s.execute("SELECT count(*) FROM attempts").fetchone()[0] == count


def test_due_queue_puts_mistakes_first_and_early_retests_at_front(store):
    now = datetime(2026, 1, 10, tzinfo=UTC)
    earlier = now - timedelta(days=5)
    ledger.upsert_concept(store, Concept(id="c-old", name="old", type="memory"), when=earlier)
    ledger.upsert_concept(store, Concept(id="c-new", name="new", type="design"), when=now)
    ledger.record_mistake(
        store, Mistake(id="m1", attempt_id="a1", concept_id="c-new"), when=now - timedelta(hours=2)
    )
    ledger.record_mistake(
        store,
        Mistake(id="m2", attempt_id="a2", concept_id="c-old", retest_early=True),
        when=now - timedelta(hours=1),
    )
    queue = ledger.due_queue(store, now)
    assert [(d.kind, d.id) for d in queue] == [
        ("mistake", "m2"),
        ("mistake", "m1"),
        ("concept", "c-old"),
    ]
    assert ledger.due_counts(store, now) == {"mistakes": 2, "concepts": 1}


def test_confident_wrong_mistake_needs_an_extra_retest(store):
    now = datetime(2026, 1, 10, tzinfo=UTC)
    ledger.record_mistake(store, Mistake(id="m", attempt_id="a", retest_early=True), when=now)
    assert ledger.review_mistake(store, "m", "correct", "sure", now) == "open"
    assert ledger.due_queue(store, now) == []
    later = now + timedelta(days=2)
    assert [d.id for d in ledger.due_queue(store, later)] == ["m"]
    assert ledger.review_mistake(store, "m", "correct", "sure", later) == "resolved"
    assert ledger.due_queue(store, later + timedelta(days=30)) == []


def test_review_concept_moves_schedule_and_mastery(store):
    now = datetime(2026, 1, 10, tzinfo=UTC)
    ledger.upsert_concept(store, Concept(id="c", name="chain rule"), when=now)
    for i in range(3):
        when = now + timedelta(days=i)
        ledger.record_attempt(
            store,
            Attempt(
                id=f"r{i}",
                kind="review",
                concept_id="c",
                outcome="correct",
                confidence="sure",
                created_at=when,
            ),
        )
        row = ledger.review_concept(store, "c", "correct", "sure", when)
    assert row["interval_index"] == 3
    assert 0.0 < row["mastery"] <= 0.80
    assert row["next_review"] > (now + timedelta(days=2)).isoformat()
    ledger.record_attempt(
        store,
        Attempt(
            id="bad",
            kind="review",
            concept_id="c",
            outcome="wrong",
            confidence="sure",
            created_at=now + timedelta(days=3),
        ),
    )
    lapsed = ledger.review_concept(store, "c", "wrong", "sure", now + timedelta(days=3))
    assert lapsed["interval_index"] == 0
    assert lapsed["mastery"] < row["mastery"]


def test_upsert_concept_is_idempotent(store):
    c = Concept(id="c", name="vectors", type="memory")
    assert ledger.upsert_concept(store, c) is True
    assert ledger.upsert_concept(store, c) is False
    assert ledger.upsert_concept(store, c.model_copy(update={"status": "held"})) is True
    assert ledger.concepts_by_status(store) == {"held": 1}


def test_events_are_append_once(store):
    assert store.sessions.append_event("s", 0, "answer", {"choice": 2})
    assert not store.sessions.append_event("s", 0, "answer", {"choice": 2})  # a retry adds nothing
    with pytest.raises(SessionConflict):  # a different event at the same seq is never dropped
        store.sessions.append_event("s", 0, "answer", {"choice": 3})
    assert [e["payload"] for e in store.sessions.events("s")] == [{"choice": 2}]


def test_a_pending_answer_is_graded_once_and_ignored_by_mastery(store):
    ledger.record_attempt(
        store, Attempt(id="p", kind="probe", outcome="pending", confidence="sure", answer="because")
    )
    assert ledger.grade_attempt(store, "p", "wrong") is True
    assert ledger.grade_attempt(store, "p", "correct") is False
    assert [a["outcome"] for a in ledger.attempts(store)] == ["wrong"]


def test_a_v1_store_migrates_to_the_due_queue_index_and_reopens_without_sqlite_utils(tmp_path):
    from learning_system.store import MIGRATIONS

    path = tmp_path / "tutor.db"
    conn = sqlite3.connect(path, isolation_level=None)
    MIGRATIONS[0](conn)  # a store as version 1 left it
    conn.execute("PRAGMA user_version=1")
    conn.close()
    with Store(path) as s:
        assert s.schema_version == SCHEMA_VERSION >= 2
        plan = s.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM mistakes WHERE status = 'open' AND "
            "retest_early = 1 AND next_review <= '9' ORDER BY next_review, id LIMIT 50"
        ).fetchall()
        assert "INDEX idx_mistakes_due" in str(plan) and "TEMP B-TREE" not in str(plan)
    code = (
        "import sys; from learning_system.store import Store; "
        f"Store({str(path)!r}).close(); print('sqlite_utils' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False"


def test_due_queue_order_holds_across_early_retests(store):
    now = datetime.now(UTC)
    for n, (early, hours) in enumerate([(0, 5), (1, 1), (0, 9), (1, 7)]):
        ledger.record_mistake(
            store,
            Mistake(id=f"m{n}", attempt_id=f"a{n}", concept_id="c", retest_early=bool(early)),
            when=now - timedelta(hours=hours),
        )
    ids = [d.id for d in ledger.due_queue(store, now + timedelta(seconds=1))]
    assert ids == ["m3", "m1", "m2", "m0"]
    assert [d.id for d in ledger.due_queue(store, now + timedelta(seconds=1), limit=3)] == [
        "m3",
        "m1",
        "m2",
    ]


def test_a_transaction_inside_another_joins_it(store):
    """Table writes made inside an open transaction commit with it, or not at all (the Clerk's
    batch relies on this)."""
    first = Concept(id="c-joined", name="Joined")
    with pytest.raises(RuntimeError), store.transaction():
        ledger.upsert_concept(store, first)  # its own transaction, joined to the outer one
        assert ledger.concept_row(store, "c-joined") is not None  # seen inside
        raise RuntimeError("the batch fails after the write")
    assert ledger.concept_row(store, "c-joined") is None
    assert not store.conn.in_transaction

    with store.transaction():
        ledger.upsert_concept(store, first)
        store.set_setting("joined", "yes")
    assert ledger.concept_row(store, "c-joined")["name"] == "Joined"
    assert store.get_setting("joined") == "yes"
    assert not store.conn.in_transaction


def test_a_concept_update_names_only_its_columns(store):
    """Column names go into the statement, so a name that is not a column is refused."""
    ledger.upsert_concept(store, Concept(id="c-cols", name="Columns"))
    with pytest.raises(ValueError, match="not a concept column"):
        store.concepts.update("c-cols", {"name = 'x', mastery": 1.0})
    store.concepts.update("c-cols", {"notes": "kept"})
    assert store.concepts.get("c-cols")["notes"] == "kept"
