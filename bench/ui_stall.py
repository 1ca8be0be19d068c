"""UI stall: the longest event-loop stall on every screen of a built-in lesson, and while a lesson
step waits on a slow model, beside the same loop measured with the app idle in the same run.

Part 1, every screen: the app runs headless offline (no model: the deterministic provider) on a
fresh TUTOR_HOME and walks a built-in lesson (`--lesson`, P1 L01 by default: its teaching has
code blocks that name no language) by keys, from home to the lesson's end, answering every
prompt as a learner would (choices, numbers and words typed key by key, confidence tags, the
kind of slip). Each key, or run of typed keys, opens a window that closes once the screen is
settled and has been shown for `--dwell` seconds; the window's stalls count for the screen it
led to (e.g. "teach read", "quiz choice", "results read", "probe text"), typing for
"typing <kind>". Target: max stall < 50 ms on every screen.

Part 2, waits on the model:
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

Each run of each part is a fresh process (the SDK is imported on the first model call, pygments
on the first code block, as for a learner); the samples of all runs are pooled. Bytecode: the
runs read compiled modules from a private PYTHONPYCACHEPREFIX, filled by one untimed warm-up
run of each part (as any start after the first finds them); without them, a worker thread
compiling a module holds the GIL for the whole compile and the stalls measure the compiler.
Usage: python bench/ui_stall.py [--latency S] [--idle S] [--runs N] [--lesson ID] [--dwell S]
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


def typed(text: str) -> list[str]:
    names = {" ": "space", ".": "full_stop", ",": "comma", "-": "minus", "'": "apostrophe"}
    return [names.get(c, c) for c in text]


async def walk(lesson: str, idle: float, dwell: float, size: tuple[int, int]) -> dict[str, Any]:
    """Every screen of one lesson, offline, by keys: stalls per screen, and idle on home."""
    from tutor.app.app import TutorApp

    def shows(name: str) -> bool:  # by name: the app imports its screens when it needs them
        return type(app.screen).__name__ == name

    app = TutorApp(offline=True, lesson=None)
    sampler = Sampler()
    screens: dict[str, list[float]] = {}
    async with app.run_test(size=size) as pilot:
        sampler.start()
        await until(pilot, lambda: shows("HomeScreen"), "the home screen")
        t = sampler.now()
        await asyncio.sleep(idle)
        idle_ms = sampler.window(t, sampler.now())
        app.lesson_ref = lesson
        screen: Any = None

        def settled() -> bool:
            return screen is not None and not screen.busy and screen.stage in ("scout", "prompt")

        async def keys(label_after: bool, *names: str, label: str | None = None) -> None:
            """Press `names`; the window runs until the screen settles and was shown `dwell`."""
            start = sampler.now()
            for name in names:
                await pilot.press(name)
            await until(
                pilot,
                lambda: screen is None or settled() or screen.stage == "end",
                "the screen to settle",
                timeout=60,
            )
            await asyncio.sleep(dwell)
            if label is None:
                p = screen.prompt
                label = f"{p.stage} {p.kind}" if screen.stage == "prompt" and p else screen.stage
            screens.setdefault(label, []).extend(sampler.window(start, sampler.now()))

        start = sampler.now()
        await pilot.press("enter")  # home: continue, the lesson asked for
        await until(pilot, lambda: shows("SessionScreen"), "the lesson screen")
        screen = app.screen
        await until(pilot, settled, "the lesson to open", timeout=60)
        await asyncio.sleep(dwell)
        screens.setdefault(f"opening ({screen.stage})", []).extend(
            sampler.window(start, sampler.now())
        )
        steps = 0
        while steps < 400:
            steps += 1
            if screen.stage == "scout":
                await keys(True, "enter")
                continue
            p = screen.prompt
            if p is None or p.kind == "done" or screen.stage == "end":
                break
            wrong = steps % 3 == 0  # some right, some wrong: the mistake screens come too
            if p.kind == "read":
                await keys(True, "enter")
            elif p.kind == "choice":
                await keys(True, str((p.item.correct_index + wrong) % 4 + 1))
                if screen.pending is not None or p.needs_confidence:
                    await keys(True, "s")
            elif p.kind == "numeric":
                answer = f"{p.item.answer + 7 * wrong:g}"
                await keys(False, *typed(answer), label="typing numeric")
                await keys(True, "enter")
                if screen.pending is not None:
                    await keys(True, "s")
            elif p.kind == "text":
                await keys(False, *typed("it multiplies matching entries"), label="typing text")
                await keys(True, "ctrl+s")
                if screen.pending is not None:
                    await keys(True, "s")
            elif p.kind == "yes_no":
                await keys(True, "n" if wrong else "y")
            elif p.kind == "error_type":
                await keys(True, "2")
                await keys(False, *typed("I misread it"), label="typing attribution")
                await keys(True, "enter")
            else:
                sys.exit(f"ui_stall: no keys for a {p.kind} prompt at {p.stage}")
        await until(pilot, lambda: not screen.busy, "the lesson's records", timeout=60)
        await asyncio.sleep(dwell)
        sampler.stop()
        last = screen.prompt
        await pilot.press("ctrl+q")
    return {
        "idle": idle_ms,
        "screens": screens,
        "ended": bool(last and last.kind == "done"),
        "steps": steps,
    }


def walk_child(args: argparse.Namespace) -> int:
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    for name in list(os.environ):
        if name.startswith(("TUTOR_", "OPENAI_", "TEXTUAL")):
            del os.environ[name]
    with tempfile.TemporaryDirectory(prefix="tutor-stall-") as home:
        os.environ["TUTOR_HOME"] = home
        out = asyncio.run(walk(args.lesson, args.idle, args.dwell, (cols, rows)))
    print(json.dumps(out))
    return 0


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


def run_children(args: argparse.Namespace, mode: str) -> list[dict[str, Any]]:
    """One untimed warm-up run (it fills the bytecode cache), then `--runs` timed ones."""
    runs: list[dict[str, Any]] = []
    for _ in range(args.runs + 1):
        command = [sys.executable, __file__, mode, "--latency", str(args.latency)]
        command += ["--idle", str(args.idle), "--size", args.size, "--lesson", args.lesson]
        command += ["--dwell", str(args.dwell)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            sys.exit(f"ui_stall: a run failed (rc {done.returncode}):\n{done.stderr[-2000:]}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs[1:]


def report_walk(args: argparse.Namespace, runs: list[dict[str, Any]]) -> bool:
    idle = stats([ms for r in runs for ms in r["idle"]])
    names = sorted({name for r in runs for name in r["screens"]})
    print(
        f"every screen of {args.lesson}, offline, by keys (TutorApp headless {args.size}, "
        f"{args.runs} runs each in a fresh process, samples pooled; each window from the key "
        f"to the settled screen shown {args.dwell:g} s)"
    )
    print(f"{'':30}{'max ms':>8}{'p99 ms':>8}{'samples':>9}")
    print(f"{'idle on home':30}{idle['max']:8.1f}{idle['p99']:8.1f}{idle['n']:9d}")
    worst = 0.0
    for name in names:
        st = stats([ms for r in runs for ms in r["screens"].get(name, [])])
        worst = max(worst, st["max"])
        flag = "" if st["max"] < TARGET_MS else "  <- over"
        print(f"{name:30}{st['max']:8.1f}{st['p99']:8.1f}{st['n']:9d}{flag}")
    ended = sum(r["ended"] for r in runs)
    met = worst < TARGET_MS
    print(
        f"max stall over every screen: {worst:.1f} ms; target < {TARGET_MS:.0f} ms on every "
        f"screen {'met' if met else 'NOT met'} (lesson ended in {ended}/{len(runs)} runs)"
    )
    return met


def report_model_wait(args: argparse.Namespace, runs: list[dict[str, Any]]) -> None:
    for r in runs:
        if r["wait_calls"] == 0 or r["wait_s"] < args.latency / 2:
            sys.exit("ui_stall: the step did not wait on the model; nothing was measured")

    def pooled(key: str) -> dict[str, float]:
        return stats([ms for r in runs for ms in r[key]])

    idle, wait, opening = pooled("idle"), pooled("wait"), pooled("opening")
    ratio = wait["max"] / idle["max"] if idle["max"] > 0 else float("inf")
    per_run = ", ".join(f"{max(r['wait']):.0f}" for r in runs)
    print(
        f"waiting on the model (TutorApp headless {args.size}, loopback model at "
        f"{args.latency:g} s/completion, {args.runs} runs each in a fresh process, samples pooled)"
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.5, help="seconds per completion")
    parser.add_argument("--idle", type=float, default=3.0, help="idle baseline, seconds")
    parser.add_argument("--runs", type=int, default=3, help="runs, each in a fresh process")
    parser.add_argument("--size", default="80x24", help="terminal size, COLSxROWS")
    parser.add_argument("--lesson", default="P1 L01", help="the built-in lesson walked")
    parser.add_argument("--dwell", type=float, default=0.3, help="seconds each screen is shown")
    parser.add_argument("--only", choices=("screens", "model"), help="run one part (default: both)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--walk-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    if args.walk_child:
        return walk_child(args)
    began = time.monotonic()
    pycache = tempfile.TemporaryDirectory(prefix="tutor-stall-pycache-")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = pycache.name
    # as `tutor` sets it in cli.main (the app is built here without the command line)
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    if args.only in (None, "screens"):
        report_walk(args, run_children(args, "--walk-child"))
    if args.only in (None, "model"):
        if args.only is None:
            print()
        report_model_wait(args, run_children(args, "--child"))
    print(f"({time.monotonic() - began:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
