"""A prompt's table (the probe's results, a checkpoint's) as the screen shows it: right or wrong
in words beside the glyph, coloured, with the confidence folded in; a sure answer that was wrong
stands out. It is built and drawn in the worker that made the prompt, so showing it on the event
loop copies lines rather than measuring every cell."""

from __future__ import annotations

from rich.table import Table

from learning_system.terminal import strip_terminal
from tutor.app.drawn import Drawn, ahead
from tutor.app.text import safe
from tutor.engine.turns import Prompt

MARK = {"correct": "✓ right", "wrong": "✗ wrong", "idk": "· I don't know"}
COLOUR = {"correct": "green", "wrong": "red"}
# a column's share of the width: the question widest, the answers next, the marks least
RATIO = {"question": 5, "your answer": 4, "right answer": 4, "outcome": 3}

_last: tuple[Prompt, Drawn] | None = None  # the table drawn ahead, for the prompt it was made for


def table(prompt: Prompt) -> Table:
    assert prompt.table is not None
    headers, rows = prompt.table.headers, prompt.table.rows
    results = "outcome" in headers and "confidence" in headers
    # in results, the confidence and the follow-up are said in the outcome's cell, under it
    folded = {"confidence", "follow-up"} if results else set()
    # a column with nothing in it takes no room
    shown = [
        n for n, h in enumerate(headers) if (n == 0 or any(r[n] for r in rows)) and h not in folded
    ]
    grid = Table(expand=True, padding=(0, 1))
    for n in shown:
        grid.add_column(
            headers[n], overflow="fold", ratio=RATIO.get(headers[n]) if results else None
        )
    for row in rows:
        cells = [safe(c) for c in row]
        style = ""
        if results:
            cell = dict(zip(headers, row, strict=True))
            outcome, sure = cell["outcome"], cell["confidence"]
            word = MARK.get(outcome, outcome) + (f" ({sure.replace('_', ' ')})" if sure else "")
            if outcome == "wrong" and sure == "sure":
                word, style = "✗ wrong — you were sure", "bold reverse"
            mark = safe(word, COLOUR.get(outcome, ""))
            if cell.get("follow-up"):
                mark.append("\n" + strip_terminal(cell["follow-up"]), style="dim")
            cells[headers.index("outcome")] = mark
        grid.add_row(*[cells[n] for n in shown], style=style)
    return grid


def drawn(prompt: Prompt) -> Drawn:
    """The prompt's table, the one drawn ahead if it was."""
    if _last is not None and _last[0] is prompt:
        return _last[1]
    return Drawn(table(prompt))


def draw_ahead(prompt: Prompt, widths: tuple[int, ...]) -> None:
    """In the worker: the table built and drawn at `widths`, kept for the screen to show."""
    global _last
    made = Drawn(table(prompt))
    ahead(made, widths)
    _last = (prompt, made)
