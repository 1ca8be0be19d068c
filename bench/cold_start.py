"""Cold start: `tutor continue` time to first paint and peak memory, each beside a bare Textual
app (one Static) measured in the same run.

Each run is a fresh interpreter on its own pseudo-terminal (so `tutor continue` opens the app as
it does for a learner), timed from just before the process is spawned to the app's Ready event
(posted right after the first screen's first paint), and exiting there; peak memory is the
child's ru_maxrss (from wait4). Every tutor run gets a fresh TUTOR_HOME on the built-in course
and no model settings. Runs of the two apps are interleaved after one untimed warm-up of each;
medians are reported. Also reports whether openai, httpx2, trafilatura were imported by then.

Targets: first paint and peak memory each <= 1.3x the bare app.
Usage: python bench/cold_start.py [--runs N] [--size COLSxROWS]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tutor.testing.first_paint import HEAVY_MODULES, first_paint  # noqa: E402

TARGET = 1.3


def child_env(home: str) -> dict[str, str]:
    """This environment without model settings or Textual switches, TUTOR_HOME at `home`."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("TUTOR_", "OPENAI_", "TEXTUAL"))
    }
    env.update(TUTOR_HOME=home, TERM=env.get("TERM", "xterm-256color") or "xterm-256color")
    return env


def one(kind: str, size: tuple[int, int], home: str | None = None) -> dict[str, Any]:
    """One run; `home` keeps a store between runs (a returning learner), else a fresh one."""
    with tempfile.TemporaryDirectory(prefix="tutor-cold-") as fresh:
        report = first_paint(
            kind, ["continue"] if kind == "tutor" else [], child_env(home or fresh), size=size
        )
    want = "HomeScreen" if kind == "tutor" else "Screen"
    if report.get("screen") != want:
        shown = {k: v for k, v in report.items() if k != "output"}
        sys.exit(
            f"cold_start: the {kind} app did not paint its first screen ({shown}); "
            f"its terminal ended with:\n{report['output'][-1500:]}"
        )
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each app")
    parser.add_argument("--size", default="80x24", help="terminal size, COLSxROWS")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    size = (cols, rows)
    began = time.monotonic()
    returning = tempfile.mkdtemp(prefix="tutor-cold-home-")
    one("bare", size)  # warm-up: bytecode caches, page cache
    one("tutor", size, returning)  # and the returning learner's store is created
    runs: dict[str, list[dict[str, Any]]] = {"bare": [], "tutor": [], "returning": []}
    for _ in range(args.runs):
        runs["bare"].append(one("bare", size))
        runs["tutor"].append(one("tutor", size))
        runs["returning"].append(one("tutor", size, returning))

    def median(kind: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[kind])

    paint = {k: median(k, "paint_s") * 1000 for k in runs}
    rss = {k: median(k, "maxrss_kb") / 1024 for k in runs}
    paint_ratio = paint["tutor"] / paint["bare"]
    rss_ratio = rss["tutor"] / rss["bare"]
    again = paint["returning"] / paint["bare"]
    again_rss = rss["returning"] / rss["bare"]
    spread = {
        k: (min(r["paint_s"] for r in runs[k]) * 1000, max(r["paint_s"] for r in runs[k]) * 1000)
        for k in runs
    }
    print(
        f"cold start to first paint: `tutor continue` (fresh TUTOR_HOME, built-in course) vs a "
        f"bare Textual app, {args.runs} interleaved runs each on a {cols}x{rows} pty, medians"
    )
    print(f"{'':22}{'bare':>10}{'tutor':>10}{'ratio':>8}  target")
    print(
        f"{'first paint (ms)':22}{paint['bare']:10.0f}{paint['tutor']:10.0f}"
        f"{paint_ratio:7.2f}x  <= {TARGET}x {'met' if paint_ratio <= TARGET else 'NOT met'}"
    )
    print(
        f"{'peak RSS (MiB)':22}{rss['bare']:10.1f}{rss['tutor']:10.1f}"
        f"{rss_ratio:7.2f}x  <= {TARGET}x {'met' if rss_ratio <= TARGET else 'NOT met'}"
    )
    print(
        f"{'returning learner':22}{'':10}{paint['returning']:10.0f}{again:7.2f}x  "
        f"(store already there; peak RSS {rss['returning']:.1f} MiB, {again_rss:.2f}x)"
    )
    print(
        f"{'  paint min..max (ms)':22}{spread['bare'][0]:5.0f}..{spread['bare'][1]:<4.0f}"
        f"{spread['tutor'][0]:5.0f}..{spread['tutor'][1]:<4.0f}"
    )
    print(
        f"{'  modules loaded':22}{median('bare', 'modules'):10.0f}"
        f"{median('tutor', 'modules'):10.0f}"
    )
    heavy = {m: sum(m in r["heavy"] for r in runs["tutor"]) for m in HEAVY_MODULES}
    print(
        "imported at first paint: "
        + ", ".join(
            f"{m} {'yes (' + str(n) + '/' + str(args.runs) + ' runs)' if n else 'no'}"
            for m, n in heavy.items()
        )
    )
    print(f"({time.monotonic() - began:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
