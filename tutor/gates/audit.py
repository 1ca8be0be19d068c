"""Receipts kept in the store for audit (SPEC §5). The store is passed in; its module is never
imported here, so the gates stay free of I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from tutor.gates.receipts import Receipt


class ReceiptRows(Protocol):
    def save(
        self,
        receipt_id: str,
        message_id: str,
        gate: str,
        outcome: str,
        payload: dict[str, Any],
        when: datetime | None = None,
    ) -> None: ...

    def of_message(self, message_id: str) -> Sequence[Mapping[str, object]]: ...


class ReceiptStore(Protocol):
    @property
    def receipts(self) -> ReceiptRows: ...


def save_receipt(store: ReceiptStore, receipt: Receipt, when: datetime | None = None) -> None:
    """Keep one receipt (idempotent: saving it twice keeps one row), dated `when` (now by
    default). `outcome` is the verdict: PASS, ISSUES or UNVERIFIED."""
    store.receipts.save(
        receipt_id=receipt.receipt_id,
        message_id=receipt.message_id,
        gate=receipt.gate,
        outcome=receipt.verdict.verdict,
        payload=receipt.model_dump(mode="json"),
        when=when,
    )


def load_receipt_payload(payload: Any) -> Receipt | None:
    """A stored receipt, or None when it is no longer a valid one."""
    try:
        return Receipt.model_validate(payload)
    except ValidationError:
        return None


def load_receipts(store: ReceiptStore, message_id: str) -> list[Receipt]:
    """The receipts kept for one turn. A stored payload that is no longer a valid receipt is
    left out, so the checker then finds the gate missing and blocks (fail closed)."""
    out = [
        load_receipt_payload(row.get("payload")) for row in store.receipts.of_message(message_id)
    ]
    return [r for r in out if r is not None]
