"""Self-grading that resists self-deception: a free-recall answer is graded by the learner
against the reference split into key points, and an empty or nonsense answer is never right."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(`'\"])")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of to in on for and or is are be by with as at this that which what when how why "
    "from it its into than then does do you your i my me we it's not no yes so very just".split()
)
MIN_POINTS, MAX_POINTS = 2, 4
MIN_CONTENT_WORDS = 2
MIN_DISTINCT_SHARE = 0.4


def key_points(reference: str) -> list[str]:
    """2–4 key points of a reference: its sentences (the first ones), or — for a single
    sentence — its clauses."""
    text = " ".join(reference.split())
    points = [p.strip() for p in _SENTENCE.split(text) if len(p.strip()) > 3]
    if len(points) < MIN_POINTS:
        single = points[0] if points else text
        parts = [
            p.strip(" ,;")
            for p in re.split(r"[;,]\s+|\s+(?:and|while|but|so)\s+", single)
            if len(p.strip(" ,;")) > 3
        ]
        if len(parts) < MIN_POINTS:
            words = single.split()
            half = max(1, len(words) // 2)
            parts = [" ".join(words[:half]), " ".join(words[half:])]
        points = [p for p in parts if p]
        if len(points) > MAX_POINTS:
            points = points[: MAX_POINTS - 1] + [", ".join(points[MAX_POINTS - 1 :])]
    return points[:MAX_POINTS]


def _content(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2]


def looks_like_an_answer(answer: str, context: str) -> bool:
    """At least MIN_CONTENT_WORDS content words, not one word repeated (at least
    MIN_DISTINCT_SHARE of them distinct), and at least one shared with the question or its
    reference."""
    words = _content(answer)
    if len(set(words)) < MIN_CONTENT_WORDS:
        return False
    if len(set(words)) < MIN_DISTINCT_SHARE * len(words):
        return False
    return bool(set(words) & set(_content(context)))


def passes(covered: int, points: int) -> bool:
    """Right when the answer made more than half of the key points."""
    return covered * 2 > points
