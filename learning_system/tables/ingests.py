"""Pending ingests: the Tutor writes one at a lesson's end; the Clerk consumes it and records its
status and reasons."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from learning_system.store import iso
from learning_system.tables import Table


class Ingests(Table):
    def save(
        self, ingest_id: str, session_id: str, lesson_id: str, payload: dict[str, Any]
    ) -> None:
        now = iso()
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO ingests (id, session_id, lesson_id, status, payload, "
                "reasons, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, '[]', ?, ?)",
                (ingest_id, session_id, lesson_id, json.dumps(payload, sort_keys=True), now, now),
            )

    def find(self, status: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM ingests", []
        if status is not None:
            sql, params = sql + " WHERE status = ?", [status]
        rows = self.store.rows(sql + " ORDER BY created_at, id", params)
        for r in rows:
            r["payload"] = json.loads(r["payload"])
            r["reasons"] = json.loads(r["reasons"] or "[]")
        return rows

    def status_of(self, ingest_id: str) -> tuple[str, list[str]] | None:
        """An ingest's status and reasons; None when there is no such ingest."""
        rows = self.store.rows("SELECT status, reasons FROM ingests WHERE id = ?", (ingest_id,))
        return (rows[0]["status"], json.loads(rows[0]["reasons"] or "[]")) if rows else None

    def set_status(
        self, ingest_id: str, status: str, reasons: list[str], when: datetime | None = None
    ) -> None:
        with self.store.transaction() as c:
            c.execute(
                "UPDATE ingests SET status = ?, reasons = ?, updated_at = ? WHERE id = ?",
                (status, json.dumps(reasons), iso(when), ingest_id),
            )
