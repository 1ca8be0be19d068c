"""Study-packet benchmark: compile time for one lesson's packet and for a whole phase, each as a
ratio to loading the curriculum, all measured in the same run (rounds interleaved, medians).

Measured per round: `load_curriculum` (the baseline), building the curriculum graph from the
loaded curriculum (with an empty store's ledger), then compiling from that graph — one lesson
(`P1 L05`, its prerequisites pulled in) and a whole phase (`Phase 1`) — without exports and with
every exporter (markdown, bundle, html, notebook, assessment), in memory.
Usage: python bench/packets.py [--curriculum PATH] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from learning_system.curriculum import load_curriculum  # noqa: E402
from learning_system.packets import build_graph, compile_packet  # noqa: E402
from learning_system.store import Store  # noqa: E402
from tutor.engine.study_packets import EXPORTERS  # noqa: E402

ALL = ["markdown", "bundle", "html", "notebook", "assessment"]
CASES = {
    "one lesson (P1 L05), no export": ("P1 L05", []),
    "one lesson (P1 L05), all exporters": ("P1 L05", ALL),
    "whole phase (Phase 1), no export": ("Phase 1", []),
    "whole phase (Phase 1), all exporters": ("Phase 1", ALL),
}


def timed(work) -> tuple[float, object]:
    t = time.perf_counter()
    result = work()
    return time.perf_counter() - t, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--curriculum", type=Path, default=ROOT.parent / "shared" / "corpus" / "aiefs"
    )
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    times: dict[str, list[float]] = {"load curriculum (baseline)": [], "build graph": []}
    times.update({name: [] for name in CASES})
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "tutor.db") as store:
        for n in range(args.rounds + 1):  # round 0 warms up (imports, model schemas); dropped
            took, curriculum = timed(lambda: load_curriculum(args.curriculum))
            if n:
                times["load curriculum (baseline)"].append(took)
            took, graph = timed(lambda c=curriculum: build_graph(c, store))
            if n:
                times["build graph"].append(took)
            for name, (topic, exporters) in CASES.items():
                request = {
                    "topic": topic,
                    "goal": "benchmark",
                    "exporters": exporters,
                    "generation_option": "deterministic_outline",
                }
                took, result = timed(
                    lambda r=request, g=graph: compile_packet(r, g, exporters=EXPORTERS)
                )
                if n:
                    times[name].append(took)
                sizes[name] = len(result.packet.body.nodes)
    base = statistics.median(times["load curriculum (baseline)"])
    lessons = len(curriculum.lessons)
    print(f"curriculum: {args.curriculum} ({lessons} lessons), {args.rounds} rounds, medians")
    print(f"{'':52} {'time':>11} {'x load':>8}")
    for name, values in times.items():
        median = statistics.median(values)
        label = f"{name} [{sizes[name]} lessons]" if name in sizes else name
        print(f"{label:52} {median * 1000:8.1f} ms {median / base:7.2f}x")
    graph_and_lesson = statistics.median(times["build graph"]) + statistics.median(
        times["one lesson (P1 L05), no export"]
    )
    print(
        f"{'graph + one lesson, from a loaded curriculum':52} {graph_and_lesson * 1000:8.1f} ms "
        f"{graph_and_lesson / base:7.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
