"""A one-line list of the screen's keys: what Textual's Footer shows, painted as one Static
instead of a widget per key (Footer rebuilds a widget per key each time the keys change, the
longest part of a new lesson screen). `show_keys` repaints it after the screen's keys change."""

from __future__ import annotations

from rich.text import Text
from textual.actions import parse
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
        self.show_keys()

    def show_keys(self) -> None:
        self.update(self.keys())

    def keys(self) -> Text:
        """Each shown binding of the screen that its `check_action` allows now (and its
        `key_shown`, when it has one, shows now), as `key description`, then the command
        palette's."""
        app, screen = self.app, self.screen
        key_shown = getattr(screen, "key_shown", None)
        shown = []
        for b in screen.BINDINGS:
            if not isinstance(b, Binding) or not b.show:
                continue
            _, name, params = parse(b.action)
            if screen.check_action(name, params) is not False and (
                key_shown is None or key_shown(b)
            ):
                shown.append(b)
        if app.ENABLE_COMMAND_PALETTE:
            shown.append(Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "palette"))
        line = Text(no_wrap=True)
        for n, binding in enumerate(shown):
            line.append("  " if n else "")
            line.append(app.get_key_display(binding), style="bold")
            line.append(f" {binding.description}")
        return line
