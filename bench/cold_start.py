"""Cold start: `tutor continue` time to first paint and peak memory, each beside a bare Textual
app (one Static) measured in the same run.

Each run is a fresh interpreter on its own pseudo-terminal (so `tutor continue` opens the app as
it does for a learner). First paint is timed from just before the process is spawned to the
moment the bytes that draw the first screen reach the terminal (the read from the pty master
that completes a text the screen shows: "Continue the lesson" on home, the bare app's one line);
the app's Ready event (posted once the first paint is handed to Textual's writer thread) is
printed beside it. Peak memory is the child's VmHWM read from /proc when those bytes arrive;
the app runs on as for a learner (its own Ready handler, the home screen's worker) until then
and its report is written, and is then killed.
A fresh learner gets a new, empty TUTOR_HOME each run; a returning learner the same home each
run, with its store created by the warm-up. No model settings; the built-in course.

Bytecode: every run, of both apps, reads compiled modules from one private PYTHONPYCACHEPREFIX,
filled by an untimed warm-up run of each app (as any start after the first finds it; pip also
compiles at install), and writes none (PYTHONDONTWRITEBYTECODE is set for the timed runs).
`--no-bytecode` times both apps compiling every module they import from source instead.
Runs of the two apps are interleaved; medians are reported. Also reports whether openai, httpx2,
trafilatura were imported by first paint.

Targets: first paint and peak memory each <= 1.3x the bare app, fresh and returning.
Usage: python bench/cold_start.py [--runs N] [--size COLSxROWS] [--no-bytecode]
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

from tutor.testing.first_paint import HEAVY_MODULES, MARKERS, first_paint  # noqa: E402

TARGET = 1.3
# where compiled modules are read from (and, in the warm-up, written to)
PYCACHE: dict[str, str | None] = {"prefix": None, "write": "no"}


def child_env(home: str) -> dict[str, str]:
    """This environment without model settings, Textual switches or bytecode settings, TUTOR_HOME
    at `home`, and the bench's bytecode condition."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TUTOR_", "OPENAI_", "TEXTUAL", "PYTHONDONTWRITEBYTECODE"))
        and k != "PYTHONPYCACHEPREFIX"
    }
    env.update(TUTOR_HOME=home, TERM=env.get("TERM", "xterm-256color") or "xterm-256color")
    if PYCACHE["prefix"]:
        env["PYTHONPYCACHEPREFIX"] = PYCACHE["prefix"]
    if PYCACHE["write"] != "yes":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def one(kind: str, size: tuple[int, int], home: str | None = None) -> dict[str, Any]:
    """One run; `home` keeps a store between runs (a returning learner), else a fresh one."""
    with tempfile.TemporaryDirectory(prefix="tutor-cold-") as fresh:
        report = first_paint(
            kind,
            ["continue"] if kind == "tutor" else [],
            child_env(home or fresh),
            size=size,
            marker=MARKERS[kind],
        )
    want = "HomeScreen" if kind == "tutor" else "Screen"
    if report.get("screen") != want:
        shown = {k: v for k, v in report.items() if k != "output"}
        sys.exit(
            f"cold_start: the {kind} app did not paint its first screen ({shown}); "
            f"its terminal ended with:\n{report['output'][-1500:]}"
        )
    if report["bytes_s"] is None:
        sys.exit(f"cold_start: the {kind} app's first screen never showed {MARKERS[kind]!r}")
    return report


def seed_returning_learner(home: Path) -> None:
    """A learner who has been here: a store with a paused lesson, concepts and answers."""
    from datetime import timedelta

    from learning_system import ledger
    from learning_system.ledger import Attempt, Concept, Mistake
    from learning_system.store import Store, utcnow
    from tutor.config import builtin_course_path

    now = utcnow()
    with Store(home / "tutor.db") as store:
        for n in range(40):
            when = now - timedelta(days=n % 20, hours=n)
            ledger.upsert_concept(store, Concept(id=f"c{n}", name=f"concept {n}"), when=when)
            ledger.record_attempt(
                store,
                Attempt(
                    id=f"a{n}",
                    kind="quiz",
                    concept_id=f"c{n}",
                    outcome="correct" if n % 3 else "wrong",
                    confidence="sure",
                    created_at=when,
                ),
            )
            if n % 3 == 0:
                ledger.record_mistake(
                    store, Mistake(id=f"m{n}", attempt_id=f"a{n}", concept_id=f"c{n}"), when=when
                )
        store.sessions.save("s1", "P1 L02", str(builtin_course_path()), "paused", "probe", {})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each app")
    parser.add_argument("--size", default="80x24", help="terminal size, COLSxROWS")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="no compiled modules: both apps compile what they import, every run",
    )
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    size = (cols, rows)
    began = time.monotonic()
    returning = tempfile.mkdtemp(prefix="tutor-cold-home-")
    seed_returning_learner(Path(returning))
    pycache = tempfile.TemporaryDirectory(prefix="tutor-cold-pycache-")
    PYCACHE["prefix"] = pycache.name  # with --no-bytecode it stays empty: nothing to read
    PYCACHE["write"] = "no" if args.no_bytecode else "yes"
    one("bare", size)  # warm-up: bytecode (unless --no-bytecode), page cache
    one("tutor", size, returning)
    one("tutor", size)
    PYCACHE["write"] = "no"
    runs: dict[str, list[dict[str, Any]]] = {"bare": [], "tutor": [], "returning": []}
    for _ in range(args.runs):
        runs["bare"].append(one("bare", size))
        runs["tutor"].append(one("tutor", size))
        runs["returning"].append(one("tutor", size, returning))

    def median(kind: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[kind])

    paint = {k: median(k, "bytes_s") * 1000 for k in runs}
    ready = {k: median(k, "paint_s") * 1000 for k in runs}
    rss = {k: median(k, "bytes_hwm_kb") / 1024 for k in runs}
    cache = (
        "none (every module compiled from source)"
        if args.no_bytecode
        else "warm (compiled modules from a private prefix, written by an untimed warm-up)"
    )
    print(
        f"cold start to first paint: `tutor continue` on the built-in course vs a bare Textual "
        f"app, {args.runs} interleaved runs each on a {cols}x{rows} pty, medians; bytecode "
        f"cache: {cache}"
    )
    print(f"{'':30}{'bare':>8}{'fresh':>8}{'ratio':>7}{'return':>8}{'ratio':>7}  target")

    def row(label: str, values: dict[str, float], fmt: str, target: bool) -> None:
        a, b = values["tutor"] / values["bare"], values["returning"] / values["bare"]
        verdict = ""
        if target:
            verdict = f"  <= {TARGET}x {'met' if max(a, b) <= TARGET else 'NOT met'}"
        print(
            f"{label:30}{values['bare']:8{fmt}}{values['tutor']:8{fmt}}{a:6.2f}x"
            f"{values['returning']:8{fmt}}{b:6.2f}x{verdict}"
        )

    row("first paint at terminal (ms)", paint, ".0f", True)
    row("peak RSS at first paint (MiB)", rss, ".1f", True)
    row("  Ready event (ms)", ready, ".0f", False)
    spread = ", ".join(
        f"{k} {min(r['bytes_s'] for r in v) * 1000:.0f}..{max(r['bytes_s'] for r in v) * 1000:.0f}"
        for k, v in runs.items()
    )
    print(f"  first paint min..max (ms): {spread}")
    print(
        f"  modules loaded: bare {median('bare', 'modules'):.0f}, fresh "
        f"{median('tutor', 'modules'):.0f}, returning {median('returning', 'modules'):.0f}"
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
