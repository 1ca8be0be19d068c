"""Issue 14, breaks 7 and 12: the Scout follows no redirect to a loopback, link-local or private
address other than the lesson's own link's host and port, and its text output carries no
escapes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import write_tiny_curriculum

from tutor.scout.fetch import FetchLimits, address_kind, fetch, make_client
from tutor.testing.page_server import Page, PageServer

FAST = FetchLimits(connect_timeout=1.0, read_timeout=1.0, deadline=5.0, max_redirects=5)


@pytest.fixture
def srv():
    with PageServer() as server:
        yield server


async def test_redirects_to_non_public_addresses_are_refused_before_connecting(srv):
    port = srv.url("/").rsplit(":", 1)[1].split("/")[0]
    srv.route("/page", Page.html("<p>served on loopback, reached by name</p>"))
    targets = {
        "/meta": "http://169.254.169.254/latest/meta-data/",
        "/by-name": f"http://localhost:{port}/page",
        "/v6": f"http://[::1]:{port}/page",
        "/private": "http://10.0.0.7/admin",
        "/mapped": "http://[::ffff:127.0.0.1]/",
    }
    for path, target in targets.items():
        srv.route(path, Page.redirect(target))
    srv.route("/same-host", Page.redirect("/page"))
    with PageServer() as other:  # the same loopback host, another port: another service
        other.route("/admin", Page.html("<p>another service</p>"))
        srv.route("/other-port", Page.redirect(other.url("/admin")))
        async with make_client(FAST) as client:
            moved = await fetch(client, srv.url("/other-port"), FAST)
        assert not moved.ok and "address; not followed" in moved.reason, moved
        assert "/admin" not in other.requests
    async with make_client(FAST) as client:
        for path in targets:
            result = await fetch(client, srv.url(path), FAST)
            assert not result.ok, (path, result)
            assert "address; not followed" in result.reason, result.reason
        same = await fetch(client, srv.url("/same-host"), FAST)  # the lesson's own host: allowed
    assert same.ok and "reached by name" in same.text
    assert "/page" in srv.requests and srv.requests.count("/page") == 1


def test_address_kinds():
    assert address_kind("169.254.169.254") == "link-local"
    assert address_kind("127.0.0.1") == "loopback"
    assert address_kind("::1") == "loopback"
    assert address_kind("192.168.1.4") == "private"
    assert address_kind("::ffff:10.1.2.3") == "private"
    assert address_kind("93.184.216.34") is None
    assert address_kind("example.org") is None


def test_scout_text_output_strips_escapes_from_the_lesson(tmp_path):
    root = write_tiny_curriculum(
        tmp_path / "course", [("Ref \x1b]0;owned\x07", "https://x.invalid/")]
    )
    doc = root / "phases" / "01-basics" / "02-averages" / "docs" / "en.md"
    doc.write_text(
        doc.read_text().replace("# Averages and Spread", "# Averages \x1b[2J\u202eand Spread")
    )
    env = {**os.environ, "TUTOR_HOME": str(tmp_path / "home")}
    env.pop("OPENAI_API_KEY", None)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tutor.cli",
            "scout",
            "P1 L02",
            "--curriculum",
            str(root),
            "--offline",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "Averages" in result.stdout
    for mark in ("\x1b", "\u202e", "\x07"):
        assert mark not in result.stdout and mark not in result.stderr
