"""Which pack a lesson has, in which state, read from the builds and the source as it is now.

A pack is usable only when its build is `ready`, its schema is this program's and its
fingerprint is the source's now. A failed build leaves the lesson's last pack as it was."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tutor.dossier.model import PACK_SCHEMA, KnowledgePack
from tutor.dossier.units import LessonSource, fingerprint, lesson_source

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum
    from learning_system.store import Store
    from learning_system.tables.rows import PackRow


@dataclass
class LessonPack:
    """A lesson's pack state: `none` (never built), ready, review_required, failed or stale."""

    lesson_id: str
    state: str
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    tokens: int = 0
    built_at: str | None = None
    row: PackRow | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "lesson": self.lesson_id,
            "state": self.state,
            "problems": self.problems,
            "error": self.error,
            "tokens": self.tokens,
            "built_at": self.built_at,
        }


def resolve(lesson_id: str, rows: list[PackRow], fingerprint_now: str) -> LessonPack:
    """The lesson's state from its builds (newest first) and its source's fingerprint now."""
    current = [
        r for r in rows if r["fingerprint"] == fingerprint_now and r["schema"] == PACK_SCHEMA
    ]
    made = [r for r in current if r["state"] in ("ready", "review_required")]
    if made:
        chosen = made[0]
    elif current:
        chosen = current[0]  # failed, or a build the source overtook
    elif rows:
        chosen = rows[0]
        return _of(lesson_id, chosen, "stale")
    else:
        return LessonPack(lesson_id, "none")
    return _of(lesson_id, chosen, chosen["state"])


def _of(lesson_id: str, row: PackRow, state: str) -> LessonPack:
    return LessonPack(
        lesson_id,
        state,
        json.loads(row["problems"]),
        row["error"],
        row["tokens_in"] + row["tokens_out"],
        row["built_at"],
        row,
    )


def curriculum_packs(store: Store, curriculum: Curriculum) -> list[tuple[LessonPack, str]]:
    """(pack state, title) of every lesson of the curriculum, in curriculum order."""
    builds: dict[str, list[PackRow]] = {}
    for row in store.packs.of_curriculum(str(curriculum.root)):
        builds.setdefault(row["lesson_id"], []).append(row)
    out = []
    for lesson in curriculum.lessons:
        now = fingerprint(lesson_source(lesson, curriculum))
        out.append((resolve(lesson.id, builds.get(lesson.id, []), now), lesson.title))
    return out


def lesson_pack(store: Store, source: LessonSource) -> LessonPack:
    rows = store.packs.of_lesson(source.curriculum, source.lesson_id)
    return resolve(source.lesson_id, rows, fingerprint(source))


def usable_pack(store: Store, source: LessonSource) -> KnowledgePack | None:
    """The lesson's pack when it may be used: ready, of this schema, of the source as it is."""
    state = lesson_pack(store, source)
    if state.state != "ready" or state.row is None or state.row["pack"] is None:
        return None
    return KnowledgePack.model_validate_json(state.row["pack"])
