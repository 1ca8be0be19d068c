"""The `concepts` table: what the learner met, with its schedule and advisory mastery."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from learning_system.tables import Table, marks

if TYPE_CHECKING:
    from learning_system.tables.rows import ConceptRow, DueRow

# columns a caller may set by name (the keys of `update`; ConceptRow's keys); others are refused
COLUMNS = frozenset(
    {
        "id",
        "name",
        "track",
        "type",
        "language",
        "status",
        "notes",
        "lesson_id",
        "card",
        "interval_index",
        "next_review",
        "last_review",
        "mastery",
        "created_at",
        "updated_at",
    }
)


def _sets(fields: Mapping[str, object]) -> str:
    unknown = set(fields) - COLUMNS
    if unknown:
        raise ValueError(f"not a concept column: {', '.join(sorted(unknown))}")
    return ", ".join(f"{k} = :{k}" for k in fields if k != "id")


class Concepts(Table):
    def get(self, concept_id: str) -> ConceptRow | None:
        rows = self.store.rows("SELECT * FROM concepts WHERE id = ?", (concept_id,))
        return cast("ConceptRow", rows[0]) if rows else None

    def all(self) -> list[ConceptRow]:
        """Every concept, by lesson then id."""
        return cast(
            "list[ConceptRow]", self.store.rows("SELECT * FROM concepts ORDER BY lesson_id, id")
        )

    def by_ids(self, ids: list[str]) -> dict[str, ConceptRow]:
        rows = self.store.rows(f"SELECT * FROM concepts WHERE id IN ({marks(ids)})", ids)
        return {r["id"]: cast("ConceptRow", r) for r in rows}

    def names(self) -> dict[str, str]:
        """Each concept's name by id."""
        return {r["id"]: r["name"] for r in self.store.rows("SELECT id, name FROM concepts")}

    def insert(self, row: ConceptRow) -> None:
        with self.store.transaction() as c:
            c.execute(
                "INSERT INTO concepts (id, name, track, type, language, status, notes, lesson_id, "
                "card, interval_index, next_review, last_review, mastery, created_at, "
                "updated_at) VALUES (:id, :name, :track, :type, :language, :status, :notes, "
                ":lesson_id, :card, :interval_index, :next_review, :last_review, :mastery, "
                ":created_at, :updated_at)",
                dict(row),
            )

    def update(self, concept_id: str, fields: Mapping[str, object]) -> None:
        """Set the named columns of one concept (nothing else moves, `updated_at` included)."""
        if not fields:
            return
        with self.store.transaction() as c:
            c.execute(
                f"UPDATE concepts SET {_sets(fields)} WHERE id = :id",
                {**fields, "id": concept_id},
            )

    def due(self, at: str, limit: int) -> list[DueRow]:
        """Concepts due by `at`, oldest due first; at most `limit`."""
        rows = self.store.execute(
            "SELECT id, next_review FROM concepts WHERE next_review <= ? "
            "ORDER BY next_review, id LIMIT ?",
            (at, limit),
        ).fetchall()
        return [
            {"kind": "concept", "id": i, "concept_id": i, "due": d, "retest_early": False}
            for i, d in rows
        ]

    def count_due(self, at: str) -> int:
        row = self.store.execute(
            "SELECT count(*) FROM concepts WHERE next_review <= ?", (at,)
        ).fetchone()
        return int(row[0])

    def due_dates(self, before: str) -> list[str]:
        """When each concept due before `before` is due."""
        rows = self.store.execute(
            "SELECT next_review FROM concepts WHERE next_review < ?", (before,)
        ).fetchall()
        return [r[0] for r in rows if r[0]]

    def count_by_status(self) -> dict[str, int]:
        rows = self.store.rows("SELECT status, count(*) AS n FROM concepts GROUP BY status")
        return {r["status"]: r["n"] for r in rows}

    def mean_mastery(self) -> float | None:
        value = self.store.execute("SELECT avg(mastery) FROM concepts").fetchone()[0]
        return None if value is None else float(value)
