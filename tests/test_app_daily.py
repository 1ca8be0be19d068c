"""Daily use of the app (issue 25 part 7), by keys through Textual's Pilot on a real store: typed
text survives a quit and comes back, the slip's kind by one key, the line printed on quitting,
"I already know X", diagram blocks, the palette's Status and Screenshot, and pasted escapes."""

from __future__ import annotations

import pytest
from app_driver import keys_of, seed_lesson, settle
from test_app import _screen_text
from textual import events
from textual.widgets import Static

from learning_system import ledger
from learning_system.store import Store
from tutor.app.app import TutorApp
from tutor.app.help import HelpScreen, TextScreen
from tutor.app.session_screen import SessionScreen
from tutor.app.teaching import Teaching
from tutor.app.text import fenced_with_language
from tutor.engine.turns import ERROR_TYPES, Prompt

SIZE = (100, 32)


@pytest.fixture
def home(tmp_path, monkeypatch, isolated_model_env):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def _app(home) -> TutorApp:
    return TutorApp(offline=True, store=Store(home / "tutor.db"))


def written(p: Prompt) -> bool:
    return p.kind == "text"


def slip(p: Prompt) -> bool:
    return p.kind == "error_type"


def probe_choice(p: Prompt) -> bool:
    return p.stage == "probe" and p.kind == "choice"


async def _lesson(pilot) -> SessionScreen:
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    await settle(pilot, screen)
    return screen


def _exit_text(capsys) -> str:
    """What the app printed as it closed (Textual writes it to stderr), on one line."""
    return " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize("quit_key", ["ctrl+q", "q", "ctrl+c"])
async def test_typed_text_survives_quit_and_is_offered_back(home, quit_key, capsys):
    """ctrl+c with nothing selected to copy quits as ctrl+q does."""
    seed_lesson(home, written)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        assert screen.prompt.kind == "text"
        await pilot.press(*keys_of("half an answer"))
        if quit_key == "q":  # in the box q is a letter: q quits while the tag is asked for
            assert screen.prompt.needs_confidence
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert screen.pending is not None
        await pilot.press(quit_key)
        await pilot.pause()
    assert app.return_code == 0
    said = _exit_text(capsys)
    assert "Paused at" in said and "run `tutor continue` to pick up here" in said

    again = _app(home)
    async with again.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        await pilot.pause()
        assert screen.query_one("#answer").text == "half an answer"


@pytest.mark.parametrize("key", ["1", "4", "b", "d"])
async def test_the_slip_screen_takes_its_kind_by_one_key(home, key):
    """A digit or, as its footer's "1-4/a-d" says, a letter (an examiner pressed d: nothing)."""
    seed_lesson(home, slip)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        assert screen.prompt.kind == "error_type"
        assert app.focused is not screen.query_one("#attribution")
        await pilot.press(key)
        await settle(pilot, screen)
        assert screen.prompt.kind != "error_type"
    with Store(home / "tutor.db") as store:
        kinds = {m["error_type"] for m in ledger.mistakes(store)}
    assert ERROR_TYPES["1234abcd".index(key) % 4] in kinds


async def test_quitting_on_a_probe_prints_where_and_the_command_to_come_back(home, capsys):
    where = seed_lesson(home, probe_choice)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        await _lesson(pilot)
        await pilot.press("q")
        await pilot.pause()
    said = _exit_text(capsys)
    assert f"Paused at {where.position}." in said
    assert "`tutor continue`" in said


async def test_i_already_know_is_noted_in_the_app(home):
    seed_lesson(home, probe_choice)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        shown = screen.prompt.message_id
        await pilot.press("i")
        await pilot.pause()
        assert app.focused is screen.query_one("#claim")
        await pilot.press(*keys_of("dot products"), "enter")
        await settle(pilot, screen)
        assert screen.prompt.message_id == shown  # the probe still asks its question
        session_id = screen.session.id
    with Store(home / "tutor.db") as store:
        notes = [n for n in store.sessions.notes(session_id) if n["kind"] == "claimed_known"]
    assert [n["body"]["text"] for n in notes] == ["dot products"]


def test_a_mermaid_block_is_a_labelled_diagram_in_a_plain_box():
    source = "Intro\n\n```mermaid\ngraph TD\n  A-->B\n```\n\n- ```mermaid\n  graph LR\n  ```\n"
    out = fenced_with_language(source)
    assert "*diagram (mermaid), shown as its source:*\n```text\ngraph TD\n  A-->B\n```" in out
    assert "- ```text\ndiagram (mermaid), shown as its source:\n  graph LR" in out
    assert "```mermaid" not in out


async def test_a_mermaid_block_renders_as_a_labelled_box(home):
    from textual.app import App

    class One(App[None]):
        def compose(self):
            yield Teaching("```mermaid\ngraph TD\n  A-->B\n```\n")

    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        shown = _screen_text(app)
    assert "diagram (mermaid), shown as its source:" in shown and "A-->B" in shown


async def _palette(pilot, command: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*keys_of(command))
    await pilot.pause(0.3)
    await pilot.press("enter")
    await pilot.pause(0.3)


async def test_the_palette_status_shows_over_a_lesson_and_keeps_it(home):
    seed_lesson(home, probe_choice)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        await _palette(pilot, "Status")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TextScreen) and app.screen.heading == "Status"
        assert "Calibration, last 30 days" in app.screen.text
        assert "paused at probe" in app.screen.text or "P1 L01" in app.screen.text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_the_palette_screenshot_saves_an_svg_under_the_tutor_home(home):
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        await _palette(pilot, "Screenshot")
        await pilot.pause(0.3)
    shots = list((home / "screenshots").glob("*.svg"))
    assert len(shots) == 1 and "<svg" in shots[0].read_text(encoding="utf-8")


async def test_pasted_escape_sequences_do_not_reorder_the_answer(home):
    seed_lesson(home, written)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        box = screen.query_one("#answer")
        await pilot.press(*keys_of("one "))
        box.post_message(events.Paste("two\x1b[D\x1b[D three\x1b[3~\x1b[H four"))
        await pilot.pause()
        await pilot.press(*keys_of(" five"))
        assert box.text == "one two three four five"
        screen.query_one("#body").focus()  # pasted while no box has focus: into the box
        await pilot.pause()
        screen.post_message(events.Paste(" six\x1b[2J"))
        await pilot.pause()
        assert box.text == "one two three four five six"


def key_point(p: Prompt) -> bool:
    return p.kind == "yes_no"


async def test_a_yes_no_screen_shows_n_as_no_and_n_answers_no(home, monkeypatch):
    """On "did your answer make this point?" the footer says `n no` (not the confidence tag's
    "no idea"), and `n` records the point as not made."""
    import app_driver

    # near enough to a key point that the program leaves the call to the learner
    near = "it multiplies matching entries and adds them, one number large when they point alike"
    monkeypatch.setattr(app_driver, "TEXT_ANSWER", near)
    seed_lesson(home, key_point, wrong=False)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        assert screen.prompt.kind == "yes_no"
        shown = {b.binding.key: b.binding.description for b in screen.active_bindings.values()}
        enabled = {b.binding.description for b in screen.active_bindings.values() if b.enabled}
        footer = _screen_text(app).splitlines()[-1]
        assert "no idea" not in footer and "n no" in footer, footer
        assert shown["n"] == "no" and "no idea" not in enabled
        asked = screen.prompt.content
        await pilot.press("n")
        await settle(pilot, screen)
        assert screen.prompt.content != asked
    with Store(home / "tutor.db") as store:
        latest = store.sessions.latest()
        assert latest is not None
        payloads = [e["payload"] for e in store.sessions.events(latest["id"])]
    said = [a for a in payloads if isinstance(a, dict) and a.get("kind") == "yes_no"]
    assert said and said[-1]["value"] == "n", payloads[-3:]


def _seed_due_mistake(home) -> None:
    """A lesson paused just after its first slip was named, that mistake due now."""
    seen: list[str] = []

    def after_slip(p: Prompt) -> bool:
        if seen and seen[-1] == "error_type":
            return True
        seen.append(p.kind)
        return False

    seed_lesson(home, after_slip)
    with Store(home / "tutor.db") as store, store.transaction() as c:
        c.execute("UPDATE mistakes SET next_review = '2000-01-01T00:00:00+00:00'")
        assert ledger.due_counts(store)["mistakes"] == 1


def _home_text(app) -> str:
    import io

    from rich.console import Console
    from textual.widgets import Static

    console = Console(width=SIZE[0], record=True, file=io.StringIO())
    console.print(app.screen.query_one("#home-summary", Static).content)
    return " ".join(console.export_text().split())


@pytest.mark.parametrize("how", ["tutor review", "r at once"])
async def test_home_counts_afresh_when_a_review_returns_to_it(home, how):
    """Home opened under `tutor review`, or left by `r` before its first refresh, shows the
    records as they are after the review, not as they were when the app started."""
    _seed_due_mistake(home)
    app = TutorApp(
        mode="review" if how == "tutor review" else "continue",
        offline=True,
        store=Store(home / "tutor.db"),
    )
    async with app.run_test(size=SIZE) as pilot:
        if how == "r at once":
            assert "Due now 1 mistake · 0 concepts" in _home_text(app)
            await pilot.press("r")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await settle(pilot, screen)
        key = str(screen.prompt.item.correct_index + 1)
        await pilot.press(key, "s")  # right, and sure
        await settle(pilot, screen)
        await pilot.press("enter")  # past the answer
        await settle(pilot, screen)
        assert screen.prompt.kind == "done"
        await pilot.press("enter")  # home
        for _ in range(100):
            await pilot.pause(0.02)
            if "Due now 0 mistakes" in _home_text(app):
                break
        shown = _home_text(app)
        assert "Due now 0 mistakes" in shown, shown
        assert "sure 1/3 right" in shown, shown  # calibration counts the review's answer


def _footer(app) -> list[str]:
    return [key.strip() for key in _screen_text(app).splitlines()[-1].split("  ") if key.strip()]


async def test_in_a_text_box_the_footer_shows_ctrl_q_and_f1_which_work_there(home):
    seed_lesson(home, written)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        await pilot.pause()
        box = screen.query_one("#answer")
        assert box.has_focus
        footer = _footer(app)
        assert "^q pause & quit" in footer and "f1 help" in footer, footer
        assert "q pause & quit" not in footer and "? help" not in footer, footer
        await pilot.press(*keys_of("why? q"))  # characters in the box
        assert box.text == "why? q" and app.is_running
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert any(key == "f1" for key, _ in app.screen.keys)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and box.text == "why? q"
        await pilot.press("ctrl+s")  # sent; its confidence is asked, outside the box
        await pilot.pause()
        assert screen.pending is not None
        footer = _footer(app)
        assert "q pause & quit" in footer and "? help" in footer, footer
        assert "^q pause & quit" not in footer and "f1 help" not in footer, footer


async def test_ctrl_c_in_a_text_box_copies_what_is_selected_and_goes_on(home):
    seed_lesson(home, written)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        await pilot.press(*keys_of("half an answer"))
        screen.query_one("#answer").select_all()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and app.clipboard == "half an answer"


async def test_a_choice_given_before_its_confidence_survives_quit(home):
    """A choice made and not yet tagged is held (as typed text is) and chosen again on resume,
    waiting for its tag: it was lost, though the pause said everything was saved."""
    seed_lesson(home, probe_choice)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        await pilot.press("3")
        await pilot.pause()
        assert screen.pending is not None
        await pilot.press("ctrl+q")
        await pilot.pause()
    again = _app(home)
    async with again.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        await pilot.pause()
        assert screen.pending is not None and screen.pending.value == "2"
        asked = screen.prompt.message_id
        await pilot.press("h")
        await settle(pilot, screen)
        assert screen.prompt.message_id != asked
    with Store(home / "tutor.db") as store:
        [row] = [a for a in ledger.attempts(store) if a["answer"] == "2"]
        assert row["confidence"] == "hunch"


async def test_a_stray_enter_picks_no_option(home):
    """Enter on a question or on "What kind of slip was it?" picks nothing until the learner
    chooses — a key, an arrow or a click; the first option was taken (a slip recorded as
    "structural" by a stray Enter)."""
    seed_lesson(home, probe_choice)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        asked = screen.prompt.message_id
        await pilot.press("enter")
        await pilot.pause()
        assert screen.pending is None and screen.prompt.message_id == asked
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert screen.pending is not None and screen.pending.value == "1"


async def test_a_stray_enter_records_no_slip_kind(home):
    seed_lesson(home, slip)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson(pilot)
        assert screen.prompt.kind == "error_type"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.prompt.kind == "error_type"
        await pilot.press("2")
        await settle(pilot, screen)
        assert screen.prompt.kind != "error_type"
    with Store(home / "tutor.db") as store:
        assert {m["error_type"] for m in ledger.mistakes(store)} == {ERROR_TYPES[1]}


async def test_help_on_a_small_terminal_scrolls_to_its_last_line(home):
    """At 60×15 the keys of home do not fit: the help scrolls (page down) to its last line,
    "esc close"; it was cut off there and did not scroll."""
    app = _app(home)
    async with app.run_test(size=(60, 15)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        scroll = app.screen.query_one("#help")
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        last = list(scroll.query(Static))[-1]
        assert str(last.render()) == "esc close" and last.region.bottom <= scroll.region.bottom
