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

from learning_system.curriculum import Lesson, QuizItem
from tutor.gates import mcq
from tutor.gates.envelopes import QuizQuestion

ItemType = Literal["mcq", "numeric", "free_recall"]
BLOOM_ORDER = ["remember", "understand", "apply", "analyze", "evaluate", "create"]
_STOP = frozenset(
    "the a an of to in on for and or is are be by with as at this that which what when how why "
    "from it its into than then does do you your".split()
)
_WORD = re.compile(r"[a-z0-9]+")
_APPLY_HINTS = re.compile(
    r"\b(compute|calculate|what is the (value|output|result)|given|evaluate|derive|how many|"
    r"what does .* (print|return|output)|which code|implement|if you)\b", re.I)
_ANALYZE_HINTS = re.compile(r"\b(why|compare|difference|trade-?off|best explains|most likely)\b",
                            re.I)


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

    def to_question(self) -> QuizQuestion:
        return QuizQuestion(
            id=self.id, type=self.type, question=self.question, options=self.options,
            correct_index=self.correct_index, target_bloom=self.bloom, answer=self.answer,
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


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def words(text: str) -> set[str]:
    """Substantive words of a text (lower case, no short or common words)."""
    return {w for w in _words(text) if len(w) > 2}


def as_free_recall(item: Presented, note: str) -> Presented:
    """A presented choice item asked as free recall instead (the key becomes the reference)."""
    return item.model_copy(update={"type": "free_recall", "options": [], "correct_index": None,
                                   "note": note})


def guessable_by(question: str, options: Sequence[str], key: int) -> list[str]:
    """The answer-free strategies that could pick the key (a tie that includes the key counts)."""
    lengths = [len(o) for o in options]
    mean = sum(lengths) / len(lengths)
    stem = _words(question)
    longest = max(range(len(options)), key=lambda n: lengths[n])
    rest = [n for n in range(len(options)) if n != longest]
    checks = {
        "longest": lengths,
        "shortest": [-n for n in lengths],
        "most_words": [len(o.split()) for o in options],
        "stem_overlap": [len(stem & _words(o)) for o in options],
        "odd_length": [abs(n - mean) for n in lengths],
        "strike_longest": [lengths[n] if n in rest else -1 for n in range(len(options))],
    }
    if not any(checks["stem_overlap"]):
        del checks["stem_overlap"]
    return [name for name, values in checks.items() if values[key] == max(values)]


GUESS_CAP = 0.30  # no answer-free strategy may pick the key in more than this share of MCQs
# A guesser who breaks overlap ties by taking the first option is a fixed-position guesser on
# items with no overlap at all; keep real overlap hits rare so the two together stay near chance.
STRATEGY_CAP = {"stem_overlap": 0.05}


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12], 16)


def _as_free_recall(item: QuizItem, lesson: Lesson, note: str) -> Presented:
    key = item.options[item.correct] if 0 <= item.correct < len(item.options) else ""
    reference = f"{key}. {item.explanation}".strip(". ") if key else item.explanation
    return Presented(
        id=item.id, lesson_id=lesson.id, type="free_recall", question=item.question,
        reference=reference or "(no reference in the bank)", bloom=bloom_of(item),
        stage=item.stage, note=note,
    )


def present(items: Sequence[QuizItem], lesson: Lesson, salt: str = "") -> list[Presented]:
    """Present a batch of bank items. Deterministic for the same items, lesson and salt.
    Which items may be multiple choice is decided over the whole bank the batch draws on (the
    batch and the lesson's bank), so a small batch does not lose its MCQs to the guess cap."""
    ids = {i.id for i in items}
    bank = [*items, *(q for q in lesson.quiz if q.id not in ids)]
    rule_issues = {
        item.id: mcq.blocking(mcq.audit_item(QuizQuestion(
            id=item.id, type="mcq", question=item.question, options=item.options,
            correct_index=item.correct)))
        for item in bank if item.type != "numeric"
    }
    admitted = _admit_within_guess_cap([i for i in bank if not rule_issues.get(i.id, True)])
    out: list[Presented] = []
    slot = (lesson.number * 3 + lesson.phase * 2) % 4  # spreads first slots across lessons
    for item in items:
        if item.type == "numeric" and item.answer is not None:
            out.append(Presented(
                id=item.id, lesson_id=lesson.id, type="numeric", question=item.question,
                answer=item.answer, tolerance=item.tolerance or 0.0,
                reference=f"{item.answer:g}. {item.explanation}".strip(), bloom=bloom_of(item),
                stage=item.stage,
            ))
            continue
        issues = rule_issues[item.id]
        if issues:
            codes = ", ".join(sorted({i.code or "?" for i in issues}))
            out.append(_as_free_recall(item, lesson, f"failed the quiz rules ({codes})"))
            continue
        if item.id not in admitted:
            leaks = ", ".join(guessable_by(item.question, item.options, item.correct))
            out.append(_as_free_recall(
                item, lesson, f"as a choice its key could be guessed ({leaks})"))
            continue
        key = item.options[item.correct]
        distractors = [o for n, o in enumerate(item.options) if n != item.correct]
        random.Random(_seed(item.id, salt)).shuffle(distractors)
        distractors.insert(slot, key)
        out.append(Presented(
            id=item.id, lesson_id=lesson.id, type="mcq", question=item.question,
            options=distractors, correct_index=slot, reference=f"{key}. {item.explanation}",
            bloom=bloom_of(item), stage=item.stage,
        ))
        slot = (slot + 1) % 4
    return out


def _admit_within_guess_cap(items: Sequence[QuizItem]) -> set[str]:
    """Choose which clean items are asked as MCQs so that no answer-free strategy picks the key
    in more than GUESS_CAP of them: drop, one at a time, the item that feeds the most
    over-cap strategies until none is over."""
    leaks = {
        item.id: set(guessable_by(item.question, item.options, item.correct))
        for item in items
        if item.type != "numeric" and len(item.options) == 4 and 0 <= item.correct < 4
    }
    while leaks:
        counts: dict[str, int] = {}
        for found in leaks.values():
            for name in found:
                counts[name] = counts.get(name, 0) + 1
        over = {name for name, n in counts.items()
                if n > STRATEGY_CAP.get(name, GUESS_CAP) * len(leaks)}
        if not over:
            break
        worst = max(leaks, key=lambda i: (len(leaks[i] & over), len(leaks[i]), i))
        del leaks[worst]
    return set(leaks)


def place_key(options: Sequence[str], key: int, salt: str) -> tuple[list[str], int]:
    """Shuffle options deterministically; returns them with the key's new index."""
    order = list(range(len(options)))
    random.Random(_seed(salt)).shuffle(order)
    return [options[n] for n in order], order.index(key)


def broad_to_narrow(items: Sequence[QuizItem]) -> list[QuizItem]:
    stage_rank = {"pre": 0, "check": 1, "post": 2}
    return sorted(items, key=lambda i: (BLOOM_ORDER.index(bloom_of(i)),
                                        stage_rank.get(i.stage, 1), i.index))


def grade(item: Presented, answer: str) -> bool | None:
    """True/False for MCQ and numeric answers; None when the learner must self-grade."""
    if item.type == "mcq":
        return answer.isdigit() and int(answer) == item.correct_index
    if item.type == "numeric":
        try:
            value = float(answer.replace(",", "").strip())
        except ValueError:
            return False
        return abs(value - (item.answer or 0.0)) <= (item.tolerance or 0.0) + 1e-9
    return None
