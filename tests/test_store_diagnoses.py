"""Issue 23 part 2: what is wrong with a store is told apart — a full disk, a disk error, a
permission, a held lock, a damaged file, a foreign file, a newer store, lost answers — each in
one line with advice that loses nothing, and exit 2. Real files, real `tutor` processes; a
real small filesystem for the full disk."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys

import pytest
from plain_driver import Learner
from test_reliability_store import fingerprint, one_line_refusal, run_tutor

from learning_system.store import Store
from learning_system.store_errors import (
    StoreDamaged,
    StoreForeign,
    StoreFull,
    StoreHistoryLost,
    StoreIOError,
    StorePermission,
    diagnose,
)
from learning_system.store_files import marker_path

# two choices, then a question asked in your own words (and its confidence)
ANSWERS = b"\n1 s\n2 s\nThe weighted sum a neuron forms from its inputs and weights\ns\n"


def answers_in(home) -> int:
    with Store(home / "tutor.db") as store:
        return int(store.execute("SELECT count(*) FROM attempts").fetchone()[0])


def test_a_store_whose_page_limit_is_reached_is_a_full_disk_and_keeps_what_was_saved(tmp_path):
    path = tmp_path / "tutor.db"
    with Store(path) as store:
        store.set_setting("kept", "yes")
        pages = store.execute("PRAGMA page_count").fetchone()[0]
        store.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own SQLITE_FULL
        with pytest.raises(StoreFull) as caught:
            with store.transaction() as c:
                c.execute("CREATE TABLE big (x)")
                c.executemany("INSERT INTO big VALUES (?)", [("x" * 4000,)] * 50)
    message = str(caught.value)
    assert "is full" in message and "Free some space" in message
    assert "move it aside" not in message and "damaged" not in message
    with Store(path) as store:
        assert store.get_setting("kept") == "yes"


def test_the_kinds_of_sqlite_failure_each_get_their_own_diagnosis(tmp_path):
    path = tmp_path / "tutor.db"

    def failure(code: int, text: str) -> sqlite3.OperationalError:
        exc = sqlite3.OperationalError(text)
        exc.sqlite_errorcode = code  # as the sqlite3 module sets it on the errors it raises
        return exc

    cases = [
        (failure(10, "disk I/O error"), StoreIOError, "Check the disk"),
        (failure(8, "attempt to write a readonly database"), StorePermission, "writable"),
        (failure(14, "unable to open database file"), StorePermission, "may read and write"),
        (failure(11, "database disk image is malformed"), StoreDamaged, "backup"),
        (failure(26, "file is not a database"), StoreForeign, "not a tutor store"),
    ]
    for exc, kind, advice in cases:
        error = diagnose(path, exc)
        assert type(error) is kind and advice in str(error), (kind, str(error))
    healthy = [StoreIOError, StorePermission]
    for exc, kind, _ in cases:
        if kind in healthy:  # a sound store is never to be moved aside
            assert "move" not in str(diagnose(path, exc))


def test_an_sqlite_header_over_garbage_is_damaged_not_a_newer_store(tmp_path):
    path = tmp_path / "tutor.db"
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    before = path.read_bytes()
    result = run_tutor(tmp_path, "status")
    line = one_line_refusal(result, "damaged", "header")
    assert "newer" not in line
    assert path.read_bytes() == before


def test_an_sqlite_file_of_another_program_is_not_a_tutor_store_and_is_not_migrated(tmp_path):
    path = tmp_path / "tutor.db"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    other.execute("INSERT INTO invoices (total) VALUES (12.5)")
    other.commit()
    other.close()
    before = fingerprint(tmp_path)
    with pytest.raises(StoreForeign, match="not a tutor store"):
        Store(path)
    one_line_refusal(run_tutor(tmp_path, "status"), "not a tutor store")
    assert fingerprint(tmp_path) == before


def _bound_by_read_permissions():
    """For a child process run by root: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the
    bounding set, so the kernel refuses it a read of a file without a read bit."""
    if os.geteuid() != 0:
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    pr_capbset_drop = 24  # <linux/prctl.h>

    def drop() -> None:
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if prctl(pr_capbset_drop, capability, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return drop


def test_a_store_this_user_cannot_read_is_a_permission_problem(tmp_path):
    Store(tmp_path / "tutor.db").close()
    (tmp_path / "tutor.db").chmod(0)
    env = {**os.environ, "TUTOR_HOME": str(tmp_path)}
    try:
        result = subprocess.run(
            [sys.executable, "-m", "tutor.cli", "status"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            preexec_fn=_bound_by_read_permissions(),
        )
    finally:
        (tmp_path / "tutor.db").chmod(0o600)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    line = result.stderr.strip()
    assert "cannot be read" in line and "Permission denied" in line, line
    assert "damaged" not in line and "move it aside" not in line


def killed_after_answers(home) -> None:
    """A learner answers two questions and the tutor is killed: the answers are in the -wal
    only (the store was closed cleanly first, so its tables are in tutor.db itself)."""
    run_tutor(home, "init")
    learner = Learner(home, "continue", "--plain", "--offline")
    learner.read_prompt()
    for line in ("", "1 s", "2 s"):
        learner.send(line)
        learner.read_prompt()
    learner.proc.send_signal(signal.SIGKILL)
    learner.proc.wait(timeout=30)


def test_a_store_that_lost_its_wal_after_answers_is_refused_not_restarted(tmp_path):
    killed_after_answers(tmp_path)
    assert (tmp_path / "tutor.db-wal").stat().st_size > 0  # the answers are there, only
    for name in ("tutor.db-wal", "tutor.db-shm"):
        (tmp_path / name).unlink()
    before = fingerprint(tmp_path)
    line = one_line_refusal(
        run_tutor(tmp_path, "continue", "--plain", "--offline"), "fewer answers", "backup"
    )
    assert str(marker_path(tmp_path / "tutor.db")) in line  # how to go on from what it holds
    assert fingerprint(tmp_path) == before
    with pytest.raises(StoreHistoryLost):
        Store(tmp_path / "tutor.db")
    marker_path(tmp_path / "tutor.db").unlink()  # the learner chooses to go on
    again = run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n")
    assert again.returncode == 0, again.stderr


def test_answers_kept_in_the_store_match_the_marker_so_an_ordinary_resume_opens(tmp_path):
    run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=ANSWERS)
    run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n3 h\n")
    assert answers_in(tmp_path) >= 3
    marked = int(marker_path(tmp_path / "tutor.db").read_text())
    with Store(tmp_path / "tutor.db") as store:
        highest = store.execute("SELECT max(rowid) FROM attempts").fetchone()[0]
    assert marked == highest


def test_a_rolled_back_answer_is_not_marked(tmp_path):
    from learning_system.tables.rows import AttemptRow

    row: AttemptRow = {
        "id": "a1",
        "session_id": "s",
        "lesson_id": "l",
        "concept_id": "c",
        "item_id": "i",
        "kind": "mcq",
        "answer": "1",
        "outcome": "correct",
        "confidence": "sure",
        "feynman": None,
        "payload": "{}",
        "created_at": "2026-12-03T00:00:00+00:00",
    }
    with Store(tmp_path / "tutor.db") as store:
        with pytest.raises(RuntimeError), store.transaction():
            store.attempts.insert(row)
            raise RuntimeError("the batch fails after the answer")
        assert not marker_path(store.path).exists()
        assert store.attempts.insert(row)
        assert int(marker_path(store.path).read_text()) == 1


def _mount_small_disk(where) -> bool:
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], capture_output=True
    )
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    where = tmp_path / "disk"
    if not _mount_small_disk(where):
        pytest.skip("this machine does not let the tests mount a small tmpfs")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_full_disk_is_told_as_a_full_disk_and_nothing_saved_is_lost(small_disk):
    run_tutor(small_disk, "continue", "--plain", "--offline", stdin=ANSWERS)
    saved = answers_in(small_disk)
    assert saved >= 2
    filler = small_disk / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    result = run_tutor(small_disk, "continue", "--plain", "--offline", stdin=b"\n3 s\n4 s\n")
    out = result.stdout + result.stderr
    assert "Traceback" not in out
    assert result.returncode == 2, out
    last = result.stderr.strip().splitlines()[-1]
    assert "is full" in last and "Free some space" in last, last
    assert "damaged" not in last and "move it aside" not in last
    filler.unlink()
    assert answers_in(small_disk) >= saved
    again = run_tutor(small_disk, "continue", "--plain", "--offline", stdin=b"\n")
    assert again.returncode == 0, again.stderr


def test_the_contract_names_each_diagnosis_as_the_code_says_it(tmp_path):
    from pathlib import Path

    from learning_system.store_errors import damaged, foreign, newer

    contract = (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8")
    path = tmp_path / "tutor.db"

    def failure(code: int) -> sqlite3.OperationalError:
        exc = sqlite3.OperationalError("x")
        exc.sqlite_errorcode = code
        return exc

    said = {
        "the disk holding": diagnose(path, failure(13)),
        "could not be read or written": diagnose(path, failure(10)),
        "is read-only": diagnose(path, failure(8)),
        "cannot be opened": diagnose(path, failure(14)),
        "stayed locked by another program for": diagnose(path, failure(5), 1.0),
        "is damaged": damaged(path, "x"),
        "is not a tutor store": foreign(path, "x"),
        "was written by a newer tutor": newer(path, 9, 2),
    }
    from learning_system.store_files import check_history, mark_answers

    mark_answers(path, 5)
    with pytest.raises(StoreHistoryLost) as lost:
        check_history(sqlite3.connect(":memory:"), path)
    said["holds fewer answers than it had"] = lost.value
    for phrase, error in said.items():
        assert f'"{phrase}' in contract, phrase
        assert phrase in str(error), (phrase, str(error))


def test_a_store_whose_wal_was_cut_is_refused_with_its_files_left_as_they_were(tmp_path):
    """A -wal cut short (its latest answers gone) is refused before a writing connection
    opens: tutor.db, its -wal and -shm stay as they were, so restoring them together is still
    possible, as the refusal says; tutor.db was rewritten and the -wal deleted."""
    killed_after_answers(tmp_path)
    wal = tmp_path / "tutor.db-wal"
    size = wal.stat().st_size
    assert size > 8192
    with wal.open("r+b") as f:
        f.truncate(size // 3)
    before = fingerprint(tmp_path)
    line = one_line_refusal(
        run_tutor(tmp_path, "continue", "--plain", "--offline"), "fewer answers", "backup"
    )
    assert "left untouched" in line
    # all but -shm: SQLite's index of the -wal, which a reader rebuilds from the -wal
    after = fingerprint(tmp_path)
    assert {k: v for k, v in after.items() if k != "tutor.db-shm"} == {
        k: v for k, v in before.items() if k != "tutor.db-shm"
    }
    assert wal.exists() and wal.stat().st_size == size // 3
