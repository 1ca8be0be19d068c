"""Issue 14, breaks 1-3: undecodable input, two tutors on one home, a store held locked.
Real `tutor` processes on pipes over a real SQLite file."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys

from plain_driver import Learner, reply

from learning_system.store import Store

BUSY = "this lesson is open in another tutor — close it or run `tutor continue --take-over`"


def run_tutor(
    home, *args: str, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    full = {**os.environ, "TUTOR_HOME": str(home), **(env or {})}
    full.pop("OPENAI_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env=full,
    )


def actions(home) -> list[dict]:
    with Store(home / "tutor.db") as store:
        return [
            json.loads(r["payload"])
            for r in store.rows(
                "SELECT payload FROM session_events WHERE kind = 'action' ORDER BY session_id, seq"
            )
        ]


def saved_position(home) -> str:
    """Where the session stands, as the tutor saved it (a screen's header leaves the position
    out when its title already says it)."""
    with Store(home / "tutor.db") as store:
        return store.sessions.latest()["position"]


def position(screen: str) -> str:
    """The position of the last numbered screen shown: `[n] title  (position)`."""
    found = re.findall(r"^\[\d+\] .*  \(([^\n]+)\)$", screen, re.MULTILINE)
    assert found, screen
    return found[-1]


def answer(learner: Learner, n: int, tag: str) -> str:
    """Send `n` lines (free text answers are unique: `tag-<k>`); returns the last screen."""
    screen = learner.read_prompt()
    for k in range(n):
        line = reply(screen, wrong=True)
        learner.send(f"{tag}-{k}" if line.startswith("I think") else line)
        screen = learner.read_prompt()
        if not screen.endswith(("> ", "): ")):  # the tutor ended instead of asking again
            break
    return screen


def acknowledged(learner: Learner) -> int:
    """Actions this tutor process acknowledged: each one moved it to its next numbered screen."""
    shown = [int(n) for n in re.findall(r"^\[(\d+)\] ", learner.transcript, re.MULTILINE)]
    return max(shown) - 1


def test_undecodable_bytes_in_an_answer_are_stored_replaced_and_the_session_goes_on(tmp_path):
    feed = b"\n1 s\n2 s\n4 s\nbad \xff\xfe answer\ns\n"
    first = run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=feed)
    out, err = first.stdout.decode(), first.stderr.decode()
    assert first.returncode == 0, err
    assert "Traceback" not in err
    assert "not valid UTF-8" in out
    with Store(tmp_path / "tutor.db") as store:
        answers = [r["answer"] for r in store.rows("SELECT answer FROM attempts")]
    assert "bad \ufffd\ufffd answer" in answers
    again = run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n")
    assert again.returncode == 0, again.stderr.decode()
    assert "resuming at" in again.stdout.decode()


def test_an_event_log_stored_with_lone_surrogates_still_resumes(tmp_path):
    """A store written before the fix: the answer's bytes sit in the log as `\\udcff` escapes."""
    run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n1 s\n2 s\n4 s\n")
    with Store(tmp_path / "tutor.db") as store:
        sid = store.sessions.latest()["id"]
        seq = store.rows("SELECT max(seq) AS n FROM session_events")[0]["n"] + 1
        store.execute(
            "INSERT INTO session_events VALUES (?, ?, 'action', ?, '')",
            (sid, seq, '{"confidence": "sure", "kind": "text", "text": "bad \\udcff"}'),
        )
    again = run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n")
    assert again.returncode == 0, again.stderr.decode()
    assert "Traceback" not in again.stderr.decode()


def test_a_log_that_cannot_be_replayed_starts_the_lesson_afresh_keeping_answers(tmp_path):
    run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n1 s\n2 s\n")
    with Store(tmp_path / "tutor.db") as store:
        sid = store.sessions.latest()["id"]
        attempts = store.rows("SELECT count(*) AS n FROM attempts")[0]["n"]
        store.execute(
            "UPDATE session_events SET payload = '{\"kind\": 7}' WHERE session_id = ? "
            "AND seq = (SELECT max(seq) FROM session_events WHERE kind = 'action')",
            (sid,),
        )
    again = run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n")
    err = again.stderr.decode()
    assert again.returncode == 0, err
    assert "Traceback" not in err and "starting it afresh" in err
    with Store(tmp_path / "tutor.db") as store:
        assert store.sessions.get(sid)["status"] == "abandoned"
        assert store.rows("SELECT count(*) AS n FROM attempts")[0]["n"] >= attempts


def test_a_stored_digest_that_no_longer_reads_starts_the_lesson_afresh(tmp_path):
    run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n1 s\n")
    with Store(tmp_path / "tutor.db") as store:
        session = store.sessions.latest()
        digest_id = session["state"]["digest_id"]
        store.execute(
            "UPDATE digests SET payload = json_set(payload, '$.sources', 'none') WHERE id = ?",
            (digest_id,),
        )
    again = run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"\n")
    err = again.stderr.decode()
    assert again.returncode == 0, err
    assert "Traceback" not in err
    assert "digest in the store is unreadable" in err and "starting it afresh" in err
    with Store(tmp_path / "tutor.db") as store:
        assert store.sessions.get(session["id"])["status"] == "abandoned"


def test_two_tutors_on_a_fresh_home_one_teaches_the_other_is_told(tmp_path):
    for round_ in range(3):
        home = tmp_path / f"home{round_}"
        a = Learner(home, "continue", "--plain", "--offline")
        b = Learner(home, "continue", "--plain", "--offline")
        first_a, first_b = a.read_prompt(), b.read_prompt()
        live = [t for t, s in ((a, first_a), (b, first_b)) if s.endswith("> ")]
        refused = [t for t in (a, b) if t not in live]
        assert len(live) == 1 and len(refused) == 1, (first_a, first_b)
        assert refused[0].proc.wait(timeout=30) == 2
        err = refused[0].proc.stderr.read().decode()
        assert BUSY in err and "Traceback" not in err and "already exists" not in err
        learner = live[0]
        learner.send("")
        answer(learner, 8, f"fresh{round_}")
        where = saved_position(home)
        learner.finish()
        assert len(actions(home)) == acknowledged(learner)  # every acknowledged answer is logged
        again = Learner(home, "continue", "--plain", "--offline")
        assert f"resuming at {where}" in again.read_prompt()
        again.finish()


def test_a_second_tutor_on_an_open_session_is_refused_and_take_over_fences_the_first(tmp_path):
    first = Learner(tmp_path, "continue", "--plain", "--offline")
    first.read_prompt()
    first.send("")
    answer(first, 4, "first")
    first.finish()  # paused: the session is resumed by both tutors below

    a = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = answer(a, 3, "a")
    refused = run_tutor(tmp_path, "continue", "--plain", "--offline", stdin=b"1 s\n")
    assert refused.returncode == 2
    assert refused.stderr.decode().strip() == f"tutor: {BUSY}"

    where_a = saved_position(tmp_path)
    b = Learner(tmp_path, "continue", "--plain", "--offline", "--take-over")
    screen_b = b.read_prompt()
    assert f"resuming at {where_a}" in screen_b  # b sees every answer a gave
    a.send(reply(screen, wrong=True))  # a's next answer is refused, never acknowledged
    a.send("a-last")  # (the second line of a two-line answer)
    assert a.proc.wait(timeout=30) == 2, a.transcript[-500:]
    err = a.proc.stderr.read().decode()
    assert "taken over by another tutor" in err and "Traceback" not in err

    a.transcript += a.proc.stdout.read().decode(errors="replace")
    b.send(reply(screen_b, wrong=True))
    answer(b, 3, "b")
    b.finish()
    logged = len(actions(tmp_path))
    assert logged == acknowledged(first) + acknowledged(a) + acknowledged(b)
    again = Learner(tmp_path, "continue", "--plain", "--offline")
    assert f"resuming at {saved_position(tmp_path)}" in again.read_prompt()
    again.finish()


def test_a_store_held_locked_by_another_program_waits_then_gives_up_in_one_line(tmp_path):
    Store(tmp_path / "tutor.db").close()
    other = sqlite3.connect(tmp_path / "tutor.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        result = run_tutor(
            tmp_path, "init", "--curriculum", str(tmp_path), env={"TUTOR_STORE_WAIT": "0.5"}
        )
    finally:
        other.execute("ROLLBACK")
        other.close()
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[0].startswith("tutor: waiting for tutor.db: another program is writing to it")
    assert lines[-1].startswith("tutor: ") and "stayed locked by another program" in lines[-1]
    waited = re.search(r"for (\d+\.\d) s", lines[-1])
    assert waited and 0.5 <= float(waited.group(1)) < 5  # the time actually waited, not "30 s"


def test_init_says_what_tutor_continue_will_open(tmp_path):
    """After switching curricula with a lesson paused in the first, `tutor init` says that
    `tutor continue` resumes that lesson first and how to go on in the new one; it said "Start
    with `tutor continue` (its first lesson)", which opened the paused lesson instead."""
    from learning_system.curriculum import load_curriculum
    from tutor.testing.course_maker import write_course

    home = tmp_path / "home"
    first = run_tutor(home, "continue", "--plain", "--offline", stdin=b"\n")
    assert first.returncode == 0, first.stderr.decode()
    course = write_course(tmp_path / "workshop")
    said = run_tutor(home, "init", "--curriculum", str(course)).stdout.decode()
    assert "`tutor continue` first resumes P1 L01, paused in" in said
    assert '`tutor continue --lesson "P1 L01"`' in said
    moved = run_tutor(home, "continue", "--plain", "--offline", "--lesson", "P1 L01", stdin=b"")
    assert f"P1 L01 {load_curriculum(course).lessons[0].title}" in moved.stdout.decode()
    back = run_tutor(home, "init").stdout.decode()  # the built-in course again
    assert f"first resumes P1 L01, paused in {course}" in back  # the workshop's, now
    assert "(P1 L01, where you paused it)." in back
