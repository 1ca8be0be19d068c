"""Grading answers once a batch is over: by key, by the model, or by the learner against the
reference's key points; each grade gated and shown; a wrong answer's mistake recorded with the
learner's own attribution."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import replace
from functools import partial

from tutor.engine import selfgrade
from tutor.engine.context import LessonContext
from tutor.engine.items import Presented, says_key
from tutor.engine.records import Answer, Grade, Mistake, Revealed
from tutor.engine.screens import flags, show, withheld, yes_no
from tutor.engine.turns import ERROR_TYPES, Action, Prompt
from tutor.gates.checker import Block, Emit

YesNoScreen = Callable[[int, str], Generator[Prompt, Action, Action | None]]


def graded_answer(item: Presented, answer: str) -> str:
    """The answer as the grade auditor reads it: options numbered from 1."""
    if answer == "idk":
        return "I don't know"
    return str(int(answer) + 1) if item.type == "mcq" and answer.isdigit() else answer


def shown_answer(item: Presented, answer: str) -> str:
    """An answer as the learner reads it: an option by its 1-based number (`option 2`), as
    the options are numbered on screen, never by its 0-based index."""
    if answer == "idk":
        return "I don't know"
    if item.type == "mcq" and answer.isdigit():
        return f"option {int(answer) + 1}"
    return answer


def answer_words(item: Presented, answer: str) -> str:
    """An answer in words: a chosen option as `2. its text`, "I don't know" for that."""
    if answer == "idk":
        return "I don't know"
    if item.type == "mcq" and answer.isdigit() and int(answer) < len(item.options):
        return f"{int(answer) + 1}. {item.options[int(answer)]}"
    return answer


def right_answer(item: Presented) -> str:
    """The right answer in words: the key option, the number, or the reference."""
    if item.type == "mcq" and item.correct_index is not None:
        return f"{item.correct_index + 1}. {item.options[item.correct_index]}"
    if item.type == "numeric" and item.answer is not None:
        return f"{item.answer:g}"
    return item.reference


def key_point_grade(
    item: Presented, answer: str, screen: YesNoScreen
) -> Generator[Prompt, Action, bool | None]:
    """Offline free recall: the reference's key points (its whole sentences); the learner is
    asked only about the points the answer could have made (`offered`), and marks each one it
    made (`screen(n, text)` asks); right when it made more than half of all the points. An
    answer offered none — nonsense, the question back, off-topic — is wrong without asking.
    None when a key-point screen was withheld (no grade from part of them)."""
    points = selfgrade.key_points(graded_reference(item))
    touched = offered(item, answer)
    if not touched:
        return False
    covered = 0
    for n, point in enumerate(points, 1):
        if point not in touched:
            continue  # none of its words in the answer: not made
        check = yield from screen(n, _point_question(item, n, len(points), point))
        if check is None:
            return None
        covered += check.value == "y"
    return selfgrade.passes(covered, len(points))


def _point_question(item: Presented, n: int, of: int, point: str) -> str:
    """The yes/no asked of one key point; an explain-back's points are what the lesson sets out
    to teach (its objectives, often worded as aims: "Implement …"), so it asks whether the
    explanation covered them."""
    if item.grounds:
        return f"What the lesson teaches, {n} of {of}: {point}\nDid your explanation cover it?"
    return f"Key point {n} of {of}: {point}\nDid your answer make this point?"


def offered(item: Presented, answer: str) -> list[str]:
    """The key points of the item's reference an answer could have made
    (tutor.engine.selfgrade.offered_points): every one for an answer that says the key, even
    one the question names among others ("O2" for "… H2 and O2 …, which is limiting?", "the
    FROM clause" for "Which clause … reads from?"), or one in the words of the bank's
    explanation after the key ("a string literal" where it says "Single quotes make a string
    literal")."""
    points = selfgrade.key_points(graded_reference(item))
    if says_key(item, answer):
        return points
    offered = selfgrade.offered_points(answer, item.question, graded_reference(item), item.grounds)
    if offered or item.grounds or graded_reference(item) == item.reference:
        return offered
    # the bank's explanation says why the key is right: an answer using two of its own words
    # may make the point (one, "there", is too easily said)
    explained = selfgrade.touched(answer, item.question, item.reference)
    own = selfgrade.stems(" ".join(explained)) - selfgrade.stems(item.question)
    return points if len(own & selfgrade.stems(answer)) >= 2 else []


def graded_reference(item: Presented) -> str:
    """What a free-recall answer's key points come from: a bank item's key (the bank's
    explanation after it in the reference is shown, not required), else the reference."""
    return item.key if selfgrade.stems(item.key) else item.reference


def could_answer(item: Presented, answer: str) -> bool:
    """Whether a free-recall text is an answer at all, before anyone grades it: an explanation
    drawn from its lesson for an explain-back, else well formed, on topic and more than the
    question's words (tutor.engine.selfgrade.answers_at_all). No grader, model or learner,
    turns anything else into right."""
    if item.grounds:
        return selfgrade.explains(answer, item.grounds, item.question)
    return says_key(item, answer) or selfgrade.answers_at_all(answer, item.question, item.reference)


def self_grade(
    ctx: LessonContext, item: Presented, answer: str, title: str
) -> Generator[Prompt, Action, bool | None]:
    """The learner grades a free-recall answer against the reference's key points."""

    def screen(n: int, point: str) -> Generator[Prompt, Action, Action | None]:
        text = f"{item.question}\n  Your answer: {answer}\n\n{point}"
        return (yield from yes_no(ctx, "results", title, text))

    return (yield from key_point_grade(item, answer, screen))


def grade_text(a: Answer) -> str:
    """The grade as shown: the question, the answer and its confidence, right or not, and the
    reference."""
    item = a.item
    assert item is not None
    shown = answer_words(item, a.answer)
    sureness = (a.confidence or "").replace("_", " ")
    verdict = (
        "right"
        if a.outcome == "correct"
        else "I don't know"
        if a.outcome == "idk"
        else ("not quite")
    )
    return (
        f"{item.question}\n  You answered: {shown} ({sureness})\n"
        f"  {verdict}. Reference: {item.reference}"
    )


def _gate_grade(ctx: LessonContext, label: str, a: Answer, cycles: int = 0) -> Emit | Block:
    item = a.item
    assert item is not None
    return ctx.gate.grade(
        ctx.mid(f"{label}:{item.id}"),
        grade_text(a),
        item.to_question(),
        graded_answer(item, a.answer),
        a.outcome == "correct",
        item.reference,
        cycles=cycles,
        unsourced=item.unsourced,
    )


def _prepare(ctx: LessonContext, answers: list[Answer]) -> None:
    """The grade audits of answers graded by key, and the model's grades of pending ones, in
    the background while the first results are read."""
    ctx.gate.prewarm(
        [
            ctx.gate.grade_envelope(
                a.item.to_question(),
                graded_answer(a.item, a.answer),
                a.outcome == "correct",
                a.item.reference,
            )
            for a in answers
            if a.item is not None and a.outcome != "pending"
        ]
    )
    drafter = ctx.drafter
    if drafter is None:
        return
    for a in answers:
        key = f"grade:{a.attempt_id}"
        if (
            a.outcome == "pending"
            and a.item is not None
            and could_answer(a.item, a.answer)
            and not ctx.journal.memoized(key)
        ):
            drafter.prefetch(key, partial(drafter.grade, a.item, a.answer))


def _model_grade(ctx: LessonContext, a: Answer) -> bool | None:
    drafter = ctx.drafter
    item = a.item
    if drafter is None or item is None:
        return None
    key = f"grade:{a.attempt_id}"
    grade = partial(drafter.grade, item, a.answer)
    passed: bool | None = ctx.journal.memo(key, lambda: drafter.take(key, grade))
    return passed


def reveal(
    ctx: LessonContext, answers: list[Answer], title: str
) -> Generator[Prompt, Action, list[Answer]]:
    """Grade answers (free recall: by the model when there is one, else by the learner against
    the reference), gate each grade, show it, and record the mistakes with the learner's own
    attribution. Independent grades are verified concurrently. Returns the answers as graded
    (one whose self-grade screen was withheld stays pending)."""
    _prepare(ctx, answers)
    shown = tuple(a.attempt_id for a in answers if a.withheld)
    if shown:
        ctx.journal.record(Revealed(shown))
    out: list[Answer] = []
    for a in answers:
        graded = yield from _grade_one(ctx, a, title)
        out.append(graded)
    return out


def _grade_one(ctx: LessonContext, a: Answer, title: str) -> Generator[Prompt, Action, Answer]:
    item = a.item
    assert item is not None
    pending = a.outcome == "pending"
    by_model = False
    if pending:
        answered = could_answer(item, a.answer)
        passed = _model_grade(ctx, a) if answered else False
        by_model = answered and passed is not None
        if passed is None:
            passed = yield from self_grade(ctx, item, a.answer, title)
            if passed is None:
                return a  # the self-grade screen was withheld: the answer stays pending
        a = replace(a, outcome="correct" if passed else "wrong")
    outcome = _gate_grade(ctx, "grade", a)
    if isinstance(outcome, Block) and by_model and outcome.code in ("R01", "R02"):
        # the audit disputes the model's grade: the learner grades it against the reference
        passed = yield from self_grade(ctx, item, a.answer, title)
        if passed is None:
            return replace(a, outcome="pending")
        a = replace(a, outcome="correct" if passed else "wrong")
        outcome = _gate_grade(ctx, "regrade", a, cycles=1)
    if pending and a.outcome in ("correct", "wrong"):
        ctx.journal.record(Grade(a.attempt_id, "correct" if a.outcome == "correct" else "wrong"))
    if isinstance(outcome, Block):
        yield from withheld(ctx, "results", title, outcome)
        return a
    yield from show(ctx, "results", title, outcome)
    if a.outcome == "wrong":
        yield from attribute(ctx, a, title, a.confidence == "sure")
    elif a.outcome == "idk":  # not known, so it comes back in review
        ctx.journal.record(Mistake(a, "structural", "I don't know", retest_early=False))
    return a


def attribute(
    ctx: LessonContext, answer: Answer, title: str, confident: bool
) -> Generator[Prompt, Action, None]:
    """What kind of slip it was, and in the learner's words what happened: the mistake row."""
    content = "What kind of slip was it? Then, in your words, what happened?"
    checked = ctx.gate.notice_turn(ctx.mid("mistake"), content)  # navigation text only
    action = yield Prompt(
        kind="error_type",
        message_id=checked.message_id,
        stage="mistake",
        title=title,
        position=ctx.position,
        content=checked.content if isinstance(checked, Emit) else "",
        flags=flags(ctx, []),
    )
    error_type = ERROR_TYPES[int(action.value) - 1]
    ctx.journal.record(Mistake(answer, error_type, action.text, retest_early=confident))
