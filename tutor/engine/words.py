"""The words of a text that carry its content: lower case, common words left out."""

from __future__ import annotations

import re

_STOP = frozenset(
    "the a an of to in on for and or is are be by with as at this that which what when how why "
    "from it its into than then does do you your".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def content_words(text: str) -> set[str]:
    """Lower-case words of a text, common words left out."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def words(text: str) -> set[str]:
    """Substantive words of a text (lower case, no short or common words)."""
    return {w for w in content_words(text) if len(w) > 2}


def counted(n: int, noun: str) -> str:
    """`n` and the noun, plural unless one: "1 mistake", "0 mistakes", "2 concepts"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def clip(text: str, width: int) -> str:
    """A text cut to at most `width` characters at a word, marked with "…" when cut."""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    if " " in cut and not text[width - 1].isspace():
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-") + "…"
