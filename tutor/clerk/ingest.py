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

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from learning_system.outcome import PendingIngest
from learning_system.store import Store, utcnow
from tutor.clerk.apply import apply_writes
from tutor.clerk.batch import KINDS, Write, build_writes, lesson_end
from tutor.clerk.review import review
from tutor.gates.audit import save_receipt
from tutor.gates.envelopes import ReviewEnvelope

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


def _set_status(store: Store, ingest_id: str, status: str, reasons: list[str]) -> None:
    """Only when it differs: a repeated outcome must not move `updated_at`."""
    if store.ingests.status_of(ingest_id) == (status, reasons):
        return
    store.ingests.set_status(ingest_id, status, reasons)


def ingest(
    store: Store, pending: PendingIngest, *, provider: Any = None, now: datetime | None = None
) -> IngestResult:
    """Write one lesson's outcome into the learner's records, through the review gate."""
    known = store.ingests.status_of(pending.id)
    if known is None:
        store.ingests.save(
            pending.id, pending.session_id, pending.lesson_id, pending.model_dump(mode="json")
        )
    elif known[0] == "done":
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
    with store.transaction():  # the table writes below join it: all of them or none
        known = store.ingests.status_of(pending.id)
        if known is not None and known[0] == "done":  # another process got here first
            return IngestResult(
                ingest_id=pending.id, lesson_id=pending.lesson_id, status="unchanged"
            )
        changed = apply_writes(store, writes, now=when, ended=lesson_end(pending))
        save_receipt(store, outcome.receipt, when=when)
        store.ingests.set_status(pending.id, "done", outcome.reasons, when=when)
    return IngestResult(status="accepted", reasons=outcome.reasons, changed=changed, **result)


def ingest_pending(
    store: Store, provider: Any = None, *, now: datetime | None = None
) -> list[IngestResult]:
    """Ingest every pending (and earlier rejected) lesson outcome, oldest first."""
    results = []
    for row in store.ingests.find():
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
