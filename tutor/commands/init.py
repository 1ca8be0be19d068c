"""`tutor init`: point the learner at a curriculum."""

from __future__ import annotations

import argparse


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="choose the curriculum to follow (default: the built-in course)",
        description="Point the tutor at a curriculum checkout. Without "
        "--curriculum, goes back to the built-in course.",
    )
    p.add_argument("--curriculum", metavar="PATH", help="a curriculum folder (phases/…/docs/en.md)")
    return p


def run(args: argparse.Namespace) -> int:
    from tutor import learner
    from tutor.config import builtin_course_path

    with learner.open_store() as store:
        path = learner.curriculum_path(store, args.curriculum or builtin_course_path())
        curriculum = learner.load(path)
        store.set_setting(learner.CURRICULUM_KEY, str(path))
    first = curriculum.lessons[0]
    print(
        f"Following {curriculum.name} ({path}): {len(curriculum.lessons)} lessons, "
        f"{len(curriculum.warnings)} warnings."
    )
    print(f"Start with `tutor continue` ({first.id} {first.title}).")
    return 0
