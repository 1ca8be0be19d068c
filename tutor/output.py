"""The one output path of the non-interactive commands: whatever they print — text from a file,
a page, a model or the learner included — reaches the terminal without escape sequences,
control characters or bidirectional overrides, and as valid UTF-8. JSON output is cleaned the
same way, value by value, before it is encoded."""

from __future__ import annotations

import io
import json
from typing import Any, TextIO

from learning_system.terminal import strip_terminal
from learning_system.text import valid_text


def clean_text(text: str) -> str:
    return valid_text(strip_terminal(text))


def one_line(text: str) -> str:
    """A message as the command line says it: cleaned for a terminal, on one line."""
    return " ".join(clean_text(text).split())


def clean_data(value: Any) -> Any:
    """JSON-like data with every string (keys too) cleaned for a terminal."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_data(k): clean_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_data(v) for v in value]
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """json.dumps of the cleaned value."""
    return json.dumps(clean_data(value), **kwargs)


class SafeStream(io.TextIOBase):
    """A text stream that cleans everything written through it before passing it on."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(clean_text(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")
