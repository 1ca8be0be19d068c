"""Untrusted text (sources, model output, learner input) for the screen: terminal escapes
removed, and never read as Rich or Textual markup."""

from __future__ import annotations

from rich.text import Text

from learning_system.terminal import strip_terminal


def clean(text: str) -> str:
    return strip_terminal(text)


def safe(text: str, style: str = "") -> Text:
    return Text(strip_terminal(text), style=style)
