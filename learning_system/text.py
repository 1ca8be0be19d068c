"""Text that can be stored: every string valid Unicode (no lone surrogates), JSON data bounded.

Input decoded with `surrogateescape` (the terminal's undecodable bytes) or JSON with `\\ud800`
escapes carries lone surrogates, which UTF-8 (and so SQLite) cannot hold. They become U+FFFD at
the store boundary, so one bad byte never blocks a write.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from learning_system.errors import LearningSystemError

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"

# Limits on JSON read from a file the learner (or anyone) hands to a command.
MAX_JSON_DEPTH = 64
MAX_NUMBER_CHARS = 400


class InputLimitError(LearningSystemError):
    """Input beyond a documented limit (nesting depth, number size, file size)."""


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def valid_text(text: str) -> str:
    """`text` with each lone surrogate (an undecodable byte) replaced by U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text) if has_surrogates(text) else text


def valid_data(value: Any, *, max_depth: int | None = None) -> Any:
    """A copy of JSON-like data with every string (keys too) made valid text. Iterative, so no
    depth can overflow the stack; deeper than `max_depth` raises InputLimitError."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]
    while stack:
        item, parent, slot, depth = stack.pop()
        if max_depth is not None and depth >= max_depth:
            raise InputLimitError(f"nested more than {max_depth} levels deep")
        if isinstance(item, str):
            parent[slot] = valid_text(item)
        elif isinstance(item, dict):
            out: dict[str, Any] = {}
            parent[slot] = out
            for k, v in item.items():
                key = valid_text(k) if isinstance(k, str) else k
                out[key] = None
                stack.append((v, out, key, depth + 1))
        elif isinstance(item, list | tuple):
            seq: list[Any] = [None] * len(item)
            parent[slot] = seq
            for i, v in enumerate(item):
                stack.append((v, seq, i, depth + 1))
        else:
            parent[slot] = item
    return root[0]


def _bounded_number(kind: type[int] | type[float]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            raise InputLimitError(f"a number longer than {MAX_NUMBER_CHARS} characters")
        value = kind(text)
        if value in (float("inf"), float("-inf")):
            raise InputLimitError(f"the number {text[:20]}… is out of range")
        return value

    return parse


def loads_bounded(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """json.loads for untrusted text: at most `max_depth` levels of nesting, numbers of at most
    MAX_NUMBER_CHARS characters, every string valid text. Raises InputLimitError or
    json.JSONDecodeError (a ValueError) with a message fit for one line."""
    import json

    try:  # the C parser guards its own recursion; the depth limit is checked after, iteratively
        data = json.loads(
            text,
            parse_int=_bounded_number(int),
            parse_float=_bounded_number(float),
            parse_constant=_reject_constant,
        )
    except RecursionError:
        raise InputLimitError(f"nested more than {max_depth} levels deep") from None
    return valid_data(data, max_depth=max_depth)


def _reject_constant(name: str) -> Any:
    raise InputLimitError(f"{name} is not a JSON number")
