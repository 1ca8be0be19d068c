"""A probe batch's results: each answer graded and shown, the follow-ups the rules call for (a
re-probe after a right hunch, "why?" after one sure answer at Apply or above), and each strand's
verdict with its evidence."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import asdict, replace

from learning_system.scheduling import Outcome as Graded
from tutor.engine.asking import ask
from tutor.engine.context import LessonContext
from tutor.engine.grading import answer_words, reveal, right_answer, shown_answer
from tutor.engine.items import Presented
from tutor.engine.records import Answer, Mistake, Note
from tutor.engine.screens import gated, status, yes_no
from tutor.engine.selection import Strand
from tutor.engine.turns import Action, Prompt, Table
from tutor.engine.verdicts import (
    GRADED_OUTCOMES,
    MIN_EVIDENCE,
    NOT_PROBED,
    Evidence,
    strand_verdict,
)
from tutor.engine.words import clip

Script = Generator[Prompt, Action, None]
DEEP_BLOOM = ("apply", "analyze", "evaluate", "create")


def _cut(text: str, width: int) -> str:
    """One line of at most `width` characters, cut at a word and marked with an ellipsis."""
    return clip(" ".join(text.split()), width)


def _row(ctx: LessonContext, a: Answer, follow_up: str = "") -> Evidence:
    item = a.item
    assert item is not None
    return Evidence(
        item=item.id,
        lesson=item.lesson_id,
        answer=shown_answer(item, a.answer),
        confidence=a.confidence,
        outcome=a.outcome,
        follow_up=follow_up,
        self_graded=item.type == "free_recall" and ctx.drafter is None,
        question=item.question,
        given=answer_words(item, a.answer),
        right=right_answer(item),
    )


def run(
    ctx: LessonContext,
    strand: Strand,
    title: str,
    answers: list[Answer],
    free: list[Answer],
    recorded: frozenset[str] = frozenset(),
) -> Script:
    """The batch's answers graded and shown, the follow-ups, and each strand's verdict (one
    `recorded` solid in the learner's records may be confirmed by one answer)."""
    title = title + " · results"
    if not answers and not free:
        # its bank is empty or every question of it was withheld: there is nothing to judge
        banks = [g.lesson.quiz for g in strand.members or (strand,)]
        why = "its questions were withheld" if any(banks) else "its lesson has no questions"
        ctx.journal.record(
            Note("verdict", {"strand": strand.name, "verdict": NOT_PROBED, "evidence": []})
        )
        yield from status(
            ctx,
            "results",
            title,
            f"No verdict for {strand.name}: {why}, so nothing was asked.",
        )
        return
    graded = yield from reveal(ctx, answers + free, title)
    answers, free = graded[: len(answers)], graded[len(answers) :]
    misconceived: set[str] = set()
    evidence = yield from _follow_ups(ctx, strand, title, answers, misconceived)
    evidence += [_row(ctx, f, "free recall") for f in free]
    for r in evidence:
        if r.outcome in ("wrong", "idk"):
            ctx.missed.setdefault(r.lesson, []).append(f"{r.question} {r.right}")
    members = strand.members or (strand,)
    for member in members:  # each strand judged on its own answers only
        own = [r for r in evidence if r.lesson == member.lesson.id]
        ctx.verdicts[member.name] = strand_verdict(
            own, member.lesson.id in misconceived, member.name in recorded
        )
    if strand.members:
        judged = [ctx.verdicts[m.name] for m in members]
        verdict = (
            NOT_PROBED
            if all(v == NOT_PROBED for v in judged)
            else strand_verdict(evidence, bool(misconceived))
        )
    else:
        verdict = ctx.verdicts[strand.name]
    ctx.journal.record(
        Note(
            "verdict",
            {
                "strand": strand.name,
                "verdict": verdict,
                "evidence": [asdict(r) for r in evidence],
                "verdicts": dict(ctx.verdicts),
            },
        )
    )
    yield from _summary(ctx, strand, members, title, verdict, evidence)


def _follow_ups(
    ctx: LessonContext, strand: Strand, title: str, answers: list[Answer], misconceived: set[str]
) -> Generator[Prompt, Action, list[Evidence]]:
    """The evidence rows of the batch's choice answers, after the follow-ups the rules call
    for; a lesson whose "why?" showed a misconception is added to `misconceived`."""
    evidence: list[Evidence] = []
    why_done = False
    for a in answers:
        item = a.item
        assert item is not None
        follow_up = ""
        if a.outcome == "correct" and a.confidence == "hunch":
            follow_up = yield from reprobe(ctx, strand, item, title)
        elif (
            a.outcome == "correct"
            and a.confidence == "sure"
            and not why_done
            and item.bloom in DEEP_BLOOM
        ):
            why_done = True
            sound = yield from why(ctx, a, title)
            if sound is None:
                follow_up = "why: withheld"
            else:
                follow_up = "why: sound" if sound else "why: misconception"
            if sound is False:
                misconceived.add(item.lesson_id)
        evidence.append(_row(ctx, a, follow_up))
    return evidence


MARKS = {"correct": "✓ right", "wrong": "✗ wrong", "idk": "· I don't know"}


def _mark(r: Evidence) -> str:
    """Right or wrong in words beside its glyph (never a glyph or a colour alone); a sure
    answer that was wrong says so."""
    mark = MARKS.get(r.outcome, "… not graded")
    return mark + " — you were sure" if r.outcome == "wrong" and r.confidence == "sure" else mark


def _summary(
    ctx: LessonContext,
    strand: Strand,
    members: tuple[Strand, ...],
    title: str,
    verdict: str,
    evidence: list[Evidence],
) -> Script:
    """The batch's results that teach: each question, your answer, the right answer where
    yours was not, your confidence and the follow-up; then the verdict by strand."""
    lines = [f"Verdict for {strand.name}: {verdict}", ""]
    for r in evidence:
        sure_and_wrong = r.outcome == "wrong" and r.confidence == "sure"
        sureness = (
            f" ({r.confidence.replace('_', ' ')})" if r.confidence and not sure_and_wrong else ""
        )
        follow = f" · {r.follow_up}" if r.follow_up else ""
        lines.append(f"  {_mark(r)}{sureness}{follow}: {_cut(r.question, 80)}")
        lines.append(f"      your answer: {_cut(r.given, 80)}")
        if r.outcome != "correct":
            lines.append(f"      right answer: {_cut(r.right, 80)}")
    if strand.members:
        lines += ["", "By strand:"]
        lines += [f"  {m.name}: {ctx.verdicts[m.name]}" for m in strand.members]
    unjudged = [m for m in members if ctx.verdicts[m.name] == NOT_PROBED]
    if unjudged:
        lines += ["", f"'{NOT_PROBED}' (no verdict; the plan refreshes it):"]
        lines += [f"  {m.name}: {_why_not_probed(m, evidence)}" for m in unjudged]
    rows = [
        [
            _cut(r.question, 60),
            _cut(r.given, 40),
            "" if r.outcome == "correct" else _cut(r.right, 40),
            r.confidence or "",
            r.outcome,
            r.follow_up,
        ]
        for r in evidence
    ]
    headers = ["question", "your answer", "right answer", "confidence", "outcome", "follow-up"]
    yield from status(
        ctx, "results", title, "\n".join(lines), table=Table(headers=headers, rows=rows)
    )


def _why_not_probed(member: Strand, evidence: list[Evidence]) -> str:
    """Why a strand has fewer than MIN_EVIDENCE graded answers of its own."""
    graded = sum(
        1 for r in evidence if r.lesson == member.lesson.id and r.outcome in GRADED_OUTCOMES
    )
    bank = len(member.items)
    held = f"{graded} graded answer{'s' if graded != 1 else ''} of its own, {MIN_EVIDENCE} needed"
    if bank >= MIN_EVIDENCE:
        return f"{held}: the other questions were withheld or not answered"
    items = f"{bank} item{'s' if bank != 1 else ''}"
    explained = any(r.lesson == member.lesson.id and r.item.endswith("-explain") for r in evidence)
    if explained:
        return f"{held}: only {items} in its bank, and its explain-back was not graded"
    return f"{held}: only {items} in its bank, and its explain-back was not answered"


def reprobe(
    ctx: LessonContext, strand: Strand, item: Presented, title: str
) -> Generator[Prompt, Action, str]:
    """Right but a hunch: one more item on the same concept (the same lesson's bank), a
    different item; it counts only when it is right and sure."""
    spare = [
        p for p in ctx.prep.pool(strand) if p.id not in ctx.asked and p.lesson_id == item.lesson_id
    ]
    spare.sort(key=lambda p: p.type == "free_recall")
    drafter = ctx.drafter
    if drafter is not None:
        made = ctx.journal.memo(f"reprobe:{item.id}", lambda: drafter.isomorphic(item))
        if made:
            spare.insert(0, Presented.model_validate(made))
    if not spare:
        return "re-probe: none available"
    # a model's variant of the question asks it again; a bank's other item asks the same lesson
    again_as = "worded differently" if spare[0].written_by == "model" else "on the same lesson"
    yield from status(
        ctx, "results", title, f"You were right but tagged it a hunch: one more, {again_as}."
    )
    again = yield from ask(
        ctx, spare[0], "probe", title + " · re-probe", ctx.concept_of(spare[0]), feedback=True
    )
    if again and again.outcome == "correct":
        return "re-probe: right, sure" if again.confidence == "sure" else "re-probe: right, unsure"
    return "re-probe: wrong"


def why(ctx: LessonContext, answer: Answer, title: str) -> Generator[Prompt, Action, bool | None]:
    """ "You were sure: why?" and the learner's check of their reasoning against the reference;
    a wrong reasoning is a misconception. None when the spot-check could not be shown."""
    item = answer.item
    assert item is not None
    action = yield from gated(
        ctx,
        "text",
        "results",
        title,
        f"You were sure about: {item.question}\nWhy? Give your reasoning in a sentence or two.",
        purpose="probe",
    )
    if action is None:
        return None
    if action.value == "idk":  # sure, yet no reason: a guess taken for knowledge
        _unsound(ctx, answer, "I don't know")
        return False
    check = yield from yes_no(
        ctx,
        "results",
        title,
        f"Your reasoning: {action.text}\nReference: {item.reference}\n\n"
        "Does your reasoning match the reference?",
    )
    if check is None:
        return None
    if check.value != "y":
        _unsound(ctx, answer, action.text)
        return False
    ctx.journal.record(_reasoning(answer, action.text, "correct"))
    return True


def _reasoning(answer: Answer, text: str, outcome: Graded) -> Answer:
    return replace(
        answer, answer=text, attempt_id=answer.attempt_id + ":why", outcome=outcome, purpose="why"
    )


def _unsound(ctx: LessonContext, answer: Answer, text: str) -> None:
    """Reasoning that does not match the reference: a misconception, retested early."""
    reasoning = _reasoning(answer, text, "wrong")
    ctx.journal.record(reasoning)
    ctx.journal.record(Mistake(reasoning, "structural", "misconception: " + text, True))
