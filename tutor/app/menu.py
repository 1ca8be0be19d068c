"""The home screen's menu: a few choices painted as one widget (an OptionList costs the first
screen its stylesheet, scrollbars and a widget per line). Up and down move the mark, enter or a
click picks; the marked line also carries a ▸, so it never rests on colour alone."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


class Menu(Widget, can_focus=True):
    DEFAULT_CSS = """
    Menu {
        height: auto;
    }
    """
    BINDINGS = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("enter", "pick", "pick", show=False),
    ]
    marked: reactive[int] = reactive(0)

    class Picked(Message):
        def __init__(self, choice: str) -> None:
            super().__init__()
            self.choice = choice

    def __init__(self, choices: list[tuple[str, str]], *, id: str | None = None) -> None:
        """`choices`: (name, line shown) in order; `Picked` carries the name."""
        super().__init__(id=id)
        self.choices = choices

    def render(self) -> Text:
        lines = []
        for n, (_, shown) in enumerate(self.choices):
            if n == self.marked:
                style = "bold reverse" if self.has_focus else "bold"
                lines.append(Text.assemble(("▸ " + shown, style)))
            else:
                lines.append(Text("  " + shown))
        return Text("\n").join(lines)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_move(self, step: int) -> None:
        self.marked = (self.marked + step) % len(self.choices)

    def action_pick(self) -> None:
        self.post_message(self.Picked(self.choices[self.marked][0]))

    def on_click(self, event: events.Click) -> None:
        if 0 <= event.y < len(self.choices):
            self.marked = event.y
            self.action_pick()
