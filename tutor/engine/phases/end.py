"""Lesson end: a lesson that asked something is finished (the pending ingest is written from
it); one where nothing was taught or asked, or every question was withheld, is not recorded as
done, and its last screen says why and what to do."""

from __future__ import annotations

import shlex
from collections.abc import Generator

from tutor.engine.context import LessonContext
from tutor.engine.records import Finish, Note
from tutor.engine.steps import teaching_sections
from tutor.engine.turns import Action, Prompt

NOT_DONE = "ended, not done"  # the last screen's position when the lesson is not recorded done


def run(ctx: LessonContext) -> Generator[Prompt, Action, None]:
    """The done screen (the last: nothing is sent after it)."""
    ctx.position = "done"
    title = f"{ctx.lesson.id} {ctx.lesson.title}"
    why = _not_done(ctx)
    if why:
        ctx.completed = False
        ctx.position = NOT_DONE
        ctx.journal.record(Note("incomplete", {"reason": why}))
        yield _done(
            ctx,
            title,
            f"{ctx.lesson.title} was not taught this time: {why}. It is not recorded as done, "
            "and is tried again when you continue.",
        )
        return
    ctx.journal.record(Finish(ctx.verdicts, ctx.plan_titles, ctx.taught, ctx.skipped))
    yield _done(
        ctx,
        title,
        f"Lesson complete: {ctx.lesson.title}. Your answers and mistakes are saved.",
    )


def _not_done(ctx: LessonContext) -> str:
    """Why the lesson is not finished ("" when it is): nothing was taught or asked, or every
    question it had was withheld — a lesson is learnt by answering, not by reading alone."""
    if ctx.asked or not (ctx.withheld or not ctx.taught):
        return ""
    skipped = "you skipped its steps and " if ctx.skipped and not ctx.taught else ""
    if ctx.withheld and ctx.gate.verifier is not None:
        return (
            f"{skipped}the verifier model withheld every question ({ctx.withheld}), so nothing "
            "you know could be checked. Run `tutor doctor` to see the model and verifier in use; "
            "another verifier (TUTOR_VERIFIER_MODEL) or none (the offline checks) may let them "
            "through"
        )
    if ctx.withheld:
        return (
            f"{skipped}every question failed the quiz checks ({ctx.withheld}), so nothing you "
            f'know could be checked. `tutor items "{ctx.lesson.id}"` lists them with the reasons'
        )
    if skipped:
        return "you skipped its steps and no question could be asked"
    if not ctx.lesson.quiz and not teaching_sections(ctx.lesson):
        where = shlex.quote(str(ctx.curriculum.root))
        return (
            "it has no questions and no sections to teach from; "
            f"`tutor curriculum check {where}` says what was read"
        )
    return "every step and question was withheld"


def _done(ctx: LessonContext, title: str, content: str) -> Prompt:
    return Prompt(
        kind="done",
        message_id=ctx.mid("done"),
        stage="done",
        title=title,
        position=ctx.position,
        content=content,
    )
