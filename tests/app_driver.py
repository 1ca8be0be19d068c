"""A learner at the keyboard of the app: reads the screen's prompt and presses keys."""

from __future__ import annotations

import asyncio

from tutor.app.session_screen import SessionScreen


def keys_of(text: str) -> list[str]:
    names = {" ": "space", ".": "full_stop", ",": "comma", "-": "minus", "'": "apostrophe"}
    return [names.get(c, c) for c in text]


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
    if p.kind == "read":
        await pilot.press("enter")
    elif p.kind == "choice":
        key = p.item.correct_index
        await pilot.press(str((key + wrong) % 4 + 1))
        await pilot.press("s")
    elif p.kind == "numeric":
        await pilot.press(*keys_of(f"{p.item.answer + 7 * wrong:g}"), "enter")
        await pilot.press("s")
    elif p.kind == "text":
        screen.query_one("#answer").text = "it multiplies matching entries"
        await pilot.press("ctrl+s")
        if p.needs_confidence:
            await pilot.press("s")
    elif p.kind == "yes_no":
        await pilot.press("n" if wrong else "y")
    elif p.kind == "error_type":
        await pilot.press("2")
        screen.query_one("#attribution").value = "I misread it"
        await pilot.press("enter")
    else:
        return p.kind
    return p.kind
