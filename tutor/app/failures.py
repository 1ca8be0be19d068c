"""What the app says when its work fails: one titled message per failure, from one handler.

A worker's `StateChanged` message goes to the node that runs it and does not bubble, so every
screen of the app derives from `ReportingScreen`, which hands its failed workers to the app's
handler (`TutorApp.report_failure`); the app's own workers land there directly. The handler
shows the message, then lets the screen put itself right (`failed`), so it stays usable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual.screen import Screen
from textual.worker import Worker, WorkerState

from learning_system.errors import LearningSystemError

if TYPE_CHECKING:
    from tutor.app.app import TutorApp

UNEXPECTED = (
    "Your answers so far are saved. Quit with ctrl+q and run `tutor continue`; "
    "if it happens again, run `tutor doctor`."
)


@dataclass(frozen=True)
class Failure:
    """A failure as the learner reads it: a heading, what happened and what to do."""

    title: str
    text: str
    severity: Literal["warning", "error"] = "error"


def describe(error: BaseException) -> Failure:
    from tutor.engine.turns import InvalidAction

    if isinstance(error, InvalidAction):
        return Failure("Not that", str(error), "warning")
    if isinstance(error, LearningSystemError):
        return Failure(error.title, str(error))
    return Failure("Something went wrong", f"{type(error).__name__}: {error}. {UNEXPECTED}")


class ReportingScreen(Screen[None]):
    """A screen whose failed workers reach the app's one handler."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            app: TutorApp = self.app  # type: ignore[assignment]
            app.report_failure(event.worker, self)

    def failed(self, work: str, error: BaseException, failure: Failure) -> None:
        """Put the screen right after its worker `work` failed (the message is shown)."""
