"""A lesson's prerequisites as `{concept, keywords, why}`: from its Prerequisites header (the
lessons it names, with their objectives' key terms, and names it gives in words), the glossary
terms its objectives use, and, when nothing else is there, its objectives themselves."""

from __future__ import annotations

import re
from typing import Any

from tutor.scout.digest import Prereq
from tutor.scout.terms import glossary_forms, glossary_hits, key_phrases, unique

MAX_KEYWORDS = 6
MAX_GLOSSARY = 6
MAX_OBJECTIVES = 5
_NONE = {"", "none", "-", "--", "—", "n/a", "nothing"}
_PARENTHESES = re.compile(r"\(([^()]*)\)")
_PHASE = re.compile(r"\bphase\s*0*(\d{1,3})\b", re.IGNORECASE)
_LESSON_WORDS = re.compile(r"\b(?:phases?|lessons?|all of)\b|\d+(?:\.\d+)?(?:\s*-\s*\d+)?", re.I)
_CONNECTIVES = re.compile(r"\b(?:and|or|to|through|of)\b|&", re.I)


def _trim(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def _named(prerequisites_text: str) -> list[str]:
    """Names the header gives in words: `Lessons 04-05 (Derivatives, Gradients), basic NumPy`
    -> [Derivatives, Gradients, basic NumPy]."""
    names: list[str] = []
    for inner in _PARENTHESES.findall(prerequisites_text):
        names.extend(part for part in re.split(r",|;|\band\b", inner))
    outside = _PARENTHESES.sub(",", prerequisites_text)
    for part in re.split(r"[,;]", outside):
        if not _CONNECTIVES.sub("", _LESSON_WORDS.sub("", part)).strip(" .-"):
            continue  # only lesson or phase numbers
        names.append(part)
    cleaned = []
    for name in names:
        name = _LESSON_WORDS.sub(" ", name) if _LESSON_WORDS.match(name.strip()) else name
        name = " ".join(name.split()).strip(" .-:")
        name = re.sub(
            r"^(?:especially|e\.g\.|incl(?:uding|\.)?|basic|basics of)\s+", "", name, flags=re.I
        )
        if name and name.lower() not in _NONE and name not in cleaned:
            cleaned.append(name)
    return cleaned


def _keywords_for(
    texts: list[str], glossary: dict[str, str], limit: int = MAX_KEYWORDS
) -> list[str]:
    joined = " . ".join(texts)
    forms = [
        glossary_forms(term)[0] for term in glossary_hits(joined, glossary) if glossary_forms(term)
    ]
    phrases = [p for text in texts for p in key_phrases(text)]
    return unique([*forms, *phrases], limit)


def _covered(name: str, keywords: list[str]) -> bool:
    words = set(name.lower().split())
    return any(words & set(k.split()) for k in keywords)


def build_prereqs(lesson: Any, curriculum: Any) -> list[Prereq]:
    glossary: dict[str, str] = dict(getattr(curriculum, "glossary", {}) or {})
    header = " ".join((lesson.prerequisites_text or "").split())
    prereqs: list[Prereq] = []

    resolved = []
    for ref in lesson.prerequisites:
        try:
            resolved.append(curriculum.lesson(ref))
        except LookupError:
            continue
    names = _named(header) if header.lower().strip(".") not in _NONE else []
    paired = len(names) == len(resolved) and bool(resolved)
    unmatched = [] if paired else list(names)
    for i, before in enumerate(resolved):
        keywords = _keywords_for([before.title], glossary, 2)
        if paired:
            keywords = unique([names[i].lower(), *keywords])
        keywords = unique([*keywords, *_keywords_for(before.objectives, glossary)], MAX_KEYWORDS)
        for name in list(unmatched):
            if _covered(name, key_phrases(before.title)):
                keywords = unique([name.lower(), *keywords], MAX_KEYWORDS)
                unmatched.remove(name)
        prereqs.append(
            Prereq(
                concept=before.title,
                keywords=keywords or [before.title.lower()],
                why=f"{before.id} {before.title}, listed under Prerequisites ({header})",
            )
        )
    for name in unmatched:
        keywords = unique([name.lower(), *_keywords_for([name], glossary)], MAX_KEYWORDS)
        prereqs.append(
            Prereq(concept=name, keywords=keywords, why=f"named under Prerequisites ({header})")
        )
    if header and header.lower().strip(".") not in _NONE and not resolved and not names:
        prereqs.extend(_whole_phases(header, curriculum))

    taken = {k for p in prereqs for k in p.keywords}
    lesson_terms = " . ".join([lesson.title, *lesson.objectives])
    added = 0
    for term in glossary_hits(lesson_terms, glossary):
        forms = glossary_forms(term)
        if not forms or forms[0] in taken or added == MAX_GLOSSARY:
            continue
        taken.update(forms)
        added += 1
        prereqs.append(
            Prereq(
                concept=term,
                keywords=unique(forms),
                why=f"glossary term in the lesson's objectives: {_trim(glossary[term])}",
            )
        )

    if not prereqs:
        for objective in lesson.objectives[:MAX_OBJECTIVES]:
            keywords = _keywords_for([objective], glossary, 4)
            if keywords:
                prereqs.append(
                    Prereq(
                        concept=keywords[0],
                        keywords=keywords,
                        why=f"learning objective: {_trim(objective)}",
                    )
                )
    return prereqs


def _whole_phases(header: str, curriculum: Any) -> list[Prereq]:
    """`Phase 0` names a whole phase: one entry with the phase's title and its lessons' titles."""
    out: list[Prereq] = []
    phases = {phase.number: phase for phase in getattr(curriculum, "phases", [])}
    for number in unique(_PHASE.findall(header)):
        phase = phases.get(int(number))
        if phase is None:
            continue
        titles = [lesson.title for lesson in phase.lessons]
        keywords = unique([phase.title.lower(), *(t.lower() for t in titles)], MAX_KEYWORDS)
        out.append(
            Prereq(
                concept=phase.title,
                keywords=keywords,
                why=f"the whole of phase {phase.number}, listed under Prerequisites ({header})",
            )
        )
    return out
