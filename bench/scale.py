"""Scale: work that should grow with what is shown, not with the size of the curriculum.

    python bench/scale.py [--rounds R] [--corpus PATH]

Curricula: the shared corpus (aiefs, 65 real lessons: the baseline figure), a generated course
of 75 lessons (3 phases of 25) and one of 500 (20 phases of 25), both from
tutor.testing.course_maker. The generated baseline has the 500-lesson course's phase size, so a
one-phase packet holds the same 25 lessons in both and the ratio shows what the size of the
curriculum adds (against a course of 5 phases of 13, the packet would hold twice the lessons:
work that grows with what is shown, not with the curriculum). For each, in a fresh process
per measurement (imports done before timing; the best of R rounds of time, the peak of Python
allocations by tracemalloc):

- next lesson: `load_curriculum(root, only=[])` and `next_lesson(...)` after a lesson in the
  middle of the course (what `tutor continue` and home do to find the next lesson);
- home: the whole home summary on a store with 2,000 answers and a finished lesson in the
  middle (`home_summary.with_curriculum` on a fresh listing, counts in SQL);
- packet: a one-phase packet (`tutor packet` on Phase 1, deterministic outline, markdown),
  curriculum read (as the command reads it: that phase and its prerequisites) and graph built
  included.

Each figure of the 500-lesson course is printed as a ratio to the corpus's 65-lesson figure
(and, beside it, to the generated 75-lesson course, same generator). Target: <= 1.3x.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 1.3
CORPUS = ROOT.parent / "shared" / "corpus" / "aiefs"
TASKS = ("next lesson", "home", "packet")


def _middle(root: Path) -> str:
    """A lesson id in the middle of the course, from the folder listing."""
    from learning_system.curriculum import load_curriculum

    outline = load_curriculum(root, only=[])
    order = outline.listed()
    phase, number = order[len(order) // 2]
    from learning_system.curriculum_refs import format_lesson_id

    return format_lesson_id(phase, number)


def _seed_store(path: Path, root: Path, done: str) -> None:
    from datetime import timedelta

    from learning_system import ledger
    from learning_system.ledger import Attempt, Concept
    from learning_system.store import Store, utcnow

    now = utcnow()
    with Store(path) as store:
        for n in range(200):
            ledger.upsert_concept(store, Concept(id=f"c{n}", name=f"c {n}"), when=now)
        rows = [
            (f"a{n}", "s0", f"c{n % 200}", "quiz" if n % 2 else "probe",
             "correct" if n % 3 else "wrong", "sure", (now - timedelta(hours=n)).isoformat())
            for n in range(2000)
        ]  # fmt: skip
        with store.transaction() as c:
            c.executemany(
                "INSERT INTO attempts (id, session_id, concept_id, kind, outcome, confidence, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        _ = Attempt  # the rows above are what ledger.record_attempt writes, in bulk
        store.sessions.save("s0", done, str(root), "done", "end", {})


def measure(task: str, root: Path, rounds: int) -> dict[str, Any]:
    """In this process: the best time and the peak allocation of `task` on the curriculum."""
    import gc
    import time
    import tracemalloc

    from learning_system.curriculum import load_curriculum
    from learning_system.store import Store
    from tutor.engine import home_summary
    from tutor.engine.study_packets import compile_packet, packet_curriculum

    middle = _middle(root)
    tmp = Path(tempfile.mkdtemp(prefix="tutor-scale-"))
    store = None
    if task == "home":
        _seed_store(tmp / "tutor.db", root, middle)
        store = Store(tmp / "tutor.db")

    def run() -> object:
        if task == "next lesson":
            return load_curriculum(root, only=[]).next_lesson(middle)
        if task == "home":
            return home_summary.with_curriculum(store, load_curriculum(root, only=[]))
        result = compile_packet(
            {
                "topic": "Phase 1",
                "goal": "the first phase",
                "generation_option": "deterministic_outline",
                "exporters": ["markdown"],
            },
            packet_curriculum(root, "Phase 1"),  # as `tutor packet --topic "Phase 1"` loads it
            None,
            out_dir=tmp / "packets",
        )
        return result.packet_path

    run()  # warm: imports, the page cache
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        shown = run()
        best = min(best, time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"s": best, "peak": peak, "shown": str(getattr(shown, "id", shown))[:60]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--child", nargs=2, metavar=("TASK", "ROOT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child[0], Path(args.child[1]), args.rounds)))
        return 0
    if not (args.corpus / "phases").is_dir():
        sys.exit(f"scale: no corpus at {args.corpus} (see ../shared/corpus/README.md)")
    from tutor.testing.course_maker import write_course

    work = Path(tempfile.mkdtemp(prefix="tutor-scale-courses-"))
    courses = {
        "corpus 65": args.corpus,
        "generated 75": write_course(work / "g75", phases=3, lessons=25),
        "generated 500": write_course(work / "g500", phases=20, lessons=25),
    }
    figures: dict[tuple[str, str], dict[str, Any]] = {}
    for task in TASKS:
        for name, root in courses.items():
            done = subprocess.run(
                [sys.executable, __file__, "--rounds", str(args.rounds), "--child", task, root],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0:
                sys.exit(f"scale: {task} on {name} failed:\n{done.stderr[-2000:]}")
            figures[task, name] = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"work against curriculum size: best of {args.rounds} rounds (time) and the tracemalloc "
        "peak (memory), each in a fresh process; ratios of the 500-lesson course to the corpus "
        "(65 real lessons) and to the generated 75 (the same 25 lessons a phase)"
    )
    head = "".join(f"{n:>16}" for n in courses)
    print(f"{'':22}{head}{'500/corpus':>12}{'500/gen75':>11}  target <= {TARGET}x")
    met = True
    for task in TASKS:
        for unit, key, scale in (("ms", "s", 1000.0), ("KiB", "peak", 1 / 1024)):
            values = [figures[task, n][key] * scale for n in courses]
            ratio = values[2] / values[0] if values[0] else float("inf")
            ratio_gen = values[2] / values[1] if values[1] else float("inf")
            ok = ratio <= TARGET and ratio_gen <= TARGET
            met = met and ok
            cells = "".join(f"{v:16.1f}" for v in values)
            print(
                f"{task + ' (' + unit + ')':22}{cells}{ratio:11.2f}x{ratio_gen:10.2f}x  "
                f"{'met' if ok else 'NOT met'}"
            )
    print(f"all targets {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
