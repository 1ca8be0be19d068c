"""A teaching step's markdown as one widget: Rich renders the whole section (headings, lists,
tables, quotes, code) in a single Static, coloured from the app's theme.

Textual's Markdown widget mounts a widget per block, per list item and per table cell (about 115
for a 3.7k-character section), and styling them stalls the event loop for longer than a frame.
Every style here also has a form that reads without colour (bold, underline, a quote bar, a
bullet), links are inert text followed by their address, and a code block that names no
language is plain text (Rich never guesses a lexer, so pygments' lexers are not all imported)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown
from rich.padding import Padding
from rich.syntax import Syntax
from rich.text import Text
from rich.theme import Theme
from textual.color import Color
from textual.theme import Theme as AppTheme
from textual.widgets import Static

from tutor.app.drawn import Drawn, ahead, worker_console
from tutor.app.text import clean, fenced_with_language

if TYPE_CHECKING:
    from markdown_it.token import Token
    from pygments.lexer import Lexer
    from rich.text import JustifyMethod


class _Heading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = {f"h{n}": "left" for n in range(1, 7)}


@functools.lru_cache(maxsize=8)
def _source(markdown: str) -> str:
    return fenced_with_language(clean(markdown))


@functools.lru_cache(maxsize=64)
def _highlighted(code: str, language: str, theme: str) -> Text:
    """The code coloured by pygments, once for every width it is drawn at (lexing is most of a
    code block's cost, and Textual draws a section at two widths when its scroll bar appears).
    An unknown language is plain text; none is ever guessed."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer: Lexer | str = get_lexer_by_name(language)
    except ClassNotFound:
        lexer = "text"
    syntax = Syntax(code, lexer, theme=theme, tab_size=4)
    text = syntax.highlight(code)
    text.rstrip()  # the newline pygments ends with
    return text


def _language(token: Token) -> str:
    return (token.info or "").partition(" ")[0] or "text"


def _code_theme(dark: bool) -> str:
    return "ansi_dark" if dark else "ansi_light"


def prepare(markdown: str, theme: AppTheme, variables: dict[str, str]) -> None:
    """Drawing `markdown`, done ahead in the worker that made the step rather than on the event
    loop: its diagrams labelled, its code blocks lexed, and the section drawn at the widths the
    last one was drawn at, on a console of its own with the app console's settings."""
    drawing = _drawing(_source(markdown), theme, variables)
    assert isinstance(drawing.renderable, _Markdown)
    code_theme = _code_theme(theme.dark)
    for token in drawing.renderable.parsed:
        if token.type in ("fence", "code_block"):
            _highlighted(token.content.rstrip(), _language(token), code_theme)
    ahead(drawing)


def warm() -> None:
    """What drawing the first section would do once (imports, the lexers for python and plain
    text, Rich's first table and list), done in a thread while the learner reads home."""
    for language in ("python", "text"):
        _highlighted("x = 1", language, _code_theme(True))
    sample = "# a\n\n- *b* `c`\n\n> d\n\n| e |\n|---|\n| 1 |\n"
    document = _Markdown(sample, code_theme=_code_theme(True), code_background="default")
    worker_console().print(document)


class _CodeBlock(CodeBlock):
    def __init__(self, lexer_name: str, theme: str, background: str) -> None:
        super().__init__(lexer_name, theme)
        self.background = background

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> _CodeBlock:
        lexer_name = _language(token)
        background = markdown.code_background if isinstance(markdown, _Markdown) else "default"
        return cls(lexer_name, markdown.code_theme, background)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = _highlighted(str(self.text).rstrip(), self.lexer_name, self.theme)
        yield Padding(code.copy(), (1, 2), style=f"on {self.background}", expand=True)


class _Markdown(Markdown):
    elements = {
        **Markdown.elements,
        "heading_open": _Heading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
    }

    def __init__(self, markup: str, code_theme: str, code_background: str) -> None:
        super().__init__(markup, code_theme=code_theme, hyperlinks=False)
        self.code_background = code_background


# the sections ready to draw, by source and app theme
_DRAWINGS: dict[tuple[str, str], Drawn] = {}


def _drawing(source: str, theme: AppTheme, variables: dict[str, str]) -> Drawn:
    key = (source, theme.name)
    if key not in _DRAWINGS:
        while len(_DRAWINGS) >= 4:
            del _DRAWINGS[next(iter(_DRAWINGS))]
        shade = Color(0, 0, 0, 0.1) if theme.dark else Color(255, 255, 255, 0.3)
        document = _Markdown(
            source,
            code_theme=_code_theme(theme.dark),
            code_background=(Color.parse(variables["background"]) + shade).hex,
        )
        _DRAWINGS[key] = Drawn(document, markdown_theme(variables, theme.dark))
    return _DRAWINGS[key]


def markdown_theme(variables: dict[str, str], dark: bool) -> Theme:
    """Rich's markdown styles in the colours Textual's Markdown widget takes from the theme."""
    background = Color.parse(variables["background"])

    def over(name: str, alpha: float = 1.0) -> str:
        return (background + Color.parse(variables[name]).multiply_alpha(alpha)).hex

    code = ("warning", "text-warning") if dark else ("error", "text-error")
    styles = {
        f"markdown.h{n}": f"{variables[f'markdown-h{n}-text-style']} {over(f'markdown-h{n}-color')}"
        for n in range(1, 7)
    }
    styles |= {
        "markdown.code": f"{over(code[1], 0.95)} on {over(code[0], 0.1)}",
        "markdown.block_quote": over("text-primary"),
        "markdown.item.bullet": f"bold {over('text-primary')}",
        "markdown.item.number": f"bold {over('text-primary')}",
        "markdown.link": f"underline {over('text-primary')}",
        "markdown.link_url": over("foreground", 0.6),
        "markdown.hr": over("secondary"),
        "markdown.table.border": over("foreground", 0.4),
        "markdown.table.header": "bold",
    }
    return Theme(styles)


class Teaching(Static):
    """The teaching markdown, cleaned of terminal escapes, with diagrams shown as their source."""

    DEFAULT_CSS = """
    Teaching {
        height: auto;
    }
    """

    def __init__(self, markdown: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.markdown = _source(markdown)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._draw)
        self._draw(self.app.current_theme)

    def _draw(self, theme: AppTheme) -> None:
        self.update(_drawing(self.markdown, theme, self.app.get_css_variables()))
