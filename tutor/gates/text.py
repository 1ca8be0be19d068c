"""Text normalisation shared by the gates: compare what was checked with what is shown."""

from __future__ import annotations

import re
import unicodedata


def normalise(text: str) -> str:
    """NFKC, whitespace runs collapsed to one space, ends stripped. Case is kept: claims and
    excerpts must match verbatim."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return " ".join(text.split())


def excerpt_parts(excerpt: str) -> list[str]:
    """A reference excerpt may join several sources' excerpts, and an excerpt may elide text:
    its parts are separated by blank lines and by ellipses ('...' or '…'). Each part must be
    found in one cited source."""
    return [p for p in (x.strip() for x in _PART_SPLIT.split(excerpt)) if p]


class Text:
    """A text and, computed only when needed, its normalised form."""

    __slots__ = ("raw", "_norm")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self._norm: str | None = None

    @property
    def norm(self) -> str:
        if self._norm is None:
            self._norm = normalise(self.raw)
        return self._norm

    def contains(self, needle: str) -> bool:
        """`needle` occurs in the text, verbatim or once both are normalised."""
        return needle in self.raw or normalise(needle) in self.norm


_PART_SPLIT = re.compile(r"\n[ \t]*\n|\.\.\.|…")
