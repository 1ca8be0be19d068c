"""What each gate answers (SPEC §5). Verdicts are validated like everything else: a verifier's
output that does not fit is a verifier that could not run, never a pass."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

VerdictWord = Literal["PASS", "ISSUES", "UNVERIFIED"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClaimVerdict(_Strict):
    id: str
    verdict: VerdictWord
    explanation: str = ""
    corrected_claim: str | None = None

    @model_validator(mode="after")
    def _correction_only_with_issues(self) -> ClaimVerdict:
        if self.corrected_claim is not None and self.verdict != "ISSUES":
            raise ValueError("corrected_claim is allowed only with verdict ISSUES")
        if self.corrected_claim is not None and not self.corrected_claim.strip():
            raise ValueError("corrected_claim must not be empty")
        return self


class FactCheckVerdict(_Strict):
    claims: list[ClaimVerdict]

    @property
    def verdict(self) -> VerdictWord:
        """ISSUES if any claim has issues, else UNVERIFIED if any is unverified, else PASS."""
        words = {c.verdict for c in self.claims}
        if "ISSUES" in words:
            return "ISSUES"
        if "UNVERIFIED" in words or not words:
            return "UNVERIFIED"
        return "PASS"


class QuizIssue(_Strict):
    id: str
    severity: Literal["high", "medium", "low"]
    problem: str
    suggested_fix: str = ""
    code: str | None = None


class QuizAuditVerdict(_Strict):
    verdict: VerdictWord
    issues: list[QuizIssue] = []

    @model_validator(mode="after")
    def _issues_match_verdict(self) -> QuizAuditVerdict:
        blocking = [i for i in self.issues if i.severity != "low"]
        if self.verdict == "PASS" and blocking:
            raise ValueError("a PASS verdict cannot carry high or medium issues")
        if self.verdict == "ISSUES" and not self.issues:
            raise ValueError("an ISSUES verdict must list its issues")
        return self


class GradeAuditVerdict(_Strict):
    verdict: VerdictWord
    explanation: str = ""


class ReviewVerdict(_Strict):
    verdict: VerdictWord
    explanation: str = ""
    rejected: list[str] = []

    @model_validator(mode="after")
    def _rejected_match_verdict(self) -> ReviewVerdict:
        if self.verdict == "PASS" and self.rejected:
            raise ValueError("a PASS verdict cannot reject writes")
        return self


Verdict = FactCheckVerdict | QuizAuditVerdict | GradeAuditVerdict | ReviewVerdict

VERDICT_FOR_GATE: dict[str, type[Verdict]] = {
    "fact_check": FactCheckVerdict,
    "quiz_audit": QuizAuditVerdict,
    "grade_audit": GradeAuditVerdict,
    "review": ReviewVerdict,
}


def verdict_word(verdict: Verdict) -> VerdictWord:
    return verdict.verdict
