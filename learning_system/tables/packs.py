"""Knowledge packs: one row per build, kept for audit. Which row a lesson uses, and whether it
is current, is decided by the caller (tutor/dossier/status.py) from the rows and the source's
fingerprint now."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from learning_system.tables import Table

if TYPE_CHECKING:
    from learning_system.tables.rows import PackRow

_COLUMNS = (
    "id, curriculum, lesson_id, fingerprint, schema, state, pack, problems, error, tokens_in, "
    "tokens_out, seconds, built_at"
)
_INSERT = (
    f"INSERT OR REPLACE INTO knowledge_packs ({_COLUMNS}) VALUES (:id, :curriculum, :lesson_id, "
    ":fingerprint, :schema, :state, :pack, :problems, :error, :tokens_in, :tokens_out, "
    ":seconds, :built_at)"
)


class Packs(Table):
    def publish(self, row: PackRow, fingerprint_now: Callable[[], str]) -> bool:
        """Write a finished build if the source still has the fingerprint it started from, and
        mark the lesson's packs of other fingerprints stale (kept for audit). Otherwise the
        build is written as `stale` and nothing else changes. Whether it was published."""
        with self.store.transaction() as c:
            if row["state"] != "failed" and fingerprint_now() != row["fingerprint"]:
                c.execute(_INSERT, {**row, "state": "stale"})
                return False
            c.execute(_INSERT, dict(row))
            if row["state"] != "failed":
                c.execute(
                    "UPDATE knowledge_packs SET state = 'stale' WHERE curriculum = ? AND "
                    "lesson_id = ? AND fingerprint != ? AND state IN ('ready', 'review_required')",
                    (row["curriculum"], row["lesson_id"], row["fingerprint"]),
                )
            return True

    def of_lesson(self, curriculum: str, lesson_id: str) -> list[PackRow]:
        """The lesson's builds, newest first."""
        rows = self.store.rows(
            f"SELECT {_COLUMNS} FROM knowledge_packs WHERE curriculum = ? AND lesson_id = ? "
            "ORDER BY built_at DESC, id",
            (curriculum, lesson_id),
        )
        return cast("list[PackRow]", rows)

    def of_curriculum(self, curriculum: str) -> list[PackRow]:
        """Every build of the curriculum's lessons, newest first."""
        rows = self.store.rows(
            f"SELECT {_COLUMNS} FROM knowledge_packs WHERE curriculum = ? "
            "ORDER BY built_at DESC, id",
            (curriculum,),
        )
        return cast("list[PackRow]", rows)

    def ready(self) -> list[PackRow]:
        """The newest `ready` build of each lesson of each curriculum, by curriculum and lesson
        (whether its source has changed since is the caller's to tell)."""
        rows = self.store.rows(
            f"SELECT {_COLUMNS} FROM knowledge_packs WHERE state = 'ready' "
            "ORDER BY curriculum, lesson_id, built_at DESC, id"
        )
        newest: dict[tuple[str, str], PackRow] = {}
        for row in cast("list[PackRow]", rows):
            newest.setdefault((row["curriculum"], row["lesson_id"]), row)
        return list(newest.values())
