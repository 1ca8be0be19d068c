"""Gate verifiers run on a model (skill `GATE:<gate>`). Advisory evidence only: the local gate
checker enforces. A verifier that cannot run gives UNVERIFIED entries, never PASS.

What the deterministic verifier can decide is decided first, without a model call: a grade
whose answer key settles it (MCQ, numeric), and the mechanical quiz and review rules, whose
ISSUES stand as they are. Everything else goes to the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tutor.llm.gate_data import envelope_data
from tutor.llm.provider import ModelFailure

if TYPE_CHECKING:
    from tutor.gates.envelopes import Envelope
    from tutor.gates.verdicts import Verdict
    from tutor.llm.provider import Provider


def unverified_verdict(envelope: Envelope, reason: str) -> Verdict:
    """The verdict of a verifier that could not run: every entry UNVERIFIED, with the reason."""
    from tutor.gates.offline_verifier import unverified

    return unverified(envelope, reason)


def reconcile(envelope: Envelope, verdict: Verdict) -> Verdict:
    """Hold a model's verdict to the envelope: one entry per claim (missing ones UNVERIFIED,
    unknown ones dropped), issues only about items that exist; an off-topic option or a second
    defensible answer (codes.MODEL_QUIZ_FINDINGS) always blocks, however the model filed it."""
    from tutor.gates.codes import MODEL_QUIZ_FINDINGS
    from tutor.gates.verdicts import ClaimVerdict, FactCheckVerdict, QuizAuditVerdict

    if isinstance(verdict, FactCheckVerdict) and envelope.gate == "fact_check":
        given: dict[str, ClaimVerdict] = {}
        for entry in verdict.claims:
            given.setdefault(entry.id, entry)
        return FactCheckVerdict(
            claims=[
                given.get(c.id)
                or ClaimVerdict(
                    id=c.id, verdict="UNVERIFIED", explanation="the verifier gave no verdict on it"
                )
                for c in envelope.claims
            ]
        )
    if isinstance(verdict, QuizAuditVerdict) and envelope.gate == "quiz_audit":
        ids = {q.id for q in envelope.questions_json}
        issues = [
            i.model_copy(update={"severity": "high"}) if i.code in MODEL_QUIZ_FINDINGS else i
            for i in verdict.issues
            if i.id in ids
        ]
        if verdict.verdict == "ISSUES" and not issues:
            return unverified_verdict(envelope, "the verifier's issues named no item of the quiz")
        blocking = any(i.severity != "low" for i in issues)
        return QuizAuditVerdict(verdict="ISSUES" if blocking else verdict.verdict, issues=issues)
    return verdict


def with_mechanical_flags(verdict: Verdict, mechanical: Verdict) -> Verdict:
    """A quiz verdict keeping the low-severity findings of the mechanical rules."""
    from tutor.gates.verdicts import QuizAuditVerdict

    if not isinstance(verdict, QuizAuditVerdict) or not isinstance(mechanical, QuizAuditVerdict):
        return verdict
    seen = {(i.id, i.problem) for i in verdict.issues}
    extra = [i for i in mechanical.issues if (i.id, i.problem) not in seen]
    if not extra:
        return verdict
    return QuizAuditVerdict(verdict=verdict.verdict, issues=[*verdict.issues, *extra])


def _settled(envelope: Envelope, deterministic: Verdict) -> str:
    """Why the deterministic verdict stands without a model call, or "" when a model is asked."""
    from tutor.gates.verdicts import FactCheckVerdict

    gate = envelope.gate
    if gate == "grade_audit" and deterministic.verdict != "UNVERIFIED":
        return "the answer key decides"
    if gate in ("quiz_audit", "review") and deterministic.verdict == "ISSUES":
        return "the mechanical rules found issues"  # before any model sees the items
    if isinstance(deterministic, FactCheckVerdict) and all(
        c.verdict == "PASS" for c in deterministic.claims
    ):
        return "every claim is found verbatim in the reference excerpt"
    return ""


def _asked(envelope: Envelope, deterministic: Verdict) -> Envelope:
    """What the model is asked about: a fact check without the claims the program already
    supports verbatim (a verifier judging by the excerpt alone has nothing to add to those)."""
    from tutor.gates.envelopes import FactCheckEnvelope
    from tutor.gates.receipts import passed_ids

    if not isinstance(envelope, FactCheckEnvelope):
        return envelope
    held = set(passed_ids(envelope, deterministic))
    return envelope.model_copy(update={"claims": [c for c in envelope.claims if c.id not in held]})


async def model_verdict(provider: Provider, envelope: Envelope, deterministic: Verdict) -> Verdict:
    """The model's verdict on what the program has not settled, held to the envelope, with the
    program's own findings kept. Raises ModelFailure."""
    from tutor.gates.verdicts import VERDICT_FOR_GATE, FactCheckVerdict

    gate = envelope.gate
    asked = _asked(envelope, deterministic)
    verdict = reconcile(
        asked,
        await provider.structured(
            skill=f"GATE:{gate}",
            data=envelope_data(asked),
            schema=VERDICT_FOR_GATE[gate],
            purpose=f"verify:{gate}",
        ),
    )
    if isinstance(verdict, FactCheckVerdict) and isinstance(deterministic, FactCheckVerdict):
        given = {v.id: v for v in verdict.claims}
        return FactCheckVerdict(claims=[given.get(v.id, v) for v in deterministic.claims])
    if gate == "quiz_audit":
        verdict = with_mechanical_flags(verdict, deterministic)
    return verdict


async def verify_with_model(provider: Provider, envelope: Envelope) -> Verdict:
    from tutor.gates.floor import floor
    from tutor.gates.offline_verifier import verify as verify_offline

    deterministic = verify_offline(envelope)
    if _settled(envelope, deterministic):
        return deterministic
    try:
        verdict = await model_verdict(provider, envelope, deterministic)
    except ModelFailure as failure:
        return unverified_verdict(envelope, f"the model verifier could not run ({failure.kind})")
    return floor(envelope, verdict, deterministic)  # a model can add doubt, never remove it


async def verify_for_receipt(provider: Provider, envelope: Envelope) -> tuple[Verdict, str, str]:
    """(verdict, verifier, note) as a receipt records them: `verifier` names what actually ran.

    What the deterministic verifier decides (a keyed grade, mechanical quiz or review ISSUES, a
    fact check whose every claim is found verbatim) is `offline`, with no model call. A model
    that cannot run (failure, breaker open) falls back to the deterministic verdict, `offline`
    too — never fewer checks than offline — and `note` says why. Only a verdict the model gave
    is `model`."""
    from tutor.gates.offline_verifier import verify as verify_offline

    deterministic = verify_offline(envelope)
    settled = _settled(envelope, deterministic)
    if settled:
        return deterministic, "offline", settled
    try:
        verdict = await model_verdict(provider, envelope, deterministic)
    except ModelFailure as failure:
        return deterministic, "offline", f"the model verifier could not run ({failure.kind})"
    return verdict, "model", ""
