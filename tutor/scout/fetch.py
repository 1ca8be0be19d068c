"""Fetching a source: an http(s) page, live every time (nothing is cached), or a local file.

Every fetch is bounded: connect and read timeouts, a total deadline, a byte cap (the body is
streamed and reading stops at the cap), a redirect limit (followed one hop at a time so loops
are caught), and a content-type allowlist. A fetch never raises: whatever goes wrong comes back
as a `FetchResult` with `ok=False` and a one-line reason.
"""

from __future__ import annotations

import asyncio
import codecs
import ipaddress
import socket
from collections.abc import Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from tutor.scout.normalise import HTML_TYPES, TEXT_TYPES

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import httpx2

ALLOWED_TYPES: tuple[str, ...] = (*HTML_TYPES, *TEXT_TYPES)
USER_AGENT = "tutor-scout/0.1 (reads the references of one lesson)"
_REDIRECT_CODES = {301, 302, 303, 307, 308}
_LOCAL_SUFFIXES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "application/xhtml+xml",
}


class FetchLimits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    connect_timeout: float = Field(default=5.0, gt=0)
    read_timeout: float = Field(default=10.0, gt=0)
    deadline: float = Field(default=20.0, gt=0, description="seconds for a whole fetch")
    max_bytes: int = Field(default=2_000_000, gt=0)
    max_redirects: int = Field(default=5, ge=0)
    concurrency: int = Field(default=4, ge=1)


class FetchResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str
    ok: bool
    text: str | None = None  # the decoded body (not yet normalised)
    content_type: str | None = None  # media type without parameters
    final_url: str | None = None
    reason: str | None = None


def _failed(url: str, reason: str) -> FetchResult:
    return FetchResult(url=url, ok=False, reason=reason)


def _megabytes(n: int) -> str:
    return f"{n / 1_000_000:g} MB"


def is_remote(source: str) -> bool:
    return source.lower().startswith(("http://", "https://"))


def local_path(source: str) -> Path:
    if source.lower().startswith("file:"):
        parts = urlsplit(source)
        return Path(unquote(parts.path))
    return Path(source).expanduser()


def read_local(source: str, limits: FetchLimits | None = None) -> FetchResult:
    """A local file (a path or a `file:` URL), read under the same byte cap and type rules."""
    limits = limits or FetchLimits()
    path = local_path(source)
    content_type = _LOCAL_SUFFIXES.get(path.suffix.lower(), "text/plain")
    try:
        with path.open("rb") as handle:
            data = handle.read(limits.max_bytes + 1)
    except OSError as exc:
        return _failed(source, f"cannot read {path}: {exc.strerror or exc}")
    if len(data) > limits.max_bytes:
        return _failed(source, f"larger than the {_megabytes(limits.max_bytes)} cap")
    if b"\x00" in data[:8192]:
        return _failed(source, "binary file, not text")
    return FetchResult(
        url=source,
        ok=True,
        text=_decode(data, None, content_type),
        content_type=content_type,
        final_url=str(path),
    )


def make_client(limits: FetchLimits | None = None) -> httpx2.AsyncClient:
    import httpx2

    limits = limits or FetchLimits()
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(limits.read_timeout, connect=limits.connect_timeout),
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT, "Accept": ", ".join(ALLOWED_TYPES) + ";q=0.9"},
        limits=httpx2.Limits(max_connections=limits.concurrency * 2),
    )


@asynccontextmanager
async def client_for(
    client: httpx2.AsyncClient | None, limits: FetchLimits
) -> AsyncIterator[httpx2.AsyncClient]:
    """The caller's client as is, or a new one closed afterwards."""
    if client is not None:
        yield client
        return
    async with make_client(limits) as own:
        yield own


async def fetch(
    client: httpx2.AsyncClient, source: str, limits: FetchLimits | None = None
) -> FetchResult:
    """One source, live. Never raises (cancellation aside)."""
    limits = limits or FetchLimits()
    if not is_remote(source):
        if source.lower().startswith("file:") or "://" not in source:
            return read_local(source, limits)
        return _failed(source, f"unsupported scheme in {source.split('://', 1)[0]}://")
    try:
        async with asyncio.timeout(limits.deadline):
            return await _fetch_remote(client, source, limits)
    except TimeoutError:
        return _failed(source, f"no complete answer within the {limits.deadline:g} s deadline")
    except Exception as exc:  # a fetch reports what went wrong; it never crashes the Scout
        return _failed(source, _describe(exc))


async def _fetch_remote(
    client: httpx2.AsyncClient, source: str, limits: FetchLimits
) -> FetchResult:
    import httpx2

    url = httpx2.URL(source)
    own = _origin(url)
    seen: set[str] = set()
    for _hop in range(limits.max_redirects + 1):
        seen.add(str(url))
        if _origin(url) != own:  # the lesson's own link (host and port) may name any address
            refused = await non_public_address(url.host, url.port or 0)
            if refused:
                return _failed(
                    source, f"redirected to {url.host}, a {refused} address; not followed"
                )
        request = client.build_request("GET", url)
        response = await client.send(request, stream=True, follow_redirects=False)
        try:
            if response.status_code in _REDIRECT_CODES and "location" in response.headers:
                target = url.join(response.headers["location"])
                if target.scheme not in ("http", "https"):
                    return _failed(source, f"redirected to an unsupported scheme ({target.scheme})")
                if str(target) in seen:
                    return _failed(source, f"redirect loop at {target}")
                url = target
                continue
            return await _read_response(source, response, limits)
        finally:
            await response.aclose()
    return _failed(source, f"more than {limits.max_redirects} redirects")


def address_kind(address: str) -> str | None:
    """Why an IP address is not a public one (loopback, link-local, private, ...), or None."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind, flag in (
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("unspecified", ip.is_unspecified),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
        ("non-public", not ip.is_global),
    ):
        if flag:
            return kind
    return None


def _origin(url: httpx2.URL) -> tuple[str, int]:
    """Host and port (the scheme's default when none is written): another port on the same
    host is another service."""
    return url.host.lower(), url.port or (443 if url.scheme == "https" else 80)


async def non_public_address(host: str, port: int) -> str | None:
    """The kind of the first non-public address `host` resolves to, else None. A name that does
    not resolve is left to the fetch itself to report."""
    kind = address_kind(host.strip("[]"))
    if kind or _is_ip(host.strip("[]")):
        return kind
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port or None, type=socket.SOCK_STREAM
        )
    except OSError:
        return None
    for info in infos:
        kind = address_kind(str(info[4][0]))
        if kind:
            return kind
    return None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    return True


async def _read_response(source: str, response: Any, limits: FetchLimits) -> FetchResult:
    if not 200 <= response.status_code < 300:
        from learning_system.terminal import strip_terminal

        phrase = " ".join(strip_terminal(response.reason_phrase or "").split())[:80]
        phrase = f" {phrase}" if phrase else ""
        return _failed(source, f"HTTP {response.status_code}{phrase}")
    media_type, charset = _content_type(response.headers.get("content-type", ""))
    if media_type not in ALLOWED_TYPES:
        return _failed(source, f"content type {media_type or '(none)'} is not text or HTML")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_bytes:
        return _failed(
            source,
            f"larger than the {_megabytes(limits.max_bytes)} cap "
            f"(Content-Length {int(declared)}); not read",
        )
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > limits.max_bytes:
            return _failed(
                source, f"larger than the {_megabytes(limits.max_bytes)} cap; stopped reading"
            )
    return FetchResult(
        url=source,
        ok=True,
        text=_decode(bytes(body), charset, media_type),
        content_type=media_type,
        final_url=str(response.url),
    )


def _content_type(header: str) -> tuple[str, str | None]:
    media_type, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    return media_type.strip().lower(), charset


def _decode(data: bytes, charset: str | None, media_type: str) -> str:
    if charset:
        try:
            codecs.lookup(charset)
            return data.decode(charset, errors="replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if media_type in HTML_TYPES:
            from trafilatura.utils import decode_file

            return decode_file(data)
        return data.decode("utf-8", errors="replace")


def _describe(exc: Exception) -> str:
    import httpx2

    kinds = (
        (httpx2.ConnectTimeout, "connection timed out"),
        (httpx2.ReadTimeout, "the server stopped sending (read timeout)"),
        (httpx2.TimeoutException, "timed out"),
        (httpx2.ConnectError, "cannot connect"),
        (httpx2.TooManyRedirects, "too many redirects"),
        (httpx2.UnsupportedProtocol, "unsupported URL"),
        (httpx2.InvalidURL, "invalid URL"),
        (httpx2.RemoteProtocolError, "the server broke the HTTP protocol"),
        (httpx2.DecodingError, "the body could not be decoded"),
        (httpx2.HTTPError, "network error"),
    )
    for kind, text in kinds:
        if isinstance(exc, kind):
            detail = str(exc).splitlines()[0] if str(exc) else ""
            plain = _connect_words(exc) if kind is httpx2.ConnectError else None
            if plain:
                return f"{text}: {plain}"
            return f"{text} ({detail[:160]})" if detail else text
    return f"{type(exc).__name__}: {str(exc)[:160]}"


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and those it was raised from, nearest first."""
    chain: list[BaseException] = []
    at: BaseException | None = exc
    while at is not None and at not in chain:
        chain.append(at)
        at = at.__cause__ or at.__context__
    return chain


NOT_FOUND = ("name or service not known", "name resolution", "nodename nor servname")


def _connect_words(exc: BaseException) -> str | None:
    """What a failed connection means to a learner, when the system's error says (the errno
    text is kept for the rest)."""
    import socket

    for e in _causes(exc):
        said = str(e).lower()
        if isinstance(e, socket.gaierror) or any(cue in said for cue in NOT_FOUND):
            return "the host name was not found (offline, or a wrong address)"
        if isinstance(e, ConnectionRefusedError) or "connection refused" in said:
            return "nothing answers at that address (connection refused)"
        if "network is unreachable" in said:
            return "no network route to it (offline?)"
    return None


async def fetch_all(
    sources: Sequence[str],
    *,
    limits: FetchLimits | None = None,
    client: httpx2.AsyncClient | None = None,
    on_start: Callable[[str], None] | None = None,
    on_done: Callable[[FetchResult], None] | None = None,
) -> list[FetchResult]:
    """Fetch `sources` with at most `limits.concurrency` at once; results in the given order.
    `on_start`/`on_done` are called as each fetch begins and ends (for progress)."""
    limits = limits or FetchLimits()
    gate = asyncio.Semaphore(limits.concurrency)

    async def one(http: httpx2.AsyncClient, source: str) -> FetchResult:
        async with gate:
            if on_start:
                on_start(source)
            result = await fetch(http, source, limits)
            if on_done:
                on_done(result)
            return result

    if not sources:
        return []
    async with client_for(client, limits) as http:
        return list(await asyncio.gather(*(one(http, source) for source in sources)))
