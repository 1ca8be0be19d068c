"""UI stall: the longest event-loop stall while a lesson step waits on a slow model, beside the same
loop measured with the app idle in the same run.

The app runs headless under Textual's Pilot (`run_test`) on a fresh TUTOR_HOME and the built-in
course, with a model configured: the project's loopback OpenAI-compatible server
(tutor.testing.model_server) drafting and verifying well, each completion held `--latency`
seconds. A task on the app's own event loop sleeps 5 ms at a time and records how late each wake
is (the stall). The learner waits `--idle` seconds on home (idle baseline), presses enter (the
lesson opens in a worker: model health check, openai import), enter past the sources, and enter
on the prior at once: the probe's first question, prepared in the background from the prior on,
is still with the model, so that step waits on the model (rewrites, audits) in a worker until
the probe appears.

Target: max stall < 50 ms while the step waits on the model.
Each run is a fresh process (the SDK is imported on the first model call, as for a learner);
the samples of all runs are pooled.
Usage: python bench/ui_stall.py [--latency S] [--idle S] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tutor.llm.skills import load_skill  # noqa: E402
from tutor.testing.model_server import ModelServer, Reply  # noqa: E402

TARGET_MS = 50.0
TICK = 0.005
GATES = ("GATE:fact_check", "GATE:quiz_audit", "GATE:grade_audit")


def model_reply(body: dict) -> Reply:
    """A well-behaved model: drafts that hold their claims, PASS verdicts, fair grades."""
    system = body["messages"][0]["content"]
    payload = json.loads(body["messages"][1]["content"])
    data = payload.get("data", {})
    if system == load_skill("GATE:fact_check"):
        return Reply.json(
            {
                "claims": [
                    {"id": c["id"], "verdict": "PASS", "explanation": "the excerpt says so"}
                    for c in data.get("claims", [])
                ]
            }
        )
    if system == load_skill("GATE:quiz_audit"):
        return Reply.json({"verdict": "PASS", "issues": []})
    if system == load_skill("GATE:grade_audit"):
        return Reply.json({"verdict": "PASS", "explanation": "the grade fits the rubric"})
    if payload.get("task") == "teach":
        claim = f"The model restates {data.get('step')} for this learner."
        return Reply.json(
            {"content": f"Model draft.\n\n{claim} An example follows.", "claims": [claim]}
        )
    if data.get("task") == "grade_free_recall":
        return Reply.json({"passed": True, "explanation": "it says what the reference says"})
    return Reply.error(500, "this bench model does not serve that request")


class Sampler:
    """Sleeps TICK on the running loop, over and over, recording how late each wake is."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []  # (woke at, lateness in s)
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(TICK)
            now = loop.time()
            self.samples.append((now, max(0.0, now - before - TICK)))

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def window(self, start: float, end: float) -> list[float]:
        return [late * 1000 for at, late in self.samples if start < at <= end]


def stats(ms: list[float]) -> dict[str, float]:
    if not ms:
        return {"max": float("nan"), "p99": float("nan"), "n": 0}
    p99 = statistics.quantiles(ms, n=100, method="inclusive")[98] if len(ms) >= 2 else ms[0]
    return {"max": max(ms), "p99": p99, "n": len(ms)}


async def until(pilot: Any, cond: Any, what: str, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            sys.exit(f"ui_stall: timed out waiting for {what}")
        await pilot.pause(0.02)


async def drive(srv: ModelServer, idle: float, size: tuple[int, int]) -> dict[str, Any]:
    from tutor.app.app import TutorApp
    from tutor.app.home import HomeScreen
    from tutor.app.session_screen import SessionScreen

    app = TutorApp(offline=True)  # offline: the lesson's external references are not fetched
    sampler = Sampler()
    out: dict[str, Any] = {}
    async with app.run_test(size=size) as pilot:
        sampler.start()
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the home screen")
        t1 = sampler.now()
        await asyncio.sleep(idle)  # the learner reads home; nothing is pending
        out["idle"] = sampler.window(t1, sampler.now())

        calls = len(srv.chat_requests)
        t0 = sampler.now()
        await pilot.press("enter")
        await until(
            pilot,
            lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None,
            "the lesson to open",
        )
        screen: Any = app.screen
        out["opening"] = sampler.window(t0, sampler.now())
        out["opening_s"] = sampler.now() - t0
        if screen.stage == "scout":
            await pilot.press("enter")  # past the sources
        await until(pilot, lambda: screen.prompt is not None and not screen.busy, "the prior")
        prior = screen.prompt
        if prior.stage != "prior":
            sys.exit(f"ui_stall: expected the prior, got {prior.stage} {prior.kind}")

        t2 = sampler.now()
        await pilot.press("enter")  # past the prior at once: this step waits on the model
        await until(
            pilot,
            lambda: screen.prompt is not prior and not screen.busy,
            "the step after the prior",
        )
        t3 = sampler.now()
        out["wait"] = sampler.window(t2, t3)
        out["wait_s"] = t3 - t2
        out["wait_calls"] = len(srv.chat_requests) - calls
        out["next"] = f"{screen.prompt.stage} {screen.prompt.position}"
        sampler.stop()
        await pilot.press("ctrl+q")
    return out


def child(args: argparse.Namespace) -> int:
    """One run in this (fresh) process: print its samples as JSON."""
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    for name in list(os.environ):
        if name.startswith(("TUTOR_", "OPENAI_", "TEXTUAL")):
            del os.environ[name]
    with (
        tempfile.TemporaryDirectory(prefix="tutor-stall-") as home,
        ModelServer(default=model_reply, latency=args.latency) as srv,
    ):
        os.environ.update(
            TUTOR_HOME=home,
            TUTOR_BASE_URL=srv.base_url,
            TUTOR_MODEL="loopback-model",
            OPENAI_API_KEY="sk-loopback",
            TUTOR_TIMEOUT=str(max(10.0, 4 * args.latency)),
            TUTOR_MAX_RETRIES="0",
        )
        out = asyncio.run(drive(srv, args.idle, (cols, rows)))
    print(json.dumps(out))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.5, help="seconds per completion")
    parser.add_argument("--idle", type=float, default=3.0, help="idle baseline, seconds")
    parser.add_argument("--runs", type=int, default=3, help="runs, each in a fresh process")
    parser.add_argument("--size", default="80x24", help="terminal size, COLSxROWS")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    began = time.monotonic()
    runs: list[dict[str, Any]] = []
    for _ in range(args.runs):
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                "--latency",
                str(args.latency),
                "--idle",
                str(args.idle),
                "--size",
                args.size,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            sys.exit(f"ui_stall: a run failed (rc {done.returncode}):\n{done.stderr[-2000:]}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        if runs[-1]["wait_calls"] == 0 or runs[-1]["wait_s"] < args.latency / 2:
            sys.exit("ui_stall: the step did not wait on the model; nothing was measured")

    def pooled(key: str) -> dict[str, float]:
        return stats([ms for r in runs for ms in r[key]])

    idle, wait, opening = pooled("idle"), pooled("wait"), pooled("opening")
    ratio = wait["max"] / idle["max"] if idle["max"] > 0 else float("inf")
    per_run = ", ".join(f"{max(r['wait']):.0f}" for r in runs)
    print(
        f"event-loop stalls (lateness of a {TICK * 1000:.0f} ms sleep on the app's loop): "
        f"TutorApp headless {args.size}, loopback model at {args.latency:g} s/completion, "
        f"{args.runs} runs each in a fresh process, samples pooled"
    )
    print(f"{'':30}{'max ms':>8}{'p99 ms':>8}{'samples':>9}")
    print(f"{'idle on home':30}{idle['max']:8.1f}{idle['p99']:8.1f}{idle['n']:9d}")
    print(
        f"{'step waiting on the model':30}{wait['max']:8.1f}{wait['p99']:8.1f}{wait['n']:9d}"
        f"   (per run max {per_run} ms; {statistics.median(r['wait_s'] for r in runs):.1f} s"
        f" waited; {runs[0]['wait_calls']} model calls since the lesson opened; then "
        f"{runs[0]['next']})"
    )
    print(
        f"{'opening the lesson':30}{opening['max']:8.1f}{opening['p99']:8.1f}{opening['n']:9d}"
        f"   (home to sources: model health check in a worker, screen switch)"
    )
    print(
        f"max stall while waiting on the model: {wait['max']:.1f} ms = {ratio:.1f}x the idle "
        f"max; p99 {wait['p99']:.1f} ms = {wait['p99'] / idle['p99']:.1f}x idle; "
        f"target < {TARGET_MS:.0f} ms {'met' if wait['max'] < TARGET_MS else 'NOT met'}"
    )
    print(f"({time.monotonic() - began:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
