"""Which bank items a lesson draws on, and how they are presented: the probe's strands and the
end-of-lesson quiz. The engine and `tutor items` both take them from here, so what is listed
is what is asked — a function of the curriculum, the lesson and the session's seed (its id),
never of the front end or of how much of the curriculum is loaded."""

from __future__ import annotations

import re
from dataclasses import dataclass

from learning_system.curriculum import Curriculum, Lesson, QuizItem
from tutor.engine.items import Presented, broad_to_narrow, present

CATCH_UP_STRANDS = 3  # this many strands or more are probed at once, as one pooled batch
CATCH_UP_GROUP = 3  # strands per catch-up batch, at most


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48]


def concept_id(lesson: Lesson) -> str:
    return f"{slug(lesson.id).replace('-', '')}-{slug(lesson.title)}"


@dataclass(frozen=True)
class Strand:
    """One line of prerequisites the probe asks along: a prerequisite lesson and its bank
    items; a catch-up batch pools the items of its `members`, each judged on its own answers."""

    name: str
    lesson: Lesson
    concept: str
    items: tuple[QuizItem, ...]
    members: tuple[Strand, ...] = ()


def strands(curriculum: Curriculum, lesson: Lesson) -> list[Strand]:
    """One strand per prerequisite lesson with a quiz bank (its whole bank); with none, the
    lesson's own starting point (its `pre` items, else its first four)."""
    out: list[Strand] = []
    for ref in lesson.prerequisites:
        try:
            pre = curriculum.lesson(ref)
        except LookupError:
            continue
        if pre.quiz:
            out.append(Strand(pre.title, pre, concept_id(pre), tuple(pre.quiz)))
    if not out:
        own = [q for q in lesson.quiz if q.stage == "pre"] or lesson.quiz[:4]
        out.append(
            Strand(f"starting point for {lesson.title}", lesson, concept_id(lesson), tuple(own))
        )
    return out


def probe_batches(curriculum: Curriculum, lesson: Lesson) -> list[Strand]:
    """The probe's batches: the strands, or — with CATCH_UP_STRANDS or more — catch-up batches
    of at most CATCH_UP_GROUP strands each (as even as can be), each pooling its strands' items
    and keeping them as `members`, so every strand is judged on answers of its own."""
    found = strands(curriculum, lesson)
    if len(found) < CATCH_UP_STRANDS:
        return found
    count = -(-len(found) // CATCH_UP_GROUP)
    size, extra = divmod(len(found), count)
    out: list[Strand] = []
    start = 0
    for g in range(count):
        members = found[start : start + size + (g < extra)]
        start += len(members)
        pooled = tuple(q for s in members for q in broad_to_narrow(s.items))
        name = "catch-up across " + ", ".join(s.name for s in members)
        out.append(Strand(name, lesson, concept_id(lesson), pooled, tuple(members)))
    return out


def probe_salt(seed: str | None, strand: Strand) -> str:
    """How a session's seed (its id) shuffles a probe strand's options; None: the fixed order
    `tutor items` lists without a session."""
    return "" if seed is None else f"{seed}:probe:{strand.concept}"


def quiz_salt(seed: str | None) -> str:
    """How a session's seed (its id) shuffles the end-of-lesson quiz's options; None: the
    fixed order `tutor items` lists without a session."""
    return "quiz" if seed is None else f"{seed}:quiz"


def quiz_bank(lesson: Lesson) -> list[QuizItem]:
    """The end-of-lesson quiz draws on the `post` items (all items when a bank has none)."""
    return [q for q in lesson.quiz if q.stage == "post"] or list(lesson.quiz)


def present_strand(
    strand: Strand, seed: str | None, curriculum: Curriculum | None
) -> list[Presented]:
    """A strand's items as a session with this seed presents them, broad to narrow."""
    return present(
        broad_to_narrow(strand.items),
        strand.lesson,
        salt=probe_salt(seed, strand),
        curriculum=curriculum,
    )


def present_quiz(
    lesson: Lesson,
    seed: str | None,
    curriculum: Curriculum | None,
    asked: frozenset[str] = frozenset(),
) -> list[Presented]:
    """The end-of-lesson quiz's items not asked already, as a session with this seed presents
    them: the quiz bank is presented whole (its options and key slots do not depend on what
    the probe happened to ask), then what was asked is left out."""
    shown = present(quiz_bank(lesson), lesson, salt=quiz_salt(seed), curriculum=curriculum)
    return [p for p in shown if p.id not in asked]
