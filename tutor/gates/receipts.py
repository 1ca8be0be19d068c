"""A receipt binds one gate's envelope and verdict to one turn (its message id)."""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tutor.gates.envelopes import (
    Envelope,
    FactCheckEnvelope,
    GateName,
    GradeAuditEnvelope,
    QuizAuditEnvelope,
    ReviewEnvelope,
)
from tutor.gates.verdicts import VERDICT_FOR_GATE, FactCheckVerdict, Verdict

Verifier = Literal["offline", "model", "none"]
MAX_CYCLES = 2


class Receipt(BaseModel):
    """`unverified` lists the claim or question ids the verdict leaves UNVERIFIED; it is derived
    from the verdict (pass it only to have it checked)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    receipt_id: str = Field(min_length=1)
    message_id: str = Field(min_length=1)
    gate: GateName
    envelope: Envelope
    verdict: Verdict
    cycles: int = Field(ge=0, le=MAX_CYCLES)
    verifier: Verifier
    unverified: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _verdict_by_gate(cls, data: Any) -> Any:
        # The four verdict shapes overlap, so the receipt's gate picks the one to validate.
        if isinstance(data, dict) and isinstance(data.get("verdict"), dict):
            model = VERDICT_FOR_GATE.get(data.get("gate"))  # type: ignore[arg-type]
            if model is not None:
                data = {**data, "verdict": model.model_validate(data["verdict"])}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Receipt:
        if self.envelope.gate != self.gate:
            raise ValueError(f"receipt gate {self.gate} but envelope gate {self.envelope.gate}")
        if type(self.verdict) is not VERDICT_FOR_GATE[self.gate]:
            raise ValueError(f"verdict is not a {self.gate} verdict")
        derived = unverified_ids(self.envelope, self.verdict)
        if "unverified" in self.model_fields_set and self.unverified != derived:
            raise ValueError(f"unverified must be {derived}, the ids the verdict leaves open")
        object.__setattr__(self, "unverified", derived)
        return self

    @cached_property
    def content_hash(self) -> str:
        """What the receipt id must be: receipt_hash of the content (computed once)."""
        return receipt_hash(
            self.message_id, self.envelope, self.verdict, self.cycles, self.verifier
        )


def unverified_ids(envelope: Envelope, verdict: Verdict) -> list[str]:
    """The claim or question ids a verdict marks UNVERIFIED (all of them for a whole-turn
    UNVERIFIED verdict)."""
    if isinstance(verdict, FactCheckVerdict):
        return [c.id for c in verdict.claims if c.verdict == "UNVERIFIED"]
    if verdict.verdict != "UNVERIFIED":
        return []
    if isinstance(envelope, QuizAuditEnvelope):
        return [q.id for q in envelope.questions_json]
    if isinstance(envelope, GradeAuditEnvelope):
        return [envelope.item.id]
    if isinstance(envelope, ReviewEnvelope):
        return [envelope.batch_id]
    if isinstance(envelope, FactCheckEnvelope):
        return [c.id for c in envelope.claims]
    return []


def receipt_hash(
    message_id: str, envelope: Envelope, verdict: Verdict, cycles: int, verifier: str
) -> str:
    """The receipt id: a hash of the canonical JSON of everything the receipt binds (models
    serialise their fields in declaration order; the only free-form dicts, review writes, are
    key-sorted when validated)."""
    h = hashlib.sha256()
    for part in (message_id, envelope.gate, str(cycles), verifier):
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    h.update(envelope.model_dump_json().encode("utf-8"))
    h.update(b"\x1f")
    h.update(verdict.model_dump_json().encode("utf-8"))
    return "rcpt-" + h.hexdigest()[:32]


def make_receipt(
    message_id: str, envelope: Envelope, verdict: Verdict, cycles: int, verifier: Verifier
) -> Receipt:
    """Bind a verdict to one turn. Raises pydantic.ValidationError when they do not fit."""
    receipt_id = receipt_hash(message_id, envelope, verdict, cycles, verifier)
    receipt = Receipt(
        receipt_id=receipt_id,
        message_id=message_id,
        gate=envelope.gate,
        envelope=envelope,
        verdict=verdict,
        cycles=cycles,
        verifier=verifier,
    )
    receipt.__dict__["content_hash"] = receipt_id  # the same content, hashed just above
    return receipt


def receipt_id_ok(receipt: Receipt) -> bool:
    """True when the receipt's id is the hash of its content (it was not altered)."""
    return receipt.receipt_id == receipt.content_hash
