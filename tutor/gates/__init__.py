"""Gates: what each gate is sent and answers, receipts binding verdicts to turns, the
multiple-choice rules, and the local gate checker (SPEC §5, §6). Pure: no I/O, and nothing
from the engine, the model layer, the Scout or the app is imported here."""

from tutor.gates.checker import Block, Emit, check_turn
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import (
    Claim,
    Envelope,
    FactCheckEnvelope,
    GradeAuditEnvelope,
    ProposedGrade,
    QuizAuditEnvelope,
    QuizQuestion,
    ReviewEnvelope,
    parse_envelope,
)
from tutor.gates.receipts import Receipt, make_receipt
from tutor.gates.turns import Turn
from tutor.gates.verdicts import (
    ClaimVerdict,
    FactCheckVerdict,
    GradeAuditVerdict,
    QuizAuditVerdict,
    QuizIssue,
    ReviewVerdict,
)

__all__ = [
    "Block",
    "Claim",
    "ClaimVerdict",
    "Emit",
    "Envelope",
    "FactCheckEnvelope",
    "FactCheckVerdict",
    "GateDigest",
    "GradeAuditEnvelope",
    "GradeAuditVerdict",
    "ProposedGrade",
    "QuizAuditEnvelope",
    "QuizAuditVerdict",
    "QuizIssue",
    "QuizQuestion",
    "Receipt",
    "ReviewEnvelope",
    "ReviewVerdict",
    "Turn",
    "check_turn",
    "make_receipt",
    "parse_envelope",
]
