"""What kind of answer a stem asks for (a reason, an action, an outcome, a number) and what kind
of answer an option is — so that a choice whose key alone is of the asked kind is found by
elimination (tutor.engine.guessing), and repair lends distractors of the asked kind
(tutor.engine.repair)."""

from __future__ import annotations

import re

_ASKS_REASON = re.compile(
    r"^\s*why\b|\bwhat (causes|is the (reason|purpose|cause)|problem does)\b|\bwhy (is|does|do)\b",
    re.I,
)
_ASKS_NUMBER = re.compile(r"\bhow (many|much)\b|\bwhat (number|percentage|fraction)\b", re.I)
_ASKS_ACTION = re.compile(r"\bwhat does\b.*\bdo\b(?!es)", re.I)
_ASKS_OUTCOME = re.compile(r"\bwhat happens\b", re.I)
# "What is overfitting?", "What were the Twelve Tables?", "What does res publica mean?", and
# what names a thing that decides another ("What decides which element an atom is?")
_ASKS_DEFINITION = re.compile(
    r"^\s*what (is|are|was|were) (an? |the )?[\w'-]+( [\w'-]+){0,4}\s*\?\s*$"
    r"|^\s*what does [^?]{1,60} (mean|stand for)\s*\?\s*$"
    r"|^\s*what is meant by\b"
    r"|^\s*what (decides|determines|sets|controls|governs) ",
    re.I,
)
_CLAUSES = frozenset({"reason", "action", "claim"})  # what says what happens; a name does not
_REASON = re.compile(
    r"^\s*(because|since|to|so that|in order|due to|otherwise)\b|\b(because|so that|so|since|"
    r"due to|in order to|which (means|lets|allows|causes)|thus|therefore|otherwise|prevents?|"
    r"avoids?|ensures?|lets?|allows?|enables?)\b|"
    r", (making|causing|leading to|resulting in|preventing|allowing|letting|giving|so)\b",
    re.I,
)
_NUMBER = re.compile(r"^\s*[~≈<>±(\[-]?\s*\d")
_NOT_AFTER_VERB = frozenset(
    "of whose that which who are is were was can will may must have has do does with in on for "
    "and or like such".split()
)
_CLAUSE = re.compile(
    r"\b(is|are|was|were|can|cannot|will|has|have|does|do|must|may|might|should|would)\b", re.I
)


def asked_kind(question: str) -> str:
    """The kind of answer the stem asks for: "reason", "number", "action", "outcome", or ""
    (no telling)."""
    if _ASKS_NUMBER.search(question):
        return "number"
    if _ASKS_REASON.search(question):
        return "reason"
    if _ASKS_OUTCOME.search(question):
        return "outcome"
    if _ASKS_ACTION.search(question):
        return "action"
    return ""


def answer_kind(option: str) -> str:
    """The kind of answer an option is: "number", "reason", "action" (a verb phrase: "Pushes the
    input …", "It pushes …"), "claim" (a clause) or "phrase" (a name or a definition)."""
    t = option.strip()
    if _NUMBER.match(t):
        return "number"
    if _REASON.search(t):
        return "reason"
    tokens = [w.lower().strip(",.;:'\"()") for w in t.split()[:2]] + ["", ""]
    first, second = tokens[0], tokens[1]
    if first in ("it", "they") or (
        first.endswith("s")
        and not first.endswith(("ss", "us", "is"))
        and len(first) > 3
        and second not in _NOT_AFTER_VERB
        and not t[:1].isdigit()
    ):
        return "action"
    return "claim" if _CLAUSE.search(t) else "phrase"


def fits(question: str, option: str) -> bool:
    """Whether the option is of the kind the stem asks for (False when the stem asks for no
    particular kind: then no option stands out by it). An outcome is any clause."""
    asked = asked_kind(question)
    kind = answer_kind(option)
    return bool(asked) and (kind == asked or (asked == "outcome" and kind in _CLAUSES))


def asks_definition(question: str) -> bool:
    """Whether the stem asks what a term means: a sentence the document says about something
    else defines nothing, and a learner who knows nothing strikes it."""
    return not asked_kind(question) and bool(_ASKS_DEFINITION.search(question))
