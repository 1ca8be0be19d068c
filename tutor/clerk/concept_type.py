"""A concept's type, decided deterministically from its name and its lesson's kind."""

from __future__ import annotations

import re

from learning_system.scheduling import ConceptType

# Words in a concept's name that say what kind of knowing it takes. A name that matches more
# than one kind is ambiguous and stays `concept`.
_NAME_CUES: dict[ConceptType, re.Pattern[str]] = {
    "memory": re.compile(
        r"\b(definitions?|key terms?|terminology|vocabulary|notation|symbols?|glossary|"
        r"acronyms?|what is|what are)\b"
    ),
    "procedure": re.compile(
        r"\b(how to|build(ing)?|implement(ing|ation)?|comput(e|ing)|calculat(e|ing)|"
        r"deriv(e|ing)|writ(e|ing)|train(ing)?|set(ting)? up|install(ing)?|configur(e|ing)|"
        r"debug(ging)?|steps?|workflow|recipe)\b"
    ),
    "design": re.compile(
        r"\b(architectures?|trade[- ]?offs?|design(ing)?|choos(e|ing)|choices?|"
        r"when to use|vs\.?|versus|comparison|comparing|pros and cons)\b"
    ),
}
# The lesson's `Type:` header, when the name says nothing.
_KIND_HINTS: dict[str, ConceptType] = {
    "build": "procedure",
    "practice": "procedure",
    "lab": "procedure",
    "design": "design",
    "architecture": "design",
    "reference": "memory",
    "glossary": "memory",
}


def concept_type(name: str, kind_hint: str = "") -> ConceptType:
    """`memory` (a fact or term to recall), `procedure` (steps to carry out), `design` (a
    trade-off to judge) or `concept` (an idea to understand, and anything ambiguous)."""
    text = " ".join(name.lower().split())
    matched = [kind for kind, cue in _NAME_CUES.items() if cue.search(text)]
    if len(matched) == 1:
        return matched[0]
    if matched:
        return "concept"
    return _KIND_HINTS.get(kind_hint.strip().lower(), "concept")
