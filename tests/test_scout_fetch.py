"""Fetching against a real loopback server, hostile pages included: every fetch ends within its
cap with a reason, and none raises."""

from __future__ import annotations

import pytest

from tutor.scout.fetch import FetchLimits, fetch, fetch_all, make_client, read_local
from tutor.testing.page_server import Page, PageServer

FAST = FetchLimits(
    connect_timeout=1.0,
    read_timeout=1.0,
    deadline=1.0,
    max_bytes=2_000_000,
    max_redirects=5,
    concurrency=4,
)
ARTICLE = (
    "<html><body><nav><a href='/'>Home</a></nav><article><p>Momentum keeps a running "
    "velocity of past gradients, so steps along a consistent direction grow.</p>"
    "</article></body></html>"
)


@pytest.fixture
def srv():
    with PageServer() as server:
        yield server


async def fetch_one(srv: PageServer, path: str, limits: FetchLimits = FAST):
    async with make_client(limits) as client:
        return await fetch(client, srv.url(path), limits)


async def test_an_html_page_is_read_with_its_type(srv):
    srv.route("/a", Page.html(ARTICLE))
    result = await fetch_one(srv, "/a")
    assert result.ok and result.reason is None
    assert result.content_type == "text/html" and "running velocity" in result.text


async def test_markdown_and_plain_text_are_read_in_their_declared_charset(srv):
    srv.route("/m", Page.text("# Notes\n\nplain words", "text/markdown; charset=utf-8"))
    srv.route("/t", Page.raw("caf\xe9".encode("latin-1"), "text/plain; charset=latin-1"))
    md, txt = await fetch_one(srv, "/m"), await fetch_one(srv, "/t")
    assert md.ok and md.content_type == "text/markdown" and "plain words" in md.text
    assert txt.ok and txt.text == "caf\xe9"


async def test_a_50_mb_chunked_body_is_cut_off_at_the_cap(srv):
    srv.route("/big", Page.huge(50_000_000))
    result = await fetch_one(srv, "/big")
    assert not result.ok and "cap" in result.reason and "stopped reading" in result.reason
    assert srv.bytes_sent < 20_000_000  # the client hung up long before the end


async def test_a_declared_50_mb_body_is_refused_before_reading(srv):
    srv.route("/big", Page.huge(50_000_000, declare_length=True))
    result = await fetch_one(srv, "/big")
    assert not result.ok and "Content-Length 50000000" in result.reason
    assert srv.bytes_sent < 20_000_000


async def test_a_binary_file_is_refused_by_content_type(srv):
    srv.route("/model.bin", Page.raw(bytes(range(256)) * 64))
    srv.route("/untyped", Page.raw(b"words", content_type=None))
    binary, untyped = await fetch_one(srv, "/model.bin"), await fetch_one(srv, "/untyped")
    assert not binary.ok and "application/octet-stream" in binary.reason
    assert not untyped.ok and "(none)" in untyped.reason


async def test_a_slow_drip_is_stopped_by_the_deadline(srv):
    srv.route("/drip", Page.drip(interval=0.05, count=10_000))
    result = await fetch_one(srv, "/drip")
    assert not result.ok and "deadline" in result.reason


async def test_a_redirect_loop_and_a_long_chain_are_capped(srv):
    srv.route("/loop", Page.redirect("/loop-back"))
    srv.route("/loop-back", Page.redirect("/loop"))
    for i in range(8):
        srv.route(f"/hop{i}", Page.redirect(f"/hop{i + 1}", status=301))
    srv.route("/hop8", Page.html(ARTICLE))
    loop, chain = await fetch_one(srv, "/loop"), await fetch_one(srv, "/hop0")
    assert not loop.ok and "redirect loop" in loop.reason
    assert not chain.ok and "more than 5 redirects" in chain.reason
    assert srv.requests.count("/loop") == 1 and "/hop6" not in srv.requests


async def test_a_short_redirect_chain_is_followed(srv):
    srv.route("/old", Page.redirect("/new", status=308))
    srv.route("/new", Page.html(ARTICLE))
    result = await fetch_one(srv, "/old")
    assert result.ok and result.final_url == srv.url("/new")


async def test_errors_and_bad_addresses_are_reported(srv):
    srv.route("/gone", Page.error(404))
    srv.route("/to-ftp", Page.redirect("ftp://example.invalid/file"))
    gone, ftp = await fetch_one(srv, "/gone"), await fetch_one(srv, "/to-ftp")
    assert not gone.ok and gone.reason == "HTTP 404 Not Found"
    assert not ftp.ok and "unsupported scheme" in ftp.reason
    async with make_client(FAST) as client:
        closed = await fetch(client, "http://127.0.0.1:9/nothing-listens", FAST)
        other = await fetch(client, "gopher://example.invalid/", FAST)
    assert not closed.ok and closed.reason == (
        "cannot connect: nothing answers at that address (connection refused)"
    )
    assert not other.ok and "unsupported scheme" in other.reason


def test_a_host_that_is_not_found_is_said_in_words_not_an_errno():
    import httpx2

    from tutor.scout.fetch import _describe

    said = _describe(httpx2.ConnectError("[Errno -2] Name or service not known"))
    assert said == "cannot connect: the host name was not found (offline, or a wrong address)"
    other = _describe(httpx2.ConnectError("[Errno 113] No route to host"))
    assert other == "cannot connect ([Errno 113] No route to host)"  # the rest keep their text


async def test_fetch_all_keeps_order_reports_progress_and_never_raises(srv):
    srv.route("/a", Page.html(ARTICLE))
    srv.route("/drip", Page.drip(interval=0.05, count=10_000))
    srv.route("/bin", Page.raw(b"\x00\x01"))
    urls = [srv.url("/drip"), srv.url("/a"), srv.url("/missing"), srv.url("/bin")]
    started: list[str] = []
    done: list[str] = []
    results = await fetch_all(
        urls, limits=FAST, on_start=started.append, on_done=lambda r: done.append(r.url)
    )
    assert [r.url for r in results] == urls
    assert [r.ok for r in results] == [False, True, False, False]
    assert sorted(started) == sorted(urls) == sorted(done)
    assert await fetch_all([], limits=FAST) == []


def test_local_files_are_read_under_the_same_rules(tmp_path):
    doc = tmp_path / "en.md"
    doc.write_text("# Lesson\n\nSome text.", encoding="utf-8")
    blob = tmp_path / "data.md"
    blob.write_bytes(b"\x00\x01\x02binary")
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * 2_000)
    assert read_local(str(doc)).ok and read_local(doc.as_uri()).text.startswith("# Lesson")
    assert read_local(str(doc)).content_type == "text/markdown"
    assert "binary" in read_local(str(blob)).reason
    assert "cap" in read_local(str(big), FetchLimits(max_bytes=1_000)).reason
    assert "cannot read" in read_local(str(tmp_path / "absent.md")).reason
