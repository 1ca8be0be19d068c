"""The program's checks are the floor (issue 22): a model verifier can add doubt, never remove
it. Pure functions over an envelope, the deterministic verdict and a model's verdict.

- fact_check: a claim the deterministic verifier cannot support (not found verbatim in the
  reference excerpt) is UNVERIFIED whatever the model says; a model's ISSUES stand.
- quiz_audit: an item a model wrote (a rewrite, an isomorphic re-probe) has a key no offline
  check can support, so a model's PASS leaves it UNVERIFIED; the model's ISSUES stand.
- Anything else: the model's verdict (its ISSUES stand; the rules decide keyed grades and
  mechanical issues before any model sees them).
"""

from __future__ import annotations

from collections.abc import Collection

from tutor.gates.envelopes import Envelope, FactCheckEnvelope, QuizAuditEnvelope
from tutor.gates.receipts import passed_ids
from tutor.gates.verdicts import ClaimVerdict, FactCheckVerdict, QuizAuditVerdict, Verdict

NOT_SUPPORTED = (
    "the verifier model passed it, but the program's own checks could not support it "
    "(not found in the reference excerpt): UNVERIFIED"
)
MODEL_WRITTEN = (
    "written by the model: the program's own checks cannot support its key, so it stays "
    "UNVERIFIED whatever the verifier says"
)


def floor(
    envelope: Envelope,
    model: Verdict,
    offline: Verdict,
    *,
    model_written: Collection[str] = (),
) -> Verdict:
    """The verdict a receipt records when a model verified `envelope`: never more than the
    deterministic verdict `offline` supports."""
    if isinstance(envelope, FactCheckEnvelope) and isinstance(model, FactCheckVerdict):
        held = set(passed_ids(envelope, offline))
        out = []
        for v in model.claims:
            if v.verdict == "PASS" and v.id not in held:
                v = ClaimVerdict(id=v.id, verdict="UNVERIFIED", explanation=NOT_SUPPORTED)
            out.append(v)
        return FactCheckVerdict(claims=out)
    if isinstance(envelope, QuizAuditEnvelope) and isinstance(model, QuizAuditVerdict):
        written = {q.id for q in envelope.questions_json} & set(model_written)
        if written and model.verdict == "PASS":
            return QuizAuditVerdict(verdict="UNVERIFIED", issues=model.issues)
    return model
