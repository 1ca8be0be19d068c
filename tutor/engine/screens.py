"""The screens every phase shows, each passed through the gate checker first: status text,
a gated teaching or result turn, a program-made question, and the banner of a withheld turn."""

from __future__ import annotations

import hashlib
from collections.abc import Generator
from typing import Any

from tutor.engine.context import LessonContext
from tutor.engine.records import Note
from tutor.engine.turns import Action, Prompt, PromptKind
from tutor.gates.checker import Block, Emit
from tutor.gates.claims import extract_claims
from tutor.gates.envelopes import QuizQuestion

Screens = Generator[Prompt, Action, Action]


def audit_purpose(purpose: str) -> str:
    """The quiz_audit purpose of a stage: the quiz is audited as the end-of-lesson quiz."""
    return "end-of-lesson quiz" if purpose == "quiz" else purpose


def flags(ctx: LessonContext, shown: list[str]) -> list[str]:
    """The screen's flags, with the one line saying the model went offline (shown once)."""
    told = ctx.gate.notice()
    return [*shown, told] if told else list(shown)


def read(
    ctx: LessonContext,
    stage: str,
    title: str,
    content: str,
    message_id: str | None = None,
    **kw: Any,
) -> Screens:
    """A screen the learner reads and leaves with enter (or skips)."""
    action = yield Prompt(
        kind="read",
        message_id=message_id or ctx.mid(stage),
        stage=stage,
        title=title,
        position=ctx.position,
        content=content,
        **{**kw, "flags": flags(ctx, kw.get("flags", []))},
    )
    return action


def claim_texts(outcome: Emit) -> list[str]:
    """The sentences of a turn its unverified claim ids (`c1`, `c2` … over its claims:
    tutor.gates.claims.extract_claims) name, so a screen can say which ones to treat with care."""
    claims = extract_claims(outcome.content)
    numbers = [int(i[1:]) for i in outcome.unverified if i[:1] == "c" and i[1:].isdigit()]
    return [claims[n - 1] for n in numbers if 0 < n <= len(claims)]


def show(ctx: LessonContext, stage: str, title: str, outcome: Emit, **kw: Any) -> Screens:
    """Show a turn that passed its gate, under the message id its receipts are bound to."""
    return (
        yield from read(
            ctx,
            stage,
            title,
            outcome.content,
            outcome.message_id,
            unverified=outcome.unverified,
            unverified_claims=claim_texts(outcome),
            flags=outcome.flags,
            **kw,
        )
    )


def withheld(ctx: LessonContext, stage: str, title: str, outcome: Block) -> Screens:
    """The banner shown instead of a turn its gate blocked; the block is noted."""
    ctx.journal.record(Note("withheld", {"code": outcome.code, "reason": outcome.reason}))
    return (
        yield from read(
            ctx,
            stage,
            title,
            "",
            banner=outcome.banner + ". Continue with the next step, or review the source.",
        )
    )


def status(ctx: LessonContext, stage: str, title: str, content: str, **kw: Any) -> Screens:
    """Status text (the prior table, a verdict summary, navigation): through the checker as a
    notice — it carries no claim and no question."""
    outcome = ctx.gate.notice_turn(ctx.mid(stage), content)
    if isinstance(outcome, Block):
        return (yield from withheld(ctx, stage, title, outcome))
    return (yield from show(ctx, stage, title, outcome, **kw))


def gated_question(ctx: LessonContext, stage: str, content: str) -> QuizQuestion:
    """A program-made question as its audit sees it, named by its content (so its audit can be
    prepared before it is shown)."""
    digest = hashlib.sha256(content.encode()).hexdigest()[:10]
    return QuizQuestion(id=f"{ctx.concept}-{stage}-{digest}", type="free_recall", question=content)


def gated(
    ctx: LessonContext,
    kind: PromptKind,
    stage: str,
    title: str,
    content: str,
    purpose: str = "checkpoint",
) -> Generator[Prompt, Action, Action | None]:
    """A screen that asks the learner something of the program's own making (why?, the
    Feynman explain-back, a self-grade against the reference): its text is the stem of a
    free-recall question and passes quiz_audit. None when it is withheld."""
    message_id = ctx.mid(stage)
    outcome = ctx.gate.ask(
        message_id,
        content,
        [gated_question(ctx, stage, content)],
        audit_purpose(purpose),
        ctx.concept,
        content,
    )
    if isinstance(outcome, Block):
        yield from withheld(ctx, stage, title, outcome)
        return None
    return (
        yield Prompt(
            kind=kind,
            message_id=message_id,
            stage=stage,
            title=title,
            position=ctx.position,
            content=outcome.content,
            unverified=outcome.unverified,
            flags=flags(ctx, outcome.flags),
        )
    )


def yes_no(
    ctx: LessonContext, stage: str, title: str, content: str
) -> Generator[Prompt, Action, Action | None]:
    """A gated y/n question (a key point covered, a rubric rule met); None when withheld."""
    return (yield from gated(ctx, "yes_no", stage, title, content))
