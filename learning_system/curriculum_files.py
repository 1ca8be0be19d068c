"""Reading a curriculum's files, contained: only regular files whose real path (every symlink
resolved) lies inside the curriculum root are opened, and only up to a byte limit. A link that
leads out of the root — a file or a folder — is refused with a reason, never followed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

OUTSIDE = "links outside the curriculum"
# Size caps (real lessons are about 30 KiB, banks 4 KiB): past them a file is cut (documents,
# glossary) or not read (a quiz bank cannot be cut), with a warning. Every reader of a
# curriculum's files (the loader, the Scout, packets) reads through `read_regular` with these.
MAX_DOC_BYTES = 1024 * 1024
MAX_GLOSSARY_BYTES = 4 * 1024 * 1024
MAX_QUIZ_BYTES = 4 * 1024 * 1024


def outside_target(path: Path, root: Path) -> str | None:
    """Where `path` really leads when that is outside `root` (the resolved root), else None."""
    real = os.path.realpath(path)
    base = os.fspath(root)
    if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
        return None
    return real


def read_regular(path: Path, size: int, root: Path) -> bytes | str:
    """Up to `size` bytes of a regular file inside `root`, or why it cannot be read. Opened
    non-blocking and checked before reading, so a FIFO, socket or device is refused instead of
    waited on; the file opened is checked to be the one inside the root."""
    target = outside_target(path, root)
    if target is not None:
        return f"{OUTSIDE} (to {target}); not read"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return str(exc.strerror or exc)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        # checked again on what was opened: a link swapped after the first check is caught
        real = os.path.realpath(path)
        same = os.stat(real)
        if outside_target(Path(real), root) is not None or (same.st_dev, same.st_ino) != (
            info.st_dev,
            info.st_ino,
        ):
            return "changed while it was opened; not read"
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(size)
    except OSError as exc:
        return str(exc.strerror or exc)
    finally:
        os.close(fd)
