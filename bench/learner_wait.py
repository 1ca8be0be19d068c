"""The learner-visible wait at the lesson's boundaries — lesson start, probe start, each teaching
step, quiz start — with background preparation and without, measured in the same run against
the loopback model server with latency L per call and retries on (max_retries 2).

    python bench/learner_wait.py [--latency 0.2] [--think 1.5] [--rounds 1] [--lesson "P1 L02"]

A scripted learner runs the built-in lesson; on every screen it reads (kind "read") it waits
think × L before acting, and answers everything else at once. A wait is the time
`session.act(...)` takes when it lands on the boundary's first screen (for the lesson start:
`Session.start`, digest and prior included). "prefetch" is the engine's Drafter (the first
probe batch prepared while the prior is read, step n+1 while step n is shown, the quiz while
the last step is read); "serial" is the same Drafter with `prefetch` doing nothing.
Targets, every boundary but the lesson start: prefetch p50 <= 0.2 × L and max <= 1.2 × L;
serial teaching steps >= 2 × L (draft + verify).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tutor.engine.drafter import Drafter  # noqa: E402

P50_TARGET = 0.2
MAX_TARGET = 1.2
SERIAL_FLOOR = 2.0


class SerialDrafter(Drafter):
    """Drafts only when the step is needed: no background preparation."""

    def prefetch(self, key: str, work: Any) -> None:
        return None


BOUNDARIES = ("lesson start", "probe start", "teach", "checkpoint", "quiz start")


@dataclass
class Run:
    waits: list[float] = field(default_factory=list)  # seconds, one per teaching step reached
    boundary: dict[str, list[float]] = field(default_factory=dict)  # name -> waits
    model_drafts: int = 0
    fallbacks: int = 0  # teaching steps shown as compiled source text or withheld
    unverified: int = 0
    calls: int = 0
    total: float = 0.0
    probe_questions: int = 0
    quiz_items: int = 0


def responder():
    from tutor.llm.skills import load_skill
    from tutor.testing.model_server import Reply

    skills = {
        load_skill(n): n
        for n in ("tutor", "grader", "GATE:fact_check", "GATE:quiz_audit", "GATE:grade_audit")
    }

    def reply(body: dict) -> Reply:
        skill = skills.get(body["messages"][0]["content"], "unknown")
        payload = json.loads(body["messages"][1]["content"])
        data = payload["data"]
        if skill == "tutor" and payload["task"] == "teach":
            claim = f"The model restates {data['step']} for this learner."
            return Reply.json(
                {"content": f"Model draft.\n\n{claim} An example follows.", "claims": [claim]}
            )
        unusable = {"question": "Unusable?", "options": ["a"], "correct_index": 0}
        if skill == "tutor" and data.get("task") in ("rewrite_item", "isomorphic_item"):
            return Reply.json(unusable)
        if skill == "tutor" and data.get("task") == "rewrite_items":
            return Reply.json({"items": [{"id": i["id"], **unusable} for i in data["items"]]})
        if skill == "grader":
            return Reply.json({"passed": True, "explanation": "matches the reference"})
        if skill == "GATE:fact_check":
            return Reply.json(
                {"claims": [{"id": c["id"], "verdict": "PASS"} for c in data["claims"]]}
            )
        if skill in ("GATE:quiz_audit", "GATE:grade_audit"):
            return Reply.json({"verdict": "PASS"})
        return Reply.error(500, f"not served: {skill} {payload['task']}")

    return reply


def answer(prompt):
    from tutor.engine.turns import Action

    if prompt.kind == "read":
        return Action(kind="next")
    if prompt.kind == "choice":
        return Action(kind="answer", value=str(prompt.item.correct_index), confidence="sure")
    if prompt.kind == "numeric":
        return Action(kind="answer", value=f"{prompt.item.answer:g}", confidence="sure")
    if prompt.kind == "text":
        return Action(
            kind="text", text="my own words", confidence="sure" if prompt.needs_confidence else None
        )
    if prompt.kind == "yes_no":
        return Action(kind="yes_no", value="y")
    return Action(kind="error_type", value="3", text="I rushed it")


def run_lesson(
    drafter_cls: type[Drafter], base_url: str, lesson_ref: str, think: float, workdir: Path
) -> Run:
    from learning_system.curriculum import load_curriculum
    from learning_system.store import Store
    from tutor.config import builtin_course_path
    from tutor.engine.session import Session
    from tutor.llm import make_provider
    from tutor.llm.settings import load_settings

    result = Run()
    settings = load_settings(base_url=base_url, model="loopback-model", timeout=30, max_retries=2)
    provider = make_provider(settings)
    course = load_curriculum(builtin_course_path())
    db = workdir / f"{drafter_cls.__name__}-{time.monotonic_ns()}.db"
    started = time.perf_counter()
    result.boundary = {name: [] for name in BOUNDARIES}
    with Store(db) as store:
        session = Session.start(
            store,
            course,
            course.lesson(lesson_ref),
            provider=provider,
            drafter=drafter_cls(provider),
            offline=True,
        )
        result.boundary["lesson start"].append(time.perf_counter() - started)
        firsts: set[str] = set()
        asked: dict[str, set[str]] = {"probe": set(), "quiz": set()}
        try:
            for _ in range(400):
                prompt = session.prompt
                if session.done:
                    break
                if prompt.kind == "read":
                    time.sleep(think)
                t0 = time.perf_counter()
                after = session.act(answer(prompt))
                waited = time.perf_counter() - t0
                first = {"probe": "probe start", "quiz": "quiz start"}.get(after.stage)
                if after.stage in asked and after.item is not None:
                    asked[after.stage].add(after.item.id)
                if first and after.item is not None and first not in firsts:
                    firsts.add(first)
                    result.boundary[first].append(waited)
                if after.stage == "checkpoint" and after.kind in ("choice", "numeric", "text"):
                    result.boundary["checkpoint"].append(waited)  # a question or explain-back
                if after.stage == "teach":
                    result.waits.append(waited)
                    result.boundary["teach"].append(waited)
                    if after.content.startswith("Model draft."):
                        result.model_drafts += 1
                    else:
                        result.fallbacks += 1
                    result.unverified += bool(after.unverified)
        finally:
            session.close()
        if not session.done:
            raise SystemExit(f"the {drafter_cls.__name__} run did not reach the end")
    result.total = time.perf_counter() - started
    result.probe_questions, result.quiz_items = len(asked["probe"]), len(asked["quiz"])
    return result


def describe(name: str, run: Run, latency: float) -> str:
    ratios = [w / latency for w in run.waits]
    p50 = statistics.median(ratios) if ratios else float("nan")
    worst = max(ratios) if ratios else float("nan")
    each = " ".join(f"{r:.2f}" for r in ratios)
    return (
        f"{name:<9} steps={len(ratios):<3} p50={p50:.2f}×L  max={worst:.2f}×L  "
        f"[{each}]  model-drafts={run.model_drafts} fallbacks={run.fallbacks} "
        f"unverified={run.unverified} calls={run.calls} lesson={run.total:.1f}s"
    )


def merge(runs: list[Run]) -> Run:
    out = Run()
    out.boundary = {name: [] for name in BOUNDARIES}
    for r in runs:
        out.waits += r.waits
        for name in BOUNDARIES:
            out.boundary[name] += r.boundary.get(name, [])
        out.model_drafts += r.model_drafts
        out.fallbacks += r.fallbacks
        out.unverified += r.unverified
        out.calls += r.calls
        out.total += r.total
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="L: seconds per model call")
    parser.add_argument(
        "--think",
        type=float,
        default=1.5,
        help="the learner's reading time per screen, as a multiple of L",
    )
    parser.add_argument("--rounds", type=int, default=1, help="interleaved runs of each side")
    parser.add_argument("--lesson", default="P1 L02")
    args = parser.parse_args()
    from tutor.testing.model_server import ModelServer

    latency, think = args.latency, args.think * args.latency
    sides: dict[str, tuple[type[Drafter], list[Run]]] = {
        "prefetch": (Drafter, []),
        "serial": (SerialDrafter, []),
    }
    with tempfile.TemporaryDirectory() as home:
        os.environ["TUTOR_HOME"] = home
        with ModelServer(latency=latency, default=responder()) as srv:
            for _ in range(args.rounds):  # interleaved, so drift hits both sides alike
                for cls, runs in sides.values():
                    before = len(srv.chat_requests)
                    run = run_lesson(cls, srv.base_url, args.lesson, think, Path(home))
                    run.calls = len(srv.chat_requests) - before
                    runs.append(run)
    prefetch, serial = merge(sides["prefetch"][1]), merge(sides["serial"][1])
    print("wait at each boundary as a ratio to L (p50 / max over the rounds):")
    met_all = True
    for name in BOUNDARIES:
        row = []
        for side, run in (("prefetch", prefetch), ("serial", serial)):
            ratios = [w / latency for w in run.boundary[name]]
            if not ratios:
                row.append(f"{side}: none")
                continue
            p50, worst = statistics.median(ratios), max(ratios)
            row.append(f"{side}: p50 {p50:.2f}×L max {worst:.2f}×L")
            if side == "prefetch" and name != "lesson start":
                ok = p50 <= P50_TARGET and worst <= MAX_TARGET
                met_all &= ok
                row[-1] += " (met)" if ok else " (MISSED)"
        print(f"  {name:<13} " + "; ".join(row))
    print(
        f"targets at every boundary but the lesson start: p50 <= {P50_TARGET}×L, max <= "
        f"{MAX_TARGET}×L: {'met' if met_all else 'MISSED'}"
    )
    print(
        f"lesson {args.lesson}; L = {latency:.3f} s per model call; learner reads each "
        f"screen for {args.think:g}×L = {think:.3f} s; {args.rounds} round(s) per side"
    )
    print("learner-visible wait when moving onto a teaching step, as a ratio to L:")
    print(describe("prefetch", prefetch, latency))
    print(describe("serial", serial, latency))
    p50 = statistics.median(prefetch.waits) / latency
    worst = max(prefetch.waits) / latency
    serial_p50 = statistics.median(serial.waits) / latency
    print(
        f"targets: prefetch p50 <= {P50_TARGET}×L: {'met' if p50 <= P50_TARGET else 'MISSED'}"
        f" ({p50:.2f}); prefetch max <= {MAX_TARGET}×L: "
        f"{'met' if worst <= MAX_TARGET else 'MISSED'} ({worst:.2f}); serial >= "
        f"{SERIAL_FLOOR}×L: {'yes' if serial_p50 >= SERIAL_FLOOR else 'NO'} ({serial_p50:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
