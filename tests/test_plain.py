"""The plain front end as a learner uses it: a real `tutor` process on pipes."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest
from plain_driver import Learner, reply

from learning_system import ledger
from learning_system.store import Store


def drive_until(learner: Learner, pattern: str, wrong: bool = True, limit: int = 200) -> str:
    for _ in range(limit):
        screen = learner.read_prompt()
        if re.search(pattern, screen):
            return screen
        assert learner.proc.poll() is None, learner.transcript[-2000:]
        learner.send(reply(screen, wrong))
    raise AssertionError(f"never saw {pattern!r}: {learner.transcript[-2000:]}")


def test_pause_resume_and_review_through_the_plain_front_end(tmp_path):
    first = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = drive_until(first, r"Step 2/\d+")
    step = re.search(r"Step 2/\d+ · [^\n(]+", screen).group(0).strip()
    tail = first.finish()  # end of input = pause
    assert "Paused at step 2/" in tail
    for line in first.transcript.splitlines():
        assert "\x1b[" not in line  # no colour codes on a pipe

    second = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = second.read_prompt()
    assert "resuming at step 2/" in screen
    assert step in screen
    second.finish()

    with Store(tmp_path / "tutor.db") as store:
        latest = ledger.mistakes(store)[-1]
        question = latest["item"]["question"]

    review = Learner(tmp_path, "review", "--plain")
    screen = review.read_prompt()
    assert "Review · mistake" in screen
    first_due = ledger.due_queue(Store(tmp_path / "tutor.db"))[0]
    assert first_due.kind == "mistake"
    assert question in screen or first_due.id.startswith("m:")
    review.send("x")  # "I don't know": said in words, with no raw tag after it
    graded = review.read_prompt()
    assert "You answered: I don't know\n" in graded and "no_idea" not in graded, graded
    review.finish()


def test_sigkill_mid_teach_resumes_at_the_same_step_with_no_answer_lost(tmp_path):
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = drive_until(learner, r"Step 2/\d+", wrong=False)
    step = re.search(r"Step 2/\d+ · [^\n(]+", screen).group(0).strip()
    with Store(tmp_path / "tutor.db") as store:
        before = sorted(r["id"] for r in store.rows("SELECT id FROM attempts"))
    learner.kill()
    assert before

    again = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = again.read_prompt()
    assert step in screen
    again.finish()
    with Store(tmp_path / "tutor.db") as store:
        after = sorted(r["id"] for r in store.rows("SELECT id FROM attempts"))
    assert after == before


@pytest.mark.parametrize("ending", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_ctrl_c_kill_or_a_hangup_pauses_the_dialogue_with_its_resume_command(tmp_path, ending):
    """A signal at the prompt pauses the lesson as `p` does (its status `paused`, the resume
    command said on a line of its own), exit 128 + the signal's number; the answer given
    before it is kept and the next run resumes at the question after it."""
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    drive_until(learner, r"question 2\b", wrong=False)
    learner.proc.send_signal(ending)
    assert learner.proc.wait(timeout=30) == 128 + ending
    out = learner.proc.stdout.read().decode()
    err = learner.proc.stderr.read().decode()
    learner.close()
    assert "Traceback" not in err + out, err
    assert re.search(r"\nPaused at probe · [^\n]*question 2\. [^\n]*`tutor continue`", out), out
    with Store(tmp_path / "tutor.db") as store:
        assert store.sessions.latest()["status"] == "paused"
        answered = len(store.rows("SELECT id FROM attempts"))
    assert answered >= 1
    again = Learner(tmp_path, "continue", "--plain", "--offline")
    assert "resuming at probe" in again.read_prompt() and "question 2" in again.transcript
    again.finish()


def test_i_know_at_the_prior_is_acknowledged(tmp_path):
    """An outside tester typed `i know Dev Environment` at the prior: it was recorded, but the
    screen came back with no word that it was."""
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    assert "Prior" in learner.read_prompt()
    learner.send("i know vectors")
    assert "Noted. The probe still checks it." in learner.read_prompt()
    learner.finish()


def test_an_unreachable_model_says_so_and_the_lesson_runs_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens on port 9
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = learner.read_prompt()
    learner.finish()
    assert "Prior" in screen
    assert "model unreachable — running offline" in learner.stderr


def test_a_refused_key_is_told_as_refused_not_unreachable(tmp_path, monkeypatch):
    """Found with an outside server: a wrong key was told "model unreachable", then "no model
    is configured" — a model was configured and answered, refusing the key."""
    from tutor.testing.model_server import ModelServer

    with ModelServer(require_key="right") as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "wrong")
        learner = Learner(tmp_path, "continue", "--plain", "--offline")
        learner.read_prompt()
        learner.finish()
    assert "model refused — running offline (the endpoint refused the key" in learner.stderr
    assert "unreachable" not in learner.stderr and "no model is configured" not in learner.stderr


def test_a_lesson_through_the_plain_front_end_against_a_loopback_model(tmp_path, monkeypatch):
    from test_engine_model import rewriting_reply

    from tutor.testing.model_server import ModelServer

    with ModelServer(default=rewriting_reply) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "loopback-model")
        learner = Learner(tmp_path, "continue", "--plain", "--offline")
        drive_until(learner, r"Step 1/\d+", wrong=False)
        learner.finish()
        assert srv.chat_requests, "the tutor used the configured model"
    assert "Model draft." in learner.transcript  # the step the model drafted, after its gate


def test_ctrl_c_while_the_model_hangs_pauses_without_waiting_for_its_timeout(tmp_path, monkeypatch):
    """Found by an outside tester with his own server: ctrl+c while a model call hung waited
    the whole request timeout, and a pause swallowed by the engine's preparation went on to
    the next question. Now the requests in flight are cancelled and the lesson is paused at
    once, long before the 120 s timeout (and with no watchdog to end the wait)."""
    import time

    from tutor.testing.model_server import ModelServer, Reply

    with ModelServer(default=Reply.hang(120)) as srv:
        for name, value in (
            ("TUTOR_BASE_URL", srv.base_url),
            ("TUTOR_MODEL", "loopback-model"),
            ("TUTOR_TIMEOUT", "120"),
            ("TUTOR_WAIT_MAX", "0"),
        ):
            monkeypatch.setenv(name, value)
        learner = Learner(tmp_path, "continue", "--plain", "--offline")
        assert "Prior" in learner.read_prompt(timeout=60)
        learner.send("")  # on to the probe, whose questions wait on the hung model
        deadline = time.monotonic() + 30
        while not srv.chat_requests and time.monotonic() < deadline:
            time.sleep(0.1)
        assert srv.chat_requests, "the tutor never asked the model"
        time.sleep(0.5)
        learner.proc.send_signal(signal.SIGINT)
        assert learner.proc.wait(timeout=30) == 130
        out = learner.proc.stdout.read().decode()
        learner.close()
    assert "Paused at prior" in out and "question 1" not in out, out[-600:]
    with Store(tmp_path / "tutor.db") as store:
        assert store.sessions.latest()["status"] == "paused"


def test_the_dialogue_says_what_the_model_is_doing_while_the_learner_waits(tmp_path, monkeypatch):
    """Found by an outside tester: --plain showed nothing for 10 s while the model was asked
    (the app says "⋯ auditing 2 questions"). The line dialogue now says it on stderr, once,
    while the learner waits — and not at the prompts."""
    from tutor.testing.model_server import ModelServer, Reply

    with ModelServer(default=Reply.hang(60)) as srv:
        for name, value in (
            ("TUTOR_BASE_URL", srv.base_url),
            ("TUTOR_MODEL", "loopback-model"),
            ("TUTOR_WAIT_MAX", "3"),
        ):
            monkeypatch.setenv(name, value)
        learner = Learner(tmp_path, "continue", "--plain", "--offline")
        learner.read_prompt(timeout=60)
        learner.send("")
        assert "question 1" in learner.read_prompt(timeout=60)
        learner.finish()
    said = [line for line in learner.stderr.splitlines() if "⋯" in line]
    assert said and all(line.startswith("  ⋯ ") for line in said), learner.stderr
    assert len(said) == len(set(said))
    assert "⋯" not in learner.transcript


def teaching_screen(**fields) -> str:
    """What `--plain` prints for one teaching screen with these fields."""
    import io

    from tutor.engine.turns import Prompt
    from tutor.plain import PlainIO

    out = io.StringIO()
    base = {"kind": "read", "message_id": "m", "stage": "teach", "title": "Step 1"}
    PlainIO(io.StringIO(), out).show(Prompt(**{**base, "position": "", **fields}))
    return out.getvalue()


def test_escape_sequences_in_shown_text_are_inert():
    text = teaching_screen(
        title="Step \x1b]0;pwned\x07 1",
        content="red \x1b[31malert\x1b[0m and a \x1b]8;;http://x\x1b\\link",
    )
    assert "\x1b" not in text and "\x07" not in text
    assert "red alert" in text and "link" in text


def test_the_unverified_note_sources_and_flags_wrap_at_words_within_the_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "61")
    sources = [f"Chapter {n} of a long reference book on vectors" for n in range(3)]
    shown = teaching_screen(
        content="A short step.",
        sources=sources,
        unverified=["step"],
        flags=["the sources disagree on the sign convention used in this step"],
    )
    notes = shown.split("A short step.")[1].strip("\n").split("\n")
    assert len(notes) > 3 and all(len(line) <= 60 for line in notes), notes
    words = " ".join(notes).split()
    for whole in ("UNVERIFIED:", "verifier", "convention", "reference"):
        assert whole in words  # no word cut at the edge


def test_every_line_wraps_at_words_the_title_and_options_too(monkeypatch):
    """A probe's long header and a long option wrap at words within the terminal's width."""
    import io

    from tutor.engine.items import Presented
    from tutor.engine.turns import Prompt
    from tutor.plain import PlainIO

    monkeypatch.setenv("COLUMNS", "61")
    out = io.StringIO()
    item = Presented(
        id="q1",
        lesson_id="L1",
        type="mcq",
        question="Which of these holds?",
        options=["a statement about the reservoir that is long enough to wrap", "short"],
        correct_index=1,
        reference="short",
        bloom="remember",
        stage="pre",
    )
    title = "Probe · strand 1 of 4 · catch-up across Reservoirs, Sluices and Mills · question 1"
    PlainIO(io.StringIO(), out).show(
        Prompt(
            kind="choice",
            message_id="m",
            stage="probe",
            title=title,
            position="",
            content="",
            item=item,
        )
    )
    lines = out.getvalue().strip("\n").split("\n")
    assert all(len(line) <= 60 for line in lines), lines
    words = " ".join(lines).split()
    for whole in ("catch-up", "Sluices", "question", "reservoir", "enough"):
        assert whole in words  # no word cut at the edge


def test_free_recall_text_is_saved_before_its_confidence_and_offered_back(tmp_path):
    """kill -9 at the confidence prompt loses no typed text: it is in the store at once, and
    the resumed lesson offers it back to be tagged."""
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = drive_until(learner, r"your answer \(x: I don't know", wrong=False)
    words = "a dot product multiplies matching parts and adds them up"
    learner.send(words)
    assert (
        learner.read_prompt()
        .rstrip()
        .endswith("confidence (s sure, h hunch, n no idea · p pause):")
    )
    learner.send("z")  # a bad tag says why
    assert "`z` is not a confidence tag" in learner.read_prompt()
    learner.kill()
    with Store(tmp_path / "tutor.db") as store:
        [session] = store.rows("SELECT id FROM sessions")
        held = [e for e in store.sessions.events(session["id"]) if e["kind"] == "held"]
        assert held and held[-1]["payload"]["action"]["text"] == words

    again = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = again.read_prompt()
    assert f"Your answer, saved before the pause: {words}" in screen
    again.send("h")
    again.read_prompt()
    again.finish()
    with Store(tmp_path / "tutor.db") as store:
        [row] = [a for a in ledger.attempts(store) if a["answer"] == words]
        assert row["confidence"] == "hunch"


def test_teaching_text_is_rendered_for_a_terminal():
    import io

    from tutor.engine.turns import Prompt
    from tutor.plain import PlainIO

    words = " ".join(["multiply-and-add"] * 30)
    content = (
        f"[source: primary §The Concept]\n\n### The dot product\n\n{words}\n\n"
        "```python\ndef dot(a, b):\n    return sum(x * y for x, y in zip(a, b))\n```\n"
        "\n- **bold** item\n"
    )
    out = io.StringIO()
    PlainIO(io.StringIO(), out).show(
        Prompt(
            kind="read",
            message_id="m",
            stage="teach",
            title="Step 1/2 · The Concept",
            position="step 1/2",
            content=content,
        )
    )
    text = out.getvalue()
    lines = text.splitlines()
    assert "### The dot product" in lines
    assert all(len(line) <= 100 for line in lines)
    prose = [line for line in lines if "multiply-and-add" in line]
    assert len(prose) > 1 and all(
        line.split() and set(line.split()) == {"multiply-and-add"} for line in prose
    )  # wrapped at words, never inside one
    assert any(line.strip() == "def dot(a, b):" for line in lines)
    assert any(line.startswith("     return sum(") for line in lines)  # indentation kept
    assert "**" not in text and "```" not in text and "bold item" in text
    assert all(line == line.rstrip() for line in lines)


def test_a_lesson_started_with_curriculum_is_resumed_by_the_printed_command(tmp_path):
    import json

    from conftest import write_tiny_curriculum

    course = write_tiny_curriculum(tmp_path / "course", [])
    home = tmp_path / "home"
    first = Learner(home, "continue", "--plain", "--offline", "--curriculum", str(course))
    assert "Counting Things" in first.read_prompt()
    tail = first.finish()
    command = re.search(r"run `([^`]+)` to pick up here", tail).group(1)
    assert command == f"tutor continue --curriculum {course}"

    status = subprocess.run(
        [sys.executable, "-m", "tutor.cli", "status", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "TUTOR_HOME": str(home)},
    )
    data = json.loads(status.stdout)
    assert data["curriculum"] == str(course) and data["position"]["lesson"] == "P1 L01"

    for args in (command.split()[1:], ["continue"]):  # the printed command, and plain continue
        again = Learner(home, *args, "--plain", "--offline")
        screen = again.read_prompt()
        assert "resuming at" in screen and "Counting Things" in screen, screen
        again.finish()


def test_references_are_read_quietly_with_one_summary_line(tmp_path):
    from conftest import write_tiny_curriculum

    from tutor.testing.page_server import Page, PageServer

    with PageServer() as pages:
        good = pages.route(
            "/good",
            Page.html(
                "<html><body><article><h1>Averages</h1>"
                + "".join(
                    f"<p>Paragraph {n}: the mean of a sample adds its values and divides by their "
                    f"count, while the median is the middle value of the sorted sample.</p>"
                    for n in range(12)
                )
                + "</article></body></html>"
            ),
        )
        gone = [pages.route(f"/gone{n}", Page.error(404)) for n in range(3)]
        course = write_tiny_curriculum(
            tmp_path / "course",
            [("Good", good), *[(f"Gone {n}", url) for n, url in enumerate(gone)]],
        )
        home = tmp_path / "home"
        first = Learner(
            home, "continue", "--plain", "--curriculum", str(course), "--lesson", "P1 L02"
        )
        first.read_prompt()
        first.finish()
    lines = [line for line in first.stderr.splitlines() if "reference" in line]
    assert lines == [
        "3 of 4 references unreachable — teaching from the lesson and 1 reference; "
        'details: `tutor scout "P1 L02"`'
    ], first.stderr
    assert "gone" not in first.stderr  # no line per link

    (home / "settings.toml").write_text("[sources]\nfetch = false\n")
    off = Learner(home, "continue", "--plain", "--curriculum", str(course), "--lesson", "P1 L01")
    off.read_prompt()
    off.finish()
    assert "http" not in off.stderr


def test_a_results_screen_teaches_through_the_plain_front_end(tmp_path):
    """Issue 21: the results name each question, the learner's answer and the right one in
    words, and a sure-and-wrong answer says so — on a pipe, without colour."""
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = drive_until(learner, r"Verdict for ")
    learner.finish()
    results = screen[screen.index("Verdict for ") :]
    assert "✗ wrong — you were sure" in results
    assert "your answer: " in results and "right answer: " in results
    assert "option " not in results  # an answer in words, not by its number
    assert "\x1b[" not in results


def test_p_at_the_confidence_prompt_pauses_with_the_typed_answer_kept(tmp_path):
    """Issue 23: `p` (and `q`, `/p`) at the confidence prompt pause, as the README says; the
    written answer was held already and is offered back on resume."""
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    drive_until(learner, r"your answer \(x: I don't know", wrong=False)
    words = "a dot product multiplies matching parts and adds them up"
    learner.send(words)
    learner.read_prompt()
    learner.send("p")
    tail = learner.finish()
    assert "Paused at " in tail
    again = Learner(tmp_path, "continue", "--plain", "--offline")
    assert f"Your answer, saved before the pause: {words}" in again.read_prompt()
    again.finish()


def test_a_choice_given_before_its_confidence_is_kept_over_a_pause(tmp_path):
    """A choice is saved the moment it is given, like written text: paused at the confidence
    prompt, it is offered back on resume (it was asked again, though the pause said
    everything was saved), and tagging it answers it."""
    learner = Learner(tmp_path, "continue", "--plain", "--offline")
    screen = drive_until(learner, r"0/x  I don't know", wrong=False)
    chosen = re.search(r"2/b  ([^\n]+)", screen).group(1).strip()
    learner.send("b")
    assert learner.read_prompt().rstrip().endswith("p pause):")
    learner.send("p")
    assert "Paused at " in learner.finish()
    again = Learner(tmp_path, "continue", "--plain", "--offline")
    assert f"Your answer, saved before the pause: 2. {chosen}" in again.read_prompt()
    again.send("h")
    again.read_prompt()
    again.finish()
    with Store(tmp_path / "tutor.db") as store:
        [row] = ledger.attempts(store)
        assert (row["answer"], row["confidence"]) == ("1", "hunch")


def test_a_diagram_block_is_labelled_as_a_diagram_in_the_line_dialogue(tmp_path):
    from packet_course import write_packet_course

    course = write_packet_course(tmp_path / "course")
    learner = Learner(
        tmp_path / "home",
        "continue",
        "--plain",
        "--offline",
        "--curriculum",
        str(course),
        "--lesson",
        "P1 L02",
    )
    drive_until(learner, r"Step \d+/\d+ · The Concept", wrong=False)
    learner.kill()
    shown = learner.transcript[learner.transcript.rindex("· The Concept") :]
    lines = [line.strip() for line in shown.splitlines()]
    at = lines.index("[diagram (mermaid), shown as its source:]")
    assert "graph LR; sample --> mean" in lines[at:]
    assert lines.index("[end of diagram]") > lines.index("graph LR; sample --> mean") > at
    assert "```" not in shown and "mermaid\n" not in shown


def test_a_table_cell_is_clipped_at_a_word_and_marked():
    from tutor.engine.words import clip

    assert clip("Multi-Layer Networks and Forward Pass", 34) == "Multi-Layer Networks and Forward…"
    assert clip("Weight Initialization and Training", 34) == "Weight Initialization and Training"
    assert clip("x" * 40, 34) == "x" * 33 + "…"


def test_the_unverified_note_names_each_unverified_sentence():
    shown = teaching_screen(
        content="Gradients flow backwards. The chain rule was found in 1950.",
        unverified=["c2"],
        unverified_claims=["The chain rule was found in 1950."],
    )
    notes = shown.split("found in 1950.", 1)[1]
    assert "UNVERIFIED: 1 part(s)" in notes
    assert "unverified: The chain rule was found in 1950." in notes
