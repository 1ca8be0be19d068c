"""Accounting for model calls: one `ModelCall` per logical call (its retries and re-asks
included), written to the store. Never the key; the prompt only when debug_prompts is on."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["ok", "failed"]


class ModelCall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    call_id: str
    provider: str
    model: str
    purpose: str
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)
    latency_ms: float = Field(ge=0)
    outcome: Outcome
    error_kind: str | None = None
    prompt: str | None = None


class CallRecorder(Protocol):
    def record(self, call: ModelCall) -> None: ...


class StoreRecorder:
    """Writes each call through `Store.model_calls.record(**fields)`."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def record(self, call: ModelCall) -> None:
        self._store.model_calls.record(**call.model_dump())


class MemoryRecorder:
    """Keeps calls in a list; for tests and benches."""

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []

    def record(self, call: ModelCall) -> None:
        self.calls.append(call)


class NullRecorder:
    def record(self, call: ModelCall) -> None:
        return None
