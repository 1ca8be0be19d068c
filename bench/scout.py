"""Scout benchmark: the offline digest of every lesson of a curriculum folder, each beside a
baseline that just reads the same lesson files in the same run.

The digest time covers reading and normalising the lesson document, hashing, the excerpt,
takeaways, outline, prerequisites (glossary included), comparing with the store and saving the
digest (a real store in a temporary folder, durable writes). Loading the curriculum is reported
apart, once. Target: under 50 ms per lesson offline.
Usage: python bench/scout.py [--curriculum PATH] [--rounds N]
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
from learning_system.store import Store  # noqa: E402
from tutor.scout import prepare_sync  # noqa: E402

TARGET_MS = 50.0


def read_files(paths: list[Path]) -> list[float]:
    times = []
    for path in paths:
        t = time.perf_counter()
        path.read_bytes().decode("utf-8")
        times.append(time.perf_counter() - t)
    return times


def digest_all(curriculum, store: Store) -> list[float]:
    times = []
    for lesson in curriculum.lessons:
        t = time.perf_counter()
        prepare_sync(lesson, curriculum, store, offline=True)
        times.append(time.perf_counter() - t)
    return times


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--curriculum", type=Path, default=ROOT.parent / "shared" / "corpus" / "aiefs"
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    t = time.perf_counter()
    curriculum = load_curriculum(args.curriculum)
    load_time = time.perf_counter() - t
    lessons = curriculum.lessons
    files = [lesson.doc_path for lesson in lessons if lesson.doc_path is not None]
    glossary = args.curriculum / "glossary" / "terms.md"
    if glossary.is_file():
        files.append(glossary)

    digests: list[float] = []
    reads: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "tutor.db") as store:
        digest_all(curriculum, store)  # warm-up: imports, regex compilation, first store writes
        for _ in range(args.rounds):
            reads.append(sum(read_files(files)))
            digests.extend(digest_all(curriculum, store))

    per_read = statistics.mean(reads) / len(lessons)
    mean = statistics.mean(digests)
    p95 = statistics.quantiles(digests, n=20)[18] if len(digests) >= 20 else max(digests)
    print(f"curriculum: {args.curriculum} ({len(lessons)} lessons, {args.rounds} rounds)")
    print(f"load curriculum (once)      {ms(load_time)}")
    print(f"read files, per lesson      {ms(per_read)}   (baseline)")
    print(f"offline digest, per lesson  {ms(mean)}   mean")
    print(f"                            {ms(statistics.median(digests))}   median")
    print(f"                            {ms(p95)}   p95")
    print(f"                            {ms(max(digests))}   max")
    print(f"ratio digest / read         {mean / per_read:8.1f}x")
    verdict = "meets" if mean * 1000 < TARGET_MS else "MISSES"
    print(f"target < {TARGET_MS:.0f} ms per lesson: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
