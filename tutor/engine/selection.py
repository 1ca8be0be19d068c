"""Which bank items a lesson draws on: the probe's strands and the end-of-lesson quiz. The
engine and `tutor items` both read them from here, so what is listed is what is asked."""

from __future__ import annotations

import re
from typing import Any

from learning_system.curriculum import Curriculum, Lesson, QuizItem
from tutor.engine.items import broad_to_narrow

CATCH_UP_STRANDS = 3  # this many strands or more are probed at once, as one pooled batch
CATCH_UP_PER_STRAND = 3
PROBE_SALT = ""
QUIZ_SALT = "quiz"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48]


def concept_id(lesson: Lesson) -> str:
    return f"{slug(lesson.id).replace('-', '')}-{slug(lesson.title)}"


def strands(curriculum: Curriculum, lesson: Lesson) -> list[dict[str, Any]]:
    """One strand per prerequisite lesson with a quiz bank (its whole bank); with none, the
    lesson's own starting point (its `pre` items, else its first four)."""
    out = []
    for ref in lesson.prerequisites:
        try:
            pre = curriculum.lesson(ref)
        except LookupError:
            continue
        if pre.quiz:
            out.append({"name": pre.title, "lesson": pre, "concept": concept_id(pre),
                        "items": list(pre.quiz)})
    if not out:
        own = [q for q in lesson.quiz if q.stage == "pre"] or lesson.quiz[:4]
        out.append({"name": f"starting point for {lesson.title}", "lesson": lesson,
                    "concept": concept_id(lesson), "items": own})
    return out


def probe_batches(curriculum: Curriculum, lesson: Lesson) -> list[dict[str, Any]]:
    """The probe's batches: the strands, or — with CATCH_UP_STRANDS or more — one catch-up batch
    pooling the broadest items of each, which keeps its strands as `members` so the verdict can
    be mapped back to each of them."""
    found = strands(curriculum, lesson)
    if len(found) < CATCH_UP_STRANDS:
        return found
    pooled: list[QuizItem] = []
    for s in found:
        s["items"] = broad_to_narrow(s["items"])[:CATCH_UP_PER_STRAND]
        pooled += s["items"]
    return [{"name": "catch-up across " + ", ".join(s["name"] for s in found), "lesson": lesson,
             "concept": concept_id(lesson), "items": pooled, "members": found}]


def quiz_bank(lesson: Lesson) -> list[QuizItem]:
    """The end-of-lesson quiz draws on the `post` items (all items when a bank has none)."""
    return [q for q in lesson.quiz if q.stage == "post"] or list(lesson.quiz)
