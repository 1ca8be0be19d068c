"""`tutor plan LESSON`: the plan of each of a lesson's own teaching steps for this learner —
objective, mission, representations, required facts (by reference), support, components — with
the rationale codes and any fallback reason. A session stores the plan of each step it shows."""

from __future__ import annotations

import argparse
from typing import Any

from tutor.output import dumps


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="each teaching step's plan for you, with its rationale codes",
        description="Print the plan of each of LESSON's own teaching steps as your [learner] "
        "settings and your record shape it (prerequisite refreshes depend on the probe and "
        "are planned in the session).",
    )
    p.add_argument("lesson", metavar="LESSON", help="a lesson id such as 'P1 L01'")
    p.add_argument("--curriculum", metavar="PATH", help="the curriculum to read")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return p


def run(args: argparse.Namespace) -> int:
    from tutor import learner
    from tutor.engine.personal import session_learner
    from tutor.engine.projection import project
    from tutor.engine.step_plan import plan_step
    from tutor.engine.steps import teaching_sections
    from tutor.errors import TutorError

    with learner.open_store() as store:
        curriculum = learner.load(learner.curriculum_path(store, args.curriculum), [args.lesson])
        try:
            lesson = curriculum.lesson(args.lesson)
        except LookupError as exc:
            raise TutorError(str(exc)) from None
        declared, evidence = session_learner(store, curriculum, lesson)
    projection = project(declared, evidence)
    plans = [
        plan_step(s.title, s, lesson.objectives, "primary", projection).as_dict()
        for s in teaching_sections(lesson)
    ]
    report: dict[str, Any] = {
        "lesson": lesson.id,
        "projection": projection.buckets(),
        "steps": plans,
    }
    if args.json:
        print(dumps(report, indent=2))
    else:
        _print(report, lesson.title)
    return 0


def _print(report: dict[str, Any], title: str) -> None:
    from tutor.output import clean_text

    p = report["projection"]
    print(clean_text(f"{report['lesson']} {title}: plans under {p['version']}"))
    print(
        f"declared: {', '.join(p['declared']) or 'nothing'} · inferred: {p['inferred']} · "
        f"support: {p['band']} · density {p['density']}"
        + (" · calibrating" if p["calibrating"] else "")
    )
    for n, s in enumerate(report["steps"], 1):
        print(clean_text(f"\n{n}. {s['step']} ({s['mission']})"))
        print(clean_text(f"   objective: {s['objective']}"))
        print(f"   shown as: {', '.join(s['representations'])}")
        print(f"   components: {', '.join(s['components'])}")
        print(f"   required facts: {len(s['required_facts'])} key sentences by reference")
        print(f"   rationale: {' '.join(s['rationale'])}")
        if s["fallback_reason"]:
            print(clean_text(f"   not as asked: {s['fallback_reason']}"))
