"""The digest: everything the Tutor teaches one lesson from, as the Scout gathered it.

Fetched text inside a digest (excerpts, takeaways) is untrusted data: store it and pass it on as
data, print it without a markup interpreter, and delimit it wherever it enters a prompt.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tutor.gates.digest_view import GateDigest

SourceKind = Literal["primary", "external", "curated"]
SourceStatus = Literal["ok", "changed", "new", "unreachable"]


class SourceEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str
    kind: SourceKind
    title: str
    hash: str | None
    status: SourceStatus
    reason: str | None
    excerpt: str
    takeaways: list[str]
    adds_vs_primary: str


class Prereq(BaseModel):
    model_config = ConfigDict(extra="forbid")

    concept: str
    keywords: list[str]  # lower-case search terms for the learner's records
    why: str


class OutlineItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    section: str  # the top-level (`##`) section the item belongs to; its own title at level 2
    level: int


class Digest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    lesson_id: str
    lesson_title: str
    curriculum: str
    created_at: str
    request_hash: str
    sources: list[SourceEntry]
    synthesis: str
    outline: list[OutlineItem]
    prereqs: list[Prereq]
    lang_recommendation: str | None
    warnings: list[str]

    def canonical_json(self) -> str:
        """Everything but the creation time, keys sorted: equal for equal preparations."""
        data = self.model_dump(mode="json", exclude={"created_at"})
        return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @property
    def primary(self) -> SourceEntry | None:
        return next((s for s in self.sources if s.kind == "primary"), None)

    def reachable(self) -> list[SourceEntry]:
        return [s for s in self.sources if s.status != "unreachable"]

    def gate_view(self, primary_text: str | None = None) -> GateDigest:
        """What the gates ground claims in: per reachable source its excerpt and takeaways; for
        the primary, its full normalised text when given (teaching from the lesson's own sections
        is then grounded). Unreachable sources contribute nothing, so citing them fails."""
        texts: dict[str, str] = {}
        for source in self.reachable():
            if source.kind == "primary" and primary_text:
                texts[source.url] = primary_text
            else:
                texts[source.url] = "\n\n".join([source.excerpt, *source.takeaways]).strip()
        return GateDigest(sources=texts)
