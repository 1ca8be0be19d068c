"""A Rich renderable drawn once per width, and drawn ahead in the worker that made its step.

Textual draws a widget once to measure its height and again to show it, at a second width when
the scroll bar appears; a long Rich table or markdown section drawn on the event loop at each of
those stalls it. A `Drawn` keeps its lines for each width, and `ahead` draws it in the worker at
the widths the last one was drawn at, so the screen only copies lines."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import nullcontext

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.theme import Theme

# the widths the last renderables were drawn at (the next is drawn at the same ones)
_WIDTHS: dict[int, None] = {}


class Drawn:
    """`renderable`, drawn with `theme` pushed only while it renders (the app's console is shared,
    so its styles must not outlive this widget's render), its lines kept for each width."""

    def __init__(self, renderable: RenderableType, theme: Theme | None = None) -> None:
        self.renderable = renderable
        self.theme = theme
        self._drawn: dict[int, list[Segment]] = {}

    def draw(self, console: Console, options: ConsoleOptions) -> list[Segment]:
        width = options.max_width
        if width not in self._drawn:
            with console.use_theme(self.theme) if self.theme else nullcontext():
                self._drawn[width] = list(console.render(self.renderable, options))
        _WIDTHS[width] = None
        while len(_WIDTHS) > 2:
            del _WIDTHS[next(iter(_WIDTHS))]
        return self._drawn[width]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        yield from self.draw(console, options)


def worker_console() -> Console:
    """A console of the worker's own, with the settings of the one Textual renders with."""
    return Console(
        file=io.StringIO(),
        force_terminal=True,
        legacy_windows=False,
        safe_box=False,
        highlight=False,
        emoji=False,
    )


def ahead(drawn: Drawn, widths: tuple[int, ...] = ()) -> None:
    """In the worker: `drawn` at `widths`, or at the widths the last renderable was drawn at."""
    console = worker_console()
    for width in widths or list(_WIDTHS):
        drawn.draw(console, console.options.update(width=width, highlight=False))
