"""Files handed to a command, read total and bounded: regular files only (a FIFO or a device is
refused, never read), a size cap, UTF-8, JSON with limited depth and number size, every string
valid Unicode. Every failure is a one-line TutorError."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from learning_system.text import MAX_JSON_DEPTH, InputLimitError, loads_bounded
from tutor.errors import TutorError

MAX_INPUT_BYTES = 16 * 1024 * 1024


def read_text_file(path: Path, what: str, *, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `max_bytes`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise TutorError(f"cannot read the {what} {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TutorError(f"cannot read the {what} {path}: not a regular file")
        if info.st_size > max_bytes:
            raise TutorError(
                f"the {what} {path} is {info.st_size} bytes; the limit is {max_bytes} bytes"
            )
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise TutorError(f"cannot read the {what} {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise TutorError(f"the {what} {path} is more than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TutorError(f"the {what} {path} is not UTF-8 text (byte {exc.start})") from None


def read_json_file(path: Path, what: str, *, max_bytes: int = MAX_INPUT_BYTES) -> Any:
    """The JSON value of a file: at most MAX_JSON_DEPTH levels, numbers of bounded size, strings
    made valid text (a lone surrogate such as `\\ud800` becomes U+FFFD)."""
    text = read_text_file(path, what, max_bytes=max_bytes)
    try:
        return loads_bounded(text, max_depth=MAX_JSON_DEPTH)
    except json.JSONDecodeError as exc:
        raise TutorError(f"the {what} {path} is not valid JSON: {exc}") from None
    except InputLimitError as exc:
        raise TutorError(f"the {what} {path} is beyond the input limits: {exc}") from None
