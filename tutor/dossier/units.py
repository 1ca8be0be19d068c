"""A lesson's source split into units by the program, and the fingerprint of that source.

A unit is a block of lines between blank lines (a code fence is one block, blank lines and all),
under a `##`-or-deeper heading. Headings are not facts: a heading line is never a unit, it names
the units under it. The preamble (title, motto, `**Type:**` lines) and the `Further Reading`
section (links, not statements) are not units either."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.dossier.model import PACK_SCHEMA, SourceUnit

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
NOT_FACTS = frozenset({"further reading", "references", "resources"})


@dataclass(frozen=True)
class LessonSource:
    """The files a lesson's pack rests on: today its document."""

    lesson_id: str
    curriculum: str
    root: Path
    files: tuple[Path, ...]

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name


def lesson_source(lesson: Lesson, curriculum: Curriculum) -> LessonSource:
    """The source of a curriculum's lesson (its `docs/en.md`, when it has one). Packs are kept
    per curriculum folder: the same lesson id in another curriculum is another lesson."""
    files = (lesson.doc_path,) if lesson.doc_path is not None else ()
    return LessonSource(lesson.id, str(curriculum.root), curriculum.root, files)


def fingerprint(source: LessonSource) -> str:
    """sha256 of the pack schema and every source file's bytes (a missing file counts as
    empty): any edit, and any schema change, gives another fingerprint."""
    digest = hashlib.sha256(PACK_SCHEMA.encode())
    for path in source.files:
        digest.update(source.rel(path).encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"\0missing")
        digest.update(b"\0")
    return digest.hexdigest()


def split_units(source: LessonSource) -> list[SourceUnit]:
    units: list[SourceUnit] = []
    for path in source.files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for start, end, (part, section), body in _blocks(text.splitlines()):
            units.append(
                SourceUnit(
                    id=f"u{len(units) + 1}",
                    file=source.rel(path),
                    start_line=start,
                    end_line=end,
                    section=section,
                    part=part,
                    text=body,
                    sha256=hashlib.sha256(body.encode()).hexdigest(),
                )
            )
    return units


def _blocks(lines: list[str]) -> list[tuple[int, int, tuple[str, str], str]]:
    """(first line, last line, (`##` section, nearest heading), text) of each block; lines are
    1-based."""
    blocks: list[tuple[int, int, tuple[str, str], str]] = []
    part = section = ""
    current: list[int] = []  # 0-based indexes of the block's lines
    fenced = False

    def close() -> None:
        if current and part and part.lower() not in NOT_FACTS:
            body = "\n".join(lines[i] for i in current)
            blocks.append((current[0] + 1, current[-1] + 1, (part, section), body))
        current.clear()

    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
            current.append(i)
            continue
        if fenced:
            current.append(i)
            continue
        heading = HEADING.match(line)
        if heading:
            close()
            level = len(heading.group(1))
            if level == 2:
                part = heading.group(2)
            if level >= 2:
                section = heading.group(2)
            continue
        if not line.strip():
            close()
            continue
        current.append(i)
    close()
    return blocks
