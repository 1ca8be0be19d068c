"""Takeaways, what a source adds, and the synthesis written by a model (skill `scout`), then
checked against the sources: a sentence that does not share enough substantive words with the
text it claims to come from is dropped, with a warning. Fetched text goes to the model only
under `untrusted_*` keys (delimited by the model layer)."""

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


async def source_notes(
    provider: Any, lesson: dict[str, Any], source: dict[str, Any], text: str, primary_excerpt: str
) -> ModelNotes:
    from tutor.llm import ModelFailure

    sent = text[:MODEL_TEXT_CHARS]
    url = source["url"]
    try:
        answer = await provider.structured(
            skill="scout",
            data={
                "lesson": lesson,
                "source": source,
                "untrusted_text": sent,
                "untrusted_primary_excerpt": primary_excerpt,
            },
            schema=SourceNotes,
            purpose="summarise_source",
        )
    except ModelFailure as failure:
        return ModelNotes(
            takeaways=None,
            adds_vs_primary=None,
            warnings=[
                f"the model could not summarise {url} ({failure.kind}); "
                "its takeaways were derived from the source"
            ],
        )
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
            warnings.append(
                f"dropped a model takeaway for {url} (#{number}): not supported by the source text"
            )
    adds = " ".join(answer.adds_vs_primary.split())
    if adds and not adds.lower().startswith("nothing new") and not grounded(adds, words, 0.34):
        warnings.append(
            f"dropped the model's 'adds vs primary' for {url}: not supported by the source text"
        )
        adds = ""
    return ModelNotes(takeaways=kept or None, adds_vs_primary=adds or None, warnings=warnings)


async def all_source_notes(
    provider: Any,
    lesson: dict[str, Any],
    jobs: list[tuple[dict[str, Any], str]],
    primary_excerpt: str,
) -> list[ModelNotes]:
    return list(
        await asyncio.gather(
            *(
                source_notes(provider, lesson, source, text, primary_excerpt)
                for source, text in jobs
            )
        )
    )


async def synthesis(
    provider: Any,
    lesson: dict[str, Any],
    sources: list[dict[str, Any]],
    grounding: str,
    source_urls: list[str] | None = None,
) -> tuple[str | None, list[str]]:
    """The model's synthesis, or None (with the warning) when it fails or is not grounded.

    Like teaching text it goes through fact_check: every asserting sentence is a claim
    (tutor.gates.claims), verified by the verifier model against the sources' text. Only
    sentences that PASS (or their corrections) are kept; a sentence with issues, or that no
    model could check, is dropped with a warning — a digest has no UNVERIFIED mark to carry.
    The program's checks are the floor: a sentence they cannot support (not found in the
    sources' text) is dropped whatever the verifier model says."""
    from tutor.llm import ModelFailure

    try:
        answer = await provider.structured(
            skill="scout",
            data={"lesson": lesson, "sources": sources},
            schema=SynthesisNote,
            purpose="synthesise_digest",
        )
    except ModelFailure as failure:
        return None, [
            f"the model could not write the synthesis ({failure.kind}); "
            "it was assembled from the sources"
        ]
    text = " ".join(answer.synthesis.split())
    if not text or not grounded(text, content_words(grounding)):
        return None, [
            "dropped the model's synthesis: not supported by the sources; "
            "it was assembled from the sources"
        ]
    return await _fact_checked(provider, text, grounding, source_urls or [])


async def _fact_checked(
    provider: Any, text: str, grounding: str, urls: list[str]
) -> tuple[str | None, list[str]]:
    from tutor.gates.claims import extract_claims
    from tutor.gates.envelopes import Claim, FactCheckEnvelope
    from tutor.gates.floor import floor
    from tutor.gates.offline_verifier import supported
    from tutor.gates.offline_verifier import verify as verify_offline
    from tutor.gates.verdicts import FactCheckVerdict
    from tutor.llm.model_verifier import verify_for_receipt

    claims = extract_claims(text)
    if not claims:
        return None, ["dropped the model's synthesis: it states nothing that can be checked"]
    envelope = FactCheckEnvelope(
        claims=[Claim(id=f"c{n + 1}", claim=c) for n, c in enumerate(claims)],
        rendered_content=text,
        source_urls=urls or ["(sources)"],
        reference_excerpt=grounding[: MODEL_TEXT_CHARS * 2],
        context="digest synthesis",
    )
    verifier = getattr(provider, "verifier", None) or provider
    verdict, _ran, note = await verify_for_receipt(verifier, envelope)
    # the program's checks are the floor: a sentence (or a correction) they cannot support is
    # dropped whatever the verifier model says — a digest has no UNVERIFIED mark to carry
    verdict = floor(envelope, verdict, verify_offline(envelope))
    kept: list[str] = []
    dropped = 0
    if isinstance(verdict, FactCheckVerdict):
        by_id = {v.id: v for v in verdict.claims}
        for c in envelope.claims:
            v = by_id.get(c.id)
            if v is not None and v.verdict == "PASS":
                kept.append(c.claim)
            elif (
                v is not None
                and v.verdict == "ISSUES"
                and v.corrected_claim
                and supported(v.corrected_claim, envelope.reference_excerpt)
            ):
                kept.append(v.corrected_claim)
            else:
                dropped += 1
    warnings = []
    if dropped:
        why = f" ({note})" if note else ""
        warnings.append(
            f"dropped {dropped} of {len(claims)} sentences of the model's synthesis: "
            f"the fact check did not pass them, or the program's checks could not find them "
            f"in the sources{why}"
        )
    if not kept:
        return None, [*warnings, "the synthesis was assembled from the sources"]
    return " ".join(kept), warnings
