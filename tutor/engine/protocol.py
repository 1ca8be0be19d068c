"""What a front end drives: a lesson or a review, through the same four calls."""

from __future__ import annotations

from typing import Protocol

from tutor.engine.progress import Activity
from tutor.engine.turns import Action, Prompt


class TutorSession(Protocol):
    """`prompt` is the screen to show. `act` validates the action against it (raising
    InvalidAction with what is expected), records it durably, and returns the next prompt;
    it blocks while the engine works and is safe to call from a worker thread, one call at a
    time. `pause` keeps the position for `tutor continue`; `close` stops background work.
    `hold` saves typed text the moment it is entered, before the action is complete (free recall
    waiting for its confidence tag); `held` is such text at the current prompt, offered back
    after a resume (None when there is none)."""

    prompt: Prompt
    title: str
    activity: Activity
    held: Action | None

    @property
    def done(self) -> bool: ...

    def act(self, action: Action) -> Prompt: ...

    def hold(self, action: Action) -> None: ...

    def pause(self) -> None: ...

    def close(self) -> None: ...
