"""A learner at the keyboard of the app: reads the screen's prompt and presses keys — or the same
learner's earlier run, played through the engine's own session without the app (`seed_lesson`),
so that the app opened afterwards resumes straight onto the screen a test wants.

Both give the same answers (`reply`): a wrong option or number, given sure; the same sentence for
a written answer; "no" to a yes/no check; a slip of kind 2 with the same words."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tutor.app.session_screen import SessionScreen
from tutor.engine import parse
from tutor.engine.turns import Action, Prompt

TEXT_ANSWER = "it multiplies matching entries"
ATTRIBUTION = "I misread it"


def keys_of(text: str) -> list[str]:
    names = {" ": "space", ".": "full_stop", ",": "comma", "-": "minus", "'": "apostrophe"}
    return [names.get(c, c) for c in text]


def reply(prompt: Prompt, wrong: bool = True) -> str:
    """What the learner gives at `prompt` (before any confidence tag, which is always `s`)."""
    if prompt.kind == "choice":
        assert prompt.item is not None
        return str((prompt.item.correct_index + wrong) % 4 + 1)
    if prompt.kind == "numeric":
        assert prompt.item is not None
        return f"{prompt.item.answer + 7 * wrong:g}"
    if prompt.kind == "text":
        return TEXT_ANSWER
    if prompt.kind == "yes_no":
        return "n" if wrong else "y"
    if prompt.kind == "error_type":
        return "2"
    return ""  # read: enter


async def settle(pilot, screen: SessionScreen, timeout: float = 20) -> None:
    """Until the engine has answered and the screen shows its prompt."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        await pilot.pause(0.02)
        if not screen.busy and screen.stage in ("scout", "prompt"):
            return
    raise AssertionError(f"screen still busy: {screen.stage} {screen.prompt}")


async def answer(pilot, screen: SessionScreen, wrong: bool = True) -> str:
    """Answer the current prompt by keys, as a learner who picks wrong (or right) and is sure.
    Returns the prompt kind answered."""
    await settle(pilot, screen)
    if screen.stage == "scout":
        await pilot.press("enter")
        return "scout"
    p = screen.prompt
    assert p is not None
    given = reply(p, wrong)
    if p.kind == "read":
        await pilot.press("enter")
    elif p.kind == "choice":
        await pilot.press(given)
        await pilot.press("s")
    elif p.kind == "numeric":
        await pilot.press(*keys_of(given), "enter")
        await pilot.press("s")
    elif p.kind == "text":
        screen.query_one("#answer").text = given
        await pilot.press("ctrl+s")
        if p.needs_confidence:
            await pilot.press("s")
    elif p.kind == "yes_no":
        await pilot.press(given)
    elif p.kind == "error_type":  # the words first (optional), then the kind by one key
        screen.query_one("#attribution").value = ATTRIBUTION
        await pilot.press(given)
    else:
        return p.kind
    return p.kind


def act_as_learner(session, wrong: bool = True) -> Prompt:
    """Give the session's current prompt the answer `answer` would give by keys, through the
    same parser and session calls the screen makes (a written answer is held before its tag)."""
    p = session.prompt
    given = reply(p, wrong)
    if p.kind == "error_type":
        action = Action(kind="error_type", value=given, text=parse.attribution(ATTRIBUTION))
    else:
        parsed = parse.parse(p, given)
        assert isinstance(parsed, Action), parsed
        action = parsed
        if parse.wants_confidence(p, action):
            if action.kind == "text":
                session.hold(action)
            action = parse.with_confidence(action, "s")
    return session.act(action)


def seed_lesson(home: Path, stop: Callable[[Prompt], bool], wrong: bool = True) -> Prompt:
    """The store in `home` as a learner's earlier run leaves it: the next lesson opened the way
    `tutor continue` opens it (offline), answered as by `answer` until the first prompt `stop`
    accepts, then paused there. The app's `continue` then resumes onto that prompt by replaying
    the session's event log. Returns that prompt."""
    from learning_system.store import Store
    from tutor import learner
    from tutor.engine.runner import open_session

    with Store(home / "tutor.db") as store:
        curriculum = learner.load(learner.continue_path(store))
        session = open_session(store, curriculum, offline=True)
        assert session is not None, "the curriculum has no lesson to start"
        try:
            for _ in range(200):
                if stop(session.prompt):
                    break
                assert not session.done, "the lesson ended before the screen was reached"
                act_as_learner(session, wrong)
            else:
                raise AssertionError("never reached the screen")
            session.pause()
        finally:
            session.close()
        return session.prompt


def open_elsewhere(home: Path, take_over: bool = False):
    """Another tutor with the home's paused lesson open (taken over when `take_over`): its own
    store connection and lease. Returns (store, session); close both."""
    from learning_system.store import Store
    from tutor import learner
    from tutor.engine.runner import open_session

    store = Store(home / "tutor.db")
    curriculum = learner.load(learner.continue_path(store))
    session = open_session(store, curriculum, offline=True, take_over=take_over)
    assert session is not None
    return store, session
