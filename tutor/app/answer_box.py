"""The answer boxes. What is pasted into them goes in as one piece at the cursor with terminal
escapes removed: an arrow or a delete key pasted inside the text must not move the cursor or
reorder what the learner wrote."""

from __future__ import annotations

from textual import events
from textual.widgets import Input, TextArea

from tutor.app.text import clean


def _clean_paste(event: events.Paste) -> None:
    # runs before the widget's own paste handler (Textual calls each class's handler, the
    # subclass first), which then inserts the cleaned text
    event.text = clean(event.text)


class AnswerArea(TextArea):
    async def _on_paste(self, event: events.Paste) -> None:
        _clean_paste(event)
        event.stop()  # the screen takes only the pastes no box took


class AnswerInput(Input):
    def _on_paste(self, event: events.Paste) -> None:
        _clean_paste(event)
