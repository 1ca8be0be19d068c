"""The hook between knowledge packs and a lesson: which pack a lesson teaches from, and what a
step takes from it. Opening a lesson never builds a pack; a lesson without a usable pack is
taught from its digest as before."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutor.dossier.selection import Selection, select

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson
    from learning_system.store import Store
    from tutor.dossier.background import BackgroundBuild
    from tutor.dossier.model import KnowledgePack

log = logging.getLogger(__name__)
Memo = Callable[[str, Callable[[], Any]], Any]  # the session journal's memo
OFFLINE_LESSON = (
    "no model is in use, so no knowledge pack is built for this lesson: "
    "it is taught from its digest"
)


@dataclass
class PackAtStart:
    """The lesson's pack as a new session starts: its build in the background (if one was
    started), the one quiet notice the lesson starts with (said once, never on resume), and
    what the sources screen says of it."""

    build: BackgroundBuild | None = None
    notice: str | None = None
    lines: list[str] = field(default_factory=list)


def pack_at_start(
    store: Store,
    curriculum: Curriculum,
    lesson: Lesson,
    provider: object,
    pack: KnowledgePack | None,
    build: bool,
) -> PackAtStart:
    """`build`: the Scout's model work is on, so the pack is built in the background (when a
    model is configured). The notice is said only when no model is configured and the lesson
    has no usable pack (a pack built earlier is still used)."""
    from tutor.dossier.background import KEPT, build_after_scout
    from tutor.dossier.report import BUILD_IT, BUILDING, pack_lines
    from tutor.dossier.status import lesson_pack
    from tutor.dossier.units import lesson_source

    configured = provider is not None and not getattr(provider, "offline", True)
    notice = OFFLINE_LESSON if not configured and pack is None else None
    state = lesson_pack(store, lesson_source(lesson, curriculum))
    started = build_after_scout(store, curriculum, lesson, provider) if build else None
    later = ""
    if configured and state.state not in KEPT:
        later = BUILDING if started is not None else BUILD_IT
    return PackAtStart(started, notice, pack_lines(state, notice, later))


def lesson_pack_for(store: Store, curriculum: Curriculum, lesson: Lesson) -> KnowledgePack | None:
    """The lesson's pack when it is ready, of this schema and of its source as it is now."""
    from pydantic import ValidationError

    from tutor.dossier.status import usable_pack
    from tutor.dossier.units import lesson_source

    try:
        return usable_pack(store, lesson_source(lesson, curriculum))
    except ValidationError as exc:
        log.warning(
            "the knowledge pack of %s cannot be read (%s errors)", lesson.id, exc.error_count()
        )
        return None


def session_packs(
    store: Store, curriculum: Curriculum, lesson: Lesson, memo: Memo
) -> tuple[KnowledgePack | None, dict[str, KnowledgePack]]:
    """The lesson's ready pack and its prerequisites' (by lesson id), each only if it is the
    one the session started with (`memo` keeps their hashes in the session's log): a pack that
    changed since, or was built meanwhile, is not used."""
    pack = lesson_pack_for(store, curriculum, lesson)
    started = memo("pack", lambda: pack.sha256 if pack is not None else "")
    own = pack if pack is not None and pack.sha256 == started else None
    found: dict[str, KnowledgePack] = {}
    for ref in lesson.prerequisites:
        try:
            pre = curriculum.lesson(ref)
        except LookupError:
            continue
        if (ready := lesson_pack_for(store, curriculum, pre)) is not None:
            found[pre.id] = ready
    shas = memo("prerequisite_packs", lambda: {k: p.sha256 for k, p in found.items()})
    return own, {k: p for k, p in found.items() if shas.get(k) == p.sha256}


def step_selection(
    pack: KnowledgePack | None,
    part: str,
    recent_errors: Collection[str] = (),
    prerequisites: Mapping[str, KnowledgePack] | None = None,
) -> Selection | None:
    """What the step on section `part` takes from the pack (tutor.dossier.selection.select);
    None (the raw digest) when there is no pack or the selection is declined."""
    chosen = select(pack, part, recent_errors, prerequisites)
    if isinstance(chosen, Selection):
        return chosen
    if pack is not None:
        log.info("pack selection for %r declined: %s", part, chosen.reason)
    return None


@dataclass(frozen=True)
class StepEvidence:
    """What the learner is asked to show, the facts it proves (the reference), and the
    reference's sentences the program found in none of the units their atoms name."""

    prompt: str
    reference: str
    unsourced: list[str]


def step_evidence(pack: KnowledgePack | None, part: str) -> StepEvidence | None:
    """The first evidence atom of the step on section `part`; None when the pack has none for
    it."""
    from tutor.dossier.checks import sentences_not_found

    chosen = step_selection(pack, part)
    if chosen is None or pack is None:
        return None
    atoms = {a.id: a for a in pack.atoms}
    unit_texts = {u.id: u.text for u in pack.units}
    for atom in chosen.atoms:
        proved = [atoms[p] for p in atom.proves if p in atoms]
        if atom.kind == "evidence" and proved:
            unsourced = [
                s for a in proved for s in sentences_not_found([a.text], a.units, unit_texts)
            ]
            return StepEvidence(atom.text, " ".join(a.text for a in proved), unsourced)
    return None
