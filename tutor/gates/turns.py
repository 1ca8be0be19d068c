"""A turn: exactly what the tutor is about to show, and what it claims to have checked."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tutor.gates.envelopes import Claim, GateName, QuizQuestion

TurnKind = Literal["teach", "ask", "teach_and_ask", "grade", "records", "notice"]

# turn kind -> the gates it needs, one receipt each (SPEC §5). A notice needs none.
REQUIRED_GATES: dict[str, frozenset[GateName]] = {
    "teach": frozenset({"fact_check"}),
    "ask": frozenset({"quiz_audit"}),
    "teach_and_ask": frozenset({"fact_check", "quiz_audit"}),
    "grade": frozenset({"grade_audit"}),
    "records": frozenset({"review"}),
    "notice": frozenset(),
}


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    message_id: str = Field(min_length=1)
    kind: TurnKind
    content: str
    claims: list[Claim] = []
    questions: list[QuizQuestion] = []
