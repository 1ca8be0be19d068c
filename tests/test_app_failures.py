"""The app's failure path, driven by keys through Textual's Pilot on a real store: a lesson held
by another tutor, a write the disk refuses, a Clerk that cannot write. Each shows its message
within a bounded number of pilot pauses and leaves the app usable; keys typed while an answer
box mounts reach it."""

from __future__ import annotations

import pytest
from app_driver import act_as_learner, answer, keys_of, open_elsewhere, seed_lesson, settle

from learning_system.store import Store, StoreError
from tutor.app.app import TutorApp
from tutor.app.home import HomeScreen
from tutor.app.session_screen import SessionScreen

SIZE = (100, 32)
PROMPTLY = 100  # pilot pauses of 0.02 s: about 2 s on an idle machine


@pytest.fixture
def home(tmp_path, monkeypatch, isolated_model_env):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def _app(home) -> TutorApp:
    return TutorApp(offline=True, store=Store(home / "tutor.db"))


async def _lesson_screen(pilot) -> SessionScreen:
    assert isinstance(pilot.app.screen, HomeScreen)
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    return screen


async def _until(pilot, shown, what: str) -> None:
    for _ in range(PROMPTLY):
        await pilot.pause(0.02)
        if shown():
            return
    raise AssertionError(f"not shown after {PROMPTLY} pauses: {what}")


def _titles(app: TutorApp) -> list[str]:
    return [n.title for n in app._notifications]


def _errors_shown(app: TutorApp) -> list[str]:
    return [n.title for n in app._notifications if n.severity == "error" and n.title and n.message]


def _text(screen: SessionScreen) -> str:
    return " ".join(str(w.render()) for w in screen.query("#body Static"))


async def test_a_lesson_open_in_another_tutor_says_so_and_can_be_taken_over(home):
    seeded = seed_lesson(home, lambda p: p.kind == "choice")
    other_store, other = open_elsewhere(home)
    app = _app(home)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await _lesson_screen(pilot)
            await _until(pilot, lambda: screen.stage == "failed", "the lease refusal")
            assert "open in another tutor" in _text(screen)
            assert "t: take the lesson over" in _text(screen)
            assert "Open in another tutor" in _titles(app)
            await pilot.press("t")
            await settle(pilot, screen)
            assert screen.prompt is not None and screen.prompt.message_id == seeded.message_id
            with pytest.raises(StoreError):  # the tutor it was taken from stops at its next write
                act_as_learner(other)
            await answer(pilot, screen)
            await settle(pilot, screen)
            assert screen.prompt.message_id != seeded.message_id
    finally:
        other.close()
        other_store.close()


async def test_a_held_lesson_leaves_the_app_usable_back_home_and_quit(home):
    seed_lesson(home, lambda p: p.kind == "choice")
    other_store, other = open_elsewhere(home)
    app = _app(home)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await _lesson_screen(pilot)
            await _until(pilot, lambda: screen.stage == "failed", "the lease refusal")
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running
    finally:
        other.close()
        other_store.close()


async def test_a_lesson_taken_over_by_another_tutor_says_so_at_the_next_answer(home):
    seeded = seed_lesson(home, lambda p: p.kind == "choice")
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        await settle(pilot, screen)
        other_store, other = open_elsewhere(home, take_over=True)
        try:
            await pilot.press("2", "s")
            await _until(
                pilot, lambda: "another tutor" in str(screen.query_one("#status").render()), "it"
            )
            assert screen.prompt.message_id == seeded.message_id and not screen.busy
            assert act_as_learner(other).message_id != seeded.message_id  # it goes on there
        finally:
            other.close()
            other_store.close()
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


def _fill(store: Store) -> None:
    """The store's file may grow no further, and its pages are full: its next write that needs
    a page fails in SQLite with "database or disk is full", as on a full disk."""
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")
    for size in (200, 20, 0):  # smaller rows last: no gap is left that a short event fits in
        with pytest.raises(StoreError):
            for seq in range(100_000):
                payload = {"key": str(seq), "value": "x" * size}
                store.sessions.append_event(f"filler-{size}", seq, "memo", payload)


def _free(store: Store) -> None:
    store.conn.execute("PRAGMA max_page_count = 1073741823")


def _answers(store: Store, session_id: str) -> tuple[int, int]:
    """Recorded actions and attempts of the session."""
    from learning_system import ledger

    actions = [e for e in store.sessions.events(session_id) if e["kind"] == "action"]
    return len(actions), len(ledger.attempts(store, session_id=session_id))


@pytest.mark.parametrize("fails", ["before the answer", "after the answer is logged"])
async def test_a_refused_write_keeps_the_answer_and_saves_it_once_on_retry(
    home, monkeypatch, fails
):
    seeded = seed_lesson(home, lambda p: p.kind == "choice")
    app = _app(home)
    store = app.store
    if fails == "after the answer is logged":  # the step dies half-made, after its action
        from tutor.engine.journal import SessionJournal

        append = SessionJournal.append

        def then_full(journal, kind, payload):
            append(journal, kind, payload)
            if kind == "action":
                store.conn.execute("PRAGMA query_only = ON")

        monkeypatch.setattr(SessionJournal, "append", then_full)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        await settle(pilot, screen)
        session_id = screen.session.id
        before = _answers(store, session_id)
        if fails == "before the answer":
            _fill(store)
        await pilot.press("2", "s")
        await _until(pilot, lambda: screen.unsaved is not None, "the answer was not saved")
        assert "Not saved" in str(screen.query_one("#status").render())
        assert screen.prompt.message_id == seeded.message_id
        assert screen.pending is not None and screen.pending.value == "1"
        assert "confidence" in str(screen.query_one("#confidence").render())
        assert _errors_shown(app)  # the store's own words, under its title
        monkeypatch.undo()
        _free(store)
        store.conn.execute("PRAGMA query_only = OFF")
        await pilot.press("enter")
        await settle(pilot, screen)
        assert screen.prompt.message_id != seeded.message_id
        actions, attempts = _answers(store, session_id)
        assert (actions, attempts) == (before[0] + 1, before[1] + 1)
        await answer(pilot, screen)  # and the lesson goes on
        await settle(pilot, screen)
        assert _answers(store, session_id)[0] == before[0] + 2


async def test_a_written_answer_refused_by_a_full_disk_stays_and_saves_once(home):
    from app_driver import TEXT_ANSWER

    seeded = seed_lesson(home, lambda p: p.kind == "text")
    app = _app(home)
    store = app.store
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        await settle(pilot, screen)
        session_id = screen.session.id
        before = _answers(store, session_id)
        _fill(store)
        await pilot.press(*keys_of(TEXT_ANSWER), "ctrl+s")  # holding it fails: said, not fatal
        await pilot.press("s")
        await _until(pilot, lambda: screen.unsaved is not None, "the answer was not saved")
        assert screen.query_one("#answer").text == TEXT_ANSWER
        assert screen.prompt.message_id == seeded.message_id
        _free(store)
        await pilot.press("s")  # the same key again
        await settle(pilot, screen)
        assert screen.prompt.message_id != seeded.message_id
        assert _answers(store, session_id) == (before[0] + 1, before[1] + 1)


def _seed_before_the_end(home, scratch) -> None:
    """The store in `home` paused at the lesson's last prompt before its end (the lesson is
    played once in `scratch` to count its steps; it is deterministic offline)."""
    steps = {"n": 0}

    def count(p) -> bool:
        steps["n"] += 1
        return p.kind == "done"

    scratch.mkdir()
    seed_lesson(scratch, count)
    seen = {"n": 0}

    def last(p) -> bool:
        seen["n"] += 1
        return seen["n"] == steps["n"] - 1

    assert seed_lesson(home, last).kind != "done"


async def test_a_failing_clerk_says_so_and_leaves_the_app_usable(home, tmp_path, monkeypatch):
    import tutor.clerk.ingest as clerk

    _seed_before_the_end(home, tmp_path / "scratch")
    app = _app(home)
    store = app.store
    ingest = clerk.ingest_pending

    def read_only(s, **kw):
        s.conn.execute("PRAGMA query_only = ON")
        return ingest(s, **kw)

    monkeypatch.setattr(clerk, "ingest_pending", read_only)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        await answer(pilot, screen)
        await _until(
            pilot,
            lambda: screen.prompt.kind == "done" and not screen.busy,
            "the lesson end",
        )
        assert "lesson end could not be written" in str(screen.query_one("#end").render())
        assert _errors_shown(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        store.conn.execute("PRAGMA query_only = OFF")
        await pilot.press("q")
    monkeypatch.undo()
    with Store(home / "tutor.db") as again:  # nothing is lost: the next ingest writes it
        results = clerk.ingest_pending(again, provider=None)
        assert [r.status for r in results] == ["accepted"]


@pytest.mark.parametrize("box", ["text", "numeric"])
async def test_keys_typed_while_the_answer_box_mounts_reach_it(home, monkeypatch, box):
    import threading

    import tutor.engine.runner as runner

    seed_lesson(home, lambda p: p.kind == box)
    typing = threading.Event()
    open_session = runner.open_session

    def after_typing(*args, **kw):  # the lesson opens while the learner is typing
        typing.wait(10)
        return open_session(*args, **kw)

    monkeypatch.setattr(runner, "open_session", after_typing)
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _lesson_screen(pilot)
        typed = "it adds" if box == "text" else "42"
        await pilot.press(*keys_of(typed[:2]))
        typing.set()
        await pilot.press(*keys_of(typed[2:]))
        await settle(pilot, screen)
        await pilot.pause()
        widget = screen.query_one("#answer")
        assert (widget.text if box == "text" else widget.value) == typed
        assert widget.has_focus


async def test_views_that_cannot_be_written_say_so_and_the_app_goes_on(home):
    (home / "views").write_text("a file where the views folder goes", encoding="utf-8")
    app = _app(home)
    async with app.run_test(size=SIZE) as pilot:
        app.write_views()
        await _until(pilot, lambda: _errors_shown(app), "the views failure")
        screen = await _lesson_screen(pilot)
        await settle(pilot, screen)  # the lesson opens: its sources, then its first screen
        assert screen.stage == "scout"


def test_the_contract_states_what_the_app_says():
    from pathlib import Path

    from learning_system.session_lock import SessionBusy

    contract = (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8")
    section = " ".join(contract.split("## The app when something fails", 1)[1].split())
    assert f'"{SessionBusy.title}"' in section and "`t` to take the lesson over" in section


def _damage_sessions_table(db) -> None:
    """The store opens (its header, schema and answers are whole), but the page of its sessions
    table is garbage: the first read of where the learner stands fails."""
    import sqlite3

    Store(db).close()
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").fetchone()[0]
    conn.close()
    with db.open("r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xff" * page_size)


async def test_a_store_that_fails_as_the_first_screen_reads_it_closes_the_app_with_its_error(
    home, monkeypatch
):
    from learning_system import store_files
    from learning_system.errors import LearningSystemError

    _damage_sessions_table(home / "tutor.db")
    # a store too large to be checked whole as it opens: the damage is met on the first read
    monkeypatch.setattr(store_files, "QUICK_CHECK_MAX_BYTES", 0)
    app = _app(home)  # opened before the app starts, as `tutor` opens it
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.is_running
    assert isinstance(app.start_error, LearningSystemError)
    assert "damaged" in str(app.start_error)
    assert app.return_code == app.start_error.exit_code == 2
