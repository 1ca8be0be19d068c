"""Gate receipts (one per gate decision on a message) and the model calls made (never the key;
the prompt only when the learner turned debug on)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from learning_system.store import iso

if TYPE_CHECKING:
    from learning_system.tables.rows import ReceiptRow
from learning_system.tables import Table, decoded


class Receipts(Table):
    def save(
        self,
        receipt_id: str,
        message_id: str,
        gate: str,
        outcome: str,
        payload: dict[str, Any],
        when: datetime | None = None,
    ) -> None:
        body = json.dumps(payload, sort_keys=True)
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO receipts (receipt_id, message_id, gate, outcome, payload, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (receipt_id, message_id, gate, outcome, body, iso(when)),
            )

    def of_message(self, message_id: str) -> list[ReceiptRow]:
        rows = self.store.rows(
            "SELECT * FROM receipts WHERE message_id = ? ORDER BY created_at, receipt_id",
            (message_id,),
        )
        return [cast("ReceiptRow", decoded(r, "payload")) for r in rows]

    def of_session(self, session_id: str) -> list[ReceiptRow]:
        """The receipts of every turn of one session (message ids `<session>:…`)."""
        rows = self.store.rows(
            "SELECT * FROM receipts WHERE message_id >= ? AND message_id < ? "
            "ORDER BY created_at, receipt_id",
            (f"{session_id}:", f"{session_id};"),
        )
        return [cast("ReceiptRow", decoded(r, "payload")) for r in rows]


class ModelCalls(Table):
    def record(
        self,
        call_id: str,
        provider: str,
        model: str,
        purpose: str,
        tokens_in: int,
        tokens_out: int,
        latency_ms: float,
        outcome: str,
        error_kind: str | None = None,
        prompt: str | None = None,
    ) -> None:
        with self.store.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO model_calls (call_id, provider, model, purpose, tokens_in, "
                "tokens_out, latency_ms, outcome, error_kind, prompt, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    call_id,
                    provider,
                    model,
                    purpose,
                    tokens_in,
                    tokens_out,
                    latency_ms,
                    outcome,
                    error_kind,
                    prompt,
                    iso(),
                ),
            )

    def all(self) -> list[dict[str, Any]]:
        return self.store.rows("SELECT * FROM model_calls ORDER BY created_at, call_id")
