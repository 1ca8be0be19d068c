"""A lesson's concepts: what gets its own row, attempts and schedule in the learner's records.

A lesson teaches several concepts, not one: each subsection of its concept section(s) (`### The
dot product` under `## The Concept`) and each glossary term its headings or objectives name.
Glossary terms are shared across lessons (one row per term, wherever it is met); a subsection
belongs to its lesson. Answers go to the concepts their question names; the lesson's own
concept keeps every answer of the lesson."""

from __future__ import annotations

import json
import re
from typing import Any

from learning_system.curriculum import Lesson
from tutor.engine.selection import concept_id, slug

MAX_CONCEPTS = 8
# subsections about the lesson rather than a concept of it
_NOT_A_CONCEPT = re.compile(
    r"^\s*(where|why|when|how this|example|step|exercise|summary|"
    r"recap|putting it)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+")
_COMMON = frozenset(
    "the a an of to in on for and or is are be by with as at this that which what when how why "
    "from it its into than then does do you your using use two one what's between".split()
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _COMMON}


def _named_in(name: str, text: str) -> bool:
    """Every significant word of `name` appears in `text` (as a word, or its plural)."""
    want = _words(name)
    have = _words(text)
    have |= {w[:-1] for w in have if w.endswith("s")}
    return bool(want) and want <= have


def lesson_concepts(lesson: Lesson, glossary: dict[str, str]) -> list[dict[str, str]]:
    """`[{id, name}]`: the subsections of the lesson's concept sections, then the glossary terms
    its title, headings or objectives name; at most MAX_CONCEPTS, no name twice."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    lesson_slug = concept_id(lesson).split("-", 1)[0]

    def add(cid: str, name: str) -> None:
        key = re.sub(r"^(the|a|an)-", "", slug(name))
        if key and key not in seen and len(out) < MAX_CONCEPTS:
            seen.add(key)
            out.append({"id": cid, "name": name})

    within = False
    for section in lesson.sections:
        if section.level == 2:
            within = "concept" in section.title.lower()
        elif section.level == 3 and within and not _NOT_A_CONCEPT.match(section.title):
            add(f"{lesson_slug}-{slug(section.title)}", section.title.strip())
    headings = " ".join([lesson.title, *lesson.objectives, *(s.title for s in lesson.sections)])
    for term in sorted(glossary):
        if _named_in(term, headings):
            add(f"term-{slug(term)}", term.strip())
    return out


def evidence_for(concept: dict[str, str], attempts: list[dict[str, Any]]) -> list[str]:
    """The attempts whose question names the concept."""
    return [a["id"] for a in attempts if _named_in(concept["name"], _question(a))]


def _question(attempt: dict[str, Any]) -> str:
    payload = attempt.get("payload")
    if isinstance(payload, str):
        try:
            payload = json.loads(payload)
        except ValueError:
            payload = {}
    return str((payload or {}).get("question", "")) if isinstance(payload, dict) else ""
