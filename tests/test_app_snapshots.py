"""Snapshots of every screen at 80×24 and 120×40, reached by keystrokes on a real lesson (the
UNVERIFIED and withheld teaching screens are fed a prompt of that shape, as the gate emits it).
Update after a deliberate change: `pytest tests/test_app_snapshots.py --snapshot-update`."""

from __future__ import annotations

from contextlib import suppress

import pytest
from app_driver import answer, settle
from textual.worker import WorkerCancelled

from learning_system.store import Store
from tutor.app.app import TutorApp
from tutor.app.session_screen import SessionScreen
from tutor.engine.progress import Activity
from tutor.engine.turns import Prompt

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def home(tmp_path, monkeypatch, isolated_model_env):
    import uuid

    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    # a session's id seeds where its keys go: one fixed id keeps the screens the same each run
    monkeypatch.setattr(
        "tutor.engine.session.uuid.uuid4", lambda: uuid.UUID("00000000-0000-4000-8000-000000000011")
    )
    return tmp_path


def _app(home, mode="continue") -> TutorApp:
    app = TutorApp(mode=mode, offline=True, store=Store(home / "tutor.db"))
    return app


async def _quiet(pilot) -> None:
    with suppress(WorkerCancelled):
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def until(stage: str, kind: str | None = None, wrong: bool = True, table: bool = False):
    """A run_before that starts the lesson and answers until the screen shows `stage`."""

    async def run(pilot) -> None:
        await pilot.press("enter")
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, SessionScreen)
        for _ in range(200):
            await settle(pilot, screen)
            p = screen.prompt
            if stage == "scout" and screen.stage == "scout":
                break
            if (
                p is not None
                and screen.stage == "prompt"
                and p.stage == stage
                and (kind is None or p.kind == kind)
                and (not table or p.table is not None)
            ):
                break
            await answer(pilot, screen, wrong=wrong)
        else:
            raise AssertionError(f"never reached {stage}")
        if stage == "done":
            await _quiet(pilot)
            await settle(pilot, screen)  # the Clerk's result is on the screen
            await pilot.pause(0.2)  # and the footer has been recomposed with its keys
        await pilot.pause()

    return run


SCREENS = {
    "scout": until("scout"),
    "prior": until("prior"),
    "probe": until("probe", "choice"),
    "results_sure_and_wrong": until("results", "read", table=True),
    "mistake": until("mistake", "error_type"),
    "plan": until("plan"),
    "teach": until("teach"),
    "quiz": until("quiz", "choice"),
    "lesson_end": until("done"),
}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", sorted(SCREENS))
def test_lesson_screens(snap_compare, home, name, size):
    assert snap_compare(_app(home), terminal_size=size, run_before=SCREENS[name])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_home(snap_compare, home, size):
    assert snap_compare(_app(home), terminal_size=size)


async def _probe_then_help(pilot) -> None:
    await until("probe", "choice")(pilot)
    await pilot.press("b")
    await pilot.press("question_mark")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help_on_a_probe_item_with_an_answer_waiting_for_its_tag(snap_compare, home, size):
    assert snap_compare(_app(home), terminal_size=size, run_before=_probe_then_help)


async def _review(pilot) -> None:
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    await settle(pilot, screen)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_review_with_nothing_due(snap_compare, home, size):
    assert snap_compare(_app(home, "review"), terminal_size=size, run_before=_review)


class OnePrompt:
    """A session that shows one prompt, as the engine would after its gate."""

    title = "P1 L03 Derivatives and the chain rule"

    def __init__(self, prompt: Prompt) -> None:
        self.prompt = prompt
        self.activity = Activity()
        self.done = False

    def act(self, action):
        return self.prompt

    def pause(self) -> None: ...

    def close(self) -> None: ...


TEACH_UNVERIFIED = Prompt(
    kind="read",
    message_id="s:teach:3",
    stage="teach",
    title="Step 3/6 · chain rule",
    position="step 3/6",
    sources=["primary §The chain rule", "CS231n notes"],
    unverified=["c2"],
    content="[source: primary §The chain rule]\n\nWhen one function feeds another, their rates "
    "of change **multiply**.\n\n```python\ndef chain(f_prime, g_prime, x):\n    return "
    "f_prime(g(x)) * g_prime(x)\n```\n\nA markup-looking source line stays text: [bold red]x[/]",
)
TEACH_WITHHELD = Prompt(
    kind="read",
    message_id="s:teach:4",
    stage="teach",
    title="Step 4/6 · chain rule, a graph",
    position="step 4/6",
    content="",
    banner="this step could not be verified (code F09). Continue with the next step, or "
    "review the source.",
)


def _gallery(prompt: Prompt):
    class Gallery(TutorApp):
        def start_lesson(self) -> None:
            self.push_screen(SessionScreen("lesson", opener=lambda _a: OnePrompt(prompt)))

    return Gallery


async def _open(pilot) -> None:
    await pilot.press("enter")
    await pilot.pause()
    await settle(pilot, pilot.app.screen)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(
    "prompt", [TEACH_UNVERIFIED, TEACH_WITHHELD], ids=["unverified", "withheld"]
)
def test_teach_marks(snap_compare, home, prompt, size):
    app = _gallery(prompt)(mode="continue", offline=True, store=Store(home / "tutor.db"))
    assert snap_compare(app, terminal_size=size, run_before=_open)
