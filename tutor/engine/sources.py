"""The session's sources: the Scout's digest of the lesson, and what the gates ground claims in."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from learning_system.curriculum import Curriculum, Lesson
from learning_system.store import Store
from tutor.engine.progress import Activity
from tutor.gates.digest_view import GateDigest

if TYPE_CHECKING:
    from tutor.scout.digest import Digest

log = logging.getLogger("tutor.engine")


def lesson_digest(
    store: Store,
    curriculum: Curriculum,
    lesson: Lesson,
    *,
    offline: bool,
    activity: Activity | None = None,
    provider: Any = None,
) -> Digest:
    """Prepare the lesson's digest with the Scout (stored by it) and return it. Each
    source read is reported to `activity`; once it is `stopping`, sources still being fetched
    are left out (reported unreachable: not waited for)."""
    from tutor.scout.scout import prepare_sync

    activity = activity or Activity()
    digest = prepare_sync(
        lesson,
        curriculum,
        store,
        provider=provider,
        offline=offline,
        on_source=lambda done, total, line: activity.report(
            f"sources: {line}", done, total, finished=done == total
        ),
        stop=lambda: activity.stopping,
    )
    activity.check()
    return digest


def model_notes_later(
    store: Store, curriculum: Curriculum, lesson: Lesson, provider: Any, drafter: Any
) -> None:
    """In the background, once the lesson has started: the Scout's notes and synthesis by the
    model, stored as the lesson's latest digest (what `tutor scout` shows). The first screen
    never waits on them; the lesson teaches from the digest it started with."""

    def prepare() -> None:
        try:
            lesson_digest(store, curriculum, lesson, offline=False, provider=provider)
        except Exception as exc:  # background work: logged, the lesson goes on without it
            log.warning("the Scout's model notes failed: %s: %s", type(exc).__name__, exc)

    drafter.prefetch("scout:model-notes", prepare)


def sources_summary(digest: Digest, lesson_id: str) -> str | None:
    """One line on the lesson's external references, when any was planned: how many could be
    read, and where the details are (`tutor scout`). None when the lesson lists none."""
    refs = [s for s in digest.sources if s.kind != "primary"]
    if not refs:
        return None
    ok = [s for s in refs if s.status in ("ok", "new", "changed")]
    lost = len(refs) - len(ok)
    scout = f'details: `tutor scout "{lesson_id}"`'
    if not lost:
        return f"{len(refs)} of {len(refs)} references read — teaching from the lesson and them"
    offline = all(s.reason == "offline" for s in refs if s not in ok)
    if offline and not ok:
        return f"references not fetched (offline) — teaching from the lesson; {scout}"
    read = f"{len(ok)} reference" + ("" if len(ok) == 1 else "s")
    return (
        f"{lost} of {len(refs)} references unreachable — teaching from the lesson"
        + (f" and {read}" if ok else "")
        + f"; {scout}"
    )


def _read(lesson: Lesson) -> str | None:
    from learning_system.curriculum import lesson_document

    return lesson_document(lesson)


def gate_digest(digest: Digest, lesson: Lesson, curriculum: Curriculum) -> GateDigest:
    """The digest's sources, with the full text of the lesson's own document (read now, never
    cached) and of its prerequisite lessons, so teaching compiled from their sections is
    grounded."""
    view = digest.gate_view(_read(lesson)).sources
    sources = dict(view)
    for ref in lesson.prerequisites:
        try:
            pre = curriculum.lesson(ref)
        except LookupError:
            continue
        text = _read(pre)
        if text and pre.doc_path:
            sources.setdefault(str(pre.doc_path), text)
    return GateDigest(sources=sources)
