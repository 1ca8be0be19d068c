"""The embedded default: no model, no network. It generates nothing it cannot ground, so
`structured` and `stream_text` always fail with `unavailable`; `verify` runs the deterministic
verifier (tutor.gates.offline_verifier): a claim passes only when found verbatim (normalised)
in the reference excerpt, quizzes get the mechanical rules only, grades are checked against the
answer key, and whatever needs judgement is UNVERIFIED."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from tutor.llm.provider import ModelFailure

if TYPE_CHECKING:
    from tutor.gates.envelopes import Envelope
    from tutor.gates.verdicts import Verdict
    from tutor.llm.recorder import CallRecorder

T = TypeVar("T", bound=BaseModel)

NO_MODEL = "no model configured; running on the embedded offline provider"


class OfflineProvider:
    name = "offline"
    offline = True
    model = "none"

    def __init__(self, recorder: CallRecorder | None = None) -> None:
        self.recorder = recorder  # nothing to record: no model is ever called

    async def structured(self, *, skill: str, data: dict, schema: type[T], purpose: str) -> T:
        raise ModelFailure("unavailable", NO_MODEL)

    async def stream_text(self, *, skill: str, data: dict, purpose: str) -> AsyncIterator[str]:
        raise ModelFailure("unavailable", NO_MODEL)
        yield ""  # pragma: no cover - makes this an async generator like the real one

    async def verify(self, envelope: Envelope) -> Verdict:
        from tutor.gates.offline_verifier import verify

        return verify(envelope)

    async def aclose(self) -> None:
        return None
