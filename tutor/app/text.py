"""Untrusted text (sources, model output, learner input) for the screen: terminal escapes
removed, and never read as Rich or Textual markup."""

from __future__ import annotations

from rich.text import Text

from learning_system.terminal import strip_terminal


def clean(text: str) -> str:
    return strip_terminal(text)


def safe(text: str, style: str = "") -> Text:
    return Text(strip_terminal(text), style=style)


DIAGRAMS = {"mermaid", "plantuml", "dot", "graphviz"}


def fenced_with_language(markdown: str, language: str = "text") -> str:
    """The markdown with every fenced code block that names no language given `language`, and
    every diagram block (```mermaid and the like) labelled as a diagram and shown as plain text.
    A renderer that guessed an unnamed block's language would import every pygments lexer (a
    third of a second, on the event loop). Fences are found by a markdown-it parser, as the
    teaching's renderer finds them, so a fence in a list or a quote, or a fence-like line
    inside a block, is read the way the renderer reads it."""
    from markdown_it import MarkdownIt

    lines = markdown.splitlines(keepends=True)
    for token in MarkdownIt("gfm-like").parse(markdown):
        named = token.info.strip().split(maxsplit=1)
        if token.type != "fence" or token.map is None or (named and named[0] not in DIAGRAMS):
            continue
        line = lines[token.map[0]]
        at = line.find(token.markup)
        if at < 0:
            continue
        end = at + len(token.markup)
        if not named:
            lines[token.map[0]] = f"{line[:end]}{language}{line[end:]}"
            continue
        # a diagram the terminal cannot draw: its source, labelled, in a plain box
        label = f"diagram ({named[0].lower()}), shown as its source:"
        opening = f"{line[:end]}text\n"
        if line[:at].strip(" >"):  # after a list marker: the label goes inside the box
            lines[token.map[0]] = f"{opening}{label}\n"
        else:
            lines[token.map[0]] = f"{line[:at]}*{label}*\n{opening}"
    return "".join(lines)
