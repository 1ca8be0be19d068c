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
    from tutor.engine.runner import UNRESUMABLE

    with learner.open_store() as store:
        path = learner.curriculum_path(store, args.curriculum or builtin_course_path())
        curriculum = learner.load(path)
        store.set_setting(learner.CURRICULUM_KEY, str(path))
        here = store.sessions.latest(curriculum=str(path))
        done = store.sessions.latest(curriculum=str(path), status="done")
        elsewhere = store.sessions.latest_unfinished()
    print(
        f"Following {curriculum.name} ({path}): {len(curriculum.lessons)} lessons, "
        f"{len(curriculum.warnings)} warnings."
    )
    following = curriculum.next_lesson(done["lesson_id"] if done else None)
    if here is not None and here["status"] not in UNRESUMABLE:
        ref, where = here["lesson_id"], f"{here['lesson_id']}, where you paused it"
    elif following is not None:
        ref, where = following.id, f"{following.id} {following.title}"
    else:
        print("Every lesson of it is done: `tutor review` keeps what you learnt.")
        return 0
    if (
        elsewhere is not None
        and elsewhere["status"] not in UNRESUMABLE
        and elsewhere["curriculum"] != str(path)
    ):
        print(
            f"`tutor continue` first resumes {elsewhere['lesson_id']}, paused in "
            f'{elsewhere["curriculum"]}; to go on here now: `tutor continue --lesson "{ref}"` '
            f"({where})."
        )
    else:
        print(f"Go on with `tutor continue` ({where}).")
    return 0
