"""Prompt and completion tokens a lesson sends to the model, counted with the o200k tokenizer
(the `quicktok` package ships its vocabulary; tiktoken would download it at run time), against
the loopback model server answering every request validly.

    python bench/tokens.py [--lesson "P1 L02"] [--show]

Every lesson of the built-in course is run (or one, with --lesson) by the scripted learner of
bench/learner_wait.py, the Scout offline (it fetches nothing). A request's prompt tokens are
those of its messages plus its response-format schema, as an endpoint counts them; completion
tokens are those of the answer sent back. Requests are grouped by what they are for:

- gated teaching step: the step's draft, its revision if any and its fact check;
- probe question: the audits of probe questions, rewrites and re-probes;
- quiz item: the audits of quiz items, rewrites and grading;
- checkpoint: the checkpoint and explain-back audits.

Each group is shared out over the steps taught or questions asked, and, for questions, also over
the questions audited (each audit is about one question; some are prepared ahead and not asked
when the probe stops early): the targets for questions are per question audited.

Targets: <= 1,500 prompt tokens per gated step, <= 800 per probe question, <= 25,000 per lesson.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

STEP_TARGET = 1500
PROBE_TARGET = 800
LESSON_TARGET = 25000


def encoder() -> Any:
    import quicktok

    return quicktok.get_encoding("o200k_base")


@dataclass
class Tally:
    """Tokens of the requests of one group, and how many units (steps, questions) they served."""

    prompt: int = 0
    completion: int = 0
    requests: int = 0
    units: int = 0  # steps taught, questions asked
    audited: int = 0  # questions the audits were about (prepared ahead, asked or not)

    def per_unit(self) -> tuple[float, float]:
        n = max(1, self.units)
        return self.prompt / n, self.completion / n

    def per_audited(self) -> float:
        return self.prompt / max(1, self.audited or self.units)


@dataclass
class Lesson:
    groups: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    biggest: dict[str, str] = field(default_factory=dict)  # group -> its largest prompt

    @property
    def prompt(self) -> int:
        return sum(t.prompt for t in self.groups.values())

    @property
    def completion(self) -> int:
        return sum(t.completion for t in self.groups.values())


def group_of(skill: str, task: str, purpose: str) -> str:
    if task in ("teach_step", "revise_step") or skill == "GATE:fact_check":
        return "teaching step"
    if task == "isomorphic_item" or purpose == "probe":
        return "probe question"
    if (
        task in ("rewrite_item", "rewrite_items", "grade_free_recall")
        or skill == "GATE:grade_audit"
    ):
        return "quiz item"
    if purpose == "end-of-lesson quiz":
        return "quiz item"
    return "checkpoint" if purpose in ("checkpoint", "feynman") else f"other ({skill} {task})"


class Counter:
    """Wraps the bench's responder: counts each request's and answer's tokens by group."""

    def __init__(self, responder: Any, skills: dict[str, str]) -> None:
        self.enc = encoder()
        self.responder = responder
        self.skills = skills
        self.lesson = Lesson()
        self._lock = threading.Lock()

    def tokens(self, text: str) -> int:
        return len(self.enc.encode(text))

    def __call__(self, body: dict) -> Any:
        reply = self.responder(body)
        skill = self.skills.get(body["messages"][0]["content"], "unknown")
        data = json.loads(body["messages"][1]["content"]).get("data")
        purpose = str(data.get("purpose", "")) if isinstance(data, dict) else ""
        task = str(data.get("task", "")) if isinstance(data, dict) else ""
        group = group_of(skill, task, purpose)
        prompt = sum(self.tokens(m.get("content") or "") for m in body["messages"])
        schema = body.get("response_format", {}).get("json_schema")
        prompt += self.tokens(json.dumps(schema)) if schema else 0
        with self._lock:
            tally = self.lesson.groups[group]
            tally.prompt += prompt
            tally.completion += self.tokens(reply.content)
            tally.requests += 1
            if isinstance(data, dict) and isinstance(data.get("questions_json"), list):
                tally.audited += len(data["questions_json"])
            if len(self.lesson.biggest.get(group, "")) < len(json.dumps(body["messages"])):
                self.lesson.biggest[group] = json.dumps(body["messages"], ensure_ascii=False)
        return reply


def count_units(lesson: Lesson, run: Any) -> None:
    lesson.groups["teaching step"].units = len(run.waits)
    lesson.groups["probe question"].units = run.probe_questions
    lesson.groups["quiz item"].units = run.quiz_items
    lesson.groups["checkpoint"].units = max(1, len(run.boundary.get("checkpoint", [])))


def run_one(ref: str, home: Path) -> Lesson:
    from learner_wait import responder, run_lesson

    from tutor.engine.drafter import Drafter
    from tutor.llm.skills import load_skill
    from tutor.testing.model_server import ModelServer

    names = ("tutor", "grader", "GATE:fact_check", "GATE:quiz_audit", "GATE:grade_audit")
    counter = Counter(responder(), {load_skill(n): n for n in names})
    with ModelServer(default=counter) as srv:
        run = run_lesson(Drafter, srv.base_url, ref, 0.0, home)
    count_units(counter.lesson, run)
    return counter.lesson


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", help="one lesson, e.g. 'P1 L02' (default: every lesson)")
    parser.add_argument("--show", action="store_true", help="print each group's largest request")
    args = parser.parse_args()
    from learning_system.curriculum import load_curriculum
    from tutor.config import builtin_course_path

    course = load_curriculum(builtin_course_path())
    refs = [args.lesson] if args.lesson else [lesson.id for lesson in course.lessons]
    met = True
    worst: dict[str, float] = defaultdict(float)
    with tempfile.TemporaryDirectory() as home:
        os.environ["TUTOR_HOME"] = home
        for ref in refs:
            lesson = run_one(ref, Path(home))
            print(f"{ref}: prompt {lesson.prompt:,} completion {lesson.completion:,} tokens")
            for name, tally in sorted(lesson.groups.items()):
                p, c = tally.per_unit()
                worst[name] = max(worst[name], tally.per_audited())
                audited = (
                    f"; per one audited ({tally.audited}): prompt {tally.per_audited():,.0f}"
                    if tally.audited
                    else ""
                )
                print(
                    f"  {name:<15} {tally.requests:>3} requests for {tally.units:>2} "
                    f"→ per one: prompt {p:,.0f} completion {c:,.0f}{audited}"
                )
                if args.show:
                    print("    largest:", lesson.biggest.get(name, "")[:4000])
            worst["lesson"] = max(worst["lesson"], lesson.prompt)
    for name, target in (
        ("teaching step", STEP_TARGET),
        ("probe question", PROBE_TARGET),
        ("lesson", LESSON_TARGET),
    ):
        ok = worst[name] <= target
        met &= ok
        print(
            f"target: prompt tokens per {name} <= {target:,}: "
            f"{'met' if ok else 'MISSED'} (worst {worst[name]:,.0f})"
        )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
