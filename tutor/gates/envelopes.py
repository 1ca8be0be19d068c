"""What each gate is sent (SPEC §5). Unknown fields are rejected everywhere."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    TypeAdapter,
    field_validator,
    model_validator,
)

from tutor.gates.verdicts import Verdict as Verdict  # re-exported for type hints

GateName = Literal["fact_check", "quiz_audit", "grade_audit", "review"]
QuestionType = Literal["mcq", "free_recall", "numeric"]
GATES: tuple[GateName, ...] = ("fact_check", "quiz_audit", "grade_audit", "review")

NonEmpty = Annotated[str, Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Claim(_Strict):
    id: NonEmpty
    claim: NonEmpty


class QuizQuestion(_Strict):
    """One question. Option count and key range are checked by the MCQ rules (codes M01, M02),
    not here, so that a flawed item can be reported rather than merely rejected."""

    id: NonEmpty
    type: QuestionType
    question: str
    options: list[str] = []
    correct_index: int | None = None
    target_bloom: str | None = None
    answer: float | None = None
    tolerance: float | None = Field(default=None, ge=0)


class FactCheckEnvelope(_Strict):
    gate: Literal["fact_check"] = "fact_check"
    claims: Annotated[list[Claim], Field(min_length=1)]
    rendered_content: NonEmpty
    source_urls: list[NonEmpty] = []
    source_url: NonEmpty | None = None
    source_file: NonEmpty | None = None
    reference_excerpt: str
    context: str = ""

    @model_validator(mode="after")
    def _unique_claim_ids(self) -> FactCheckEnvelope:
        ids = [c.id for c in self.claims]
        if len(set(ids)) != len(ids):
            raise ValueError("claim ids must be unique")
        return self

    @property
    def sources(self) -> list[str]:
        """Every cited source: `source_urls`, then the legacy `source_url` / `source_file`."""
        out = list(self.source_urls)
        for extra in (self.source_url, self.source_file):
            if extra is not None and extra not in out:
                out.append(extra)
        return out


class QuizAuditEnvelope(_Strict):
    gate: Literal["quiz_audit"] = "quiz_audit"
    questions_json: Annotated[list[QuizQuestion], Field(min_length=1)]
    purpose: Literal["probe", "end-of-lesson quiz", "checkpoint"]
    concept: str
    bloom_levels: list[str] = []
    source_excerpt: str = ""


class ProposedGrade(_Strict):
    passed: bool
    rubric_hits: list[str] = []
    error_type: Literal["structural", "deviation", "application", "metacognitive"] | None = None


class GradeAuditEnvelope(_Strict):
    gate: Literal["grade_audit"] = "grade_audit"
    item: QuizQuestion
    learner_answer: str
    proposed_grade: ProposedGrade
    rubric: list[str] = []
    reference_excerpt: str = ""


class ReviewEnvelope(_Strict):
    gate: Literal["review"] = "review"
    batch_id: NonEmpty
    writes: list[dict[str, JsonValue]]
    reference_excerpt: str = ""

    @field_validator("writes")
    @classmethod
    def _sorted_keys(cls, writes: list[dict[str, JsonValue]]) -> list[dict[str, JsonValue]]:
        # Key order is not content: sorted keys make the receipt hash canonical.
        return [_sort_keys(w) for w in writes]


def _sort_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sort_keys(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sort_keys(v) for v in value]
    return value


Envelope = Annotated[
    FactCheckEnvelope | QuizAuditEnvelope | GradeAuditEnvelope | ReviewEnvelope,
    Field(discriminator="gate"),
]

ENVELOPE_ADAPTER: TypeAdapter[Envelope] = TypeAdapter(Envelope)


def parse_envelope(data: Any) -> Envelope:
    """Validate a dict (or a model) as one of the four envelopes, chosen by its `gate`.
    Raises pydantic.ValidationError on anything else."""
    return ENVELOPE_ADAPTER.validate_python(data)


def parse_envelope_json(text: str | bytes) -> Envelope:
    return ENVELOPE_ADAPTER.validate_json(text)
