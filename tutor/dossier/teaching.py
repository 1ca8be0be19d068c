"""The hook between knowledge packs and a lesson: which pack a lesson teaches from, and what a
step takes from it. Opening a lesson never builds a pack; a lesson without a usable pack is
taught from its digest as before."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tutor.dossier.selection import Selection, select

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson
    from learning_system.store import Store
    from tutor.dossier.model import KnowledgePack

log = logging.getLogger(__name__)


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


def step_selection(pack: KnowledgePack | None, part: str) -> Selection | None:
    """What the step on section `part` takes from the pack; None (the raw digest) when there is
    no pack or the selection is declined."""
    chosen = select(pack, part)
    if isinstance(chosen, Selection):
        return chosen
    if pack is not None:
        log.info("pack selection for %r declined: %s", part, chosen.reason)
    return None


def step_evidence(pack: KnowledgePack | None, part: str) -> tuple[str, str] | None:
    """(what the learner is asked to show, the facts it proves) of the first evidence atom of
    the step on section `part`; None when the pack has none for it."""
    chosen = step_selection(pack, part)
    if chosen is None or pack is None:
        return None
    texts = {a.id: a.text for a in pack.atoms}
    for atom in chosen.atoms:
        if atom.kind == "evidence" and any(p in texts for p in atom.proves):
            return atom.text, " ".join(texts[p] for p in atom.proves if p in texts)
    return None
