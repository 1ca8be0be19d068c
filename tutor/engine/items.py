"""Curriculum bank items → the items a learner is shown.

A bank item is a candidate. It is shown as a multiple-choice item only when the mechanical rules
pass and no answer-free strategy (longest, shortest, most words, most overlap with the stem, odd
one out by length) singles out its key; otherwise it is asked as free recall, self-graded against
the reference, with the reason recorded. Key positions rotate across a batch.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from learning_system.curriculum import Curriculum, Lesson, QuizItem
from tutor.engine import numbers, repair, selfgrade
from tutor.engine.admission import Admission, Offer
from tutor.engine.guessing import guessable_by
from tutor.engine.option_sets import made, option_sets
from tutor.gates import mcq
from tutor.gates.envelopes import QuizQuestion

ItemType = Literal["mcq", "numeric", "free_recall"]
BLOOM_ORDER = ["remember", "understand", "apply", "analyze", "evaluate", "create"]
_APPLY_HINTS = re.compile(
    r"\b(compute|calculate|what is the (value|output|result)|given|evaluate|derive|how many|"
    r"what does .* (print|return|output)|which code|implement|if you)\b",
    re.I,
)
_ANALYZE_HINTS = re.compile(
    r"\b(why|compare|difference|trade-?off|best explains|most likely)\b", re.I
)


class Presented(BaseModel):
    """An item as the learner sees it."""

    model_config = ConfigDict(extra="forbid")

    id: str  # the bank item's id
    lesson_id: str
    type: ItemType
    question: str
    options: list[str] = []  # in shown order
    correct_index: int | None = None  # in shown order
    answer: float | None = None
    tolerance: float | None = None
    reference: str  # what a self-graded answer is compared with
    bloom: str
    stage: str
    note: str = ""  # why a bank item is asked as free recall
    # an explain-back's lesson as the words an explanation draws on (tutor.engine.selfgrade)
    grounds: str = ""
    # a bank item asked as free recall: its key option, which an answer may state exactly
    key: str = ""
    # who wrote the stem and key: the curriculum's bank, or a model (a rewrite, a re-probe);
    # a model's item is shown UNVERIFIED whatever the verifier says (tutor.gates.floor)
    written_by: Literal["bank", "model"] = "bank"
    # sentences of a model-written reference (a knowledge pack's facts) the program found in
    # none of the lesson's sources: marked UNVERIFIED on every grade that shows the reference
    unsourced: list[str] = []

    def to_question(self) -> QuizQuestion:
        return QuizQuestion(
            id=self.id,
            type=self.type,
            question=self.question,
            options=self.options,
            correct_index=self.correct_index,
            target_bloom=self.bloom,
            answer=self.answer,
            tolerance=self.tolerance,
        )

    def render(self) -> str:
        """The gated text of this item: its stem and its options in shown order. Key hints
        (`1/a`, "I don't know", how to answer) are each front end's own presentation."""
        return "\n".join([self.question, *self.options])


def bloom_of(item: QuizItem) -> str:
    if item.bloom in BLOOM_ORDER:
        return item.bloom
    if item.type == "numeric" or _APPLY_HINTS.search(item.question):
        return "apply"
    if _ANALYZE_HINTS.search(item.question):
        return "analyze"
    return "understand" if item.stage != "pre" else "remember"


def as_free_recall(item: Presented, note: str) -> Presented:
    """A presented choice item asked as free recall instead (the key becomes the reference)."""
    return item.model_copy(
        update={"type": "free_recall", "options": [], "correct_index": None, "note": note}
    )


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12], 16)


def _as_free_recall(item: QuizItem, lesson: Lesson, note: str) -> Presented:
    key = item.options[item.correct] if 0 <= item.correct < len(item.options) else ""
    reference = with_explanation(key, item.explanation) if key else item.explanation
    return Presented(
        id=item.id,
        lesson_id=lesson.id,
        type="free_recall",
        question=item.question,
        key=key,
        reference=reference or "(no reference in the bank)",
        bloom=bloom_of(item),
        stage=item.stage,
        note=note,
    )


def homes_of(
    curriculum: Curriculum | None, items: Sequence[QuizItem], lesson: Lesson
) -> dict[str, Lesson]:
    """Each item's own lesson (the one whose bank holds it: that very item, else an equal one —
    a partial curriculum read whole later holds copies); `lesson` when unknown."""
    out = {i.id: lesson for i in items}
    if curriculum is None:
        return out
    wanted = {id(i): i.id for i in items}
    found: set[str] = set()
    for home in curriculum.lessons:
        for q in home.quiz:
            if id(q) in wanted:
                out[q.id] = home
                found.add(q.id)
    rest = [i for i in items if i.id not in found]
    for home in curriculum.lessons if rest else []:
        for q in home.quiz:
            for i in rest:
                if q == i:
                    out[i.id] = home
    return out


def slots_for(n: int, salt: str) -> list[int]:
    """Key positions for n items: blocks of the four slots, each block shuffled — balanced in
    every prefix of the batch, and a fresh pattern for every salt."""
    rng = random.Random(_seed("slots", salt))
    out: list[int] = []
    while len(out) < n:
        block = [0, 1, 2, 3]
        rng.shuffle(block)
        out += block
    return out[:n]


Form = tuple[list[str], int, str]  # options, key index, "bank", "contrast", "repaired", "closed"


def choice_forms(
    bank: Sequence[QuizItem], homes: dict[str, Lesson], curriculum: Curriculum | None
) -> tuple[dict[str, Form], dict[str, str]]:
    """For each item of a bank that can be asked as multiple choice: (options, key index, how);
    for the rest, why not. Raw items are used as they are when they pass the rules; items whose
    only flaws are the options' shape offer up to ALTERNATIVES fair option sets made from their
    key or lent by their lesson (tutor.engine.option_sets), and the admission
    (tutor.engine.admission) chooses one set per item and which items are asked as choices, so
    that no answer-free strategy picks the key in more than ADMIT_CAP of them."""
    why: dict[str, str] = {}
    keyed: dict[str, set[str]] = {}
    vocabulary: dict[str, set[str]] = {}
    for q in bank:
        if 0 <= q.correct < len(q.options):
            keyed.setdefault(repair.norm(q.options[q.correct]), set()).add(q.question)
        for o in q.options:
            vocabulary.setdefault(repair.norm(o), set()).add(q.question)
    admission = Admission(keys=keyed, vocabulary=vocabulary)
    codes_of: dict[str, set[str]] = {}
    for item in bank:
        if item.type == "numeric":
            continue
        home = homes[item.id]
        found = option_sets(item, home, keyed, vocabulary, admission.in_use(home.id))
        codes_of[item.id] = found.codes
        offer = Offer(item.question, home.title, home.id, *found.offered())
        if not offer.sets:
            why[item.id] = (
                "its options repeat another item's key or option, and its lesson lends no "
                "fair others"
                if found.codes == {"shared"}
                else f"failed the quiz rules ({', '.join(sorted(found.codes))})"
            )
        elif admission.offer(item.id, offer) is None:
            why[item.id] = "every fair set of its options repeats an option shown in its lesson"
    offered = dict(admission.chosen)
    forms = {
        i: (o, k, made(admission.offers[i], admission.chosen[i], codes_of[i]))
        for i, (o, k) in admission.settle().items()
    }
    for item_id in offered.keys() - forms.keys():
        offer = admission.offers[item_id]
        opts, key = offer.sets[offered[item_id]]
        leaks = ", ".join(guessable_by(offer.question, opts, key, offer.title)) or "the bank's mix"
        why[item_id] = f"as a choice its key could be guessed ({leaks})"
    return forms, why


_FORMS: dict[tuple[object, ...], tuple[Curriculum | None, dict[str, Form], dict[str, str]]] = {}


def phase_forms(
    curriculum: Curriculum | None, lesson: Lesson
) -> tuple[dict[str, Form], dict[str, str]]:
    """choice_forms over the bank of the lesson's whole phase (the lesson's own bank without a
    curriculum): the guess cap holds over the whole phase, not a handful of items, and the
    forms are the same however much of the curriculum is loaded."""
    if curriculum is None:
        return choice_forms(lesson.quiz, {q.id: lesson for q in lesson.quiz}, None)
    lessons = curriculum.phase_lessons(lesson.phase)
    key = (id(curriculum), lesson.phase, len(lessons))
    if key not in _FORMS:
        bank = [q for x in lessons for q in x.quiz]
        homes = {q.id: x for x in lessons for q in x.quiz}
        if len(_FORMS) > 64:
            _FORMS.clear()
        _FORMS[key] = (curriculum, *choice_forms(bank, homes, curriculum))
    return _FORMS[key][1], _FORMS[key][2]


def _choice_forms(
    items: Sequence[QuizItem], homes: dict[str, Lesson], curriculum: Curriculum | None
) -> tuple[dict[str, Form], dict[str, str]]:
    """The batch's choice items with their options, and why each other item is not a choice
    item: no option text appears twice in a batch and no distractor is another item's key (such
    an item is asked another way, not repaired again outside the guess cap)."""
    chosen: dict[str, Form] = {}
    why: dict[str, str] = {}
    shown: set[str] = set()
    for item in items:
        forms, reasons = phase_forms(curriculum, homes[item.id])
        if item.id not in forms:
            why[item.id] = reasons.get(item.id, "not a choice item")
            continue
        options, key_at, how = forms[item.id]
        if how == "closed":  # one vocabulary recurs by nature: the admission weighed how often
            chosen[item.id] = (options, key_at, how)
            continue
        others = {
            repair.norm(o.options[o.correct])
            for o in items
            if o is not item and o.type == "mcq" and 0 <= o.correct < len(o.options)
        }
        if {repair.norm(o) for n, o in enumerate(options) if n != key_at} & (shown | others):
            why[item.id] = "its options would repeat another item's option or key in this batch"
            continue
        shown |= {repair.norm(o) for o in options}
        chosen[item.id] = (options, key_at, how)
    return chosen, why


def with_explanation(key: str, explanation: str) -> str:
    """The reference of a keyed item: its key, then (as a sentence after it) the bank's
    explanation."""
    key, explanation = key.strip(), explanation.strip()
    return f"{key.rstrip('.')}. {explanation}" if explanation else key


def present(
    items: Sequence[QuizItem], lesson: Lesson, salt: str = "", curriculum: Curriculum | None = None
) -> list[Presented]:
    """Present a batch of bank items. Deterministic for the same items, curriculum and salt
    (the session's seed). Which items may be multiple choice, and with which options, is
    decided over the bank of the item's phase (`phase_forms`); within the batch no option text
    appears twice (a clash is repaired again without it). Each item keeps its own lesson; key
    slots are balanced over the batch."""
    homes = homes_of(curriculum, items, lesson)
    chosen, why = _choice_forms(items, homes, curriculum)
    slots = iter(slots_for(len(chosen), "|".join([salt, *(i.id for i in items)])))
    out: list[Presented] = []
    for item in items:
        home = homes[item.id]
        if item.type == "numeric" and item.answer is not None:
            out.append(
                Presented(
                    id=item.id,
                    lesson_id=home.id,
                    type="numeric",
                    question=item.question,
                    answer=item.answer,
                    tolerance=item.tolerance or 0.0,
                    reference=f"{item.answer:g}. {item.explanation}".strip(),
                    bloom=bloom_of(item),
                    stage=item.stage,
                )
            )
            continue
        if item.id not in chosen:
            out.append(_as_free_recall(item, home, why.get(item.id, "not a choice item")))
            continue
        options, key_at, how = chosen[item.id]
        key = options[key_at]
        distractors = [o for n, o in enumerate(options) if n != key_at]
        random.Random(_seed(item.id, salt)).shuffle(distractors)
        slot = next(slots)
        distractors.insert(slot, key)
        values = mcq.numeric_values(distractors)
        if values is not None:  # numbers are shown in order (M11), the key where it falls
            distractors = [o for _, o in sorted(zip(values, distractors, strict=True))]
            slot = distractors.index(key)
        out.append(
            Presented(
                id=item.id,
                lesson_id=home.id,
                type="mcq",
                question=item.question,
                options=distractors,
                correct_index=slot,
                reference=with_explanation(key, item.explanation),
                bloom=bloom_of(item),
                stage=item.stage,
                note=repair.NOTES.get(how, ""),
            )
        )
    return out


def place_key(options: Sequence[str], key: int, salt: str) -> tuple[list[str], int]:
    """Shuffle options deterministically; returns them with the key's new index."""
    order = list(range(len(options)))
    random.Random(_seed(salt)).shuffle(order)
    return [options[n] for n in order], order.index(key)


def broad_to_narrow(items: Sequence[QuizItem]) -> list[QuizItem]:
    stage_rank = {"pre": 0, "check": 1, "post": 2}
    return sorted(
        items, key=lambda i: (BLOOM_ORDER.index(bloom_of(i)), stage_rank.get(i.stage, 1), i.index)
    )


def _exact(text: str) -> str:
    """Text as compared with a key: case, spaces, quotes and a closing full stop aside."""
    return re.sub(r"\s+", "", text.lower()).strip("`'\".")


def says_key(item: Presented, answer: str) -> bool:
    """A free-recall answer that says the bank's key: exactly (`lo = mid + 1` as `lo=mid+1`), or
    a short key within a short answer ("the FROM clause": selfgrade.says_within)."""
    key = _exact(item.key)
    return bool(key) and (_exact(answer) == key or selfgrade.says_within(answer, item.key))


def states_key(item: Presented, answer: str) -> bool:
    """An answer that is exactly the key, where the question does not already hold it (a
    question naming its answer among others, "H2 or O2?", leaves that answer to be confirmed by
    a grader)."""
    key = _exact(item.key)
    return bool(key) and _exact(answer) == key and key not in _exact(item.question)


def grade(item: Presented, answer: str) -> bool | None:
    """True/False for MCQ and numeric answers, and right for a free-recall answer that states
    the key exactly (`states_key`) or says a key that is a name (selfgrade.names_key); None
    when it must be graded otherwise (tutor.engine.grading: the program's check, then the model
    or the learner)."""
    if item.type == "free_recall" and (
        states_key(item, answer) or selfgrade.names_key(answer, item.question, item.key)
    ):
        return True
    if item.type == "mcq":
        return answer.isdigit() and int(answer) == item.correct_index
    if item.type == "numeric":
        key, tolerance = item.answer or 0.0, (item.tolerance or 0.0) + 1e-9
        return any(abs(value - key) <= tolerance for value in numbers.readings(answer))
    return None
