"""Lesson end: a lesson that taught or asked something is finished (the pending ingest is
written from it); one where nothing was taught or asked is not recorded as done."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine.context import LessonContext
from tutor.engine.records import Finish, Note
from tutor.engine.turns import Action, Prompt


def run(ctx: LessonContext) -> Generator[Prompt, Action, None]:
    """The done screen (the last: nothing is sent after it)."""
    ctx.position = "done"
    title = f"{ctx.lesson.id} {ctx.lesson.title}"
    if not ctx.taught and not ctx.asked:
        # nothing was taught or asked (every screen withheld): not a finished lesson
        ctx.completed = False
        ctx.journal.record(Note("incomplete", {"reason": "nothing was taught or asked"}))
        why = (
            "you skipped its steps and no question could be asked"
            if ctx.skipped
            else "every step and question was withheld"
        )
        yield _done(
            ctx,
            title,
            f"{ctx.lesson.title} was not taught this time: {why}. It is not recorded as done; "
            "`tutor continue` tries it again.",
        )
        return
    ctx.journal.record(Finish(ctx.verdicts, ctx.plan_titles, ctx.taught, ctx.skipped))
    yield _done(
        ctx,
        title,
        f"Lesson complete: {ctx.lesson.title}. Your answers and mistakes are saved.",
    )


def _done(ctx: LessonContext, title: str, content: str) -> Prompt:
    return Prompt(
        kind="done",
        message_id=ctx.mid("done"),
        stage="done",
        title=title,
        position="done",
        content=content,
    )
