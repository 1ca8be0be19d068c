"""The deterministic verifier: what can be decided without a model, and UNVERIFIED for the rest.
The model layer's offline provider calls `verify`; `tutor gate check` uses it too."""

from __future__ import annotations

import json
import re

from tutor.gates.envelopes import (
    Envelope,
    FactCheckEnvelope,
    GradeAuditEnvelope,
    QuizAuditEnvelope,
    QuizQuestion,
    ReviewEnvelope,
)
from tutor.gates.mcq import mechanical_verdict, parse_number
from tutor.gates.text import normalise
from tutor.gates.verdicts import (
    ClaimVerdict,
    FactCheckVerdict,
    GradeAuditVerdict,
    QuizAuditVerdict,
    ReviewVerdict,
    Verdict,
)

_IDK = frozenset({"i don't know", "i dont know", "don't know", "dont know", "idk", "?"})
_LETTER = re.compile(r"^\(?([a-zA-Z])\)?[.)]?$")
_DIGIT = re.compile(r"^\(?(\d{1,2})\)?[.)]?$")
NUMERIC_DEFAULT_TOLERANCE = 1e-9


def verify(envelope: Envelope) -> Verdict:
    """A verdict for any envelope, decided deterministically."""
    if isinstance(envelope, FactCheckEnvelope):
        return verify_fact_check(envelope)
    if isinstance(envelope, QuizAuditEnvelope):
        return verify_quiz(envelope)
    if isinstance(envelope, GradeAuditEnvelope):
        return verify_grade(envelope)
    if isinstance(envelope, ReviewEnvelope):
        return verify_review(envelope)
    raise TypeError(f"not an envelope: {type(envelope).__name__}")


def supported(claim: str, reference: str) -> bool:
    """What the deterministic verifier can support: the claim, whitespace-normalised and without
    its closing punctuation, is found verbatim in the reference excerpt. This is the floor a
    model verifier cannot lower (tutor.gates.floor)."""
    ref = normalise(reference)
    text = normalise(claim).rstrip(" .!;:")
    return bool(ref) and bool(text) and text in ref


def verify_fact_check(envelope: FactCheckEnvelope) -> FactCheckVerdict:
    """A claim passes only when it is found verbatim (whitespace aside) in the reference
    excerpt; anything else needs a model and is UNVERIFIED."""
    reference = normalise(envelope.reference_excerpt)
    out = []
    for c in envelope.claims:
        found = supported(c.claim, reference)
        out.append(
            ClaimVerdict(
                id=c.id,
                verdict="PASS" if found else "UNVERIFIED",
                explanation="found verbatim in the reference excerpt"
                if found
                else "not found verbatim in the reference excerpt; no model to check it",
            )
        )
    return FactCheckVerdict(claims=out)


def verify_quiz(envelope: QuizAuditEnvelope) -> QuizAuditVerdict:
    """The mechanical rules only: their ISSUES stand; when they find nothing blocking, the
    verdict is UNVERIFIED (low findings kept), because the semantic rules — plausible
    distractors, one right answer, no leak in meaning — need a model and were not checked."""
    verdict = mechanical_verdict(envelope.questions_json)
    if verdict.verdict != "PASS":
        return verdict
    return QuizAuditVerdict(verdict="UNVERIFIED", issues=verdict.issues)


def answer_index(item: QuizQuestion, answer: str) -> int | None:
    """The option a learner's answer picks: a letter (a = first), a digit (1 = first), or the
    option's own text. -1 for "I don't know"; None when it cannot be read."""
    text = " ".join(answer.strip().lower().split())
    if text in _IDK:
        return -1
    m = _LETTER.match(text)
    if m:
        idx = ord(m.group(1)) - ord("a")
        return idx if 0 <= idx < len(item.options) else None
    m = _DIGIT.match(text)
    if m:
        idx = int(m.group(1)) - 1
        return idx if 0 <= idx < len(item.options) else None
    for n, option in enumerate(item.options):
        if " ".join(option.strip().lower().split()) == text:
            return n
    return None


def expected_grade(item: QuizQuestion, answer: str) -> bool | None:
    """Whether the answer is right, when that follows from the key: MCQ by correct_index,
    numeric by answer ± tolerance; "I don't know" never passes. None when it cannot be decided
    without judgement."""
    if " ".join(answer.strip().lower().split()) in _IDK:
        return False
    if item.type == "mcq":
        if item.correct_index is None:
            return None
        idx = answer_index(item, answer)
        if idx is None:
            return None
        return idx == item.correct_index
    if item.type == "numeric":
        if item.answer is None:
            return None
        parsed = parse_number(answer)
        if parsed is None:
            return None
        tolerance = item.tolerance if item.tolerance is not None else NUMERIC_DEFAULT_TOLERANCE
        return abs(parsed[0] - item.answer) <= tolerance
    return None


def verify_grade(envelope: GradeAuditEnvelope) -> GradeAuditVerdict:
    expected = expected_grade(envelope.item, envelope.learner_answer)
    if expected is None:
        return GradeAuditVerdict(
            verdict="UNVERIFIED",
            explanation="the grade needs judgement (free recall or an unreadable answer); "
            "no model to check it",
        )
    if expected == envelope.proposed_grade.passed:
        return GradeAuditVerdict(verdict="PASS", explanation="the grade matches the answer key")
    return GradeAuditVerdict(
        verdict="ISSUES",
        explanation=f"the answer key says {'pass' if expected else 'fail'}, "
        f"the proposed grade says {'pass' if envelope.proposed_grade.passed else 'fail'}",
    )


def _write_label(write: object, n: int) -> str:
    label = write.get("id") if isinstance(write, dict) else None
    return label if isinstance(label, str) and label else f"#{n}"


def verify_review(envelope: ReviewEnvelope) -> ReviewVerdict:
    """Well-formed writes: each an object with a non-empty string `kind`, JSON-serialisable,
    and no write repeated."""
    rejected: list[str] = []
    seen: set[str] = set()
    for n, write in enumerate(envelope.writes):
        kind = write.get("kind")
        try:
            canonical = json.dumps(write, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            canonical = None
        if not isinstance(kind, str) or not kind.strip() or canonical is None or canonical in seen:
            rejected.append(_write_label(write, n))
        if canonical is not None:
            seen.add(canonical)
    if rejected:
        return ReviewVerdict(
            verdict="ISSUES",
            explanation="writes without a kind, not serialisable, or repeated",
            rejected=rejected,
        )
    return ReviewVerdict(verdict="PASS", explanation="every write is well formed")


def unverified(envelope: Envelope, reason: str) -> Verdict:
    """The verdict of a verifier that could not run (no model, timeout, bad output): every
    claim or the whole turn UNVERIFIED, with the reason. Never a pass."""
    if isinstance(envelope, FactCheckEnvelope):
        return FactCheckVerdict(
            claims=[
                ClaimVerdict(id=c.id, verdict="UNVERIFIED", explanation=reason)
                for c in envelope.claims
            ]
        )
    if isinstance(envelope, QuizAuditEnvelope):
        return QuizAuditVerdict(verdict="UNVERIFIED")
    if isinstance(envelope, GradeAuditEnvelope):
        return GradeAuditVerdict(verdict="UNVERIFIED", explanation=reason)
    if isinstance(envelope, ReviewEnvelope):
        return ReviewVerdict(verdict="UNVERIFIED", explanation=reason)
    raise TypeError(f"not an envelope: {type(envelope).__name__}")
