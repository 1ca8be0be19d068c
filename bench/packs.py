"""Teaching from knowledge packs against teaching from the raw digest, side by side, on the
built-in course and a shared-corpus lesson, against the same loopback model (issue 24).

    python bench/packs.py [--reps 5] [--corpus ../shared/corpus/aiefs] [--lesson "P1 L02"]

The loopback model builds packs with tutor.testing.pack_model.PackModel and drafts each step
by restating the excerpt it is sent (its first 1,200 characters, atom labels dropped); every
gate passes. Per lesson, the "raw" and "pack" arms run interleaved, `--reps` times each, a
scripted learner answering at once. Printed per arm: factual coverage (the share of the
pack's invariants whose text the learner is shown in teaching steps and checkpoints), prompt
tokens per drafted step (characters / 4 of the teach_step request), the learner's wait per
teaching step; and the tokens and seconds of each pack build.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learning_system.curriculum import Curriculum, load_curriculum  # noqa: E402
from learning_system.store import Store  # noqa: E402
from tutor.config import builtin_course_path  # noqa: E402
from tutor.dossier.build import build_pack  # noqa: E402
from tutor.dossier.model import KnowledgePack  # noqa: E402
from tutor.dossier.status import usable_pack  # noqa: E402
from tutor.dossier.units import lesson_source  # noqa: E402
from tutor.engine.drafter import Drafter  # noqa: E402
from tutor.engine.session import Session  # noqa: E402
from tutor.engine.turns import Action, Prompt  # noqa: E402
from tutor.llm import make_provider  # noqa: E402
from tutor.llm.settings import load_settings  # noqa: E402
from tutor.testing.fixtures import fast_settings  # noqa: E402
from tutor.testing.model_server import ModelServer, Reply  # noqa: E402
from tutor.testing.pack_model import PackModel, request_data  # noqa: E402


def lesson_model(body: dict[str, Any]) -> Reply:
    """Drafts restate their excerpt; every gate passes; items and grades are plain."""
    task, data = step_task(body)
    if task == "teach_step":
        text = "\n".join(
            line.split("] ", 1)[1] if line.startswith("[") and "] " in line else line
            for line in str(data.get("untrusted_excerpts", "")).splitlines()
        )
        return Reply.json({"content": text[:1200] or "Nothing to say.", "claims": []})
    if "claims" in data:
        claims = data["claims"]
        return Reply.json(
            {"claims": [{"id": c["id"], "verdict": "PASS", "explanation": "ok"} for c in claims]}
        )
    if task == "grade_free_recall":
        return Reply.json({"passed": True, "explanation": "matches"})
    if task == "rewrite_items":  # no fair rewrite: the failed bank items stay free recall
        return Reply.json({"items": []})
    if "questions_json" in data:
        return Reply.json({"verdict": "PASS", "issues": []})
    if "grade" in task:  # the grade_audit gate
        return Reply.json({"verdict": "PASS", "explanation": "matches"})
    return Reply.error(500, "not scripted")


def step_task(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(the data's task, else the request's; data) of a request."""
    task, data = request_data(body)
    return str(data.get("task") or task), data


def answer(prompt: Prompt) -> Action:
    if prompt.kind == "read":
        return Action(kind="next")
    if prompt.kind == "choice":
        return Action(kind="answer", value=str(prompt.item.correct_index), confidence="sure")
    if prompt.kind == "numeric":
        return Action(kind="answer", value=f"{prompt.item.answer:g}", confidence="sure")
    if prompt.kind == "text":
        confidence = "sure" if prompt.needs_confidence else None
        return Action(kind="text", text="my own words", confidence=confidence)
    if prompt.kind == "yes_no":
        return Action(kind="yes_no", value="y")
    return Action(kind="error_type", value="3", text="rushed")


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def one_lesson(store: Store, srv: ModelServer, course: Curriculum, lesson_id: str) -> dict:
    settings = load_settings(base_url=srv.base_url, model="loopback-model", timeout=5)
    provider = make_provider(settings)
    srv.clear()
    session = Session.start(
        store, course, course.lesson(lesson_id), provider=provider, drafter=Drafter(provider)
    )
    shown: list[str] = []
    waits: list[float] = []
    try:
        for _ in range(400):
            prompt = session.prompt
            if prompt.stage in ("teach", "checkpoint"):
                shown.append(prompt.content)
            if session.done:
                break
            started = time.perf_counter()
            session.act(answer(prompt))
            if session.prompt.stage == "teach" and session.prompt.kind == "read":
                waits.append(time.perf_counter() - started)
    finally:
        session.close()
    drafts = [r.body for r in srv.chat_requests if step_task(r.body)[0] == "teach_step"]
    chars = [sum(len(m["content"]) for m in b["messages"]) for b in drafts]
    return {"shown": _norm("\n".join(shown)), "waits": waits, "tokens": [c / 4 for c in chars]}


def coverage(shown: str, pack: KnowledgePack) -> float:
    facts = [_norm(a.text) for a in pack.atoms if a.kind == "invariant"]
    return sum(f in shown for f in facts) / max(len(facts), 1)


def bench_lesson(course: Curriculum, lesson_id: str, reps: int, home: Path) -> None:
    lesson = course.lesson(lesson_id)
    source = lesson_source(lesson, course)
    arms: dict[str, dict[str, list[float]]] = {
        a: {"coverage": [], "tokens": [], "wait": []} for a in ("raw", "pack")
    }
    with ModelServer() as srv:
        srv.always(PackModel())
        builds = []
        for n in range(reps):
            with Store(home / f"build-{lesson.slug}-{n}.db") as store:
                settings = fast_settings(srv.base_url, timeout=10)
                builds.append(asyncio.run(build_pack(store, source, lesson.title, settings)))
        with Store(home / f"pack-{lesson.slug}.db") as packed:
            asyncio.run(build_pack(packed, source, lesson.title, fast_settings(srv.base_url)))
            pack = usable_pack(packed, source)
        assert pack is not None
        srv.always(lesson_model)
        for n in range(reps):
            for arm in ("raw", "pack"):  # interleaved
                path = home / f"{arm}-{lesson.slug}-{n}.db"
                if arm == "pack":
                    path.write_bytes((home / f"pack-{lesson.slug}.db").read_bytes())
                with Store(path) as store:
                    got = one_lesson(store, srv, course, lesson_id)
                arms[arm]["coverage"].append(coverage(got["shown"], pack))
                arms[arm]["tokens"] += got["tokens"]
                arms[arm]["wait"] += got["waits"]
    print(f"\n{course.name} {lesson_id} ({len(pack.units)} units, {reps} reps per arm)")
    print(f"  {'arm':<5} {'coverage':>9} {'prompt tok/step':>16} {'wait p50 ms':>12}")
    for arm, m in arms.items():
        wait = statistics.median(m["wait"]) * 1000 if m["wait"] else float("nan")
        tokens = statistics.mean(m["tokens"]) if m["tokens"] else float("nan")
        print(f"  {arm:<5} {statistics.mean(m['coverage']):>9.2f} {tokens:>16.0f} {wait:>12.1f}")
    raw, packed_arm = arms["raw"], arms["pack"]
    if raw["tokens"] and packed_arm["tokens"]:
        ratio = statistics.mean(packed_arm["tokens"]) / statistics.mean(raw["tokens"])
        print(f"  prompt tokens per step, pack / raw: {ratio:.2f}")
    tok = [b.tokens_in + b.tokens_out for b in builds]
    secs = [b.seconds for b in builds]
    print(f"  pack build: {statistics.mean(tok):,.0f} tokens, {statistics.median(secs):.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument(
        "--corpus", default=str(Path(__file__).resolve().parents[2] / "shared/corpus/aiefs")
    )
    parser.add_argument("--lesson", default="P1 L02")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TUTOR_HOME"] = tmp
        bench_lesson(load_curriculum(builtin_course_path()), args.lesson, args.reps, Path(tmp))
        if (Path(args.corpus) / "phases").is_dir():
            corpus = load_curriculum(args.corpus)
            bench_lesson(corpus, args.lesson, args.reps, Path(tmp))
        else:
            print(f"\n(no corpus at {args.corpus}: the shared-corpus lesson was skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
