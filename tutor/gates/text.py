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
    parts = _PART_SPLIT.split(excerpt)
    return [p for p in (normalise(x) for x in parts) if p]


_PART_SPLIT = re.compile(r"\n[ \t]*\n|\.\.\.|…")
