"""The lesson outcome (the pending ingest): what a finished lesson hands to the Clerk.

It lives here, below both, so the engine (which writes it) and the Clerk (which reads it) share
the shape without importing each other."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class IngestConcept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # stable slug, e.g. "p1l08-gradient-descent"
    name: str
    lesson_id: str
    kind_hint: str = ""  # the lesson's Type header ("Build", "Learn") — the Clerk decides the type
    language: str = ""
    status_hint: Literal["developing", "held", "advanced"] = "developing"
    evidence: list[str] = Field(default_factory=list)  # attempt ids


class TaughtStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step_id: str
    title: str
    content: str  # exactly what was emitted after its gate
    sources: list[str]
    receipt_ids: list[str]
    unverified: list[str] = Field(default_factory=list)
    concept_id: str | None = None


class PendingIngest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # "ingest:<session id>"
    session_id: str
    lesson_id: str
    lesson_title: str
    curriculum: str
    concepts: list[IngestConcept]
    attempt_ids: list[str]
    mistake_ids: list[str]
    glossary: dict[str, str]
    verdict: dict[str, str]  # strand -> solid / unstable / unknown
    plan: list[str]  # step titles
    taught: list[TaughtStep]  # steps the learner read (a skipped step is not taught)
    created_at: str
    skipped: list[str] = Field(default_factory=list)  # titles of steps the learner skipped
