"""Takeaways, what a source adds, and the synthesis written by a model (skill `scout`), then
checked against the sources: a sentence that does not share enough substantive words with the
text it claims to come from is dropped, with a warning. Fetched text goes to the model only
under `untrusted_*` keys (delimited and datamarked by the model layer)."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict

from tutor.scout.terms import content_words, grounded

MODEL_TEXT_CHARS = 12_000
MAX_TAKEAWAYS = 6


class SourceNotes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    takeaways: list[str]
    adds_vs_primary: str


class SynthesisNote(BaseModel):
    model_config = ConfigDict(extra="forbid")

    synthesis: str


class ModelNotes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    takeaways: list[str] | None  # None: the model gave nothing usable; derive instead
    adds_vs_primary: str | None
    warnings: list[str]


async def source_notes(provider: Any, lesson: dict[str, Any], source: dict[str, Any],
                       text: str, primary_excerpt: str) -> ModelNotes:
    from tutor.llm import ModelFailure

    sent = text[:MODEL_TEXT_CHARS]
    url = source["url"]
    try:
        answer = await provider.structured(
            skill="scout",
            data={"lesson": lesson, "source": source, "untrusted_text": sent,
                  "untrusted_primary_excerpt": primary_excerpt},
            schema=SourceNotes,
            purpose="summarise_source",
        )
    except ModelFailure as failure:
        return ModelNotes(takeaways=None, adds_vs_primary=None, warnings=[
            f"the model could not summarise {url} ({failure.kind}); "
            "its takeaways were derived from the source"])
    words = content_words(sent)
    kept: list[str] = []
    warnings: list[str] = []
    for number, takeaway in enumerate(answer.takeaways[:MAX_TAKEAWAYS], start=1):
        takeaway = " ".join(takeaway.split())
        if not takeaway or takeaway in kept:
            continue
        if grounded(takeaway, words):
            kept.append(takeaway)
        else:  # the dropped text is not repeated: it has no support, so it stays out entirely
            warnings.append(f"dropped a model takeaway for {url} (#{number}): not supported by "
                            "the source text")
    adds = " ".join(answer.adds_vs_primary.split())
    if adds and not adds.lower().startswith("nothing new") and not grounded(adds, words, 0.34):
        warnings.append(f"dropped the model's 'adds vs primary' for {url}: not supported by the "
                        "source text")
        adds = ""
    return ModelNotes(takeaways=kept or None, adds_vs_primary=adds or None, warnings=warnings)


async def all_source_notes(provider: Any, lesson: dict[str, Any],
                           jobs: list[tuple[dict[str, Any], str]], primary_excerpt: str
                           ) -> list[ModelNotes]:
    return list(await asyncio.gather(*(
        source_notes(provider, lesson, source, text, primary_excerpt) for source, text in jobs
    )))


async def synthesis(provider: Any, lesson: dict[str, Any], sources: list[dict[str, Any]],
                    grounding: str) -> tuple[str | None, list[str]]:
    """The model's synthesis, or None (with the warning) when it fails or is not grounded."""
    from tutor.llm import ModelFailure

    try:
        answer = await provider.structured(
            skill="scout",
            data={"lesson": lesson, "sources": sources},
            schema=SynthesisNote,
            purpose="synthesise_digest",
        )
    except ModelFailure as failure:
        return None, [f"the model could not write the synthesis ({failure.kind}); "
                      "it was assembled from the sources"]
    text = " ".join(answer.synthesis.split())
    if not text or not grounded(text, content_words(grounding)):
        return None, ["dropped the model's synthesis: not supported by the sources; "
                      "it was assembled from the sources"]
    return text, []
