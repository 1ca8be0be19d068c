"""`tutor dossier build|status`: the lessons' knowledge packs (tutor/dossier), built in the
background from the lesson's source by the model, reviewed, and checked for coverage. Not to be
confused with `tutor packet`'s study packets."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="build and inspect the lessons' knowledge packs (reviewed facts per lesson)",
        description="A knowledge pack holds a lesson's must-know facts, procedures, cases, "
        "common errors and the evidence a learner must show, each resting on numbered units "
        "of the lesson's source. Packs are built by the model and checked by the program.",
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    build = verbs.add_parser("build", help="build the packs of a lesson, a phase or all")
    build.add_argument("lesson", metavar="LESSON", nargs="?", help="a lesson id such as 'P1 L02'")
    build.add_argument("--phase", type=int, metavar="N", help="every lesson of phase N")
    build.add_argument("--all", action="store_true", help="every lesson of the curriculum")
    build.add_argument(
        "--force", action="store_true", help="rebuild packs that are ready and current too"
    )
    build.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="seconds per lesson (300)"
    )
    status = verbs.add_parser("status", help="each lesson's pack state, gaps, tokens and age")
    status.add_argument("--json", action="store_true", help="print machine-readable JSON")
    for q in (build, status):
        q.add_argument(
            "--curriculum",
            metavar="PATH",
            help="curriculum folder (default: the one chosen with `tutor init`)",
        )
    return p


def run(args: argparse.Namespace) -> int:
    from tutor import learner

    with learner.open_store() as store:
        curriculum = learner.load(learner.curriculum_path(store, args.curriculum))
        if args.verb == "status":
            return _status(store, curriculum, args.json)
        return _build(store, curriculum, args)


def _chosen(curriculum: Curriculum, args: argparse.Namespace) -> list[Lesson]:
    from tutor.errors import TutorError

    given = sum(x for x in (args.lesson is not None, args.phase is not None, args.all))
    if given != 1:
        raise TutorError("say which packs to build: LESSON, --phase N or --all (one of them)")
    if args.lesson is not None:
        return [curriculum.lesson(args.lesson)]
    if args.all:
        return curriculum.lessons
    lessons = curriculum.phase_lessons(args.phase)
    if not lessons:
        raise TutorError(f"phase {args.phase} has no lessons in {curriculum.name}")
    return lessons


def _build(store, curriculum: Curriculum, args: argparse.Namespace) -> int:
    import asyncio

    from tutor.dossier.build import BuildOptions, build_packs
    from tutor.dossier.report import OFFLINE, progress_line, summary_line
    from tutor.dossier.status import lesson_pack
    from tutor.dossier.units import lesson_source
    from tutor.llm.settings import load_settings

    lessons = _chosen(curriculum, args)
    settings = load_settings()
    if settings.offline:
        print(f"tutor: {OFFLINE}", file=sys.stderr)
        return 1
    todo = []
    for lesson in lessons:
        source = lesson_source(lesson, curriculum)
        if args.force or lesson_pack(store, source).state != "ready":
            todo.append((source, lesson.title))
    skipped = len(lessons) - len(todo)
    if skipped:
        print(f"{skipped} of {len(lessons)} packs are ready and current (--force rebuilds them)")
    done: list[int] = [0]

    def progress(result) -> None:
        done[0] += 1
        print(progress_line(done[0], len(todo), result), file=sys.stderr, flush=True)

    options = BuildOptions(timeout=args.timeout)
    results = asyncio.run(build_packs(store, todo, settings, options, progress))
    if todo:
        print(summary_line(results))
    return 0 if all(r.state in ("ready", "review_required") for r in results) else 1


def _status(store, curriculum: Curriculum, as_json: bool) -> int:
    from tutor.dossier.report import status_table
    from tutor.dossier.status import curriculum_packs
    from tutor.output import dumps

    rows = curriculum_packs(store, curriculum)
    if as_json:
        print(dumps([p.as_json() for p, _ in rows], indent=2, ensure_ascii=False))
    else:
        print(status_table(rows))
    return 0
