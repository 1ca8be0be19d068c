"""What workers tell the screens (posted from threads; `post_message` is thread-safe)."""

from __future__ import annotations

from textual.message import Message

from tutor.engine.progress import Progress
from tutor.engine.turns import Prompt


class PromptReady(Message):
    def __init__(self, prompt: Prompt) -> None:
        super().__init__()
        self.prompt = prompt


class SessionOpened(Message):
    def __init__(self, session: object | None) -> None:
        super().__init__()
        self.session = session


class WorkProgress(Message):
    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress


class Notice(Message):
    """A one-line notice from the engine (e.g. the model does not answer)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
