"""Several prepared questions audited in one quiz_audit request (issue 22: the skill and the
envelope's fields are sent once, not once per question).

Questions prepared together (a probe batch's next questions, the quiz) are audited together
when they share a purpose and the mechanical rules leave them to a model (the batch names
every concept its questions are about). The batch's verdict is shared out question by
question, and each question gets a receipt of its own envelope, as if audited alone: a
question the batch reply does not clearly pass is not passed (ISSUES when an issue names it,
else UNVERIFIED), the same as a single audit's verdict. A batch the model cannot answer is each
question's offline verdict, like a single audit that fails; the bounded re-asks and the
circuit breaker count it as one call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from tutor.gates.envelopes import Envelope, QuizAuditEnvelope
from tutor.gates.verdicts import QuizAuditVerdict

if TYPE_CHECKING:
    from tutor.gates.verdicts import Verdict
    from tutor.llm.provider import Provider

BATCH_SIZE = 6  # questions per request: a longer reply would keep the first of them waiting
Result = tuple["Verdict", str, str]
UNCLEAR = "the verifier's verdict on its batch of questions did not clearly pass it"


def batchable(envelope: Envelope) -> bool:
    """A one-question audit the mechanical rules leave to a model."""
    from tutor.gates.offline_verifier import verify as verify_offline

    return (
        isinstance(envelope, QuizAuditEnvelope)
        and len(envelope.questions_json) == 1
        and verify_offline(envelope).verdict != "ISSUES"
    )


def _quiz(envelope: Envelope) -> QuizAuditEnvelope:
    """A batched envelope (batchable ones are quiz audits)."""
    return cast(QuizAuditEnvelope, envelope)


def batches(envelopes: Sequence[Envelope]) -> tuple[list[int], list[list[int]]]:
    """(the indexes audited alone, the batches of indexes audited together): one-question
    audits of the same purpose, at most BATCH_SIZE each, no question twice."""
    alone: list[int] = []
    groups: dict[str, list[list[int]]] = {}
    for n, e in enumerate(envelopes):
        if not batchable(e):
            alone.append(n)
            continue
        chunks = groups.setdefault(_quiz(e).purpose, [[]])
        qid = _quiz(e).questions_json[0].id
        ids = {_quiz(envelopes[i]).questions_json[0].id for i in chunks[-1]}
        if len(chunks[-1]) >= BATCH_SIZE or qid in ids:
            chunks.append([])
        chunks[-1].append(n)
    together = [c for chunks in groups.values() for c in chunks if len(c) > 1]
    alone += [c[0] for chunks in groups.values() for c in chunks if len(c) == 1]
    return sorted(alone), together


def joined(envelopes: Sequence[QuizAuditEnvelope]) -> QuizAuditEnvelope:
    """One envelope for the batch: its questions, each distinct concept and excerpt once."""
    excerpts = list(dict.fromkeys(e.source_excerpt for e in envelopes if e.source_excerpt))
    first = envelopes[0]
    return QuizAuditEnvelope(
        questions_json=[e.questions_json[0] for e in envelopes],
        purpose=first.purpose,
        concept=", ".join(dict.fromkeys(e.concept for e in envelopes)),
        bloom_levels=sorted({b for e in envelopes for b in e.bloom_levels}),
        source_excerpt="\n\n".join(excerpts),
    )


def share(batch: QuizAuditVerdict, envelope: QuizAuditEnvelope) -> Verdict:
    """One question's verdict from its batch's: ISSUES when a blocking issue names it; PASS
    when the batch passed, or when its ISSUES are accounted for by blocking issues naming
    other questions; otherwise what a single audit would give (its own issues, else
    UNVERIFIED)."""
    qid = envelope.questions_json[0].id
    mine = [i for i in batch.issues if i.id == qid]
    if any(i.severity != "low" for i in mine):
        return QuizAuditVerdict(verdict="ISSUES", issues=mine)
    others = any(i.severity != "low" for i in batch.issues if i.id != qid)
    if batch.verdict == "PASS" or (batch.verdict == "ISSUES" and others):
        return QuizAuditVerdict(verdict="PASS", issues=mine)
    if mine:
        return QuizAuditVerdict(verdict=batch.verdict, issues=mine)
    from tutor.llm.model_verifier import unverified_verdict

    return unverified_verdict(envelope, UNCLEAR)


async def audit_batch(provider: Provider, envelopes: Sequence[QuizAuditEnvelope]) -> list[Result]:
    """The questions' (verdict, verifier, note) as their receipts record them, from one
    request; a model that cannot run gives each its offline verdict and says why."""
    from tutor.gates.offline_verifier import verify as verify_offline
    from tutor.llm.model_verifier import model_verdict, with_mechanical_flags
    from tutor.llm.provider import ModelFailure

    whole = joined(envelopes)
    try:
        verdict = await model_verdict(provider, whole, verify_offline(whole))
    except ModelFailure as failure:
        note = f"the model verifier could not run ({failure.kind})"
        return [(verify_offline(e), "offline", note) for e in envelopes]
    if not isinstance(verdict, QuizAuditVerdict):
        raise TypeError(f"a quiz audit answered with {type(verdict).__name__}")
    return [
        (with_mechanical_flags(share(verdict, e), verify_offline(e)), "model", "")
        for e in envelopes
    ]


async def verify_all(provider: Provider, envelopes: Sequence[Envelope]) -> list[Any]:
    """Each envelope's (verdict, verifier, note), or the exception its verification raised
    (a cancelled one included, as `asyncio.gather(..., return_exceptions=True)` gives it), in
    order: one-question audits batched, everything else verified alone, concurrently."""
    from tutor.llm.model_verifier import verify_for_receipt

    alone, together = batches(envelopes)
    calls: list[Any] = [verify_for_receipt(provider, envelopes[n]) for n in alone]
    calls += [audit_batch(provider, [_quiz(envelopes[n]) for n in ns]) for ns in together]
    results = await asyncio.gather(*calls, return_exceptions=True)
    out: list[Any] = [None] * len(envelopes)
    for n, result in zip(alone, results[: len(alone)], strict=True):
        out[n] = result
    for ns, result in zip(together, results[len(alone) :], strict=True):
        got = [result] * len(ns) if isinstance(result, BaseException) else result
        for n, one in zip(ns, got, strict=True):
            out[n] = one
    return out
