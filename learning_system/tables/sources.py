"""What each source looked like when last read (hashes and excerpts only: content is never
cached), and the Scout's digests of a lesson's sources."""

from __future__ import annotations

import json
from typing import Any

from learning_system.store import iso
from learning_system.tables import Table


class Sources(Table):
    def last(self, url: str) -> dict[str, Any] | None:
        rows = self.store.rows("SELECT * FROM sources WHERE url = ?", (url,))
        return rows[0] if rows else None

    def record(
        self, url: str, hash: str | None, status: str, excerpt: str, reason: str | None = None
    ) -> None:
        """Remember what a source looked like. An unreachable source keeps its last good hash."""
        with self.store.transaction() as c:
            if hash is None:
                c.execute(
                    "INSERT INTO sources (url, hash, status, excerpt, reason, seen_at) "
                    "VALUES (?, NULL, ?, '', ?, ?) ON CONFLICT(url) DO UPDATE SET "
                    "status=excluded.status, reason=excluded.reason, seen_at=excluded.seen_at",
                    (url, status, reason, iso()),
                )
            else:
                c.execute(
                    "INSERT OR REPLACE INTO sources (url, hash, status, excerpt, reason, seen_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (url, hash, status, excerpt, reason, iso()),
                )


class Digests(Table):
    def save(self, digest_id: str, lesson_id: str, payload: dict[str, Any]) -> None:
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO digests (id, lesson_id, payload, created_at) "
                "VALUES (?, ?, ?, ?)",
                (digest_id, lesson_id, json.dumps(payload, sort_keys=True), iso()),
            )

    def get(self, digest_id: str) -> dict[str, Any] | None:
        rows = self.store.rows("SELECT payload FROM digests WHERE id = ?", (digest_id,))
        return json.loads(rows[0]["payload"]) if rows else None

    def latest(self, lesson_id: str) -> dict[str, Any] | None:
        rows = self.store.rows(
            "SELECT payload FROM digests WHERE lesson_id = ? ORDER BY created_at DESC LIMIT 1",
            (lesson_id,),
        )
        return json.loads(rows[0]["payload"]) if rows else None
