"""The `mistakes` table: wrong answers, each due again until it is resolved."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from learning_system.tables import Table, marks

if TYPE_CHECKING:
    from learning_system.tables.rows import DueRow, LedgerMistake, MistakeRow


class Mistakes(Table):
    def insert(self, row: MistakeRow) -> bool:
        """Durable when it returns; False when this id was already recorded (nothing changes)."""
        with self.store.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO mistakes (id, attempt_id, concept_id, item_id, lesson_id, "
                "error_type, attribution, status, retest_early, item, next_review, created_at, "
                "resolved_at) VALUES (:id, :attempt_id, :concept_id, :item_id, :lesson_id, "
                ":error_type, :attribution, :status, :retest_early, :item, :next_review, "
                ":created_at, :resolved_at)",
                dict(row),
            )
            return cur.rowcount == 1

    def attribute(self, mistake_id: str, error_type: str, attribution: str) -> None:
        with self.store.transaction() as c:
            c.execute(
                "UPDATE mistakes SET error_type = ?, attribution = ? WHERE id = ?",
                (error_type, attribution, mistake_id),
            )

    def reschedule(
        self,
        mistake_id: str,
        *,
        status: str,
        retest_early: int,
        next_review: str,
        resolved_at: str | None,
    ) -> None:
        with self.store.transaction() as c:
            c.execute(
                "UPDATE mistakes SET status = ?, retest_early = ?, next_review = ?, "
                "resolved_at = ? WHERE id = ?",
                (status, retest_early, next_review, resolved_at, mistake_id),
            )

    def get(self, mistake_id: str) -> MistakeRow | None:
        rows = self.store.rows("SELECT * FROM mistakes WHERE id = ?", (mistake_id,))
        return cast("MistakeRow", rows[0]) if rows else None

    def all(self, status: str | None = None) -> list[MistakeRow]:
        """Every mistake (or those with `status`), oldest first."""
        if status is None:
            rows = self.store.rows("SELECT * FROM mistakes ORDER BY created_at, id")
        else:
            rows = self.store.rows(
                "SELECT * FROM mistakes WHERE status = ? ORDER BY created_at, id", (status,)
            )
        return cast("list[MistakeRow]", rows)

    def open_first(self) -> list[MistakeRow]:
        """Every mistake, the open ones first, each group oldest first."""
        rows = self.store.rows(
            "SELECT * FROM mistakes ORDER BY CASE status WHEN 'open' THEN 0 ELSE 1 END, "
            "created_at, id"
        )
        return cast("list[MistakeRow]", rows)

    def existing(self, ids: list[str]) -> set[str]:
        """Which of `ids` are recorded."""
        unique = sorted(set(ids))
        if not unique:
            return set()
        rows = self.store.rows(f"SELECT id FROM mistakes WHERE id IN ({marks(unique)})", unique)
        return {r["id"] for r in rows}

    def due(self, at: str, limit: int) -> list[DueRow]:
        """Open mistakes due by `at`: early retests first, then oldest due; at most `limit`."""
        found: list[tuple[str, str | None, str, int]] = []
        for early in (1, 0):  # each a range scan of idx_mistakes_due, in order, stopping at limit
            found += self.store.execute(
                "SELECT id, concept_id, next_review, retest_early FROM mistakes "
                "WHERE status = 'open' AND retest_early = ? AND next_review <= ? "
                "ORDER BY next_review, id LIMIT ?",
                (early, at, limit - len(found)),
            ).fetchall()
            if len(found) >= limit:
                break
        return [
            {"kind": "mistake", "id": i, "concept_id": c, "due": d, "retest_early": bool(r)}
            for i, c, d, r in found
        ]

    def count_due(self, at: str) -> int:
        row = self.store.execute(
            "SELECT count(*) FROM mistakes WHERE status = 'open' AND next_review <= ?", (at,)
        ).fetchone()
        return int(row[0])

    def open_due_dates(self, before: str) -> list[str]:
        """When each open mistake due before `before` is due."""
        rows = self.store.execute(
            "SELECT next_review FROM mistakes WHERE status = 'open' AND next_review < ?",
            (before,),
        ).fetchall()
        return [r[0] for r in rows if r[0]]

    def with_curriculum(self) -> list[LedgerMistake]:
        """Every mistake with the curriculum of the session it was made in (None when its
        attempt or session is unknown), by id."""
        rows = self.store.rows(
            "SELECT m.id, m.lesson_id, m.item_id, m.error_type, m.attribution, m.status, "
            "m.retest_early, m.item, s.curriculum FROM mistakes m "
            "LEFT JOIN attempts a ON a.id = m.attempt_id "
            "LEFT JOIN sessions s ON s.id = a.session_id ORDER BY m.id"
        )
        return cast("list[LedgerMistake]", rows)
