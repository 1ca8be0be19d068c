"""A loopback HTTP server serving scripted pages, for tests and benches of anything that fetches.

    with PageServer() as srv:
        srv.route("/a", Page.html("<p>…</p>"))
        srv.route("/big", Page.huge(50_000_000))
        srv.route("/loop", Page.redirect("/loop"))
        fetch(srv.url("/a"))
        srv.route("/a", Page.html("<p>changed</p>"))   # routes can change between requests

Pages: HTML or any text with a content type, raw bytes (a binary file), a status with no page,
a redirect, a body generated lazily in chunks (a huge page costs nothing until it is read, and
stops being generated when the client hangs up), and a slow drip (one chunk per interval).
Unknown paths answer 404. Every request path is logged in `srv.requests`, and the body bytes of
generated pages actually written in `srv.bytes_sent`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Page:
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    body: bytes = b""
    chunks: Callable[[], Iterator[bytes]] | None = None  # lazily generated body, chunked
    length: int | None = None  # Content-Length to declare for a chunked body (None: chunked)
    interval: float = 0.0  # pause before each chunk
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def html(cls, html: str, *, status: int = 200) -> Page:
        return cls(status=status, body=html.encode("utf-8"))

    @classmethod
    def text(cls, text: str, content_type: str = "text/plain; charset=utf-8") -> Page:
        return cls(content_type=content_type, body=text.encode("utf-8"))

    @classmethod
    def raw(cls, data: bytes, content_type: str | None = "application/octet-stream") -> Page:
        return cls(content_type=content_type, body=data)

    @classmethod
    def error(cls, status: int = 404, message: str = "not found") -> Page:
        return cls(
            status=status, content_type="text/plain; charset=utf-8", body=message.encode("utf-8")
        )

    @classmethod
    def redirect(cls, location: str, status: int = 302) -> Page:
        return cls(status=status, content_type=None, headers=(("Location", location),))

    @classmethod
    def huge(
        cls,
        size: int,
        *,
        content_type: str = "text/html; charset=utf-8",
        declare_length: bool = False,
        chunk: int = 64 * 1024,
    ) -> Page:
        """`size` bytes of HTML-ish filler, generated as the client reads."""
        block = (b"<p>" + b"filler text " * ((chunk - 7) // 12)).ljust(chunk - 4, b" ") + b"</p>"

        def generate() -> Iterator[bytes]:
            sent = 0
            while sent < size:
                part = block[: size - sent]
                sent += len(part)
                yield part

        return cls(
            content_type=content_type, chunks=generate, length=size if declare_length else None
        )

    @classmethod
    def drip(
        cls,
        text: str = "<p>slow</p>",
        *,
        interval: float = 0.2,
        count: int = 1000,
        content_type: str = "text/html; charset=utf-8",
    ) -> Page:
        """`count` one-character chunks of `text`, cycled, one per `interval` seconds."""
        data = text.encode("utf-8") or b" "

        def generate() -> Iterator[bytes]:
            for i in range(count):
                yield data[i % len(data) : i % len(data) + 1]

        return cls(content_type=content_type, chunks=generate, interval=interval)


Route = Page | Callable[[], Page]


class PageServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 (a free port) with scripted routes."""

    def __init__(self) -> None:
        self._routes: dict[str, Route] = {}
        self._lock = threading.Lock()
        self.requests: list[str] = []
        self.bytes_sent = 0  # body bytes written for generated (chunked or drip) pages
        self.stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        if isinstance(host, bytes):
            host = host.decode()
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base_url + (path if path.startswith("/") else f"/{path}")

    def route(self, path: str, page: Route) -> str:
        with self._lock:
            self._routes[path] = page
        return self.url(path)

    def count_sent(self, n: int) -> None:
        with self._lock:
            self.bytes_sent += n

    def page_for(self, path: str) -> Page:
        with self._lock:
            self.requests.append(path)
            route = self._routes.get(path)
        if route is None:
            return Page.error(404)
        return route() if callable(route) else route

    def start(self) -> PageServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> PageServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler_for(server: PageServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 — quiet
            return None

        def do_GET(self) -> None:  # noqa: N802 — the stdlib's name
            page = server.page_for(self.path.split("?", 1)[0])
            try:
                self._send(page)
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
                self.close_connection = True  # the client hung up; that is its right

        def _send(self, page: Page) -> None:
            self.send_response(page.status)
            if page.content_type:
                self.send_header("Content-Type", page.content_type)
            for name, value in page.headers:
                self.send_header(name, value)
            if page.chunks is None:
                self.send_header("Content-Length", str(len(page.body)))
                self.end_headers()
                self.wfile.write(page.body)
                return
            if page.length is not None:
                self.send_header("Content-Length", str(page.length))
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for chunk in page.chunks():
                if server.stopping.is_set():
                    return
                if page.interval:
                    time.sleep(page.interval)
                if page.length is not None:
                    self.wfile.write(chunk)
                else:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                server.count_sent(len(chunk))
            if page.length is None:
                self.wfile.write(b"0\r\n\r\n")

    return Handler
