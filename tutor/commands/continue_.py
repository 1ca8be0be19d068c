"""`tutor continue`: resume where the learner stopped, or start the next lesson."""

from __future__ import annotations

import argparse


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help="resume where you stopped, or start the next lesson",
                       description="Resume where you stopped, or start the next lesson.")
    p.add_argument("--curriculum", metavar="PATH", help="use this curriculum for this run")
    p.add_argument("--plain", action="store_true",
                   help="line-mode dialogue on stdin/stdout (screen readers, scripts)")
    return p


def run(args: argparse.Namespace) -> int:
    from tutor import learner

    with learner.open_store() as store:
        curriculum = learner.load(learner.curriculum_path(store, args.curriculum))
        session = store.latest_session(curriculum=str(curriculum.root))
        lesson = curriculum.next_lesson(session["lesson_id"] if session else None)
    if lesson is None:
        print(f"You have finished {curriculum.name}. Run `tutor review` to keep it fresh.")
        return 0
    print(f"{curriculum.name} · {lesson.id} {lesson.title}")
    return 0
