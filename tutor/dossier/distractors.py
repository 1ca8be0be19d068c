"""Distractors from a ready pack's `error` atoms. With a model, a choice item the model writes —
a bank item rewritten as multiple choice, an isomorphic re-probe — may take its wrong options
from the lesson's common errors: the model is sent them as material (`untrusted_common_errors`),
and the item it makes is audited (`quiz_audit`) as any item. Without a ready pack nothing is
sent and nothing changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tutor.dossier.model import KnowledgePack

MAX_ERRORS = 8  # common errors sent with one request, in the pack's order


def common_errors(pack: KnowledgePack | None) -> list[dict[str, str]]:
    """The lesson's common errors as the request data carries them: what the error is, its
    symptom and its cause (the correction is the key's business, not a distractor's)."""
    if pack is None or pack.state != "ready":
        return []
    return [
        {"error": a.text, "symptom": a.symptom, "cause": a.cause}
        for a in pack.atoms
        if a.kind == "error"
    ][:MAX_ERRORS]
