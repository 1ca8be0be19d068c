"""Whether a model's personalised variant of a step still holds every fact its plan requires.
The program decides, from the source's own sentences: a required fact survives when the draft
keeps its numbers and code, and most of its substantive words (a line of code, as written). A
variant that drops one is never shown; the step is shown from its source, with the reason."""

from __future__ import annotations

import hashlib
import re

from learning_system.curriculum import Section
from tutor.engine.step_plan import FACTS_PER_STEP, FactRef, StepPlan
from tutor.engine.steps import key_sentences
from tutor.engine.words import words

WORDS_KEPT = 0.6  # the share of a fact's substantive words a draft must keep
STEM = 6  # words compared by their first letters: "vectors" keeps "vector"
_CODE = re.compile(r"`[^`]+`")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")
_SENTENCE_START = re.compile(r"[A-Z`(]")


def personalised(plan: StepPlan) -> bool:
    """Whether the plan asks for anything the unpersonalised plan does not: representations
    beyond prose, another density, the example first."""
    return (
        plan.representations != ("prose",)
        or plan.support.density != 2
        or plan.support.example_first
    )


def _stems(text: str) -> set[str]:
    return {w[:STEM] for w in words(text)}


def _numbers(text: str) -> set[str]:
    """The numbers of the text's prose (those inside `code` are matched with their code)."""
    return set(_NUMBER.findall(_CODE.sub(" ", text)))


def survives(fact: str, draft: str) -> bool:
    """The draft keeps the fact's numbers and `code` as written, and WORDS_KEPT of its
    substantive words; a fact that is a line of code (it does not begin as a sentence does),
    all of it as written."""
    if not _SENTENCE_START.match(fact):
        return " ".join(fact.split()) in " ".join(draft.split())
    if any(code not in draft for code in _CODE.findall(fact)):
        return False
    if not _numbers(fact) <= _numbers(draft):
        return False
    wanted = _stems(fact)
    return not wanted or len(wanted & _stems(draft)) >= WORDS_KEPT * len(wanted)


def dropped(plan: StepPlan, section: Section, draft: str) -> list[FactRef]:
    """The plan's required facts the draft does not hold. A reference the section no longer
    resolves to (its sentence changed) counts as dropped: nothing unchecked passes."""
    sentences = {
        hashlib.sha256(s.encode()).hexdigest()[:16]: s
        for s in key_sentences(section.text, FACTS_PER_STEP)
    }
    return [
        ref
        for ref in plan.required_facts
        if ref.sha not in sentences or not survives(sentences[ref.sha], draft)
    ]


def rejection(missing: list[FactRef]) -> str:
    """The reason shown and stored when a variant is refused."""
    where = ", ".join(f"§{ref.section} fact {ref.sentence + 1}" for ref in missing)
    return f"the model's variant was not shown: it dropped a required fact ({where})"
