"""The app on a real pseudo-terminal, with Textual's own terminal driver (Pilot runs a headless
one that never decodes bytes nor gets signals): what a learner's terminal sends, and what is left
on it when the app has gone."""

from __future__ import annotations

import signal
import sys

import pytest
from app_driver import open_elsewhere, seed_lesson
from terminal_driver import Terminal

from tutor.app.driver import input_decoder
from tutor.app.session_screen import IN_YOUR_WORDS

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="drives the app on a Linux pseudo-terminal"
)

CTRL_Q = b"\x11"
ENTER = b"\r"
NOT_UTF8 = b"\xc3\x28\xff\xfeA"  # a lead byte with no continuation, two bytes UTF-8 never uses


@pytest.fixture
def home(tmp_path, isolated_model_env):
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def test_the_input_decoder_replaces_what_is_not_utf8_and_joins_a_split_character():
    decode = input_decoder()
    assert decode(NOT_UTF8) == "\ufffd(\ufffd\ufffdA"
    assert decode(b"caf\xc3") + decode(b"\xa9") == "café"  # split across two reads


def test_bytes_that_are_not_utf8_typed_into_an_answer_box_are_kept_not_a_crash(home):
    seeded = seed_lesson(home, lambda p: p.kind == "text")
    term = Terminal(home, "continue", "--offline")
    term.wait_for("paused at")
    term.send(ENTER)
    term.wait_for(IN_YOUR_WORDS.split(" (")[0])
    term.send(b"my " + NOT_UTF8)
    term.wait_for("my \ufffd(\ufffd\ufffdA")  # in the box, on the screen
    term.send(CTRL_Q)  # pause & quit: the text in the box is held for the next run
    assert term.finish() == 0
    assert "Traceback" not in term.text and "UnicodeDecodeError" not in term.text, term.text
    assert "Paused at" in term.text
    store, session = open_elsewhere(home)
    try:
        assert session.prompt.message_id == seeded.message_id
        assert session.held is not None
        assert session.held.text == "my \ufffd(\ufffd\ufffdA"
    finally:
        session.close()
        store.close()


def _damage(home, how: str) -> None:
    from learning_system.store import Store

    db = home / "tutor.db"
    if how == "random bytes":
        db.write_bytes(bytes(range(256)) * 400)
        return
    Store(db).close()  # a real store, then cut short (or padded) mid-page
    with db.open("r+b") as f:
        f.truncate(100_000 if db.stat().st_size > 100_000 else 6_000)


@pytest.mark.parametrize(
    ("args", "how"),
    [
        (["continue"], "random bytes"),
        (["continue"], "truncated"),
        (["review"], "random bytes"),
        ([], "truncated"),
    ],
)
def test_a_store_that_cannot_be_opened_is_one_line_and_exit_2_not_a_traceback(home, args, how):
    _damage(home, how)
    term = Terminal(home, *args)
    assert term.finish() == 2
    said = term.text.strip()
    assert "Traceback" not in said and "TutorError" not in said, said
    assert said.startswith("tutor: ") and str(home / "tutor.db") in said, said
    assert "left untouched" in said and len(said.splitlines()) == 1


# what Textual writes as it gives the terminal back: mouse reporting off, the main screen, the
# cursor shown
RESTORED = (b"\x1b[?1000l", b"\x1b[?1049l", b"\x1b[?25h")


@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGHUP], ids=["term", "hangup"])
def test_sigterm_or_a_hangup_pauses_the_lesson_and_gives_the_terminal_back(home, ending):
    """`kill` and a closed terminal window (SIGHUP) pause the lesson as ctrl+q does."""
    from learning_system.store import Store

    seeded = seed_lesson(home, lambda p: p.kind == "choice")
    term = Terminal(home, "continue", "--offline")
    term.wait_for("paused at")
    term.send(ENTER)
    term.wait_for("I don't know")
    with Store(home / "tutor.db") as store:
        assert store.sessions.latest()["status"] == "active"  # open in the app
    shown = len(term.raw)
    term.signal(ending)
    assert term.finish() == 128 + ending
    after = bytes(term.raw[shown:])
    assert all(sequence in after for sequence in RESTORED), after[-400:]
    assert "Traceback" not in term.text
    assert f"Paused at {seeded.position}" in term.text
    with Store(home / "tutor.db") as store:
        assert store.sessions.latest()["status"] == "paused"
