"""Which verifier runs, and what it is doing: a provider online, two providers on the same
model (then the verdict is not independent), and a verification described for the learner."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tutor.gates.envelopes import (
    Envelope,
    FactCheckEnvelope,
    GradeAuditEnvelope,
    QuizAuditEnvelope,
)

NOT_INDEPENDENT = (
    "checked by the model that wrote it, not by an independent verifier "
    "(set TUTOR_VERIFIER_MODEL for one)"
)


def online(provider: Any) -> bool:
    return provider is not None and not getattr(provider, "offline", True)


def same_model(a: Any, b: Any) -> bool:
    """Whether two providers run one model: by their configured names, or by the names their
    endpoints' answers say served them (a local server answers with whichever model it has
    loaded, whatever name was asked for)."""
    if a is b:
        return True
    served = {_bare(m) for m in getattr(a, "served", ())} & {
        _bare(m) for m in getattr(b, "served", ())
    }
    if served:
        return True
    sa, sb = getattr(a, "settings", None), getattr(b, "settings", None)
    if sa is None or sb is None:
        return getattr(a, "model", None) == getattr(b, "model", None)
    from tutor.llm.settings import same_model as same_settings

    return same_settings(sa, sb)


def _bare(model: str) -> str:
    return model.strip().lower().removesuffix(":latest")


def describe(envelopes: Sequence[Envelope]) -> str:
    """What a verification is doing, for the learner waiting on it."""
    claims = sum(len(e.claims) for e in envelopes if isinstance(e, FactCheckEnvelope))
    sources = len({u for e in envelopes if isinstance(e, FactCheckEnvelope) for u in e.source_urls})
    questions = sum(len(e.questions_json) for e in envelopes if isinstance(e, QuizAuditEnvelope))
    grades = sum(isinstance(e, GradeAuditEnvelope) for e in envelopes)
    parts = []
    if claims:
        parts.append(
            f"checking {claims} claim{'s' * (claims != 1)} against {sources} "
            f"source{'s' * (sources != 1)}"
        )
    if questions:
        parts.append(f"auditing {questions} question{'s' * (questions != 1)}")
    if grades:
        parts.append(f"checking {grades} grade{'s' * (grades != 1)}")
    return "; ".join(parts) or "verifying"
