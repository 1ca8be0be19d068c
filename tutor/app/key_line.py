"""A one-line list of the screen's keys: what Textual's Footer shows for a screen whose keys
never change, painted as one Static instead of a widget per key (the first screen's cost)."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static


class KeyLine(Static):
    DEFAULT_CSS = """
    KeyLine {
        dock: bottom;
        height: 1;
        padding: 0 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def on_mount(self) -> None:
        self.update(self.keys())

    def keys(self) -> Text:
        """Each shown binding of the screen as `key description`, then the command palette's."""
        app = self.app
        shown = [b for b in self.screen.BINDINGS if isinstance(b, Binding) and b.show]
        if app.ENABLE_COMMAND_PALETTE:
            shown.append(Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "palette"))
        line = Text(no_wrap=True)
        for n, binding in enumerate(shown):
            line.append("  " if n else "")
            line.append(app.get_key_display(binding), style="bold")
            line.append(f" {binding.description}")
        return line
