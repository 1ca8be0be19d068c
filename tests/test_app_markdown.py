"""Teaching markdown on the lesson screen: every code block names a language (an unnamed one
must not make anything guess, importing every pygments lexer on the event loop), the whole
section is one widget however many blocks it has, and what it holds reads without colour."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_app import _screen_text
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region

from tutor.app.teaching import Teaching
from tutor.app.text import fenced_with_language

TEACHING = """Intro.

```
x = 1
```

- a list item

  ~~~~
  inside the item
  ~~~~

> ```
> quoted
> ```

```python
y = 2
```

````
```
not a fence: inside one
```
````
"""


def test_every_unnamed_fence_gets_text_and_nothing_else_changes():
    expected = (
        TEACHING.replace("```\nx = 1", "```text\nx = 1")
        .replace("  ~~~~\n  inside", "  ~~~~text\n  inside")
        .replace("> ```\n> quoted", "> ```text\n> quoted")
        .replace("````\n```\nnot", "````text\n```\nnot")
    )
    assert expected.count("text\n") == 4
    assert fenced_with_language(TEACHING) == expected  # the fence inside a block is left alone
    assert fenced_with_language("no code here") == "no code here"


SECTION = """## Dot products

Intro with `inline code`, **bold**, *emphasis* and a [link](https://example.com/dot).

- a first item
- a second item
  1. nested one
  2. nested two

> A quote to remember.

| vector | length |
|--------|--------|
| (3, 4) | 5      |

```
plain = 1
```

```python
def f(x):
    return x * 2
```
"""


class _One(App[None]):
    def __init__(self, markdown: str) -> None:
        super().__init__()
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Teaching(self.markdown, id="teaching")


def test_the_teaching_imports_a_handful_of_lexers():
    code = (
        "import asyncio, sys\n"
        "from test_app_markdown import TEACHING, _One\n"
        "async def main():\n"
        "    async with _One(TEACHING).run_test() as pilot:\n"
        "        await pilot.pause(0.2)\n"
        "asyncio.run(main())\n"
        "print(sum(m.startswith('pygments.lexers.') for m in sys.modules))\n"
    )
    tests = str(Path(__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tests
    ).stdout.strip()
    assert int(out) < 10, f"{out} pygments lexer modules imported"


async def test_a_section_is_one_widget_however_many_blocks_it_has():
    app = _One(SECTION * 4)
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        teaching = app.query_one("#teaching")
        assert list(teaching.walk_children()) == []
        assert teaching.virtual_size.height > 60  # all four copies are laid out, not cut


async def test_the_section_reads_without_colour_and_its_links_are_inert(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = _One(SECTION)
    async with app.run_test(size=(80, 50)) as pilot:
        await pilot.pause()
        shown = _screen_text(app)
        lines = [line.strip() for line in shown.splitlines()]
        for text in ("Dot products", "inline code", "nested two", "plain = 1", "return x * 2"):
            assert text in shown
        assert "https://example.com/dot" in shown  # the address is shown, not a hidden target
        assert "• a first item" in lines and "1 nested one" in " ".join(lines).replace("  ", " ")
        assert any(line.startswith("▌ A quote to remember.") for line in lines)
        assert any("(3, 4)" in line and "5" in line for line in lines)
        teaching = app.query_one("#teaching")
        drawn = teaching.render_lines(Region(0, 0, *teaching.size))
        styles = [segment.style for line in drawn for segment in line if segment.style]
        assert not [s for s in styles if s.link or s.meta]  # nothing to click, nothing to open


async def test_a_section_drawn_ahead_in_a_worker_is_what_the_screen_would_draw():
    """The next step is drawn in the worker at the widths the last one was drawn at; those
    lines must be the ones the app's own console draws, and the screen must show them."""
    from tutor.app import teaching

    app = _One(SECTION)
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        theme, variables = app.current_theme, app.get_css_variables()
        on_screen = teaching._DRAWINGS[(teaching._source(SECTION), theme.name)]
        widths = sorted(on_screen._drawn)
        teaching._DRAWINGS.clear()
        teaching.prepare(SECTION, theme, variables)
        ahead = teaching._DRAWINGS[(teaching._source(SECTION), theme.name)]
        assert widths and set(widths) <= set(ahead._drawn)
        assert all(ahead._drawn[w] == on_screen._drawn[w] for w in widths)
        shown = _screen_text(app)
        await app.query_one(VerticalScroll).remove_children()
        await app.query_one(VerticalScroll).mount(Teaching(SECTION, id="teaching"))
        await pilot.pause()
        assert _screen_text(app) == shown
