"""Gate verifiers run on a model (skill `GATE:<gate>`). Advisory evidence only: the local gate
checker enforces. A verifier that cannot run gives UNVERIFIED entries, never PASS.

What the deterministic verifier can decide is decided first, without a model call: a grade
whose answer key settles it (MCQ, numeric), and the mechanical quiz and review rules, whose
ISSUES stand as they are. Everything else goes to the model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tutor.llm.provider import ModelFailure
from tutor.llm.skills import Untrusted

if TYPE_CHECKING:
    from tutor.gates.envelopes import Envelope
    from tutor.gates.verdicts import Verdict
    from tutor.llm.provider import Provider

# Envelope keys whose values are structure, not text; every other string is marked untrusted.
STRUCTURAL_KEYS = frozenset(
    {
        "gate",
        "id",
        "type",
        "purpose",
        "target_bloom",
        "error_type",
        "batch_id",
        "bloom_levels",
        "kind",
    }
)


def unverified_verdict(envelope: Envelope, reason: str) -> Verdict:
    """The verdict of a verifier that could not run: every entry UNVERIFIED, with the reason."""
    from tutor.gates.offline_verifier import unverified

    return unverified(envelope, reason)


def envelope_data(envelope: Envelope) -> dict[str, Any]:
    """The envelope as prompt data, every free-text string wrapped as Untrusted."""

    def mark(value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {k: mark(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v, key) for v in value]
        if isinstance(value, str) and key not in STRUCTURAL_KEYS:
            return Untrusted(value)
        return value

    return mark(envelope.model_dump(mode="json"), None)


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


def _with_mechanical_flags(verdict: Verdict, mechanical: Verdict) -> Verdict:
    """A quiz verdict keeping the low-severity findings of the mechanical rules."""
    from tutor.gates.verdicts import QuizAuditVerdict

    if not isinstance(verdict, QuizAuditVerdict) or not isinstance(mechanical, QuizAuditVerdict):
        return verdict
    seen = {(i.id, i.problem) for i in verdict.issues}
    extra = [i for i in mechanical.issues if (i.id, i.problem) not in seen]
    if not extra:
        return verdict
    return QuizAuditVerdict(verdict=verdict.verdict, issues=[*verdict.issues, *extra])


async def verify_with_model(provider: Provider, envelope: Envelope) -> Verdict:
    from tutor.gates.offline_verifier import verify as verify_offline
    from tutor.gates.verdicts import VERDICT_FOR_GATE

    gate = envelope.gate
    deterministic = verify_offline(envelope)
    if gate == "grade_audit" and deterministic.verdict != "UNVERIFIED":
        return deterministic  # the answer key decides; no judgement to ask for
    if gate in ("quiz_audit", "review") and deterministic.verdict == "ISSUES":
        return deterministic  # mechanical rules run before any model sees the items
    try:
        verdict = await provider.structured(
            skill=f"GATE:{gate}",
            data=envelope_data(envelope),
            schema=VERDICT_FOR_GATE[gate],
            purpose=f"verify:{gate}",
        )
    except ModelFailure as failure:
        return unverified_verdict(envelope, f"the model verifier could not run ({failure.kind})")
    verdict = reconcile(envelope, verdict)
    if gate == "quiz_audit":
        verdict = _with_mechanical_flags(verdict, deterministic)
    from tutor.gates.floor import floor

    return floor(envelope, verdict, deterministic)  # a model can add doubt, never remove it


async def verify_for_receipt(provider: Provider, envelope: Envelope) -> tuple[Verdict, str, str]:
    """(verdict, verifier, note) as a receipt records them: `verifier` names what actually ran.

    What the deterministic verifier decides (a keyed grade, mechanical quiz or review ISSUES) is
    `offline`, with no model call. A model that cannot run (failure, breaker open) falls back to
    the deterministic verdict, `offline` too — never fewer checks than offline — and `note`
    says why. Only a verdict the model gave is `model`."""
    from tutor.gates.offline_verifier import verify as verify_offline
    from tutor.gates.verdicts import VERDICT_FOR_GATE

    gate = envelope.gate
    deterministic = verify_offline(envelope)
    if gate == "grade_audit" and deterministic.verdict != "UNVERIFIED":
        return deterministic, "offline", "the answer key decides"
    if gate in ("quiz_audit", "review") and deterministic.verdict == "ISSUES":
        return deterministic, "offline", "the mechanical rules found issues"
    try:
        verdict = await provider.structured(
            skill=f"GATE:{gate}",
            data=envelope_data(envelope),
            schema=VERDICT_FOR_GATE[gate],
            purpose=f"verify:{gate}",
        )
    except ModelFailure as failure:
        return deterministic, "offline", f"the model verifier could not run ({failure.kind})"
    verdict = reconcile(envelope, verdict)
    if gate == "quiz_audit":
        verdict = _with_mechanical_flags(verdict, deterministic)
    return verdict, "model", ""
