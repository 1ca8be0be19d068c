"""A receipt binds one gate's envelope and verdict to one turn (its message id)."""

from __future__ import annotations

import hashlib
import json
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
Check = Literal["offline", "model"]
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
    # which model gave a `model` verdict, and whether it is another model than the one that
    # drafted the text (None: no model verdict, or not known)
    verifier_model: str | None = None
    independent: bool | None = None
    # which checks passed which ids (claims, questions, the graded item, the batch): the
    # program's deterministic checks (`offline`) and, when one gave a verdict, the model's;
    # `verdict` is what they support together (tutor.gates.floor). Empty on older receipts.
    checks: dict[Check, list[str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _verdict_by_gate(cls, data: Any) -> Any:
        # The four verdict shapes overlap, so the receipt's gate picks the one to validate.
        if isinstance(data, dict) and isinstance(data.get("verdict"), dict):
            gate = data.get("gate")
            model = VERDICT_FOR_GATE.get(gate) if isinstance(gate, str) else None
            if model is not None:
                data = {**data, "verdict": model.model_validate(data["verdict"])}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Receipt:
        if self.envelope.gate != self.gate:
            raise ValueError(f"receipt gate {self.gate} but envelope gate {self.envelope.gate}")
        if type(self.verdict) is not VERDICT_FOR_GATE[self.gate]:
            raise ValueError(f"verdict is not a {self.gate} verdict")
        if self.verifier != "model" and (
            self.verifier_model is not None or self.independent is not None
        ):
            raise ValueError("only a model verdict names a verifier model or its independence")
        derived = unverified_ids(self.envelope, self.verdict)
        if "unverified" in self.model_fields_set and self.unverified != derived:
            raise ValueError(f"unverified must be {derived}, the ids the verdict leaves open")
        object.__setattr__(self, "unverified", derived)
        return self


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


def passed_ids(envelope: Envelope, verdict: Verdict) -> list[str]:
    """The claim or question ids a verdict passes (all of them for a whole-turn PASS)."""
    if isinstance(verdict, FactCheckVerdict):
        return [c.id for c in verdict.claims if c.verdict == "PASS"]
    if verdict.verdict != "PASS":
        return []
    if isinstance(envelope, QuizAuditEnvelope):
        return [q.id for q in envelope.questions_json]
    if isinstance(envelope, GradeAuditEnvelope):
        return [envelope.item.id]
    if isinstance(envelope, ReviewEnvelope):
        return [envelope.batch_id]
    return []


def receipt_hash(
    message_id: str,
    envelope: Envelope,
    verdict: Verdict,
    cycles: int,
    verifier: str,
    verifier_model: str | None = None,
    independent: bool | None = None,
    checks: dict[Check, list[str]] | None = None,
) -> str:
    """The receipt id: a hash of the canonical JSON of everything the receipt binds (models
    serialise their fields in declaration order; the only free-form dicts, review writes, are
    key-sorted when validated). The verifier model and its independence are bound when set (a
    receipt without them hashes as before)."""
    h = hashlib.sha256()
    parts = [message_id, envelope.gate, str(cycles), verifier]
    if verifier_model is not None or independent is not None:
        parts += [f"model={verifier_model or ''}", f"independent={independent}"]
    if checks:
        parts.append("checks=" + json.dumps(checks, sort_keys=True))
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    h.update(envelope.model_dump_json().encode("utf-8"))
    h.update(b"\x1f")
    h.update(verdict.model_dump_json().encode("utf-8"))
    return "rcpt-" + h.hexdigest()[:32]


def make_receipt(
    message_id: str,
    envelope: Envelope,
    verdict: Verdict,
    cycles: int,
    verifier: Verifier,
    *,
    verifier_model: str | None = None,
    independent: bool | None = None,
    checks: dict[Check, list[str]] | None = None,
) -> Receipt:
    """Bind a verdict to one turn. Raises pydantic.ValidationError when they do not fit."""
    receipt_id = receipt_hash(
        message_id, envelope, verdict, cycles, verifier, verifier_model, independent, checks
    )
    receipt = Receipt(
        receipt_id=receipt_id,
        message_id=message_id,
        gate=envelope.gate,
        envelope=envelope,
        verdict=verdict,
        cycles=cycles,
        verifier=verifier,
        verifier_model=verifier_model,
        independent=independent,
        checks=checks or {},
    )
    _remember_hash(receipt, receipt_id)
    return receipt


# The hash of a receipt's content is remembered on the instance together with the very objects
# it was computed from; a copy with any field replaced no longer matches and is hashed afresh.
_MEMO = "_gate_hash_memo"


def _hash_inputs(r: Receipt) -> tuple[Any, ...]:
    return (
        r.envelope,
        r.verdict,
        r.cycles,
        r.verifier,
        r.message_id,
        r.verifier_model,
        r.independent,
        json.dumps(r.checks, sort_keys=True),
    )


def _remember_hash(receipt: Receipt, value: str) -> None:
    receipt.__dict__[_MEMO] = (_hash_inputs(receipt), value)


def _same_objects(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return a[0] is b[0] and a[1] is b[1] and a[2:] == b[2:]


def receipt_id_ok(receipt: Receipt) -> bool:
    """True when the receipt's id is the hash of its content (it was not altered)."""
    memo = receipt.__dict__.get(_MEMO)
    value: str
    if memo is not None and _same_objects(memo[0], _hash_inputs(receipt)):
        value = memo[1]
    else:
        value = receipt_hash(
            receipt.message_id,
            receipt.envelope,
            receipt.verdict,
            receipt.cycles,
            receipt.verifier,
            receipt.verifier_model,
            receipt.independent,
            receipt.checks,
        )
        _remember_hash(receipt, value)
    return receipt.receipt_id == value
