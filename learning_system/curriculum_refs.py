"""Lesson references: the ids learners type (`P1 L08`, `p1l8`, …) and the free-text
prerequisite lines of lesson documents (`Phase 1, Lessons 04-05 (Derivatives, Gradients)`)."""

from __future__ import annotations

import re

_REF = re.compile(r"^\s*p(?:hase)?\s*(\d{1,4})\s*[\s.,:/_-]*\s*l(?:esson)?\s*(\d{1,4})\s*$", re.I)
_MAX_RANGE = 200


def format_lesson_id(phase: int, number: int) -> str:
    return f"P{phase} L{number:02d}"


def id_slug(phase: int, number: int) -> str:
    """The lowercase, space-free form of a lesson id (`p1l08`), used to name quiz items."""
    return f"p{phase}l{number:02d}"


def parse_lesson_ref(ref: str) -> tuple[int, int] | None:
    """`P1 L08`, `P1 L8`, `P1.L08`, `p1l8`, `p1-l8`, `Phase 1 Lesson 8` -> (1, 8); else None."""
    match = _REF.match(ref or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


_TOKEN = re.compile(
    r"""
    (?P<compact>\bp\s*(?P<cp>\d{1,4})\s*[.\-_ ]?\s*l\s*(?P<cl>\d{1,4})\b)
    |(?P<phase>\bphases?\s*(?P<pn>\d{1,4})\b)
    |(?P<lesson>\blessons?\b)
    |(?P<num>\b(?P<a>\d{1,4})(?:\.(?P<a2>\d{1,4}))?
        (?:\s*(?:-|–|—|\bto\b|\bthrough\b)\s*(?P<b>\d{1,4})(?:\.(?P<b2>\d{1,4}))?)?\b)
    |(?P<conj>\band\b|\bor\b|&|\+)
    |(?P<word>[^\s\d]+)
    """,
    re.I | re.X,
)
_NONE = {"none", "-", "--", "—", "n/a", "nothing"}


def parse_prerequisites(text: str, own_phase: int) -> list[tuple[int, int]]:
    """(phase, lesson) pairs named by a prerequisite line, in the order written, without repeats.

    Lesson numbers follow a `Lesson`/`Lessons` word (`01-04`, `01 and 03`, `03.02` = phase 3
    lesson 2); a `Phase N` before them sets their phase, else it is the lesson's own phase. A whole
    phase named without lessons (`Phase 0`) names no particular lesson and yields nothing.
    """
    if not text or text.strip().lower().strip(".") in _NONE:
        return []
    found: list[tuple[int, int]] = []
    phase = own_phase
    listing = False  # inside "Lessons ..." until the next "Phase N"
    for chunk in re.split(r"[,;()\[\]]", text):
        expecting = listing
        last_was_number = False
        for token in _TOKEN.finditer(chunk):
            kind = token.lastgroup
            if kind == "compact":
                found.append((int(token.group("cp")), int(token.group("cl"))))
                expecting = last_was_number = False
            elif kind == "phase":
                phase = int(token.group("pn"))
                listing = expecting = last_was_number = False
            elif kind == "lesson":
                listing = expecting = True
                last_was_number = False
            elif kind == "num":
                if expecting:
                    found.extend(_expand(token, phase))
                expecting = False
                last_was_number = True
            elif kind == "conj":
                expecting = listing and last_was_number
                last_was_number = False
            else:
                expecting = last_was_number = False
    unique: list[tuple[int, int]] = []
    for pair in found:
        if pair not in unique:
            unique.append(pair)
    return unique


def _expand(token: re.Match[str], phase: int) -> list[tuple[int, int]]:
    a, a2, b, b2 = (token.group(name) for name in ("a", "a2", "b", "b2"))
    start_phase, start = (int(a), int(a2)) if a2 is not None else (phase, int(a))
    if b is None:
        return [(start_phase, start)]
    end = int(b2) if b2 is not None else int(b)
    if b2 is not None and int(b) != start_phase:
        return [(start_phase, start), (int(b), end)]
    if end < start or end - start > _MAX_RANGE:
        return [(start_phase, start)]
    return [(start_phase, n) for n in range(start, end + 1)]
