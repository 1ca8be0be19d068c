"""The one protocol the engine uses to talk to a model, whichever model (or none) is behind it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, get_args, runtime_checkable

from pydantic import BaseModel

if TYPE_CHECKING:
    from tutor.gates.envelopes import Envelope, Verdict
else:
    Envelope = Any
    Verdict = Any

T = TypeVar("T", bound=BaseModel)

FailureKind = Literal[
    "timeout",  # no answer within the timeout, after the retries
    "rate_limited",  # 429 after the retries, or a Retry-After longer than we wait
    "server_error",  # 5xx after the retries
    "connection",  # refused, reset, or a stream cut off before it finished
    "malformed",  # the endpoint's reply is not a valid chat completion
    "schema",  # the model's JSON never matched the schema, re-asks included
    "refusal",  # the model refused (message.refusal or a content filter)
    "length",  # the output was cut off at the token limit
    "unavailable",  # no model here, or the endpoint rejects the request (4xx)
]
FAILURE_KINDS: frozenset[str] = frozenset(get_args(FailureKind))


class ModelFailure(Exception):
    """A model call that did not produce a usable answer. `kind` is one of FAILURE_KINDS."""

    def __init__(self, kind: FailureKind, detail: str = "") -> None:
        if kind not in FAILURE_KINDS:
            raise ValueError(f"unknown model failure kind {kind!r}")
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind: FailureKind = kind
        self.detail = detail


@runtime_checkable
class Provider(Protocol):
    name: str
    offline: bool

    async def structured(self, *, skill: str, data: dict, schema: type[T], purpose: str) -> T:
        """One JSON answer validated against `schema`, or ModelFailure."""
        ...

    def stream_text(self, *, skill: str, data: dict, purpose: str) -> AsyncIterator[str]:
        """Text chunks as they arrive (an async generator); ModelFailure on failure."""
        ...

    async def verify(self, envelope: Envelope) -> Verdict:
        """The gate's verdict; entries are UNVERIFIED (never PASS) when the verifier cannot run."""
        ...
