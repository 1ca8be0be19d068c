"""The first screen paints from the store before any model client or fetcher is imported:
`tutor continue` in a fresh interpreter on a terminal, stopped at its first paint."""

from __future__ import annotations

import os
import sys

import pytest

from tutor.testing.first_paint import HEAVY_MODULES, first_paint

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="drives the app on a Linux pseudo-terminal"
)


def test_home_paints_before_openai_httpx2_or_trafilatura_is_imported(tmp_path):
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("TUTOR_", "OPENAI_", "TEXTUAL"))
    }
    env.update(TUTOR_HOME=str(tmp_path / "home"), TERM="xterm-256color")
    report = first_paint("tutor", ["continue"], env, timeout=30)
    assert report.get("screen") == "HomeScreen", report["output"][-1500:]
    assert report["rc"] == 0
    assert set(report["heavy"]) & set(HEAVY_MODULES) == set(), (
        f"imported before the first paint: {report['heavy']}"
    )
