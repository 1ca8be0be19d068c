"""The Scout: one lesson's sources -> a digest. It never teaches.

The primary source is the lesson's own document; the external references are the links under
its Further Reading (the first `max_external`, in the order written) plus any curated resources
the curriculum declares. Each is read live (nothing is cached), normalised and hashed; the hash
is compared with the one the store saw last: `new`, `ok`, `changed` (drift) or `unreachable`
with the reason. Offline, nothing is fetched and nothing is recorded about sources: every
external reference is `unreachable` ("offline") and the primary is compared, not recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tutor import aio
from tutor.scout.digest import Digest, OutlineItem, SourceEntry
from tutor.scout.fetch import FetchLimits, FetchResult, client_for, fetch
from tutor.scout.normalise import body_to_text, content_hash, excerpt
from tutor.scout.notes import derived_adds, derived_synthesis, derived_takeaways
from tutor.scout.prereqs import build_prereqs
from tutor.scout.terms import content_words

DIGEST_VERSION = 1
OFFLINE_REASON = "offline"
SKIPPED_SECTIONS = frozenset(
    {
        "further reading",
        "references",
        "resources",
        "further resources",
        "reading",
        "learning objectives",
        "objectives",
        "what you'll learn",
        "what you will learn",
        "table of contents",
        "contents",
    }
)

Progress = Callable[[str], None]
NOT_WAITED_REASON = "not waited for: the lesson started before it arrived"


@dataclass(frozen=True)
class PlannedSource:
    url: str
    kind: str  # primary | external | curated
    title: str


@dataclass
class ReadSource:
    planned: PlannedSource
    text: str | None  # normalised; None when unreachable
    hash: str | None
    status: str
    reason: str | None


def _norm_title(title: str) -> str:
    return " ".join(title.replace("’", "'").lower().split()).strip(" :")


def outline(lesson: Any) -> list[OutlineItem]:
    """The lesson's `##`/`###` sections in order, without reading lists and objectives."""
    items: list[OutlineItem] = []
    top = ""
    skipping = False
    for section in lesson.sections:
        if section.level <= 2:
            top = section.title
            skipping = _norm_title(section.title) in SKIPPED_SECTIONS
        if skipping or _norm_title(section.title) in SKIPPED_SECTIONS:
            continue
        items.append(
            OutlineItem(title=section.title, section=top or section.title, level=section.level)
        )
    return items


def lang_recommendation(lesson: Any) -> str | None:
    """The first language of the lesson's Language(s) header: the one to do exercises in."""
    languages = [name for name in (lesson.languages or []) if name.strip()]
    return languages[0] if languages else None


def primary_text(lesson: Any) -> str | None:
    """The lesson document's normalised text (what `Digest.gate_view` grounds teaching in)."""
    return _text_of(read_primary(lesson))


def read_primary(lesson: Any) -> FetchResult:
    """The lesson document, read under the curriculum's rules (inside the curriculum, within
    its size cap), never through the fetcher's local-file reader."""
    from learning_system.curriculum import lesson_document

    url = str(lesson.doc_path)
    text = lesson_document(lesson)
    if text is None:
        return FetchResult(url=url, ok=False, reason="the lesson document could not be read")
    return FetchResult(url=url, ok=True, text=text, content_type="text/markdown", final_url=url)


def _curated(lesson: Any, curriculum: Any) -> list[PlannedSource]:
    """Curated resources, when the lesson or the curriculum declares any (`curated` or
    `resources`: items with a url and a title)."""
    out: list[PlannedSource] = []
    for owner in (lesson, curriculum):
        for name in ("curated", "resources"):
            for item in getattr(owner, name, None) or []:
                url = item.get("url") if isinstance(item, dict) else getattr(item, "url", None)
                title = (
                    item.get("title") if isinstance(item, dict) else getattr(item, "title", None)
                )
                if isinstance(url, str) and url:
                    out.append(PlannedSource(url=url, kind="curated", title=str(title or url)))
    return out


def plan_sources(
    lesson: Any, curriculum: Any, *, max_external: int, offline: bool
) -> tuple[list[PlannedSource], list[str]]:
    """The sources of one preparation, in digest order, and the links left for another time."""
    planned: list[PlannedSource] = []
    if lesson.doc_path is not None:
        planned.append(PlannedSource(url=str(lesson.doc_path), kind="primary", title=lesson.title))
    seen = {p.url for p in planned}
    links = []
    for link in lesson.further_reading:
        if link.url not in seen:
            seen.add(link.url)
            links.append(link)
    chosen = links if offline else links[: max(0, max_external)]
    left = [link.url for link in links[len(chosen) :]]
    planned.extend(
        PlannedSource(url=link.url, kind="external", title=link.title) for link in chosen
    )
    for source in _curated(lesson, curriculum):
        if source.url not in seen:
            seen.add(source.url)
            planned.append(source)
    return planned, left


def _text_of(result: FetchResult) -> str | None:
    """The normalised text of a successful fetch (None when it failed)."""
    if not result.ok or result.text is None:
        return None
    return body_to_text(result.text, result.content_type or "text/plain")


def _status(store: Any, url: str, digest: str) -> str:
    last = store.sources.last(url)
    last_hash = last.get("hash") if last else None
    if not last_hash:
        return "new"
    return "ok" if last_hash == digest else "changed"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_hash(
    lesson: Any, curriculum: Any, planned: list[PlannedSource], *, offline: bool, model: str | None
) -> str:
    request = {
        "version": DIGEST_VERSION,
        "lesson_id": lesson.id,
        "curriculum": curriculum.name,
        "sources": [[p.kind, p.url] for p in planned],
        "offline": offline,
        "model": model,
    }
    return "sha256:" + _sha(json.dumps(request, sort_keys=True, separators=(",", ":")))


def digest_id(request: str, sources: list[SourceEntry]) -> str:
    lines = [request, *(f"{s.url} {s.hash or 'unreachable'}" for s in sources)]
    return "dg-" + _sha("\n".join(lines))[:24]


def _model_id(provider: Any) -> str:
    return f"{getattr(provider, 'name', 'model')}:{getattr(provider, 'model', '')}"


async def prepare(
    lesson: Any,
    curriculum: Any,
    store: Any,
    *,
    provider: Any = None,
    offline: bool = False,
    max_external: int = 4,
    progress: Progress | None = None,
    client: Any = None,
    limits: FetchLimits | None = None,
    on_source: Callable[[int, int, str], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Digest:
    """Read the lesson's sources and build, save and return its digest. With `offline`, nothing
    is fetched and no model is asked; a model is used only when `provider` is not offline.
    `on_source(done, total, line)` is called as each source is read; once `stop()` is true,
    external references still being fetched are given up (reported unreachable)."""
    from learning_system.store import iso

    say = progress or (lambda _line: None)
    limits = limits or FetchLimits()
    use_model = provider is not None and not getattr(provider, "offline", True) and not offline
    planned, left = plan_sources(lesson, curriculum, max_external=max_external, offline=offline)
    by_url = {p.url: p for p in planned}
    read: dict[str, ReadSource] = {}

    def said(line: str) -> None:
        say(line)
        if on_source is not None:
            on_source(len(read), len(planned), line)

    def take(result: FetchResult, text: str | None) -> None:
        source = by_url[result.url]
        if source.url in read:
            return
        reason = result.reason
        if result.ok and not text:
            reason = "no readable text in the page"
        if not text:
            read[source.url] = ReadSource(
                source, None, None, "unreachable", reason or "unreachable"
            )
            if not offline and reason != NOT_WAITED_REASON:
                store.sources.record(source.url, None, "unreachable", "", reason)
            said(f"unreachable {source.url} — {reason}")
            return
        digest = content_hash(text)
        status = _status(store, source.url, digest)
        read[source.url] = ReadSource(source, text, digest, status, None)
        if not offline:
            store.sources.record(source.url, digest, status, excerpt(text))
        said(f"{status:<11} {source.url}")

    if offline:
        for source in planned:
            if source.kind == "primary":
                result = read_primary(lesson)
                take(result, _text_of(result))
            else:
                take(FetchResult(url=source.url, ok=False, reason=OFFLINE_REASON), None)
    else:
        gate = asyncio.Semaphore(limits.concurrency)

        async def one(http: Any, source: PlannedSource) -> None:
            async with gate:
                say(f"fetching    {source.url} …")
                if source.kind == "primary":
                    result = read_primary(lesson)
                else:
                    result = await fetch(http, source.url, limits)
            # extraction is CPU work: off the event loop, so other fetches keep their deadlines
            take(result, await asyncio.to_thread(_text_of, result))

        async with client_for(client, limits) as http:
            tasks = [asyncio.ensure_future(one(http, source)) for source in planned]
            pending = set(tasks)
            while pending:
                _, pending = await asyncio.wait(pending, timeout=0.1)
                if pending and stop is not None and stop():
                    for task in pending:
                        task.cancel()
                    await asyncio.gather(*pending, return_exceptions=True)
                    break
            for task in tasks:
                failure = None if task.cancelled() else task.exception()
                if failure is not None:
                    raise failure
        for source in planned:
            if source.url not in read:
                take(FetchResult(url=source.url, ok=False, reason=NOT_WAITED_REASON), None)

    items = outline(lesson)
    primary = next((read[p.url] for p in planned if p.kind == "primary"), None)
    compared = any(r.text for r in read.values() if r.planned.kind != "primary")
    primary_words = content_words(primary.text) if compared and primary and primary.text else set()
    warnings: list[str] = []
    entries: list[SourceEntry] = []
    for source in planned:
        got = read[source.url]
        text = got.text or ""
        is_primary = source.kind == "primary"
        entries.append(
            SourceEntry(
                url=source.url,
                kind=source.kind,
                title=source.title,
                hash=got.hash,
                status=got.status,
                reason=got.reason,
                excerpt=excerpt(text) if text else "",
                takeaways=derived_takeaways(text) if text else [],
                adds_vs_primary="" if is_primary or not text else derived_adds(text, primary_words),
            )
        )
    synthesis = ""
    if use_model:
        synthesis = await _apply_model(provider, lesson, items, entries, read, warnings)
    if not synthesis:
        synthesis = derived_synthesis(lesson.title, lesson.motto, items, entries)

    if primary is None:
        warnings.append("the lesson has no document: no primary source and no outline")
    if not lesson.further_reading:
        warnings.append("the lesson lists no Further Reading: the digest rests on the primary")
    if offline:
        warnings.append("offline: nothing was fetched; external references are unreachable")
    if left:
        warnings.append(
            f"{len(left)} more Further Reading link(s) not fetched this time (at "
            f"most {max_external} per preparation): {', '.join(left)}"
        )
    warnings.extend(
        f"drift: {e.url} changed since it was last read" for e in entries if e.status == "changed"
    )

    model = _model_id(provider) if use_model else None
    request = request_hash(lesson, curriculum, planned, offline=offline, model=model)
    digest = Digest(
        id=digest_id(request, entries),
        lesson_id=lesson.id,
        lesson_title=lesson.title,
        curriculum=curriculum.name,
        created_at=iso(),
        request_hash=request,
        sources=entries,
        synthesis=synthesis,
        outline=items,
        prereqs=build_prereqs(lesson, curriculum),
        lang_recommendation=lang_recommendation(lesson),
        warnings=warnings,
    )
    store.digests.save(digest.id, digest.lesson_id, digest.model_dump(mode="json"))
    return digest


async def _apply_model(
    provider: Any,
    lesson: Any,
    items: list[OutlineItem],
    entries: list[SourceEntry],
    read: dict[str, ReadSource],
    warnings: list[str],
) -> str:
    """Replace derived takeaways and adds with checked model ones; return the model's checked
    synthesis, or "" to have it derived."""
    from tutor.scout import model_notes

    info = {
        "id": lesson.id,
        "title": lesson.title,
        "motto": lesson.motto,
        "objectives": list(lesson.objectives),
        "outline": [i.title for i in items],
    }
    reachable = [e for e in entries if read[e.url].text]
    primary_excerpt = next((e.excerpt for e in entries if e.kind == "primary"), "")
    jobs = [
        (
            {"url": e.url, "title": e.title, "kind": e.kind, "status": e.status},
            read[e.url].text or "",
        )
        for e in reachable
    ]
    notes = await model_notes.all_source_notes(provider, info, jobs, primary_excerpt)
    for entry, note in zip(reachable, notes, strict=True):
        warnings.extend(note.warnings)
        if note.takeaways:
            entry.takeaways = note.takeaways
        if note.adds_vs_primary and entry.kind != "primary":
            entry.adds_vs_primary = note.adds_vs_primary
    sources = [
        {
            "url": e.url,
            "title": e.title,
            "kind": e.kind,
            "status": e.status,
            "untrusted_excerpt": e.excerpt,
            "untrusted_takeaways": e.takeaways,
        }
        for e in entries
    ]
    grounding = "\n".join(read[e.url].text or "" for e in reachable)
    text, problems = await model_notes.synthesis(
        provider, info, sources, grounding, [e.url for e in reachable]
    )
    warnings.extend(problems)
    return text or ""


def prepare_sync(lesson: Any, curriculum: Any, store: Any, **kwargs: Any) -> Digest:
    """`prepare` for callers without an event loop."""
    return aio.run(prepare(lesson, curriculum, store, **kwargs), kwargs.get("provider"))
