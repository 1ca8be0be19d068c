"""A concept's knowledge page: the gated teaching that concerned it, with its sources.

Taught text is the lesson's own markdown as it was shown (after its gate): it keeps its headings,
lists and code as written, with only what is dangerous made inert (terminal sequences, raw HTML,
script links: `md_document`). Names and ids are written as text. The page is built here once and
stored; the views only copy it out."""

from __future__ import annotations

import re

from learning_system.outcome import IngestConcept, PendingIngest, TaughtStep
from learning_system.views import md_document, md_inline


def steps_for(pending: PendingIngest, concept: IngestConcept) -> list[TaughtStep]:
    """The taught steps about `concept`: those tagged with its id; failing that, when the lesson
    met a single concept, every untagged step; else the steps whose title or content names it
    (a concept within a lesson is taught inside the lesson's steps)."""
    tagged = [s for s in pending.taught if s.concept_id == concept.id]
    if tagged:
        return tagged
    untagged = [s for s in pending.taught if s.concept_id is None]
    if len(pending.concepts) == 1:
        return untagged
    name = " ".join(concept.name.lower().split())
    if not name:
        return []
    return [
        s
        for s in pending.taught
        if name in " ".join(s.title.lower().split()) or name in " ".join(s.content.lower().split())
    ]


def block_about(content: str, name: str) -> str:
    """The part of a step under the heading that names the concept (to the next heading of the
    same or a higher level), or the whole step when no heading names it."""
    lines = content.split("\n")
    want = " ".join(name.lower().split())
    for i, line in enumerate(lines):
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m and " ".join(m.group(2).lower().split()).strip(" #") == want:
            level, end = len(m.group(1)), len(lines)
            fence = False
            for j in range(i + 1, len(lines)):
                if lines[j].lstrip().startswith(("```", "~~~")):
                    fence = not fence
                n = re.match(r"^(#{1,6})\s", lines[j])
                if not fence and n and len(n.group(1)) <= level:
                    end = j
                    break
            return "\n".join(lines[i:end]).strip()
    return content


def page_sources(steps: list[TaughtStep]) -> list[str]:
    seen: dict[str, None] = {}
    for step in steps:
        for source in step.sources:
            seen.setdefault(source, None)
    return list(seen)


def build_page(
    pending: PendingIngest,
    concept: IngestConcept,
    concept_type: str,
    language: str,
    steps: list[TaughtStep],
) -> str:
    title = md_inline(concept.name or concept.id)
    lesson = md_inline(pending.lesson_id)
    if pending.lesson_title.strip():
        lesson += " — " + md_inline(pending.lesson_title)
    out = [
        f"# {title}",
        "",
        f"- Concept: {md_inline(concept.id)} · type: {concept_type}"
        + (f" · language: {md_inline(language)}" if language else ""),
        f"- From lesson: {lesson}",
        "",
    ]
    if not steps:
        out += [
            "No step of this lesson taught this concept directly; it was met along the way.",
            "",
        ]
    for step in steps:
        out += [
            f"## {md_inline(step.title or step.step_id)}",
            "",
            md_document(block_about(step.content, concept.name)),
            "",
        ]
        if step.sources:
            out += ["Sources: " + ", ".join(md_inline(s) for s in step.sources), ""]
        if step.unverified:
            out += [
                "Not verified against its sources (UNVERIFIED): "
                + ", ".join(md_inline(u) for u in step.unverified),
                "",
            ]
    sources = page_sources(steps)
    if sources:
        out += ["## Sources", ""]
        out += [f"- {md_inline(s)}" for s in sources]
        out.append("")
    return "\n".join(out)
