"""Modal screens: the keys of the current screen, and a page of plain text."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tutor.app.text import safe


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,f1,q,enter", "dismiss", "close", show=True)]

    def __init__(self, title: str, keys: list[tuple[str, str]], extra: str = "") -> None:
        super().__init__()
        self.heading = title
        self.keys = keys
        self.extra = extra

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for key, meaning in self.keys:
            table.add_row(key, meaning)
        with VerticalScroll(id="help"):  # a small terminal scrolls it (down, page down)
            yield Static(safe(f"Keys · {self.heading}", "bold"), classes="title")
            yield Static(table)
            if self.extra:
                yield Static(safe(self.extra), classes="muted")
            yield Static("esc close", classes="muted")


class TextScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,enter", "dismiss", "close", show=True)]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.heading = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static(safe(self.heading, "bold"), classes="title")
            with VerticalScroll():
                yield Static(safe(self.text))
            yield Static("esc close", classes="muted")
