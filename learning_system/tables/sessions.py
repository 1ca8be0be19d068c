"""The `sessions` table, each session's event log (`session_events`) and notes
(`session_notes`), and the prior's search over the learner's records. A session's writes are
checked against its lease (`Store.check_fence`): only the tutor holding a lesson writes it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from learning_system.store import iso
from learning_system.store_errors import SessionConflict
from learning_system.tables import Table, decoded
from learning_system.text import valid_data, valid_text

if TYPE_CHECKING:
    from learning_system.tables.rows import (
        EventRow,
        Match,
        NoteRow,
        SessionNote,
        SessionRef,
        SessionRow,
    )


class Sessions(Table):
    def save(
        self,
        session_id: str,
        lesson_id: str,
        curriculum: str,
        status: str,
        position: str,
        state: dict[str, Any],
    ) -> None:
        now = iso()
        with self.store.transaction() as c:
            self.store.check_fence(c, session_id)
            c.execute(
                "INSERT INTO sessions (id, lesson_id, curriculum, status, position, state, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO "
                "UPDATE SET status=excluded.status, position=excluded.position, "
                "state=excluded.state, updated_at=excluded.updated_at",
                (
                    session_id,
                    lesson_id,
                    curriculum,
                    status,
                    valid_text(position),
                    json.dumps(valid_data(state)),
                    now,
                    now,
                ),
            )

    def get(self, session_id: str) -> SessionRow | None:
        rows = self.store.rows("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return cast("SessionRow", decoded(rows[0], "state")) if rows else None

    def latest(
        self,
        curriculum: str | None = None,
        status: str | None = None,
        lesson_id: str | None = None,
    ) -> SessionRow | None:
        sql, params = "SELECT * FROM sessions WHERE 1=1", []
        for column, value in (
            ("curriculum", curriculum),
            ("status", status),
            ("lesson_id", lesson_id),
        ):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        rows = self.store.rows(sql + " ORDER BY updated_at DESC, rowid DESC LIMIT 1", tuple(params))
        return cast("SessionRow", decoded(rows[0], "state")) if rows else None

    def latest_unfinished(self) -> SessionRow | None:
        """The latest session not done or abandoned, whatever its curriculum."""
        rows = self.store.rows(
            "SELECT * FROM sessions WHERE status NOT IN ('done', 'abandoned') "
            "ORDER BY updated_at DESC, rowid DESC LIMIT 1"
        )
        return cast("SessionRow", decoded(rows[0], "state")) if rows else None

    def append_event(self, session_id: str, seq: int, kind: str, payload: dict[str, Any]) -> bool:
        """Append action `seq` of a session; a retried append of the same event adds nothing
        (False). A different event already at `seq` — another tutor writing the same session —
        raises SessionConflict: an answer is never silently dropped. Text is stored valid."""
        body = json.dumps(valid_data(payload), sort_keys=True)
        with self.store.transaction() as c:
            self.store.check_fence(c, session_id)
            cur = c.execute(
                "INSERT OR IGNORE INTO session_events (session_id, seq, kind, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (session_id, seq, kind, body, iso()),
            )
            if cur.rowcount == 1:
                return True
            row = c.execute(
                "SELECT kind, payload FROM session_events WHERE session_id = ? AND seq = ?",
                (session_id, seq),
            ).fetchone()
        if row is not None and (row[0], row[1]) == (kind, body):
            return False
        raise SessionConflict(
            f"session {session_id} already has a different event {seq}: another tutor is "
            "writing to this lesson. Nothing of yours was overwritten; close the other tutor and "
            "run `tutor continue`."
        )

    def events(self, session_id: str) -> list[EventRow]:
        rows = self.store.rows(
            "SELECT seq, kind, payload, created_at FROM session_events WHERE session_id = ? "
            "ORDER BY seq",
            (session_id,),
        )
        return [cast("EventRow", decoded(r, "payload")) for r in rows]

    def add_note(self, note_id: str, session_id: str, kind: str, body: dict[str, Any]) -> None:
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO session_notes (id, session_id, kind, body, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (note_id, session_id, kind, json.dumps(valid_data(body), sort_keys=True), iso()),
            )

    def notes(self, session_id: str | None = None) -> list[SessionNote]:
        if session_id is None:
            rows = self.store.rows("SELECT * FROM session_notes ORDER BY created_at, id")
        else:
            rows = self.store.rows(
                "SELECT * FROM session_notes WHERE session_id = ? ORDER BY created_at, id",
                (session_id,),
            )
        return [cast("SessionNote", decoded(r, "body")) for r in rows]

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
