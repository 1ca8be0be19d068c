"""The `attempts` table: every answer the learner gave, keyed by a client-chosen id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from learning_system.tables import Table, marks

if TYPE_CHECKING:
    from collections.abc import Sequence

    from learning_system.tables.rows import Answer, AttemptRow, ConfidenceCount


class Attempts(Table):
    def insert(self, row: AttemptRow) -> bool:
        """Durable when it returns; False when this id was already recorded (nothing changes)."""
        with self.store.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO attempts (id, session_id, lesson_id, concept_id, item_id, "
                "kind, answer, outcome, confidence, feynman, payload, created_at) VALUES "
                "(:id, :session_id, :lesson_id, :concept_id, :item_id, :kind, :answer, :outcome, "
                ":confidence, :feynman, :payload, :created_at)",
                dict(row),
            )
            if cur.rowcount != 1:
                return False
            self.store.after_commit(self.store.mark_answers)
            return True

    def grade(self, attempt_id: str, outcome: str) -> bool:
        """Set the outcome of a pending attempt, once; False when it was not pending."""
        with self.store.transaction() as c:
            cur = c.execute(
                "UPDATE attempts SET outcome = ? WHERE id = ? AND outcome = 'pending'",
                (outcome, attempt_id),
            )
            return cur.rowcount == 1

    def reveal(self, attempt_ids: Sequence[str]) -> None:
        """Drop the `withheld` mark of these attempts: their results have been shown."""
        with self.store.transaction() as c:
            c.executemany(
                "UPDATE attempts SET payload = json_remove(payload, '$.withheld') WHERE id = ?",
                [(i,) for i in attempt_ids],
            )

    def where(
        self, *, session_id: str | None = None, concept_id: str | None = None
    ) -> list[AttemptRow]:
        """Attempts of a session and/or a concept (all of them without either), oldest first."""
        sql, params = "SELECT * FROM attempts WHERE 1=1", []
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        if concept_id is not None:
            sql += " AND concept_id = ?"
            params.append(concept_id)
        return cast("list[AttemptRow]", self.store.rows(sql + " ORDER BY created_at, id", params))

    def revealed_items(self, lesson_ids: Sequence[str]) -> set[str]:
        """The items of these lessons the learner has answered and seen graded (not
        `withheld`), in any session."""
        if not lesson_ids:
            return set()
        rows = self.store.rows(
            "SELECT DISTINCT item_id FROM attempts WHERE item_id IS NOT NULL AND item_id != '' "
            f"AND lesson_id IN ({marks(list(lesson_ids))}) "
            "AND json_extract(payload, '$.withheld') IS NULL",
            list(lesson_ids),
        )
        return {r["item_id"] for r in rows}

    def by_ids(self, ids: list[str]) -> dict[str, AttemptRow]:
        rows = self.store.rows(f"SELECT * FROM attempts WHERE id IN ({marks(ids)})", ids)
        return {r["id"]: cast("AttemptRow", r) for r in rows}

    def existing(self, ids: list[str], *, correct: bool = False) -> set[str]:
        """Which of `ids` are recorded (and, with `correct`, were answered correctly)."""
        unique = sorted(set(ids))
        if not unique:
            return set()
        where = "outcome = 'correct' AND " if correct else ""
        rows = self.store.rows(
            f"SELECT id FROM attempts WHERE {where}id IN ({marks(unique)})", unique
        )
        return {r["id"] for r in rows}

    def recent_answers(self, concept_id: str, limit: int = 50) -> list[Answer]:
        """A concept's last `limit` answers, newest first."""
        rows = self.store.rows(
            "SELECT created_at, outcome, confidence FROM attempts WHERE concept_id = ? "
            "ORDER BY created_at DESC LIMIT ?",
            (concept_id, limit),
        )
        return cast("list[Answer]", rows)

    def answers_about(self, concept_id: str, attempt_ids: list[str]) -> list[Answer]:
        """The answers about a concept or among `attempt_ids`, oldest first."""
        rows = self.store.rows(
            "SELECT created_at, outcome, confidence FROM attempts "
            f"WHERE concept_id = ? OR id IN ({marks(attempt_ids)}) ORDER BY created_at, id",
            (concept_id, *attempt_ids),
        )
        return cast("list[Answer]", rows)

    def graded_since(self, since: str, limit: int = 5000) -> list[Answer]:
        """Graded answers (not pending) from `since` on, newest first, at most `limit`."""
        rows = self.store.rows(
            "SELECT created_at, outcome, confidence FROM attempts WHERE outcome != 'pending' "
            "AND created_at >= ? ORDER BY created_at DESC LIMIT ?",
            (since, limit),
        )
        return cast("list[Answer]", rows)

    def confidence_counts(self, since: str) -> list[ConfidenceCount]:
        """Answers from `since` on that were right or wrong and carry a confidence tag, counted
        by concept (its name; its lesson until the Clerk has named it), tag and outcome — not
        those still withheld (their batch's results not shown yet)."""
        rows = self.store.rows(
            "SELECT coalesce(c.name, a.lesson_id, a.concept_id, '') AS concept, a.confidence, "
            "a.outcome, count(*) AS n FROM attempts a LEFT JOIN concepts c ON c.id = a.concept_id "
            "WHERE a.outcome IN ('correct', 'wrong') AND a.confidence IN ('sure', 'hunch', "
            "'no_idea') AND a.created_at >= ? "
            "AND json_extract(a.payload, '$.withheld') IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
            (since,),
        )
        return cast("list[ConfidenceCount]", rows)

    def home_counts(self, at: str, ends: list[str]) -> dict[str, Any]:
        """Counted in SQL: open mistakes and concepts due at `at` (an ISO time), concepts by
        status, their mean mastery, and `due_days`: how many of both come due in each window
        ending at `ends` (ISO times, ascending), the first counting everything due before it."""
        with self.store.lock:
            due_mistakes, due_concepts, mastery = self.store.execute(
                "SELECT (SELECT count(*) FROM mistakes WHERE status = 'open' "
                "AND next_review <= :at), "
                "(SELECT count(*) FROM concepts WHERE next_review <= :at), "
                "(SELECT avg(mastery) FROM concepts)",
                {"at": at},
            ).fetchone()
            by_status = self.store.execute(
                "SELECT status, count(*) FROM concepts GROUP BY status"
            ).fetchall()
            before = (
                [
                    n or 0
                    for n in self.store.execute(
                        "WITH due(at) AS (SELECT next_review FROM mistakes WHERE status = 'open' "
                        "AND next_review < :last UNION ALL SELECT next_review FROM concepts "
                        "WHERE next_review < :last) SELECT "
                        + ", ".join(
                            f"count(CASE WHEN at < :e{i} THEN 1 END)" for i in range(len(ends))
                        )
                        + " FROM due WHERE at != ''",
                        {"last": ends[-1], **{f"e{i}": end for i, end in enumerate(ends)}},
                    ).fetchone()
                ]
                if ends
                else []
            )
        return {
            "due_mistakes": due_mistakes,
            "due_concepts": due_concepts,
            "concepts": dict(by_status),
            "mastery": None if mastery is None else round(mastery, 2),
            "due_days": [n - (before[i - 1] if i else 0) for i, n in enumerate(before)],
        }

    def answers_since(self, since: str, limit: int) -> list[tuple[str, str, str | None]]:
        """(created_at, outcome, confidence) of the graded answers from `since` (ISO), oldest
        first; the latest `limit` of them — not those still withheld (`confidence_counts`)."""
        rows = self.store.execute(
            "SELECT created_at, outcome, confidence FROM attempts WHERE outcome != 'pending' "
            "AND created_at >= ? AND json_extract(payload, '$.withheld') IS NULL "
            "ORDER BY created_at DESC LIMIT ?",
            (since, limit),
        ).fetchall()
        return rows[::-1]

    def quiz_score(self, session_id: str) -> tuple[int, int]:
        """(right, asked) of the session's quiz answers."""
        right, total = self.store.execute(
            "SELECT count(CASE WHEN outcome = 'correct' THEN 1 END), count(*) FROM attempts "
            "WHERE session_id = ? AND kind = 'quiz'",
            (session_id,),
        ).fetchone()
        return right, total
