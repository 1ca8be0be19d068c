"""The app driven by keystrokes through Textual's Pilot, offline, on a real store."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from app_driver import answer, keys_of, seed_lesson, settle
from rich.console import Console
from textual.widgets import Static

from learning_system import ledger
from learning_system.store import Store
from tutor.app.app import TutorApp
from tutor.app.home import HomeScreen
from tutor.app.menu import Menu
from tutor.app.session_screen import SessionScreen

SIZE = (100, 32)


@pytest.fixture
def home(tmp_path, monkeypatch, isolated_model_env):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def _app(home, mode: str = "continue") -> TutorApp:
    return TutorApp(mode=mode, offline=True, store=Store(home / "tutor.db"))


async def _lesson_screen(pilot) -> SessionScreen:
    assert isinstance(pilot.app.screen, HomeScreen)
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    return screen


async def test_a_whole_lesson_by_keys_then_quit_mid_probe_resume_and_review(home):
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        stages: list[str] = []
        results_seen = False
        for _ in range(300):
            await settle(pilot, screen)
            if screen.prompt is not None:
                stages.append(screen.prompt.stage)
                if screen.prompt.stage == "results" and screen.prompt.table is not None:
                    results_seen = True
                if screen.prompt.kind == "done":
                    break
            await answer(pilot, screen, wrong=len(stages) % 3 == 0)
        assert screen.prompt is not None and screen.prompt.kind == "done"
        for stage in ("prior", "probe", "results", "plan", "teach", "checkpoint", "quiz"):
            assert stage in stages, stage
        assert results_seen
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        await pilot.pause()
        end = str(screen.query_one("#end").render())
        assert "Quiz:" in end and "Records:" in end and "Mastery" in end
        session_id = screen.session.id
    store = Store(home / "tutor.db")
    attempts = ledger.attempts(store, session_id=session_id)
    assert attempts and not [a for a in attempts if a["outcome"] == "pending"]
    assert ledger.mistakes(store), "the wrong answers are in the mistakes ledger"
    assert store.sessions.latest()["status"] == "done"
    store.close()


async def test_quit_mid_probe_and_resume_on_the_same_item_then_review_the_mistake(home):
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        while (
            screen.prompt is None
            or screen.prompt.stage != "probe"
            or screen.prompt.kind != "choice"
        ):
            await answer(pilot, screen)
            await settle(pilot, screen)
        await answer(pilot, screen, wrong=True)  # one probe answer, then quit mid-probe
        await settle(pilot, screen)
        where = screen.prompt
        assert where.stage == "probe"
        await pilot.press("ctrl+q" if where.kind == "text" else "q")  # q is a letter in a box
        await pilot.pause()
    assert app.return_code == 0

    again = _app(home)
    async with again.run_test(size=SIZE) as pilot:
        console = Console(width=SIZE[0], record=True, file=io.StringIO())
        console.print(pilot.app.screen.query_one("#home-summary", Static).content)
        assert "paused at probe" in console.export_text()
        screen = await _lesson_screen(pilot)
        await settle(pilot, screen)
        assert screen.prompt.message_id == where.message_id  # the same item, not a new start
        # finish the batch wrong, and say what kind of slip it was
        for _ in range(60):
            await settle(pilot, screen)
            if screen.prompt.kind == "error_type":
                break
            await answer(pilot, screen, wrong=True)
        await answer(pilot, screen)
        await settle(pilot, screen)
        await pilot.press("q")

    store = Store(home / "tutor.db")
    mistakes = ledger.mistakes(store, status="open")
    assert mistakes
    review_at = ledger.due_queue(store, now=store_now() + timedelta(minutes=1))
    assert review_at and review_at[0].kind == "mistake"
    store.close()
    review = _app(home, mode="review")
    async with review.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, SessionScreen)
        await settle(pilot, screen)
        assert screen.prompt.stage == "review"
        assert screen.prompt.item.id in {m["item_id"] for m in mistakes}


def store_now():
    from learning_system.store import utcnow

    return utcnow()


async def test_the_home_menu_moves_by_arrows_and_picks_by_enter_or_a_click(home):
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        menu = pilot.app.screen.query_one(Menu)
        assert menu.has_focus and menu.marked == 0
        await pilot.press("up")  # from the top, up wraps to the last choice
        assert menu.choices[menu.marked][0] == "quit"
        await pilot.press("down", "down")
        assert menu.choices[menu.marked][0] == "review"
        await pilot.press("enter")  # enter picks the marked choice, not the screen's continue
        await pilot.pause()
        assert isinstance(pilot.app.screen, SessionScreen) and pilot.app.screen.kind == "review"

    again = _app(home)
    async with again.run_test(size=SIZE) as pilot:
        menu = pilot.app.screen.query_one(Menu)
        quit_row = [name for name, _ in menu.choices].index("quit")
        await pilot.click(Menu, offset=(4, quit_row))  # a click picks the line it lands on
        await pilot.pause()
        assert menu.marked == quit_row
    assert again.return_code == 0


async def test_wrong_keys_say_what_is_expected_and_record_nothing(home):
    seeded = seed_lesson(home, lambda p: p.kind == "choice")  # paused at the first choice
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        await settle(pilot, screen)
        assert screen.prompt.message_id == seeded.message_id
        before = screen.prompt.message_id
        await pilot.press("s")  # a confidence tag before any option: nothing happens
        await pilot.press("y")
        await pilot.pause()
        assert screen.prompt.message_id == before and screen.pending is None
        await pilot.press("c")  # an option by letter, then the tag
        assert screen.pending is not None and screen.pending.value == "2"
        # the chosen option named in words beside the tags, not shown by colour alone
        assert "your answer 3/c · confidence" in str(screen.query_one("#confidence").render())
        await pilot.press("question_mark")
        await pilot.pause()
        shown = dict(pilot.app.screen.keys)
        assert shown["0 / x"] == "I don't know" and "sure / hunch / no idea" in shown["s / h / n"]
        await pilot.press("escape")
        await pilot.press("h")
        await settle(pilot, screen)
        assert screen.prompt.message_id != before


async def test_free_recall_p_is_text_not_a_pause(home):
    seeded = seed_lesson(home, lambda p: p.kind == "text")  # paused at the first written answer
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        await settle(pilot, screen)
        assert screen.prompt.message_id == seeded.message_id
        await pilot.press(*keys_of("p q and more"), "ctrl+s")
        assert app.is_running and screen.pending is not None
        assert screen.pending.text == "p q and more"
        # the waiting answer named beside the tags (an examiner saw "your answer  · confidence")
        waiting = str(screen.query_one("#confidence").render())
        assert waiting.startswith("your written answer · confidence"), waiting


async def test_markup_and_escapes_in_sources_render_literally(home, tmp_path):
    from conftest import write_tiny_curriculum

    root = write_tiny_curriculum(
        tmp_path / "course", [("Reset \x1bcthe terminal", "https://example.invalid/a")]
    )
    doc = root / "phases" / "01-basics" / "02-averages" / "docs" / "en.md"
    text = doc.read_text(encoding="utf-8").replace(
        "behave very differently.",
        "behave very differently, and [bold red]x[/] with \x1b[31mno colour\x1b[0m stays text.",
    )
    doc.write_text(text, encoding="utf-8")
    app = TutorApp(
        offline=True, lesson="P1 L02", curriculum=str(root), store=Store(home / "tutor.db")
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, SessionScreen)
        await settle(pilot, screen)
        assert screen.stage == "scout"
        shot = _screen_text(app)
        assert "Reset the terminal" in shot and "\x1b" not in shot
        for _ in range(80):
            await answer(pilot, screen)
            await settle(pilot, screen)
            if screen.prompt.stage == "teach" and "[bold red]" in screen.prompt.content:
                break
        shot = _screen_text(app)
        assert "[bold red]x[/] with no colour stays text" in shot
        assert "\x1b" not in shot


def _screen_text(app) -> str:
    import html
    import re

    svg = app.export_screenshot()
    return html.unescape("".join(re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S))).replace(
        "\xa0", " "
    )


async def test_the_command_palette_compiles_a_study_packet_for_the_lesson(home):
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        app.write_packet()
        await app.workers.wait_for_complete()
        await pilot.pause()
    packets = list((home / "packets").glob("*.json"))
    assert len(packets) == 1 and "P1 L01" in packets[0].read_text(encoding="utf-8")
