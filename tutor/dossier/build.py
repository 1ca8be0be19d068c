"""Building knowledge packs in the background: per lesson, two model calls — extract, then
review-and-correct (on the verifier model when one is configured) — JSON, temperature 0, an
output cap, a per-lesson timeout, at most `concurrency` lessons at a time.

No store transaction is open during a model call: the store is written once per lesson, after
the calls (model-call accounting included), and that write is conditioned on the source still
having the fingerprint the build started from (`Packs.publish`)."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tutor.dossier.checks import assemble
from tutor.dossier.model import (
    PACK_SCHEMA,
    ExtractReply,
    KnowledgePack,
    Provenance,
    ReviewReply,
)
from tutor.dossier.units import LessonSource, fingerprint, split_units
from tutor.llm.provider import ModelFailure
from tutor.llm.recorder import MemoryRecorder, ModelCall

if TYPE_CHECKING:
    from learning_system.store import Store
    from learning_system.tables.rows import PackRow
    from tutor.llm.openai_provider import OpenAIProvider
    from tutor.llm.settings import ModelSettings

TEMPERATURE = 0.0


@dataclass(frozen=True)
class BuildOptions:
    timeout: float = 300.0  # seconds per lesson, both calls
    max_tokens: int = 8000  # output cap of each call
    concurrency: int = 2  # lessons built at once


@dataclass
class BuildResult:
    lesson_id: str
    state: str  # ready | review_required | failed | stale (the source changed meanwhile)
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0


class _Calls(MemoryRecorder):
    """Keeps a build's model calls (for its tokens) and writes each to the store after the
    build, never during it."""

    def tokens(self) -> tuple[int, int]:
        return sum(c.tokens_in for c in self.calls), sum(c.tokens_out for c in self.calls)


def pack_settings(settings: ModelSettings, options: BuildOptions) -> ModelSettings:
    return settings.model_copy(
        update={"temperature": TEMPERATURE, "max_tokens": options.max_tokens}
    )


def _providers(
    settings: ModelSettings, options: BuildOptions, calls: _Calls
) -> tuple[OpenAIProvider, OpenAIProvider]:
    """(extractor, reviewer): the reviewer is the verifier model when one is configured."""
    from tutor.llm.openai_provider import OpenAIProvider
    from tutor.llm.settings import load_verifier_settings

    extractor = OpenAIProvider(pack_settings(settings, options), calls)
    verifier = load_verifier_settings(settings)
    if verifier is settings:
        return extractor, extractor
    return extractor, OpenAIProvider(pack_settings(verifier, options), calls)


async def _two_calls(
    source: LessonSource,
    title: str,
    units_data: list[dict[str, str]],
    extractor: OpenAIProvider,
    reviewer: OpenAIProvider,
) -> ReviewReply:
    lesson = {"id": source.lesson_id, "title": title}
    extract = await extractor.structured(
        skill="pack_extract",
        data={"lesson": lesson, "untrusted_units": units_data},
        schema=ExtractReply,
        purpose="pack_extract",
    )
    draft = [a.model_dump(mode="json") for a in extract.atoms]
    return await reviewer.structured(
        skill="pack_review",
        data={"lesson": lesson, "untrusted_units": units_data, "untrusted_draft": draft},
        schema=ReviewReply,
        purpose="pack_review",
    )


async def build_pack(
    store: Store,
    source: LessonSource,
    title: str,
    settings: ModelSettings,
    options: BuildOptions = BuildOptions(),
) -> BuildResult:
    """Build one lesson's pack and write it (or the failure). Never raises for a model's
    failure, a timeout or a bad reply: the result says what happened."""
    started = time.monotonic()
    started_from = fingerprint(source)
    units = split_units(source)
    calls = _Calls()
    extractor, reviewer = _providers(settings, options, calls)
    units_data = [{"id": u.id, "part": u.part, "section": u.section, "text": u.text} for u in units]
    reply: ReviewReply | None = None
    error: str | None = None
    try:
        if not units:
            raise ModelFailure("unavailable", "the lesson has no text to build a pack from")
        reply = await asyncio.wait_for(
            _two_calls(source, title, units_data, extractor, reviewer), options.timeout
        )
    except ModelFailure as failure:
        error = str(failure)
    except TimeoutError:
        error = f"timeout: no pack within {options.timeout:g} s"
    finally:
        for provider in {extractor, reviewer}:
            await provider.aclose()
    seconds = time.monotonic() - started
    _account(store, calls.calls)
    tokens_in, tokens_out = calls.tokens()
    result = BuildResult(source.lesson_id, "failed", [], error, tokens_in, tokens_out, seconds)
    pack = None
    if reply is not None:
        provenance = Provenance(
            extract_model=extractor.model,
            review_model=reviewer.model,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            seconds=round(seconds, 3),
            built_at=_now(),
            corrections=reply.corrections,
        )
        pack = assemble(source, started_from, units, reply.atoms, provenance)
        result.state, result.problems = pack.state, pack.problems
    published = store.packs.publish(
        _row(source, started_from, result, pack), lambda: fingerprint(source)
    )
    if not published:
        result.state = "stale"
    return result


def _account(store: Store, calls: list[ModelCall]) -> None:
    for call in calls:
        store.model_calls.record(**call.model_dump())


def _now() -> str:
    from learning_system.store import iso

    return iso()


def _row(
    source: LessonSource, started_from: str, result: BuildResult, pack: KnowledgePack | None
) -> PackRow:
    return {
        "id": uuid.uuid4().hex,
        "curriculum": source.curriculum,
        "lesson_id": source.lesson_id,
        "fingerprint": started_from,
        "schema": PACK_SCHEMA,
        "state": result.state,
        "pack": pack.model_dump_json(by_alias=True) if pack is not None else None,
        "problems": json.dumps(result.problems, ensure_ascii=False),
        "error": result.error,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "seconds": round(result.seconds, 3),
        "built_at": _now(),
    }


async def build_packs(
    store: Store,
    lessons: Sequence[tuple[LessonSource, str]],
    settings: ModelSettings,
    options: BuildOptions = BuildOptions(),
    progress: Callable[[BuildResult], None] | None = None,
) -> list[BuildResult]:
    """Build the packs of `lessons` ((source, title) pairs), `options.concurrency` at a time,
    in order of the list; `progress` is told of each as it finishes."""
    gate = asyncio.Semaphore(options.concurrency)

    async def one(source: LessonSource, title: str) -> BuildResult:
        async with gate:
            result = await build_pack(store, source, title, settings, options)
        if progress is not None:
            progress(result)
        return result

    return list(await asyncio.gather(*(one(s, t) for s, t in lessons)))
