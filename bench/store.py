"""Store benchmark: durable attempt writes and the due queue at 100,000 attempts over 5,000
concepts, each beside a bare `sqlite3` baseline doing the same SQL work in the same run; then
the due queue and the start of a review at 20,000 open mistakes, beside the same on a small
store (100 open mistakes) in the same run.

Targets: attempt-write p99 < 5 ms; due queue < 20 ms; store API within 3x of the baseline;
due queue at 20k open mistakes < 20 ms; review start at 20k < 1.2x the small store.
Usage: python bench/store.py [--attempts N] [--concepts N] [--samples N] [--mistakes N]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learning_system import ledger  # noqa: E402
from learning_system.ledger import Attempt, Mistake  # noqa: E402
from learning_system.store import Store, iso  # noqa: E402


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98]


def seed(store: Store, n_attempts: int, n_concepts: int, now: datetime) -> None:
    rng = random.Random(7)
    with store.transaction() as c:
        for i in range(n_concepts):
            due = iso(now + timedelta(days=rng.randint(-30, 60)))
            c.execute(
                "INSERT INTO concepts (id, name, type, status, interval_index, next_review, "
                "mastery, created_at, updated_at) VALUES (?, ?, 'concept', 'developing', 0, ?, "
                "0, ?, ?)",
                (f"c{i}", f"concept {i}", due, iso(now), iso(now)),
            )
        for i in range(n_attempts):
            c.execute(
                "INSERT INTO attempts (id, concept_id, kind, outcome, confidence, payload, "
                "created_at) VALUES (?, ?, 'probe', ?, 'sure', '{}', ?)",
                (
                    f"seed-{i}",
                    f"c{i % n_concepts}",
                    rng.choice(["correct", "wrong"]),
                    iso(now - timedelta(minutes=i)),
                ),
            )
    for i in range(n_concepts // 10):
        ledger.record_mistake(
            store,
            Mistake(id=f"m{i}", attempt_id=f"seed-{i}", concept_id=f"c{i}"),
            when=now - timedelta(hours=i),
        )


def open_store(path: Path, args, now: datetime) -> Store:
    store = Store(path)
    seed(store, args.attempts, args.concepts, now)
    return store


def open_bare(path: Path, args, now: datetime) -> sqlite3.Connection:
    """The same tables, rows and durability settings in a bare sqlite3 connection."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(
        "CREATE TABLE attempts (id TEXT PRIMARY KEY, concept_id TEXT, kind TEXT, "
        "outcome TEXT, confidence TEXT, answer TEXT, payload TEXT, created_at TEXT)"
    )
    conn.execute("CREATE TABLE concepts (id TEXT PRIMARY KEY, next_review TEXT)")
    conn.execute("CREATE INDEX cn ON concepts(next_review)")
    conn.execute(
        "CREATE TABLE mistakes (id TEXT PRIMARY KEY, concept_id TEXT, status TEXT, "
        "retest_early INT, next_review TEXT)"
    )
    conn.execute("CREATE INDEX ms ON mistakes(status, next_review)")
    rng = random.Random(7)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO concepts VALUES (?, ?)",
        [(f"c{i}", iso(now + timedelta(days=rng.randint(-30, 60)))) for i in range(args.concepts)],
    )
    conn.executemany(
        "INSERT INTO attempts VALUES (?, ?, 'probe', 'correct', 'sure', '', '{}', ?)",
        [(f"seed-{i}", f"c{i % args.concepts}", iso(now)) for i in range(args.attempts)],
    )
    conn.executemany(
        "INSERT INTO mistakes VALUES (?, ?, 'open', 0, ?)",
        [(f"m{i}", f"c{i}", iso(now - timedelta(hours=i))) for i in range(args.concepts // 10)],
    )
    conn.execute("COMMIT")
    return conn


def bare_write(conn: sqlite3.Connection, i: int, concepts: int) -> None:
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT OR IGNORE INTO attempts VALUES (?, ?, 'probe', 'correct', 'sure', '2', '{}', ?)",
        (f"bench-{i}", f"c{i % concepts}", iso()),
    )
    conn.execute("COMMIT")


def bare_queue(conn: sqlite3.Connection, at: str) -> None:
    rows = conn.execute(
        "SELECT id, concept_id, next_review, retest_early FROM mistakes "
        "WHERE status='open' AND next_review <= ? "
        "ORDER BY retest_early DESC, next_review, id LIMIT 50",
        (at,),
    ).fetchall()
    if len(rows) < 50:
        conn.execute(
            "SELECT id, next_review FROM concepts WHERE next_review <= ? "
            "ORDER BY next_review, id LIMIT ?",
            (at, 50 - len(rows)),
        ).fetchall()


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def seed_mistakes(store: Store, n: int, now: datetime) -> None:
    """`n` open mistakes, each with the item it asks again (as a lesson records it), a tenth
    of them early retests, due over the last weeks."""
    from tutor.engine.items import Presented

    rng = random.Random(11)
    rows = []
    for i in range(n):
        item = Presented(
            id=f"q{i}",
            lesson_id="P1 L01",
            type="mcq",
            question=f"Which of these is true of vector pair {i}? " * 3,
            options=[f"option {k} for pair {i}, worded at some length" for k in range(4)],
            correct_index=i % 4,
            reference="the dot product multiplies matching components and adds them " * 4,
            bloom="understand",
            stage="pre",
        )
        rows.append(
            (
                f"m{i}",
                f"a{i}",
                f"c{i % 500}",
                int(rng.random() < 0.1),
                item.model_dump_json(),
                iso(now - timedelta(minutes=rng.randint(1, 40_000))),
            )
        )
    with store.transaction() as c:
        c.executemany(
            "INSERT INTO mistakes (id, attempt_id, concept_id, status, retest_early, item, "
            "next_review, created_at) VALUES (?, ?, ?, 'open', ?, ?, ?, ?)",
            [(m, a, cid, early, item, due, due) for m, a, cid, early, item, due in rows],
        )


def review_start(store: Store, now: datetime) -> None:
    from tutor.engine.review import ReviewSession

    ReviewSession(store, now=now).close()


def at_scale(args, now: datetime) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        big, small = Store(Path(tmp) / "big.db"), Store(Path(tmp) / "small.db")
        seed_mistakes(big, args.mistakes, now)
        seed_mistakes(small, 100, now)
        review_start(small, now)  # imports and first-use costs out of the measurement
        qb, qs, rb, rs = [], [], [], []
        for _ in range(50):  # interleaved, so drift on the machine hits both alike
            qb.append(timed(ledger.due_queue, big, now))
            qs.append(timed(ledger.due_queue, small, now))
            rb.append(timed(review_start, big, now))
            rs.append(timed(review_start, small, now))
        big.close()
        small.close()
    ms = 1000
    mqb, mqs = statistics.median(qb), statistics.median(qs)
    mrb, mrs = statistics.median(rb), statistics.median(rs)
    print(f"at {args.mistakes:,} open mistakes (small store: 100)")
    print(
        f"due queue median:  {mqb * ms:.3f} ms · small store {mqs * ms:.3f} ms"
        f" · ratio {mqb / mqs:.2f}x   (target < 20 ms)"
    )
    print(
        f"review start median: {mrb * ms:.3f} ms · small store {mrs * ms:.3f} ms"
        f" · ratio {mrb / mrs:.2f}x   (target < 1.2x)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--attempts", type=int, default=100_000)
    ap.add_argument("--concepts", type=int, default=5_000)
    ap.add_argument("--samples", type=int, default=1_000)
    ap.add_argument("--mistakes", type=int, default=20_000)
    args = ap.parse_args()
    now = datetime.now(UTC)
    sw, bw, sq, bq = [], [], [], []
    at = iso(now)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "store.db", args, now)
        conn = open_bare(Path(tmp) / "bare.db", args, now)
        for i in range(args.samples):  # interleaved, so drift on the machine hits both alike
            a = Attempt(
                id=f"bench-{i}",
                kind="probe",
                concept_id=f"c{i % args.concepts}",
                outcome="correct",
                confidence="sure",
                answer="2",
            )
            sw.append(timed(ledger.record_attempt, store, a))
            bw.append(timed(bare_write, conn, i, args.concepts))
        for _ in range(200):
            sq.append(timed(ledger.due_queue, store, now))
            bq.append(timed(bare_queue, conn, at))
        store.close()
        conn.close()
    ms = 1000
    print(f"store at {args.attempts:,} attempts over {args.concepts:,} concepts")
    print(
        f"attempt write p99: store {p99(sw) * ms:.3f} ms · bare sqlite3 {p99(bw) * ms:.3f} ms"
        f" · ratio {p99(sw) / p99(bw):.2f}x   (target < 5 ms, ratio <= 3x)"
    )
    mq, mb = statistics.median(sq), statistics.median(bq)
    print(
        f"due queue median:  store {mq * ms:.3f} ms · bare sqlite3 {mb * ms:.3f} ms"
        f" · ratio {mq / mb:.2f}x   (target < 20 ms, ratio <= 3x)"
    )
    at_scale(args, now)


if __name__ == "__main__":
    main()
