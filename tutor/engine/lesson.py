"""One lesson as a script: prior → probe → plan → teach → end-of-lesson quiz → end.

The script is a generator: it yields a Prompt and receives the learner's Action. It is
deterministic given its inputs and its journal (anything read from the store or made by a
model is memoised in the session's event log), so replaying the recorded actions lands exactly
where the learner stopped. Each phase is a module of tutor.engine.phases over one
LessonContext; preparation ahead is the context's Prefetcher."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import selection
from tutor.engine.context import LessonContext
from tutor.engine.phases import end, plan, prior, probe, quiz, teach
from tutor.engine.turns import Action, Prompt

Script = Generator[Prompt, Action, None]


def lesson_script(ctx: LessonContext) -> Script:
    strands = selection.strands(ctx.curriculum, ctx.lesson)
    yield from prior.run(ctx, strands)
    yield from probe.run(ctx)
    path = plan.steps(ctx, strands)
    yield from plan.run(ctx, path)
    yield from teach.run(ctx, path)
    yield from quiz.run(ctx)
    yield from end.run(ctx)
