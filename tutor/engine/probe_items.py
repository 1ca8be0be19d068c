"""The probe's questions for one strand: its bank items as presented (broad to narrow), the
groups the edge search runs over, and the explain-in-your-own-words item of each strand."""

from __future__ import annotations

from learning_system.curriculum import Lesson
from tutor.engine import selection, selfgrade
from tutor.engine.context import LessonContext
from tutor.engine.edge_search import EdgeSearch
from tutor.engine.items import Presented
from tutor.engine.selection import Strand, concept_id


def presented(ctx: LessonContext, strand: Strand) -> list[Presented]:
    """A strand's items as presented, broad to narrow, before any model rewrite."""
    return selection.present_strand(strand, ctx.session_id, ctx.curriculum)


def queues(strand: Strand, pool: list[Presented]) -> list[list[Presented]]:
    """The items of each group the edge search runs over, broad to narrow — choice and free
    recall alike (a free-recall answer is graded by the program for the search): one group per
    catch-up member, or the strand's own."""
    if not strand.members:
        return [pool]
    return [[p for p in pool if p.lesson_id == m.lesson.id] for m in strand.members]


EXPLAIN_POINTS = 3  # a lesson's objectives an explain-back is checked against, at most


def explain_item(lesson: Lesson) -> Presented | None:
    """Explain the lesson in your own words (its key insight, for a math lesson), checked
    against what the lesson sets out to teach — its first objectives, else its motto, else its
    first sentences — by an explanation drawn from the lesson's own words (its `grounds`). None
    for a lesson with none of those (a folder with no document): there is nothing to explain."""
    aims = [a.strip().rstrip(".") + "." for a in lesson.objectives[:EXPLAIN_POINTS] if a.strip()]
    opening = selfgrade.key_points(lesson.sections[0].text)[:2] if lesson.sections else []
    reference = " ".join(aims) or lesson.motto or " ".join(opening)
    if not reference:
        return None
    text = " ".join([lesson.motto or "", *lesson.objectives, *(s.text for s in lesson.sections)])
    math = any(i.type == "numeric" for i in lesson.quiz)
    what = "the key insight behind" if math else "in your own words:"
    return Presented(
        id=f"{concept_id(lesson)}-explain",
        lesson_id=lesson.id,
        type="free_recall",
        question=f"Explain {what} {lesson.title}.",
        reference=reference,
        grounds=" ".join(sorted(selfgrade.stems(text))),
        bloom="understand",
        stage="pre",
    )


def search(queue: list[Presented], revealed: frozenset[str] = frozenset()) -> EdgeSearch:
    """The edge search over one group's items, knowing which of them are free recall and which
    the learner has seen graded before (`revealed`: item ids)."""
    return EdgeSearch(
        len(queue),
        frozenset(j for j, p in enumerate(queue) if p.type == "free_recall"),
        frozenset(j for j, p in enumerate(queue) if p.id in revealed),
    )
