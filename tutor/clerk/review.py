"""The `review` gate for a write batch: the Clerk's deterministic checks against the store, then
the verifier (a model when one is configured, else the deterministic one), a receipt, and the
local gate checker's decision."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict

from learning_system.outcome import PendingIngest
from learning_system.store import Store
from tutor import aio
from tutor.gates import offline_verifier
from tutor.gates.checker import Block, check_turn
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import ReviewEnvelope
from tutor.gates.receipts import Receipt, Verifier, make_receipt
from tutor.gates.turns import Turn
from tutor.gates.verdicts import ReviewVerdict

PASSING_STATUSES = ("held", "advanced")


class Problem(BaseModel):
    """One reason the batch cannot be written: the record it concerns and what is wrong."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: str
    reason: str


class ReviewOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    accepted: bool
    receipt: Receipt
    reasons: list[str]
    unverified: bool = False  # accepted on the deterministic checks alone: no verifier ran


def precheck(store: Store, pending: PendingIngest) -> list[Problem]:
    """The review rules that need no judgement (CONTRACT.md, "Clerk and records")."""
    problems: list[Problem] = []
    all_evidence = [a for c in pending.concepts for a in c.evidence]
    attempts = store.attempts.existing([*pending.attempt_ids, *all_evidence])
    correct = store.attempts.existing(all_evidence, correct=True)
    mistakes = store.mistakes.existing(pending.mistake_ids)
    seen: set[str] = set()
    for n, c in enumerate(pending.concepts, 1):
        label = c.id.strip() or f"concept #{n}"
        if not c.id.strip():
            problems.append(Problem(record=label, reason=f"{label} has no id"))
        elif c.id in seen:
            problems.append(Problem(record=label, reason=f"concept {c.id} is listed twice"))
        seen.add(c.id)
        if not c.name.strip():
            problems.append(Problem(record=label, reason=f"concept {label} has no name"))
        missing = [a for a in c.evidence if a not in attempts]
        for a in missing:
            problems.append(
                Problem(
                    record=label,
                    reason=f"concept {label}: evidence attempt {a} is not in the store",
                )
            )
        if c.status_hint in PASSING_STATUSES:
            if not c.evidence:
                problems.append(
                    Problem(
                        record=label,
                        reason=f"concept {label} is marked {c.status_hint} "
                        "without evidence attempts",
                    )
                )
            elif not missing and not any(a in correct for a in c.evidence):
                problems.append(
                    Problem(
                        record=label,
                        reason=f"concept {label} is marked {c.status_hint} "
                        "but none of its evidence attempts was answered correctly",
                    )
                )
    for a in pending.attempt_ids:
        if a not in attempts:
            problems.append(
                Problem(record=f"attempt {a}", reason=f"attempt {a} is not in the store")
            )
    for m in pending.mistake_ids:
        if m not in mistakes:
            problems.append(
                Problem(record=f"mistake {m}", reason=f"mistake {m} is not in the store")
            )
    for step in pending.taught:
        if not any(r.strip() for r in step.receipt_ids):
            problems.append(
                Problem(
                    record=f"step {step.step_id}",
                    reason=f"taught step {step.step_id} has no gate receipt",
                )
            )
    for term, definition in sorted(pending.glossary.items()):
        if not term.strip():
            problems.append(Problem(record="glossary", reason="a glossary term is empty"))
        elif not definition.strip():
            problems.append(
                Problem(
                    record=f"glossary:{term.strip()}",
                    reason=f"glossary term {term.strip()!r} has no definition",
                )
            )
    return problems


def _unverified(envelope: ReviewEnvelope, reason: str) -> ReviewVerdict:
    verdict = offline_verifier.unverified(envelope, reason)
    assert isinstance(verdict, ReviewVerdict)  # the verdict of a review envelope
    return verdict


def verify(envelope: ReviewEnvelope, provider: Any = None) -> tuple[ReviewVerdict, Verifier]:
    """The verdict and who gave it: `model`, `offline` (deterministic) or `none` (a model
    verifier that could not run: UNVERIFIED)."""
    if provider is None or getattr(provider, "offline", True):
        return offline_verifier.verify_review(envelope), "offline"
    try:
        verdict = provider.verify(envelope)
        if asyncio.iscoroutine(verdict):
            verdict = aio.run(verdict, provider)
    except Exception as exc:  # the verifier could not run: UNVERIFIED, never a pass
        return _unverified(envelope, f"the review verifier failed: {exc}"), "none"
    if not isinstance(verdict, ReviewVerdict):
        return _unverified(envelope, "the review verifier gave no review verdict"), "none"
    return verdict, "model"


def review(
    store: Store,
    pending: PendingIngest,
    envelope: ReviewEnvelope,
    *,
    provider: Any = None,
    summary: str = "",
) -> ReviewOutcome:
    """Pass the batch through the review gate. Rejected: the reasons say what to change."""
    message_id = f"records:{pending.id}"
    problems = precheck(store, pending)
    reasons = [p.reason for p in problems]
    rejected = {p.record for p in problems}
    mechanical = offline_verifier.verify_review(envelope)
    if mechanical.verdict != "PASS":
        reasons.append(f"{mechanical.explanation}: {', '.join(mechanical.rejected)}")
        rejected |= set(mechanical.rejected)
    verifier: Verifier
    if reasons:
        verdict = ReviewVerdict(
            verdict="ISSUES", explanation="; ".join(reasons), rejected=sorted(rejected)
        )
        verifier = "offline"
    else:
        verdict, verifier = verify(envelope, provider)
        if verdict.verdict == "ISSUES":
            reasons = [verdict.explanation or "the review found issues"]
            if verdict.rejected:
                reasons.append("records to change: " + ", ".join(verdict.rejected))
    receipt = make_receipt(message_id, envelope, verdict, 0, verifier)
    turn = Turn(message_id=message_id, kind="records", content=summary or message_id)
    decision = check_turn(turn, [receipt], GateDigest(sources={}))
    if isinstance(decision, Block):
        return ReviewOutcome(
            accepted=False,
            receipt=receipt,
            reasons=reasons or [f"{decision.banner}: {decision.reason}"],
        )
    if verdict.verdict == "UNVERIFIED":
        note = verdict.explanation or "the review verifier could not run"
        return ReviewOutcome(
            accepted=True,
            receipt=receipt,
            unverified=True,
            reasons=[f"{note}; accepted on the deterministic checks alone (UNVERIFIED)"],
        )
    return ReviewOutcome(accepted=True, receipt=receipt, reasons=[])
