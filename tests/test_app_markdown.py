"""Teaching markdown reaches Textual's Markdown widget with every code block naming a language:
an unnamed one would make the widget guess, importing every pygments lexer on the event loop."""

from __future__ import annotations

import subprocess
import sys

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


def test_the_markdown_widget_imports_a_handful_of_lexers_for_the_teaching():
    code = (
        "import asyncio, sys\n"
        "from textual.app import App\n"
        "from textual.widgets import Markdown\n"
        "from tutor.app.text import fenced_with_language\n"
        f"md = fenced_with_language({TEACHING!r})\n"
        "class A(App):\n"
        "    def compose(self):\n"
        "        yield Markdown(md)\n"
        "async def main():\n"
        "    async with A().run_test() as pilot:\n"
        "        await pilot.pause(0.2)\n"
        "asyncio.run(main())\n"
        "print(sum(m.startswith('pygments.lexers.') for m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert int(out) < 10, f"{out} pygments lexer modules imported"
