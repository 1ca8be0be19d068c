"""The envelopes the engine sends through the gates for a question (quiz_audit) and for a grade
(grade_audit), built one way so a verdict prepared ahead is the one the screen finds."""

from __future__ import annotations

from tutor.gates.envelopes import (
    GradeAuditEnvelope,
    ProposedGrade,
    QuizAuditEnvelope,
    QuizQuestion,
)


def ask_envelope(
    questions: list[QuizQuestion], purpose: str, concept: str, excerpt: str
) -> QuizAuditEnvelope:
    return QuizAuditEnvelope.model_validate(
        {
            "questions_json": questions,
            "purpose": purpose,
            "concept": concept,
            "bloom_levels": sorted({q.target_bloom or "understand" for q in questions}),
            "source_excerpt": excerpt,
        }
    )


def grade_envelope(
    item: QuizQuestion,
    answer: str,
    passed: bool,
    excerpt: str,
    rubric: list[str] | None = None,
    error_type: str | None = None,
    rubric_hits: list[str] | None = None,
) -> GradeAuditEnvelope:
    return GradeAuditEnvelope(
        item=item,
        learner_answer=answer,
        proposed_grade=ProposedGrade(
            passed=passed,
            error_type=error_type,
            rubric_hits=rubric_hits or [],
        ),
        rubric=rubric or [],
        reference_excerpt=excerpt,
    )
