"""Asking one gated question: its quiz_audit (with up to two revision cycles when the audit
disputes a choice item), the screen, and the answer recorded the moment it is given."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import items as bank
from tutor.engine.context import LessonContext
from tutor.engine.grading import reveal
from tutor.engine.items import Presented
from tutor.engine.records import Answer
from tutor.engine.screens import audit_purpose, flags, withheld
from tutor.engine.turns import PROMPT_KIND, Action, Prompt
from tutor.gates.checker import Block, Emit


def ask(
    ctx: LessonContext,
    item: Presented,
    purpose: str,
    title: str,
    concept: str,
    feedback: bool = False,
) -> Generator[Prompt, Action, Answer | None]:
    """Ask one gated item; record the answer (not yet graded when feedback is withheld). None
    when the question was withheld."""
    item, message_id, outcome = _audited(ctx, item, purpose, concept)
    if isinstance(outcome, Block):
        ctx.withheld += 1
        yield from withheld(ctx, purpose, title, outcome)
        return None
    ctx.asked.add(item.id)
    action = yield Prompt(
        kind=PROMPT_KIND[item.type],
        message_id=message_id,
        stage=purpose,
        title=title,
        position=ctx.position,
        content=outcome.content,
        item=item,
        needs_confidence=True,
        unverified=outcome.unverified,
        flags=flags(ctx, outcome.flags),
    )
    given = action.text if item.type == "free_recall" else action.value
    idk = action.value == "idk"
    graded = None if idk else bank.grade(item, given)
    result = Answer(
        attempt_id=f"{message_id}:answer",
        purpose=purpose,
        concept=concept,
        item=item,
        answer="idk" if idk else given,
        confidence="no_idea" if idk else action.confidence,
        outcome="idk"
        if idk
        else ("pending" if graded is None else "correct" if graded else "wrong"),
        withheld=not feedback,
    )
    ctx.journal.record(result)
    if feedback:
        (result,) = yield from reveal(ctx, [result], title)
    return result


def _audited(
    ctx: LessonContext, item: Presented, purpose: str, concept: str
) -> tuple[Presented, str, Emit | Block]:
    """The item as it will be asked, its message id and its quiz_audit outcome. When the audit
    disputes a choice item: at most 2 revision cycles, each audited again — the model rewrites
    it from the problems found, then it is asked as free recall."""

    def audit(item: Presented, label: str, cycles: int) -> tuple[str, Emit | Block]:
        message_id = ctx.mid(f"ask:{item.id}{label}")
        return message_id, ctx.gate.ask(
            message_id,
            item.render(),
            [item.to_question()],
            audit_purpose(purpose),
            concept,
            item.reference,
            cycles=cycles,
            model_written=[item.id] if item.written_by == "model" else [],
        )

    message_id, outcome = audit(item, "", 0)
    cycles = 0
    for label in ("fix", "recall"):
        if not (
            isinstance(outcome, Block) and item.type == "mcq" and outcome.code in ("Q04", "Q05")
        ):
            break
        revised = (
            _fixed(ctx, item, message_id, outcome.reason)
            if label == "fix"
            else bank.as_free_recall(item, f"the quiz audit found issues ({outcome.code})")
        )
        if revised is not None:
            item, cycles = revised, cycles + 1
            message_id, outcome = audit(item, f":{label}", cycles)
    return item, message_id, outcome


def _fixed(ctx: LessonContext, item: Presented, message_id: str, problems: str) -> Presented | None:
    """With a model: the choice item rewritten where its audit found problems (kept only when
    it passes the multiple-choice rules), or None."""
    drafter = ctx.drafter
    if drafter is None or not ctx.gate.model_checks():
        return None
    made = ctx.journal.memo(f"fix:{message_id}", lambda: drafter.rewrite(item, problems=problems))
    return Presented.model_validate(made) if made else None
