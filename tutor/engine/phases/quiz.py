"""The end-of-lesson quiz: up to QUIZ_SIZE unasked bank items (choice items first), answers
withheld until the end, then graded like a probe batch."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine.asking import ask
from tutor.engine.context import LessonContext
from tutor.engine.grading import reveal
from tutor.engine.prefetch import QUIZ_SIZE
from tutor.engine.records import Answer
from tutor.engine.turns import Action, Prompt


def run(ctx: LessonContext) -> Generator[Prompt, Action, None]:
    ctx.position = "end-of-lesson quiz"
    pool = sorted(ctx.prep.quiz_pool(), key=lambda p: p.type == "free_recall")
    title = f"End-of-lesson quiz · {ctx.lesson.title}"
    ctx.prep.audits("audit:quiz", pool[:QUIZ_SIZE], "quiz")
    answers: list[Answer] = []
    for n, item in enumerate(pool[:QUIZ_SIZE], 1):
        ctx.position = f"quiz · question {n}"
        a = yield from ask(ctx, item, "quiz", title + f" · question {n}", ctx.concept)
        if a:
            answers.append(a)
    if answers:
        ctx.position = "quiz · results"
        yield from reveal(ctx, answers, title + " · results")
