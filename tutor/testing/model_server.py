"""A loopback HTTP server speaking the OpenAI chat-completions API, scripted per test.

    with ModelServer() as srv:
        srv.script([Reply.error(500), Reply.json({"answer": 4})])
        ... point a provider at srv.base_url ...
        assert len(srv.chat_requests) == 2

Each chat request takes the next scripted item: a `Reply`, a `str` (assistant text), a dict or
list (sent as JSON text), or a callable `(body) -> item`. With the script exhausted the server
answers `srv.default` if set, else 500. `stream: true` requests get server-sent events. Faults:
HTTP errors, 429 with Retry-After, a hang past the client's timeout, a connection reset, a
malformed body, a truncated stream or body, a refusal, a length cut-off; and endpoint-wide
rejection of `json_schema` response formats (or of any `response_format`), of `stream_options`
or of `max_tokens` (as OpenAI's reasoning models do: they take `max_completion_tokens`).
Quirks of servers that answer well enough: completions served as another content type (or
none), and a message's content given as a list of text parts (`Reply.in_parts`).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

ReplyKind = Literal[
    "content", "status", "hang", "reset", "malformed", "truncated", "refusal", "length"
]


@dataclass(frozen=True)
class Reply:
    kind: ReplyKind = "content"
    content: str = ""
    status: int = 200
    message: str = ""
    retry_after: str | None = None
    delay: float = 0.0
    chunks: tuple[str, ...] | None = None
    keep: int = 1
    clean: bool = False
    body: bytes = b""
    usage: tuple[int, int] | None = None
    content_parts: tuple[str, ...] | None = None

    @classmethod
    def text(
        cls, content: str, *, chunks: Iterable[str] | None = None, delay: float = 0.0
    ) -> Reply:
        return cls(
            content=content, chunks=tuple(chunks) if chunks is not None else None, delay=delay
        )

    @classmethod
    def in_parts(cls, texts: Iterable[str]) -> Reply:
        """A non-streamed answer whose `message.content` is a list of text parts (as some
        servers send), `[{"type": "text", "text": …}, …]`: together, the texts."""
        parts = tuple(texts)
        return cls(content="".join(parts), content_parts=parts)

    @classmethod
    def json(cls, obj: Any, *, delay: float = 0.0) -> Reply:
        return cls(content=json.dumps(obj), delay=delay)

    @classmethod
    def error(
        cls,
        status: int = 500,
        message: str = "internal error",
        *,
        retry_after: float | str | None = None,
    ) -> Reply:
        ra = None if retry_after is None else str(retry_after)
        return cls(kind="status", status=status, message=message, retry_after=ra)

    @classmethod
    def rate_limited(cls, retry_after: float | str | None = 0.05) -> Reply:
        return cls.error(429, "rate limit reached", retry_after=retry_after)

    @classmethod
    def hang(cls, seconds: float = 30.0) -> Reply:
        """Accept the request and say nothing until `seconds` pass or the server stops."""
        return cls(kind="hang", delay=seconds)

    @classmethod
    def reset(cls) -> Reply:
        """Close the connection with a TCP reset, without an answer."""
        return cls(kind="reset")

    @classmethod
    def malformed(cls, body: bytes = b'{"id": "chatcmpl-x", "choices": [{"index": 0, ') -> Reply:
        """200 OK with a body that is not valid JSON (streamed: an event whose data is not)."""
        return cls(kind="malformed", body=body)

    @classmethod
    def truncated(
        cls,
        content: str,
        *,
        keep: int = 1,
        chunks: Iterable[str] | None = None,
        clean: bool = False,
        stall: float = 0.0,
    ) -> Reply:
        """Streams `keep` chunks, waits `stall` seconds, then drops the connection — or, with
        `clean`, ends the body properly but with no finish_reason and no [DONE].
        Non-streamed: half the body, then the connection drops."""
        return cls(
            kind="truncated",
            content=content,
            keep=keep,
            clean=clean,
            delay=stall,
            chunks=tuple(chunks) if chunks is not None else None,
        )

    @classmethod
    def refusal(cls, text: str = "I can't help with that.") -> Reply:
        return cls(kind="refusal", content=text)

    @classmethod
    def length(cls, content: str = '{"partial": ') -> Reply:
        """A reply cut off at the token limit (finish_reason "length")."""
        return cls(kind="length", content=content)


ScriptItem = Reply | str | dict | list | Callable[[dict], Any]


@dataclass
class RecordedRequest:
    """One request as the server saw it; header names are lower-cased."""

    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


def _as_reply(item: Any, body: dict) -> Reply:
    if callable(item) and not isinstance(item, Reply):
        item = item(body)
    if isinstance(item, Reply):
        return item
    if isinstance(item, str):
        return Reply.text(item)
    if isinstance(item, dict | list):
        return Reply.json(item)
    raise TypeError(f"cannot turn {item!r} into a Reply")


def _split(content: str, chunks: tuple[str, ...] | None) -> list[str]:
    if chunks is not None:
        return list(chunks)
    if not content:
        return []
    words = content.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]


def _tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: avoid delayed ACKs
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
        return None

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass

    # -- plumbing -----------------------------------------------------------------------------
    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(
        self,
        status: int,
        obj: Any,
        extra: dict[str, str] | None = None,
        content_type: str | None = "application/json",
    ) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _error(
        self,
        status: int,
        message: str,
        extra: dict[str, str] | None = None,
        param: str | None = None,
    ) -> None:
        err = {
            "message": message,
            "type": "invalid_request_error" if status < 500 else "server_error",
            "param": param,
            "code": None,
        }
        self._send_json(status, {"error": err}, extra)

    def _record(self, body: Any) -> None:
        self.server.owner._record(
            RecordedRequest(
                self.command, self.path, body, {k.lower(): v for k, v in self.headers.items()}
            )
        )

    def _authorised(self) -> bool:
        key = self.server.owner.require_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._error(401, "invalid api key")
        return False

    # -- routes ---------------------------------------------------------------------------------
    def _outside_v1(self) -> bool:
        """With `only_v1`, a path not under /v1/ is 404, as on servers serving only /v1/…; with
        `only_root`, a path under /v1/ is (a server serving its API at the root)."""
        owner = self.server.owner
        if (owner.only_v1 and not self.path.startswith("/v1/")) or (
            owner.only_root and self.path.startswith("/v1/")
        ):
            self._error(404, f"no route {self.path}")
            return True
        return False

    def do_GET(self) -> None:
        self._record(None)
        if not self._authorised() or self._outside_v1():
            return
        if self.path.rstrip("/").endswith("/models") and self.server.owner.list_models:
            owner = self.server.owner
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "loopback"}
                for m in owner.models
            ]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        body = self._read_body()
        self._record(body)
        if not self._authorised() or self._outside_v1():
            return
        if not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            self._error(404 if isinstance(body, dict) else 400, f"cannot serve {self.path}")
            return
        owner = self.server.owner
        fmt = (body.get("response_format") or {}).get("type")
        if owner.reject_response_format and "response_format" in body:
            self._error(400, "unknown parameter: response_format", param="response_format")
            return
        if owner.reject_json_schema and fmt == "json_schema":
            self._error(
                400,
                "response_format json_schema is not supported by this server",
                param="response_format",
            )
            return
        if owner.reject_max_tokens and "max_tokens" in body:
            self._error(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                param="max_tokens",
            )
            return
        if owner.reject_stream_options and "stream_options" in body:
            self._error(400, "unknown parameter: stream_options", param="stream_options")
            return
        reply = owner._next_reply(body)
        if owner.latency:
            owner._stopping.wait(owner.latency)
        if reply.delay and reply.kind not in ("hang", "truncated"):
            owner._stopping.wait(reply.delay)
        self._serve(reply, body)

    def _serve(self, reply: Reply, body: dict) -> None:
        if reply.kind == "status":
            extra = {"Retry-After": reply.retry_after} if reply.retry_after is not None else None
            self._error(reply.status, reply.message, extra)
        elif reply.kind == "hang":
            self.server.owner._stopping.wait(reply.delay)
            self.close_connection = True
        elif reply.kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
        elif reply.kind == "malformed" and body.get("stream"):
            self._stream(reply, body)
        elif reply.kind == "malformed":
            self.send_response(200)
            if self.server.owner.completion_content_type is not None:
                self.send_header("Content-Type", self.server.owner.completion_content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
        elif body.get("stream") or self.server.owner.always_stream:
            self._stream(reply, body)
        else:
            self._complete(reply, body)

    def _usage(self, reply: Reply, body: dict, content: str) -> dict[str, int]:
        if reply.usage is not None:
            tin, tout = reply.usage
        else:
            tin, tout = _tokens(json.dumps(body.get("messages", ""))), _tokens(content)
        return {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}

    def _complete(self, reply: Reply, body: dict) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
        if reply.content_parts is not None:
            message["content"] = [{"type": "text", "text": t} for t in reply.content_parts]
        finish = "stop"
        if reply.kind == "refusal":
            message.update(content=None, refusal=reply.content)
        elif reply.kind == "length":
            finish = "length"
        obj = {
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": 0,
            "model": self.server.owner.served or body.get("model", "loopback"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
            ],
            "usage": self._usage(reply, body, reply.content),
        }
        if reply.kind == "truncated":
            data = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self._send_json(200, obj, content_type=self.server.owner.completion_content_type)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _event(self, obj: Any) -> None:
        self._chunk(
            b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"
        )

    def _stream(self, reply: Reply, body: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        base = {
            "id": "chatcmpl-loopback",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.server.owner.served or body.get("model", "loopback"),
        }

        def chunk(delta: dict, finish: str | None = None) -> dict:
            return {
                **base,
                "choices": [
                    {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
                ],
            }

        self._event(chunk({"role": "assistant", "content": ""}))
        if reply.kind == "malformed":
            self._chunk(b"data: " + reply.body + b"\n\n")
            self._chunk(b"")
            return
        if reply.kind == "refusal":
            self._event(chunk({"refusal": reply.content}))
            self._event(chunk({}, "stop"))
        else:
            pieces = _split(reply.content, reply.chunks)
            if reply.kind == "truncated":
                for piece in pieces[: reply.keep]:
                    self._event(chunk({"content": piece}))
                if reply.clean:
                    self._chunk(b"")
                    return
                if reply.delay:
                    self.server.owner._stopping.wait(reply.delay)
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            for piece in pieces:
                self._event(chunk({"content": piece}))
            self._event(chunk({}, "length" if reply.kind == "length" else "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._event({**base, "choices": [], "usage": self._usage(reply, body, reply.content)})
        self._event(b"[DONE]")
        self._chunk(b"")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None  # faults are deliberate; nothing to print


class ModelServer:
    """A scripted OpenAI-compatible endpoint on 127.0.0.1, served from a background thread."""

    def __init__(
        self,
        *,
        models: Iterable[str] = ("loopback-model",),
        latency: float = 0.0,
        reject_json_schema: bool = False,
        reject_response_format: bool = False,
        reject_stream_options: bool = False,
        reject_max_tokens: bool = False,
        list_models: bool = True,
        require_key: str | None = None,
        default: ScriptItem | None = None,
        completion_content_type: str | None = "application/json",
        only_v1: bool = False,
        only_root: bool = False,
        served: str | None = None,
        always_stream: bool = False,
    ) -> None:
        self.models = list(models)
        self.latency = latency
        self.reject_json_schema = reject_json_schema
        self.reject_response_format = reject_response_format  # any kind, json_object too
        self.reject_stream_options = reject_stream_options
        self.reject_max_tokens = reject_max_tokens
        self.list_models = list_models  # False: GET /models is 404, as on some proxies
        self.only_v1 = only_v1  # True: only paths under /v1/ are served (`root_url` 404s)
        self.only_root = only_root  # True: no path under /v1/ is served (`base_url` 404s)
        self.served = served  # the model every answer says served it (None: the one asked for)
        self.always_stream = always_stream  # True: answers stream even when not asked to
        self.require_key = require_key
        self.default = default
        # the Content-Type of a non-streamed completion; None: the header is left out
        self.completion_content_type = completion_content_type
        self._script: deque[ScriptItem] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle --------------------------------------------------------------------------------
    def start(self) -> ModelServer:
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="loopback-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def root_url(self) -> str:
        """The server without the /v1 most OpenAI-compatible servers put their API under."""
        return f"http://127.0.0.1:{self.port}"

    # scripting --------------------------------------------------------------------------------
    def script(self, items: Iterable[ScriptItem]) -> ModelServer:
        with self._lock:
            self._script.extend(items)
        return self

    def always(self, item: ScriptItem) -> ModelServer:
        """Answer every request (once the script is used up) with `item`."""
        self.default = item
        return self

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def _next_reply(self, body: dict) -> Reply:
        with self._lock:
            item = self._script.popleft() if self._script else self.default
        if item is None:
            return Reply.error(500, "loopback server: script exhausted")
        return _as_reply(item, body)

    # what the server saw ------------------------------------------------------------------------
    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()
            self._script.clear()


__all__ = ["ModelServer", "RecordedRequest", "Reply"]
