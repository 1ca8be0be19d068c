"""The step plans of a lesson's session: the learner's projection, read from `[learner]` and
the store, and each step's plan — stored with the session when the step is shown, so a shown
step keeps its plan across a restart while a step not yet shown follows the settings in
effect."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tutor.engine.projection import (
    CAPABILITIES,
    RECENT_MISTAKES,
    Declared,
    Evidence,
    Projection,
    project,
)
from tutor.engine.selection import concept_id
from tutor.engine.step_plan import StepPlan, plan_step

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson
    from learning_system.store import Store
    from tutor.engine.context import LessonContext
    from tutor.engine.steps import Step


def projection(ctx: LessonContext) -> Projection | None:
    """None when the session carries no learner settings (the unpersonalised plan)."""
    if ctx.learner is None:
        return None
    return project(ctx.learner, replace(ctx.evidence, verdicts=tuple(ctx.verdicts.values())))


def step_plan(ctx: LessonContext, step: Step, n: int) -> StepPlan:
    """The plan the step was shown with (stored with the session), else its plan now: a step
    not yet shown is planned afresh with the settings in effect."""
    from tutor.engine.steps import where

    if ctx.journal.memoized(f"plan:{n}"):
        return freeze(ctx, step, n)
    return plan_step(
        step.title,
        step.section,
        step.lesson.objectives,
        where(ctx, step),
        projection(ctx),
        refresh=step.lesson is not ctx.lesson,
    )


def freeze(ctx: LessonContext, step: Step, n: int) -> StepPlan:
    """The step's plan stored with the session as it is shown: from now on it is the plan."""
    return StepPlan.from_dict(
        ctx.journal.memo(f"plan:{n}", lambda: step_plan(ctx, step, n).as_dict())
    )


def text_key(plan: StepPlan, n: int) -> str:
    """The session's key for step n's text: the plain `step:n` for a step shown as its source
    reads; else it names the representations and density, so a change to them makes a step not
    yet shown anew."""
    if plan.representations == ("prose",) and not plan.fallback_reason:
        return f"step:{n}"
    return f"step:{n}:{'+'.join(plan.representations)}:d{plan.support.density}"


def evidence(store: Store, curriculum: Curriculum, lesson: Lesson) -> Evidence:
    """What the store holds for the projection: mastery of the lesson's strands (itself and
    its prerequisites), the error types of recent mistakes (newest first) and how many other
    lessons were begun. Only numbers and closed-vocabulary words leave here."""
    strands = [lesson]
    for ref in lesson.prerequisites:
        try:
            strands.append(curriculum.lesson(ref))
        except LookupError:
            continue
    rows = store.concepts.by_ids([concept_id(s) for s in strands])
    mastery = tuple(float(r["mastery"]) for r in rows.values() if r["mastery"] is not None)
    mistakes = reversed(store.mistakes.all())
    errors = tuple(m["error_type"] or "" for m in mistakes)[:RECENT_MISTAKES]
    others = {lid for lid in store.sessions.lessons().values() if lid != lesson.id}
    return Evidence(mastery=mastery, error_types=errors, lessons_seen=len(others))


def session_learner(
    store: Store, curriculum: Curriculum, lesson: Lesson
) -> tuple[Declared, Evidence]:
    """The learner's declared settings (read now: a change applies to steps not yet planned)
    and the store's evidence."""
    from tutor.learner_settings import load_learner

    chosen = load_learner()
    caps = tuple(c for c in CAPABILITIES if c in chosen.capabilities())
    declared = Declared(tuple(chosen.presentations), chosen.density, caps)
    return declared, evidence(store, curriculum, lesson)
