"""Reads over sessions and their notes that span sessions (one session's own rows, its events
and notes are `Store` methods), and the prior's search over the learner's records."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from learning_system.tables import Table

if TYPE_CHECKING:
    from learning_system.tables.rows import Match, NoteRow, SessionRef


class Sessions(Table):
    def previous(self, session_id: str) -> SessionRef | None:
        """The most recently updated session other than `session_id`."""
        rows = self.store.rows(
            "SELECT id, lesson_id FROM sessions WHERE id != ? "
            "ORDER BY updated_at DESC, rowid DESC LIMIT 1",
            (session_id,),
        )
        return cast("SessionRef", rows[0]) if rows else None

    def lessons(self) -> dict[str, str]:
        """Each session's lesson id, by session id."""
        return {
            r["id"]: r["lesson_id"] for r in self.store.rows("SELECT id, lesson_id FROM sessions")
        }

    def all_notes(self) -> list[NoteRow]:
        """Every session note as stored (its body as JSON text), by session, then oldest first."""
        rows = self.store.rows("SELECT * FROM session_notes ORDER BY session_id, created_at, id")
        return cast("list[NoteRow]", rows)

    def matches(self, words: list[str], limit: int) -> list[Match]:
        """Concepts, open mistakes and attempts whose names or ids contain one of `words`
        (lower case), newest first, at most `limit`: the prior's one query."""
        if not words:
            return []
        likes = " OR ".join(["lower({col}) LIKE ?"] * len(words))
        params = [f"%{w}%" for w in words]
        sql = (
            "SELECT 'concept' AS src, id AS ref, name AS text, status AS detail, "
            "coalesce(last_review, created_at) AS at FROM concepts WHERE "
            + likes.format(col="name || ' ' || id")
            + " UNION ALL SELECT 'mistake', id, coalesce(concept_id, '') || ' ' || "
            "coalesce(item_id, ''), error_type, created_at FROM mistakes WHERE status = 'open' "
            "AND ("
            + likes.format(col="coalesce(concept_id, '') || ' ' || coalesce(item_id, '')")
            + ") UNION ALL SELECT 'attempt', id, coalesce(concept_id, '') || ' ' || "
            "coalesce(item_id, ''), outcome, created_at FROM attempts WHERE "
            + likes.format(col="coalesce(concept_id, '') || ' ' || coalesce(item_id, '')")
            + " ORDER BY at DESC LIMIT ?"
        )
        return cast("list[Match]", self.store.rows(sql, (*params, *params, *params, limit)))
