"""Teach: each planned step, drafted (or compiled) and fact-checked — prepared ahead while the
one before is read — then a checkpoint after every second step and the Feynman explain-back
after the last."""

from __future__ import annotations

from collections.abc import Generator

from learning_system.curriculum import QuizItem
from tutor.dossier.teaching import step_evidence
from tutor.engine import items as bank
from tutor.engine import selection, selfgrade
from tutor.engine.asking import ask
from tutor.engine.context import LessonContext
from tutor.engine.items import Presented
from tutor.engine.personal import freeze
from tutor.engine.records import Answer, Mistake, Note, Taught
from tutor.engine.screens import gated, show, withheld, yes_no
from tutor.engine.steps import Step, key_sentences, labels
from tutor.engine.turns import Action, Prompt
from tutor.gates.checker import Block

QUIZ_KEEP = 2  # checkpoints never take the end-of-lesson quiz below this many items
FEYNMAN_RUBRIC = [
    "says what it is in your own words",
    "says when and why it is used",
    "says how it differs from its nearest neighbour",
    "gives one concrete example",
]

Script = Generator[Prompt, Action, None]


def feynman_question(rule: str) -> str:
    """`says what it is…` → `Does it say what it is…?`"""
    verb, _, rest = rule.partition(" ")
    base = {"says": "say", "gives": "give", "does": "do", "has": "have"}.get(
        verb, verb[:-1] if verb.endswith("s") else verb
    )
    return f"Does it {base} {rest}?"


def run(ctx: LessonContext, plan: list[Step]) -> Script:
    for n, step in enumerate(plan, 1):
        ctx.position = f"step {n}/{len(plan)}"
        yield from teach_step(ctx, step, n, plan)


def teach_step(ctx: LessonContext, step: Step, n: int, plan: list[Step]) -> Script:
    total = len(plan)
    ctx.prep.steps(plan, n)
    # while the step is read: the audit of the checkpoint after it (nothing is asked while a
    # step is read, so it is the item the checkpoint will ask), and after the last step the
    # explain-back's and the quiz's
    item = checkpoint_item(ctx, step, n) if n < total else None
    if n == total:
        ctx.prep.gated_audit("audit:feynman", "checkpoint", feynman_prompt(ctx))
        ctx.prep.quiz()
    elif item is not None:
        ctx.prep.audits(f"audit:check:{n}", [item], "checkpoint")
    made, outcome = ctx.prep.step(step, n)
    title = f"Step {n}/{total} · {step.title}"
    if isinstance(outcome, Block):
        yield from withheld(ctx, "teach", title, outcome)
        return
    freeze(ctx, step, n)
    action = yield from show(
        ctx, "teach", title, outcome, sources=labels(ctx, step, made["sources"])
    )
    if action.kind == "skip":  # not taught: kept apart in the notes and the outcome
        ctx.skipped.append(step.title)
        ctx.journal.record(Note("skipped", {"step": step.title}))
        return
    ctx.taught.append(
        Taught(outcome.message_id, step.title, outcome.content, made["sources"], outcome.unverified)
    )
    yield from checkpoint(ctx, n, total, item)


def checkpoint(ctx: LessonContext, n: int, total: int, item: Presented | None) -> Script:
    """A checkpoint after every second step (and the last): the Feynman explain-back at the
    end of the lesson; otherwise the step's checkpoint item, asked with feedback."""
    title = f"Step {n}/{total} · checkpoint"
    if n == total:
        yield from feynman(ctx, title)
        return
    if item is not None:
        yield from ask(ctx, item, "checkpoint", title, ctx.concept, feedback=True)


def checkpoint_item(ctx: LessonContext, step: Step, n: int) -> Presented | None:
    """After an even step: the step's evidence from a ready knowledge pack, else a bank item
    the steps so far have taught (`_taught`) that neither the probe nor the quiz uses (`check`
    items first; the quiz keeps at least QUIZ_KEEP), else a free-recall question on the step's
    own key sentences, self-graded by key points, worded to stand alone in a review. None after
    an odd step."""
    if n % 2:
        return None
    evidence = evidence_item(ctx, step, n)
    if evidence is not None:
        return evidence
    quiz_ids = [q.id for q in selection.quiz_bank(ctx.lesson) if q.id not in ctx.asked]
    spare_quiz = set(quiz_ids[QUIZ_KEEP:])
    candidates = [
        q
        for q in ctx.lesson.quiz
        if q.id not in ctx.asked
        and (q.stage == "check" or q.id not in quiz_ids or q.id in spare_quiz)
    ]
    said = selfgrade.stems(" ".join([*(t.content for t in ctx.taught), step.section.text]))
    candidates = [q for q in candidates if _taught(q, said)]
    candidates.sort(key=lambda q: (q.stage != "check", q.id in spare_quiz, q.index))
    salt = f"{ctx.session_id}:check:{n}"
    for p in bank.present(candidates, ctx.lesson, salt=salt, curriculum=ctx.curriculum):
        if p.type in ("mcq", "numeric"):
            return p
    sentences = key_sentences(step.section.text, 3, spread=True)
    if not sentences:
        return None
    return Presented(
        id=f"{ctx.concept}-step{n}-recall",
        lesson_id=ctx.lesson.id,
        type="free_recall",
        question=f"In your own words: what does {ctx.lesson.title} say about {step.section.title}?",
        reference=" ".join(sentences),
        bloom="understand",
        stage="check",
    )


TAUGHT_SHARE = 0.6  # of an item's words, those the steps so far must have said


def _taught(item: QuizItem, said: set[str]) -> bool:
    """Whether the steps so far (their words, `said`) have taught what a bank item asks: most
    of the content words of its question and key are theirs."""
    key = item.options[item.correct] if 0 <= item.correct < len(item.options) else ""
    asked = selfgrade.stems(f"{item.question} {key}")
    return bool(asked) and len(asked & said) >= TAUGHT_SHARE * len(asked)


def evidence_item(ctx: LessonContext, step: Step, n: int) -> Presented | None:
    """What the learner must show for the step, from the lesson's ready knowledge pack: free
    recall with the facts it proves as reference, model-written (so shown UNVERIFIED); the
    reference's sentences not found in the sources are marked UNVERIFIED on its grade."""
    shown = step_evidence(ctx.pack, step.section.title) if step.lesson is ctx.lesson else None
    if shown is None:
        return None
    return Presented(
        id=f"{ctx.concept}-step{n}-evidence",
        lesson_id=ctx.lesson.id,
        type="free_recall",
        question=shown.prompt,
        reference=shown.reference,
        bloom="understand",
        stage="check",
        written_by="model",
        unsourced=shown.unsourced,
    )


def feynman_prompt(ctx: LessonContext) -> str:
    return f"Explain {ctx.lesson.title} back, as if to a friend. A good explanation:\n" + "\n".join(
        f"  {n}. {r}" for n, r in enumerate(FEYNMAN_RUBRIC, 1)
    )


def feynman(ctx: LessonContext, title: str) -> Script:
    """Explain the lesson back; the learner checks it against the four rubric rules; passed
    with all four. Recorded as an attempt and shown as a gated grade."""
    action = yield from gated(ctx, "text", "checkpoint", title, feynman_prompt(ctx))
    if action is None:
        return
    idk = action.value == "idk"
    judged = yield from _judge(ctx, title, action)
    if judged is None:
        return  # a rubric screen was withheld: no Feynman grade from part of the rubric
    hits, why_not = judged
    passed = len(hits) == len(FEYNMAN_RUBRIC)
    answer = Answer(
        attempt_id=ctx.mid("feynman-attempt"),
        purpose="feynman",
        concept=ctx.concept,
        item=None,
        answer="I don't know" if idk else action.text,
        confidence=None,
        outcome="idk" if idk else "correct" if passed else "wrong",
        feynman=passed,
        rubric_hits=tuple(hits),
    )
    ctx.journal.record(answer)
    if idk:  # not known, so it comes back in review
        ctx.journal.record(Mistake(answer, "structural", "I don't know", retest_early=False))
    item = Presented(
        id=f"{ctx.concept}-feynman",
        lesson_id=ctx.lesson.id,
        type="free_recall",
        question=f"Explain {ctx.lesson.title} back.",
        reference=ctx.lesson.motto or ctx.lesson.title,
        bloom="understand",
        stage="check",
    )
    missing = [r for r in FEYNMAN_RUBRIC if r not in hits]
    content = (
        f"Feynman check: {'passed' if passed else 'not yet'} — {len(hits)} of "
        f"{len(FEYNMAN_RUBRIC)}.{why_not}"
        + ("" if passed else " Still to cover: it " + "; it ".join(missing) + ".")
    )
    outcome = ctx.gate.grade(
        ctx.mid("feynman-grade"),
        content,
        item.to_question(),
        answer.answer,
        passed,
        item.reference,
        rubric=FEYNMAN_RUBRIC,
        rubric_hits=hits,
    )
    if isinstance(outcome, Block):
        yield from withheld(ctx, "checkpoint", title, outcome)
    else:
        yield from show(ctx, "checkpoint", title, outcome)


def _judge(
    ctx: LessonContext, title: str, action: Action
) -> Generator[Prompt, Action, tuple[list[str], str] | None]:
    """The rubric rules the explain-back meets and, when it is not checked against them, why:
    "I don't know", or text that does not explain in the lesson's own terms (the program's
    check comes first, so nonsense never reaches the learner's own yes)."""
    if action.value == "idk":
        return [], " You said you don't know yet: the lesson's steps are worth a second read."
    lesson = _lesson_text(ctx)
    if selfgrade.copied(action.text, lesson):
        return [], " It is the lesson's own text: explain it in your own words."
    if not selfgrade.explains(action.text, lesson, ctx.lesson.title):
        return [], " It does not yet explain in the lesson's own terms."
    hits = yield from _rubric(ctx, title, action.text)
    return None if hits is None else (hits, "")


def _rubric(
    ctx: LessonContext, title: str, text: str
) -> Generator[Prompt, Action, list[str] | None]:
    """The rubric rules the learner says their explanation meets; None when a rule's screen
    was withheld."""
    hits = []
    for n, rule in enumerate(FEYNMAN_RUBRIC, 1):
        check = yield from yes_no(
            ctx,
            "checkpoint",
            title,
            f"Your explanation: {text}\n\n{feynman_question(rule)} ({n} of {len(FEYNMAN_RUBRIC)})",
        )
        if check is None:
            return None
        if check.value == "y":
            hits.append(rule)
    return hits


def _lesson_text(ctx: LessonContext) -> str:
    """What an explain-back of the lesson is measured against: its motto, objectives and
    sections."""
    lesson = ctx.lesson
    return " ".join([lesson.motto or "", *lesson.objectives, *(s.text for s in lesson.sections)])
