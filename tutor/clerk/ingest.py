"""Ingest a finished lesson: the write batch through the review gate, then all of it in one
transaction together with marking the ingest done — or none of it.

- Accepted: concepts, glossary terms, the learning record and the knowledge pages are written,
  the receipt is kept, and the ingest is `done`, all in one transaction.
- Rejected: the ingest is `rejected` with its reasons (shown by `tutor ingest`); no record is
  written. It is retried by the next `ingest_pending`.
- Idempotent: a `done` ingest is `unchanged`; a write that would change nothing is skipped, and
  a status is only set when it differs, so repeating an ingest changes no byte of the store.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from learning_system.outcome import PendingIngest
from learning_system.store import Store, iso, utcnow
from tutor.clerk.apply import apply_writes
from tutor.clerk.batch import KINDS, Write, build_writes, lesson_end
from tutor.clerk.review import review
from tutor.gates.audit import save_receipt
from tutor.gates.envelopes import ReviewEnvelope
from tutor.gates.receipts import Receipt

RETRIED = ("pending", "rejected")


class IngestResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ingest_id: str
    lesson_id: str
    status: Literal["accepted", "rejected", "unchanged"]
    reasons: list[str] = Field(default_factory=list)
    writes: list[dict[str, Any]] = Field(default_factory=list)
    changed: int = 0  # records written (0 when every write was already in the store)
    receipt_id: str | None = None


def summary(writes: list[Write]) -> str:
    counts = {k: sum(1 for w in writes if w["kind"] == k) for k in KINDS}
    return ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items())


def _ingest_row(store: Store, ingest_id: str) -> dict[str, Any] | None:
    rows = store.rows("SELECT status, reasons FROM ingests WHERE id = ?", (ingest_id,))
    return rows[0] if rows else None


def _set_status(store: Store, ingest_id: str, status: str, reasons: list[str]) -> None:
    """Only when it differs: a repeated outcome must not move `updated_at`."""
    row = _ingest_row(store, ingest_id)
    if row and row["status"] == status and json.loads(row["reasons"] or "[]") == reasons:
        return
    store.set_ingest_status(ingest_id, status, reasons)


def _receipt_row(receipt: Receipt) -> tuple[str, str, str, str, str]:
    """The receipt as `tutor.gates.audit.save_receipt` keeps it, for a write inside our own
    transaction."""
    payload = json.dumps(receipt.model_dump(mode="json"), sort_keys=True)
    return receipt.receipt_id, receipt.message_id, receipt.gate, receipt.verdict.verdict, payload


def ingest(
    store: Store, pending: PendingIngest, *, provider: Any = None, now: datetime | None = None
) -> IngestResult:
    """Write one lesson's outcome into the learner's records, through the review gate."""
    row = _ingest_row(store, pending.id)
    if row is None:
        store.save_ingest(
            pending.id, pending.session_id, pending.lesson_id, pending.model_dump(mode="json")
        )
    elif row["status"] == "done":
        return IngestResult(ingest_id=pending.id, lesson_id=pending.lesson_id, status="unchanged")

    writes = build_writes(store, pending)
    envelope = ReviewEnvelope(
        batch_id=pending.id,
        writes=writes,
        reference_excerpt="\n\n".join(s.content for s in pending.taught if s.content.strip()),
    )
    outcome = review(store, pending, envelope, provider=provider, summary=summary(writes))
    result = dict(
        ingest_id=pending.id,
        lesson_id=pending.lesson_id,
        writes=writes,
        receipt_id=outcome.receipt.receipt_id,
    )
    if not outcome.accepted:
        save_receipt(store, outcome.receipt)
        _set_status(store, pending.id, "rejected", outcome.reasons)
        return IngestResult(status="rejected", reasons=outcome.reasons, **result)

    when = now or utcnow()
    with store.transaction() as conn:
        status = conn.execute("SELECT status FROM ingests WHERE id = ?", (pending.id,)).fetchone()
        if status is not None and status[0] == "done":  # another process got here first
            return IngestResult(
                ingest_id=pending.id, lesson_id=pending.lesson_id, status="unchanged"
            )
        changed = apply_writes(conn, writes, now=when, ended=lesson_end(pending))
        conn.execute(
            "INSERT OR IGNORE INTO receipts (receipt_id, message_id, gate, outcome, payload, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (*_receipt_row(outcome.receipt), iso(when)),
        )
        conn.execute(
            "UPDATE ingests SET status = 'done', reasons = ?, updated_at = ? WHERE id = ?",
            (json.dumps(outcome.reasons), iso(when), pending.id),
        )
    return IngestResult(status="accepted", reasons=outcome.reasons, changed=changed, **result)


def ingest_pending(
    store: Store, provider: Any = None, *, now: datetime | None = None
) -> list[IngestResult]:
    """Ingest every pending (and earlier rejected) lesson outcome, oldest first."""
    results = []
    for row in store.ingests():
        if row["status"] not in RETRIED:
            continue
        try:
            pending = PendingIngest.model_validate(row["payload"])
        except ValidationError as exc:
            reasons = [
                f"the pending ingest cannot be read ({exc.error_count()} problems: "
                f"{exc.errors()[0]['msg']}); it was kept as it is"
            ]
            _set_status(store, row["id"], "rejected", reasons)
            results.append(
                IngestResult(
                    ingest_id=row["id"],
                    lesson_id=row["lesson_id"] or "",
                    status="rejected",
                    reasons=reasons,
                )
            )
            continue
        if pending.id != row["id"]:
            pending = pending.model_copy(update={"id": row["id"]})
        results.append(ingest(store, pending, provider=provider, now=now))
    return results
