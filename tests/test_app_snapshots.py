"""Snapshots of every screen at 80×24 and 120×40 on a real lesson. Each lesson screen is opened
where a learner's earlier run left it: the run is played through the engine's own session, offline
and without the app (`app_driver.seed_lesson`), and `continue` in the app resumes onto that screen
from the store's event log; the lesson end takes the last answer by keys. The whole lesson by keys
is test_app.py's. (The UNVERIFIED and withheld teaching screens are fed a prompt of that shape, as
the gate emits it.) Update after a deliberate change:
`pytest tests/test_app_snapshots.py --snapshot-update`."""

from __future__ import annotations

from contextlib import suppress

import pytest
from app_driver import answer, seed_lesson, settle
from test_calibration import seed as seed_sure_and_wrong
from textual.worker import WorkerCancelled

from learning_system.store import Store
from tutor.app.app import TutorApp
from tutor.app.session_screen import SessionScreen
from tutor.engine.progress import Activity
from tutor.engine.turns import Prompt

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def home(tmp_path, monkeypatch, isolated_model_env):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    _fixed_session_id(monkeypatch)
    return tmp_path


def _fixed_session_id(monkeypatch) -> None:
    """A session's id seeds where its keys go: one fixed id keeps the screens the same each run."""
    import uuid

    monkeypatch.setattr(
        "tutor.engine.session.uuid.uuid4", lambda: uuid.UUID("00000000-0000-4000-8000-000000000011")
    )


def _app(home, mode="continue") -> TutorApp:
    app = TutorApp(mode=mode, offline=True, store=Store(home / "tutor.db"))
    return app


async def _quiet(pilot) -> None:
    with suppress(WorkerCancelled):
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def at(stage: str, kind: str | None = None, table: bool = False):
    """The first prompt of `stage` (of that kind; with a table)."""

    def stop(p: Prompt) -> bool:
        return (
            p.stage == stage
            and (kind is None or p.kind == kind)
            and (not table or p.table is not None)
        )

    return stop


@pytest.fixture(scope="module")
def answers_to_the_end(tmp_path_factory) -> int:
    """How many answers the lesson takes the learner of `seed_lesson`, found by playing it
    through the engine once in a home of its own."""
    home = tmp_path_factory.mktemp("whole-lesson")
    with pytest.MonkeyPatch.context() as mp:
        _fixed_session_id(mp)
        mp.setenv("TUTOR_HOME", str(home))
        count = 0

        def stop(p: Prompt) -> bool:
            nonlocal count
            count += 1
            return p.kind == "done"

        seed_lesson(home, stop)
    return count - 1


async def _resumed(pilot, seeded: Prompt) -> SessionScreen:
    """Home, then enter: `continue` resumes the seeded session onto the prompt it stopped at."""
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    await settle(pilot, screen)
    assert screen.prompt is not None and screen.prompt.message_id == seeded.message_id
    return screen


def showing(seeded: Prompt):
    """A run_before that resumes onto `seeded` and waits for it to be drawn."""

    async def run(pilot) -> None:
        await _resumed(pilot, seeded)
        await pilot.pause()

    return run


def last_answer(seeded: Prompt):
    """A run_before that gives the lesson's last answer by keys, then waits for the lesson end
    with the Clerk's result."""

    async def run(pilot) -> None:
        screen = await _resumed(pilot, seeded)
        await answer(pilot, screen)
        await settle(pilot, screen)
        assert screen.prompt.kind == "done"
        await _quiet(pilot)
        await settle(pilot, screen)  # the Clerk's result is on the screen
        await pilot.pause(0.2)  # and the footer has been recomposed with its keys
        await pilot.pause()

    return run


SCREENS = {
    "prior": at("prior"),
    "probe": at("probe", "choice"),
    "results_sure_and_wrong": at("results", "read", table=True),
    "mistake": at("mistake", "error_type"),
    "plan": at("plan"),
    "teach": at("teach"),
    "quiz": at("quiz", "choice"),
}


async def _scout(pilot) -> None:
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    await settle(pilot, screen)
    assert screen.stage == "scout"
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", sorted([*SCREENS, "scout", "lesson_end"]))
def test_lesson_screens(snap_compare, home, name, size, request):
    if name == "scout":  # a new lesson's first screen: nothing to seed
        run_before = _scout
    elif name == "lesson_end":
        last = seed_lesson(home, countdown(request.getfixturevalue("answers_to_the_end") - 1))
        run_before = last_answer(last)
    else:
        shown = seed_lesson(home, SCREENS[name])
        assert SCREENS[name](shown)
        run_before = showing(shown)
    assert snap_compare(_app(home), terminal_size=size, run_before=run_before)


def countdown(n: int):
    """Stops after `n` answers."""
    left = n + 1

    def stop(_p: Prompt) -> bool:
        nonlocal left
        left -= 1
        return left == 0

    return stop


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_home(snap_compare, home, size):
    assert snap_compare(_app(home), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_home_with_a_calibration_panel(snap_compare, home, size):
    """Several sure-and-wrong answers: the panel names the concepts and says what to do."""
    with Store(home / "tutor.db") as store:
        seed_sure_and_wrong(store)
    assert snap_compare(_app(home), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_help_on_a_probe_item_with_an_answer_waiting_for_its_tag(snap_compare, home, size):
    probe = seed_lesson(home, at("probe", "choice"))

    async def then_help(pilot) -> None:
        await _resumed(pilot, probe)
        await pilot.press("b")
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(_app(home), terminal_size=size, run_before=then_help)


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
    unverified_claims=["A markup-looking source line stays text: [bold red]x[/]"],
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
    # the shape of tutor.gates.checker.banner: the app adds no second "Withheld:"
    banner="Withheld: this step could not be verified (code F09). Continue with the next "
    "step, or review the source.",
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


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_lesson_open_in_another_tutor(snap_compare, home, size):
    from app_driver import open_elsewhere

    seed_lesson(home, at("probe", "choice"))
    other_store, other = open_elsewhere(home)

    async def refused(pilot) -> None:
        await pilot.press("enter")
        screen = pilot.app.screen
        assert isinstance(screen, SessionScreen)
        for _ in range(100):
            await pilot.pause(0.02)
            if screen.stage == "failed":
                break
        await _quiet(pilot)

    try:
        assert snap_compare(_app(home), terminal_size=size, run_before=refused)
    finally:
        other.close()
        other_store.close()
