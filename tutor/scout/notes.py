"""Takeaways, what a source adds, and the synthesis, derived from the sources themselves (no
model): lead sentences of substantive paragraphs, key terms the primary does not use, and a
synthesis assembled from the lesson's own document and the references' titles and statuses.
Deterministic."""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

from tutor.scout.digest import OutlineItem, SourceEntry
from tutor.scout.normalise import lead_sentence, substantive_paragraphs
from tutor.scout.terms import content_words, key_phrases, unique

MAX_TAKEAWAYS = 5
MAX_NEW_TERMS = 6


def derived_takeaways(text: str, limit: int = MAX_TAKEAWAYS) -> list[str]:
    """Lead sentences of substantive paragraphs spread evenly over the text."""
    paragraphs = substantive_paragraphs(text)
    if len(paragraphs) > limit:
        step = (len(paragraphs) - 1) / (limit - 1)
        paragraphs = [paragraphs[round(i * step)] for i in range(limit)]
    return unique((lead_sentence(p) for p in paragraphs), limit)


def derived_adds(text: str, primary_words: set[str]) -> str:
    """The source's most frequent key terms that the primary never uses."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for paragraph in substantive_paragraphs(text):
        for phrase in key_phrases(paragraph, max_words=2):
            words = content_words(phrase)
            if not words or words & primary_words or any(ch.isdigit() for ch in phrase):
                continue
            counts[phrase] += 1
            first.setdefault(phrase, len(first))
    ranked = sorted(counts, key=lambda p: (-counts[p], first[p]))
    terms = [p for p in ranked if counts[p] > 1][:MAX_NEW_TERMS] or ranked[:3]
    if not terms:
        return "nothing new: the lesson already uses its key terms"
    return "terms it uses that the lesson does not: " + ", ".join(terms)


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def derived_synthesis(
    title: str, motto: str, outline: list[OutlineItem], sources: list[SourceEntry]
) -> str:
    parts = [f"{title}: {motto}" if motto else f"{title}."]
    agenda = [item.title for item in outline if item.level == 2]
    if agenda:
        parts.append("The lesson's agenda: " + "; ".join(agenda) + ".")
    primary = next((s for s in sources if s.kind == "primary"), None)
    if primary and primary.takeaways:
        parts.append(f"The lesson opens with: {primary.takeaways[0]}")
    # external references by their curriculum titles only: fetched text stays in its own
    # source's excerpt and takeaways, never in the synthesis
    read = [s for s in sources if s.kind != "primary" and s.status != "unreachable"]
    if read:
        parts.append(
            "References read: "
            + "; ".join(f"{s.title} ({_host(s.url)}, {s.status})" for s in read)
            + "."
        )
    missing = [s for s in sources if s.status == "unreachable"]
    if missing:
        reasons = sorted({s.reason or "unreachable" for s in missing})
        noun = "reference" if len(missing) == 1 else "references"
        parts.append(f"Not read this time: {len(missing)} {noun} ({'; '.join(reasons)}).")
    return " ".join(parts)
