"""The provider for any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server).

Retry bound. The SDK's own retries are off (`max_retries=0`); this module retries instead,
from one budget per logical call of `settings.max_retries` retries, on 429, 5xx, 408,
timeouts, connection errors and malformed replies, with exponential backoff and jitter
(`backoff_base * 2**n`, capped at `backoff_max`, times a random factor in [0.5, 1]). A
Retry-After (on 429 or 5xx) replaces the backoff when it is at most `retry_after_max` seconds
and at most `wait_max` (the learner's wait at one screen); a longer one fails the call at once.
A wait between retries ends, failing the call, when the breaker opens meanwhile.
A structured call also re-asks at most MAX_REASKS times when the answer fails validation, and
switches from `json_schema` to `json_object` when the endpoint rejects the former, and from that
to no `response_format` at all when it rejects that too (the prompt carries the schema in both),
and once from `max_tokens` to `max_completion_tokens` when the endpoint refuses the former. So
one logical call sends at most `max_requests_per_call(max_retries)` requests:
1 + MAX_REASKS + max_retries + 3. A streamed call is retried only until its first chunk.

Timeout. `settings.timeout` bounds each non-streamed request end to end, and each wait for the
next chunk of a stream.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import re
import threading
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from tutor.llm.breaker import CircuitBreaker
from tutor.llm.provider import FailureKind, ModelFailure
from tutor.llm.recorder import CallRecorder, ModelCall, NullRecorder
from tutor.llm.settings import ModelSettings
from tutor.llm.skills import build_messages, new_marker, reask_message

if TYPE_CHECKING:
    from tutor.gates.envelopes import Envelope
    from tutor.gates.verdicts import Verdict

T = TypeVar("T", bound=BaseModel)
# how a structured call asks for JSON: the schema as response_format, plain JSON mode, or no
# response_format at all (for endpoints refusing any); the last two carry the schema as data
StructuredMode = Literal["json_schema", "json_object", "none"]
NEXT_MODE: dict[StructuredMode, StructuredMode] = {
    "json_schema": "json_object",
    "json_object": "none",
}
R = TypeVar("R")

MAX_REASKS = 2
log = logging.getLogger("tutor.llm")


def max_requests_per_call(max_retries: int) -> int:
    """The most HTTP requests one logical call can send (see the module docstring)."""
    return 1 + MAX_REASKS + max_retries + 3


class _Retryable(Exception):
    def __init__(self, kind: FailureKind, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.retry_after = retry_after


class _Rejected(Exception):
    """A 4xx other than 408/429: the request itself is refused; retrying will not help."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass
class _Account:
    """Tokens, latency and the retry budget of one logical call."""

    retries_left: int
    started: float = field(default_factory=time.perf_counter)
    tokens_in: int = 0
    tokens_out: int = 0
    requests: int = 0

    def add_usage(self, usage: Any, messages: list[dict[str, str]], text: str) -> None:
        if isinstance(usage, dict):
            tin, tout = usage.get("prompt_tokens"), usage.get("completion_tokens")
        else:
            tin = getattr(usage, "prompt_tokens", None)
            tout = getattr(usage, "completion_tokens", None)
        # Endpoints that report no usage get an estimate (about four characters a token).
        self.tokens_in += tin if isinstance(tin, int) else _estimate(messages)
        self.tokens_out += tout if isinstance(tout, int) else len(text) // 4


def _estimate(messages: list[dict[str, str]]) -> int:
    return sum(len(m.get("content") or "") for m in messages) // 4


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def _lean(node: Any) -> Any:
    """A JSON schema without its `title`s, `default`s and models' descriptions (their
    docstrings, written for the code's readers): they are sent with every request and say
    nothing the field names and types do not (a property named `title` is kept)."""
    if isinstance(node, dict):
        dropped = {"default", "title", *(("description",) if "properties" in node else ())}
        return {
            k: _lean(v)
            for k, v in node.items()
            if not (k in dropped and (k == "default" or isinstance(v, str)))
        }
    if isinstance(node, list):
        return [_lean(v) for v in node]
    return node


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each `$ref` to its `$defs` replaced by the definition (fewer tokens for the
    small models verdicts are); a recursive schema is left as it is."""
    defs = schema.get("$defs", {})

    def expand(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            name = ref.removeprefix("#/$defs/")
            if ref.startswith("#/$defs/") and name in defs:
                if name in seen:
                    raise RecursionError(name)
                return expand(defs[name], seen | {name})
            return {k: expand(v, seen) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [expand(v, seen) for v in node]
        return node

    try:
        out: dict[str, Any] = expand(schema, frozenset())
    except RecursionError:
        return schema
    return out


@cache
def _response_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The strict JSON schema sent as response_format (cached per model class)."""
    try:
        from openai.lib._pydantic import to_strict_json_schema

        return _inlined(_lean(to_strict_json_schema(schema)))
    except Exception:  # the helper is private to the SDK; the plain schema still works
        return _inlined(_lean(schema.model_json_schema()))


_FENCE = re.compile(r"```(?:json)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_THOUGHT_END = "</think>"
BRACES = 20  # the first `{` of a reply tried as the start of its JSON object


def _json_text(content: str) -> str:
    """The JSON inside a reply, for the schema to validate strictly. The first of these that is
    JSON at all: the reply; what follows a reasoning model's thinking (everything up to the last
    `</think>`: R1-style chat templates strip the opening tag); a ```` ``` ```` fence found in
    that; the text from its first `{` to its last `}` (models in plain JSON mode put prose
    around the JSON), in the fence, then in the whole answer (a string in the JSON may hold a
    fence of its own, a code block, which ends the outer one early). Else the fence's, for the
    validation errors to be about."""
    thought = content.rpartition(_THOUGHT_END)[2]
    fenced = _FENCE.search(thought)
    inner = fenced.group(1) if fenced else thought
    candidates = [content, thought, inner, _braced(inner), _braced(thought)]
    for text in candidates:
        try:
            json.loads(text)
        except ValueError:
            continue
        return text
    return candidates[3]


def _braced(text: str) -> str:
    """The first JSON object in the text, read from one of its first BRACES `{` to where the
    object ends (prose may follow it, braces and all); else the text from its first `{` to its
    last `}` (itself when it has no such span)."""
    decoder = json.JSONDecoder()
    starts = [m.start() for m in re.finditer(r"\{", text)][:BRACES]
    for start in starts:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return text[start:end]
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


@cache
def _plain_schema(schema: type[BaseModel]) -> dict[str, Any]:
    return _inlined(_lean(schema.model_json_schema()))


@cache
def _forbidding(schema: type[T]) -> type[T]:
    """`schema` itself if it rejects unknown fields, else a subclass that does."""
    if schema.model_config.get("extra") == "forbid":
        return schema
    return type(
        schema.__name__, (schema,), {"model_config": {**schema.model_config, "extra": "forbid"}}
    )


def _validation_errors(exc: Exception) -> list[str]:
    if isinstance(exc, ValidationError):
        return [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
            for e in exc.errors(include_url=False, include_input=False)
        ]
    return [f"(root): {exc}"]


@dataclass(frozen=True)
class _Completion:
    content: str
    refusal: str | None
    finish_reason: str | None
    usage: dict[str, Any] | None
    model: str | None = None  # the model the endpoint says served it


def _text_parts(content: list[Any]) -> str:
    """The text of a content given as parts (`[{"type": "text", "text": "…"}, …]`)."""
    if not all(isinstance(part, dict) for part in content):
        raise ValueError("the reply is not a chat completion")
    texts = [p.get("text") for p in content if p.get("type") == "text"]
    if not all(isinstance(text, str) for text in texts):
        raise ValueError("the reply is not a chat completion")
    return "".join(texts)


def _parse_completion(obj: Any) -> _Completion:
    """The parts of a chat completion we use; ValueError when the reply is not one. A body
    served as other than JSON (text/plain, no content type) comes as text: it is parsed here."""
    if isinstance(obj, bytes):
        obj = obj.decode("utf-8", errors="replace")
    if isinstance(obj, str) and obj.lstrip().startswith("data:"):
        return _parse_events(obj)
    if isinstance(obj, str):
        obj = json.loads(obj)  # a JSONDecodeError is a ValueError: a malformed reply
    try:
        choice = obj["choices"][0]
        message = choice["message"]
        content = message.get("content")
        refusal = message.get("refusal")
        finish = choice.get("finish_reason")
        usage = obj.get("usage")
        served = obj.get("model")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ValueError("the reply is not a chat completion") from None
    if isinstance(content, list):
        content = _text_parts(content)
    if not isinstance(content, str | None) or not isinstance(finish, str | None):
        raise ValueError("the reply is not a chat completion")
    return _Completion(
        content=content or "",
        refusal=str(refusal) if refusal else None,
        finish_reason=finish,
        usage=usage if isinstance(usage, dict) else None,
        model=served if isinstance(served, str) and served.strip() else None,
    )


def _parse_events(body: str) -> _Completion:
    """A completion an endpoint streamed although no stream was asked for: its server-sent
    events' chunks joined (ValueError when one is not a chunk)."""
    text, refusal, finish, usage, served = [], None, None, None, None
    for line in body.splitlines():
        data = line.removeprefix("data:").strip() if line.startswith("data:") else ""
        if not data or data == "[DONE]":
            continue
        try:
            chunk = json.loads(data)
            choices = chunk.get("choices") or []
            usage = chunk.get("usage") or usage
            served = chunk.get("model") or served
            for choice in choices:
                delta = choice.get("delta") or {}
                text.append(delta.get("content") or "")
                refusal = delta.get("refusal") or refusal
                finish = choice.get("finish_reason") or finish
        except (ValueError, AttributeError, TypeError):
            raise ValueError("the reply is not a chat completion") from None
    if not all(isinstance(t, str) for t in text):
        raise ValueError("the reply is not a chat completion")
    return _Completion(
        content="".join(text),
        refusal=str(refusal) if refusal else None,
        finish_reason=finish if isinstance(finish, str) else None,
        usage=usage if isinstance(usage, dict) else None,
        model=served if isinstance(served, str) and served.strip() else None,
    )


def _chunk_parts(chunk: Any) -> tuple[str, str | None, str | None, Any]:
    """(text, refusal, finish_reason, usage) of one stream chunk; raises on a malformed one."""
    text, refusal, finish = "", None, None
    for choice in chunk.choices or ():
        delta = choice.delta
        if delta is not None:
            if getattr(delta, "refusal", None):
                refusal = str(delta.refusal)
            if delta.content:
                if not isinstance(delta.content, str):
                    raise ValueError("chunk content is not text")
                text += delta.content
        finish = choice.finish_reason or finish
    return text, refusal, finish, getattr(chunk, "usage", None)


class OpenAIProvider:
    name = "openai"
    offline = False

    def __init__(
        self,
        settings: ModelSettings,
        recorder: CallRecorder | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.settings = settings
        self.model = settings.model
        self.served: set[str] = set()  # the model names the endpoint's answers say served them
        self.recorder: CallRecorder = recorder or NullRecorder()
        self._sleep = sleep or asyncio.sleep
        self._rng = random.Random()
        # what this endpoint turned out to support; learned once per provider
        self.structured_mode: StructuredMode = "json_schema"
        self.stream_usage = True
        # the name of the answer-length bound: OpenAI's reasoning models refuse `max_tokens`
        self.token_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )
        self.breaker = CircuitBreaker(settings.breaker_failures)
        self._tls: Any = None  # one TLS context for every loop's client: building one costs ~30 ms
        self._tls_lock = threading.Lock()
        # the provider the gate verifiers run on (TUTOR_VERIFIER_*); None: this one
        self.verifier: OpenAIProvider | None = None

    # -- plumbing -----------------------------------------------------------------------------
    def warm(self) -> None:
        """Import the SDK and build the TLS context now (most of a second), so the first call
        made in the background while the learner reads does not pay for them. Called when a
        lesson starts."""
        import openai  # noqa: F401
        import openai.lib._pydantic  # noqa: F401

        for provider in {self, self.verifier or self}:
            provider._tls_context()

    def _client_for_loop(self) -> Any:
        """The SDK client for the running event loop: a connection pool belongs to one loop, and
        the engine may call from several (one per worker thread)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            import openai  # lazily: the import alone costs most of a second

            key = self.settings.api_key
            client = openai.AsyncOpenAI(
                # endpoints without auth (Ollama, llama.cpp) still need a non-empty value
                api_key=key.get_secret_value() if key is not None else "no-key",
                base_url=self.settings.base_url or None,
                timeout=self.settings.timeout,
                max_retries=0,
                # our own client: the SDK's default one schedules its closing on whatever loop
                # runs when it is collected, which breaks once its own loop is gone
                http_client=openai.DefaultAsyncHttpxClient(
                    timeout=self.settings.timeout, verify=self._tls_context()
                ),
            )
            self._clients[loop] = client
        return client

    def _tls_context(self) -> Any:
        with self._tls_lock:
            if self._tls is None:
                import httpx2

                self._tls = httpx2.create_ssl_context()
            return self._tls

    async def aclose(self) -> None:
        """Close the connections of the running loop's client."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def _redact(self, text: str) -> str:
        key = self.settings.api_key
        secret = key.get_secret_value() if key is not None else ""
        return text.replace(secret, "[redacted]") if secret else text

    def _classify(self, exc: BaseException) -> _Retryable | _Rejected | None:
        """What a failed request means; None for exceptions that are bugs, not replies."""
        import httpx2
        import openai

        if isinstance(exc, openai.APITimeoutError | TimeoutError | httpx2.TimeoutException):
            return _Retryable("timeout", f"no answer within {self.settings.timeout:g} s")
        if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
            cause = exc.__cause__ if isinstance(exc, openai.APIConnectionError) else exc
            return _Retryable("connection", type(cause).__name__ if cause else "connection error")
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            body = exc.body if isinstance(exc.body, dict) else {}
            message = body.get("message") if isinstance(body.get("message"), str) else exc.message
            detail = f"HTTP {status}: {self._redact(str(message))[:200]}"
            retry_after = _retry_after(exc.response.headers)
            if status == 429:
                return _Retryable("rate_limited", detail, retry_after)
            if status == 408:
                return _Retryable("timeout", detail)
            if status >= 500:
                return _Retryable("server_error", detail, retry_after)
            return _Rejected(status, detail)
        if isinstance(exc, openai.APIResponseValidationError | ValueError):
            return _Retryable("malformed", f"unreadable reply ({type(exc).__name__})")
        if isinstance(exc, openai.APIError):
            return _Retryable("server_error", self._redact(str(exc))[:200])
        if isinstance(exc, openai.OpenAIError):
            return _Rejected(0, self._redact(str(exc))[:200])
        return None

    def _backoff(self, attempt: int) -> float:
        s = self.settings
        return min(s.backoff_max, s.backoff_base * (2**attempt)) * (0.5 + self._rng.random() / 2)

    def _closed_check(self) -> None:
        if self.breaker.is_open:
            raise ModelFailure(
                "unavailable", f"the model is offline for this lesson ({self.breaker.reason})"
            )

    async def _guarded(self, request: Callable[[], Awaitable[R]]) -> R:
        """The request, bounded by the timeout, and cancelled when the breaker opens meanwhile
        (another call found the endpoint dead)."""
        task = asyncio.ensure_future(request())
        opened = self.breaker.wait_open()
        either: set[asyncio.Future[Any]] = {task, opened}
        try:
            async with asyncio.timeout(self.settings.timeout):
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        except TimeoutError:
            task.cancel()
            raise
        finally:
            self.breaker.forget(opened)
            opened.cancel()
        if task.done():
            return task.result()
        task.cancel()
        raise ModelFailure("unavailable", f"the model went offline ({self.breaker.reason})")

    async def _send(self, account: _Account, request: Callable[[], Awaitable[R]]) -> R:
        """One request with retries from the call's budget. Raises ModelFailure or _Rejected."""
        while True:
            self._closed_check()
            account.requests += 1
            try:
                return await self._guarded(request)
            except ModelFailure:
                raise
            except Exception as exc:
                problem = self._classify(exc)
                if problem is None:
                    raise
                if isinstance(problem, _Rejected):
                    raise problem from None
                if problem.kind == "timeout" and not problem.detail.startswith("HTTP"):
                    # one hang past the timeout: the endpoint is not answering; the breaker
                    # opens now instead of waiting out every retry
                    self.breaker.failure("timeout", problem.detail)
                wait = self._backoff(self.settings.max_retries - account.retries_left)
                if problem.retry_after is not None:
                    if problem.retry_after > self.longest_wait:
                        raise ModelFailure(
                            problem.kind,
                            f"{problem.detail}; asked to wait {problem.retry_after:g} s, more "
                            f"than the {self.longest_wait:g} s we wait",
                        ) from None
                    wait = problem.retry_after
                if account.retries_left <= 0 or self.breaker.is_open:
                    raise ModelFailure(problem.kind, problem.detail) from None
                account.retries_left -= 1
                log.info(
                    "model call: %s (%s); retry %d of %d in %.2f s",
                    problem.kind,
                    problem.detail,
                    self.settings.max_retries - account.retries_left,
                    self.settings.max_retries,
                    wait,
                )
                await self._pause(wait)

    @property
    def longest_wait(self) -> float:
        """The longest Retry-After honoured: `retry_after_max`, and never more than the wait a
        learner is promised at one screen (`wait_max`, when set)."""
        s = self.settings
        return min(s.retry_after_max, s.wait_max) if s.wait_max else s.retry_after_max

    async def _pause(self, seconds: float) -> None:
        """Wait before a retry; cut short, failing the call, when the breaker opens meanwhile
        (the learner's wait ran out, or another call found the endpoint dead)."""
        sleep = asyncio.ensure_future(self._sleep(seconds))
        opened = self.breaker.wait_open()
        try:
            await asyncio.wait({sleep, opened}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.breaker.forget(opened)
            opened.cancel()
            sleep.cancel()
        self._closed_check()

    def _record(
        self,
        call_id: str,
        purpose: str,
        account: _Account,
        error: str | None,
        messages: list[dict[str, str]],
    ) -> None:
        prompt = None
        if self.settings.debug_prompts:
            prompt = self._redact(json.dumps(messages, ensure_ascii=False))
        call = ModelCall(
            call_id=call_id,
            provider=self.name,
            model=self.model,
            purpose=purpose,
            tokens_in=account.tokens_in,
            tokens_out=account.tokens_out,
            latency_ms=round((time.perf_counter() - account.started) * 1000, 3),
            outcome="ok" if error is None else "failed",
            error_kind=error,
            prompt=prompt,
        )
        try:
            self.recorder.record(call)
        except Exception as exc:  # accounting must never break a lesson
            log.warning("could not record model call %s: %s", call_id, type(exc).__name__)

    def _token_param_refused(self, rejected: _Rejected) -> bool:
        """The endpoint refused `max_tokens` (OpenAI's reasoning models): switch, once, to
        `max_completion_tokens` and remember it. Whether to send again."""
        if (
            self.token_param == "max_tokens"
            and rejected.status in (400, 422)
            and "max_tokens" in rejected.detail
        ):
            log.info("endpoint refused max_tokens; sending max_completion_tokens")
            self.token_param = "max_completion_tokens"
            return True
        return False

    # -- structured ---------------------------------------------------------------------------
    def _response_format(
        self, schema: type[BaseModel], json_schema: dict[str, Any]
    ) -> dict[str, Any] | None:
        if self.structured_mode == "none":
            return None
        if self.structured_mode == "json_object":
            return {"type": "json_object"}
        name = re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64] or "answer"
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": json_schema, "strict": True},
        }

    async def _complete(
        self,
        account: _Account,
        prompt: Callable[[str], list[dict[str, str]]],
        schema: type[BaseModel],
        json_schema: dict[str, Any],
    ) -> tuple[_Completion, list[dict[str, str]]]:
        """One answer (retries included) and the messages that produced it."""
        client = self._client_for_loop()
        started = self.structured_mode
        while True:
            messages = prompt(self.structured_mode)
            body: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                self.token_param: self.settings.max_tokens,
            }
            response_format = self._response_format(schema, json_schema)
            if response_format is not None:
                body["response_format"] = response_format
            if self.settings.temperature is not None:
                body["temperature"] = self.settings.temperature

            # The SDK's generic `post` (auth, base URL, typed errors, timeouts) with a plain
            # dict body: `chat.completions.create` re-walks the whole JSON schema on every call.
            async def request(body: dict[str, Any] = body) -> _Completion:
                completion = _parse_completion(
                    await client.post("/chat/completions", body=body, cast_to=object)
                )
                if completion.model:
                    self.served.add(completion.model)
                return completion

            try:
                return await self._send(account, request), messages
            except _Rejected as rejected:
                if self._token_param_refused(rejected):
                    continue
                fallback = NEXT_MODE.get(self.structured_mode)
                if fallback is not None and rejected.status in (400, 422):
                    log.info(
                        "endpoint rejected %s (%s); trying %s",
                        self.structured_mode,
                        rejected.detail,
                        fallback,
                    )
                    self.structured_mode = fallback
                    continue
                # refused without any response_format too: the 400 was not about the format
                self.structured_mode = started
                raise ModelFailure("unavailable", rejected.detail) from None

    async def structured(self, *, skill: str, data: dict, schema: type[T], purpose: str) -> T:
        strict = _forbidding(schema)
        json_schema = _response_schema(schema)
        marker = new_marker()
        first: dict[str, list[dict[str, str]]] = {}
        history: list[dict[str, str]] = []  # (answer, validation errors) pairs of re-asks

        def prompt(mode: str) -> list[dict[str, str]]:
            if mode not in first:  # in json_schema mode the response format carries the schema
                first[mode] = build_messages(
                    skill,
                    data,
                    purpose=purpose,
                    answer_format="json",
                    marker=marker,
                    output_schema=None if mode == "json_schema" else _plain_schema(schema),
                )
            return [*first[mode], *history]

        account = _Account(retries_left=self.settings.max_retries)
        call_id = uuid.uuid4().hex
        error: str | None = "cancelled"
        detail = ""
        try:
            self._closed_check()
            for ask in range(MAX_REASKS + 1):
                completion, messages = await self._complete(account, prompt, schema, json_schema)
                account.add_usage(completion.usage, messages, completion.content)
                content = self._checked_content(completion)
                try:
                    result = strict.model_validate_json(_json_text(content))
                    if strict is not schema:
                        result = schema.model_validate_json(_json_text(content))
                except (ValidationError, ValueError) as exc:
                    errors = _validation_errors(exc)
                    log.info(
                        "model answer failed validation (%d errors); ask %d of %d",
                        len(errors),
                        ask + 1,
                        MAX_REASKS + 1,
                    )
                    if ask == MAX_REASKS or not self.breaker.reask:
                        raise ModelFailure(
                            "schema",
                            f"no valid {schema.__name__} after {ask} re-asks: "
                            + "; ".join(errors[:3]),
                        ) from None
                    history += [{"role": "assistant", "content": content}, reask_message(errors)]
                    continue
                error = None
                return result
            raise AssertionError("unreachable")
        except ModelFailure as failure:
            error, detail = failure.kind, failure.detail
            raise
        finally:
            sent = next(iter(first.values()), [])
            self._record(call_id, purpose, account, error, sent)
            self._count(error, detail)

    def _count(self, error: str | None, detail: str) -> None:
        if error is None:
            self.breaker.success()
        elif error != "cancelled":
            self.breaker.failure(error, detail)

    def _checked_content(self, completion: _Completion) -> str:
        if completion.refusal:
            raise ModelFailure("refusal", self._redact(completion.refusal)[:200])
        if completion.finish_reason == "content_filter":
            raise ModelFailure("refusal", "stopped by the endpoint's content filter")
        if completion.finish_reason == "length":
            raise ModelFailure("length", "the answer was cut off at the token limit")
        return completion.content

    # -- streaming ----------------------------------------------------------------------------
    async def _open_stream(self, account: _Account, messages: list[dict[str, str]]) -> Any:
        client = self._client_for_loop()
        while True:
            extra: dict[str, Any] = {}
            if self.stream_usage:
                extra["stream_options"] = {"include_usage": True}

            def create(extra: dict[str, Any] = extra) -> Awaitable[Any]:
                return client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    stream=True,
                    **{self.token_param: self.settings.max_tokens},
                    **extra,
                )

            try:
                return await self._send(account, create)
            except _Rejected as rejected:
                if self._token_param_refused(rejected):
                    continue
                if self.stream_usage and rejected.status in (400, 422):
                    log.info("endpoint rejected stream_options; streaming without usage")
                    self.stream_usage = False
                    continue
                raise ModelFailure("unavailable", rejected.detail) from None

    async def stream_text(self, *, skill: str, data: dict, purpose: str) -> AsyncIterator[str]:
        messages = build_messages(skill, data, purpose=purpose)
        account = _Account(retries_left=self.settings.max_retries)
        call_id = uuid.uuid4().hex
        error: str | None = "cancelled"
        text: list[str] = []
        usage: Any = None
        stream: Any = None
        detail = ""
        try:
            self._closed_check()
            stream = await self._open_stream(account, messages)
            finish: str | None = None
            iterator = stream.__aiter__()
            while True:
                try:
                    chunk = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                except Exception as exc:
                    problem = self._classify(exc)
                    if problem is None:
                        raise
                    kind = problem.kind if isinstance(problem, _Retryable) else "server_error"
                    raise ModelFailure(kind, f"stream broke: {problem.detail}") from None
                try:
                    content, refusal, chunk_finish, chunk_usage = _chunk_parts(chunk)
                except (AttributeError, TypeError, ValueError):
                    raise ModelFailure("malformed", "a stream event is not a chunk") from None
                usage = chunk_usage if chunk_usage is not None else usage
                if refusal:
                    raise ModelFailure("refusal", self._redact(refusal)[:200])
                if content:
                    text.append(content)
                    yield content
                finish = chunk_finish or finish
            if finish is None:
                raise ModelFailure("connection", "the stream ended before the model finished")
            if finish == "length":
                raise ModelFailure("length", "the answer was cut off at the token limit")
            if finish == "content_filter":
                raise ModelFailure("refusal", "stopped by the endpoint's content filter")
            error = None
        except ModelFailure as failure:
            error, detail = failure.kind, failure.detail
            raise
        finally:
            self._count(error, detail)
            if stream is not None:
                try:
                    await stream.close()
                except Exception:  # closing a broken stream may fail again; nothing to add
                    pass
            account.add_usage(usage, messages, "".join(text))
            self._record(call_id, purpose, account, error, messages)

    # -- verification -------------------------------------------------------------------------
    async def verify(self, envelope: Envelope) -> Verdict:
        from tutor.llm.model_verifier import verify_with_model

        return await verify_with_model(self, envelope)
