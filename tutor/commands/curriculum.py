"""`tutor curriculum check PATH [--json]`: read a curriculum and report what was found.

Exit status: 0 when the curriculum is usable (warnings allowed), 1 when it has errors, 2 when
PATH is not a curriculum at all."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tutor.output import dumps


def add_parser(subparsers: Any, name: str) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        name,
        help="read and check a curriculum",
        description="Work with a curriculum checkout (phases/NN-slug/NN-slug/ lesson folders, "
        "each with docs/en.md and quiz.json).",
    )
    actions = parser.add_subparsers(dest="curriculum_action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="read a curriculum and report counts, warnings and errors",
        description="Read every lesson document and quiz bank under PATH and report how many "
        "phases, lessons and quiz items were read, plus a warning for each file or quiz item "
        "that could not be read as written. Exit 0 when usable, 1 when it has errors, 2 when "
        "PATH is not a curriculum.",
    )
    check.add_argument("path", metavar="PATH", help="the curriculum folder (it holds phases/)")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    if args.curriculum_action == "check":
        return _check(args.path, as_json=args.json)
    return 2


def _check(path: str, as_json: bool) -> int:
    from learning_system.curriculum import load_curriculum

    curriculum = load_curriculum(path)  # a CurriculumError is a TutorError: the cli exits 2
    lessons = curriculum.lessons
    quiz_items = sum(len(lesson.quiz) for lesson in lessons)
    if as_json:
        report = {
            "path": str(curriculum.root),
            "name": curriculum.name,
            "phases": len(curriculum.phases),
            "lessons": len(lessons),
            "quiz_items": quiz_items,
            "glossary_terms": len(curriculum.glossary),
            "warnings": [p.model_dump(exclude={"severity"}) for p in curriculum.warnings],
            "errors": [p.model_dump(exclude={"severity"}) for p in curriculum.errors],
        }
        print(dumps(report, indent=2))
    else:
        _print_report(curriculum, len(lessons), quiz_items)
    return 1 if curriculum.errors else 0


def _print_report(curriculum: Any, lessons: int, quiz_items: int) -> None:
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    print(f"curriculum: {curriculum.name} ({curriculum.root})")
    print(f"phases: {len(curriculum.phases)}")
    print(f"lessons: {lessons}")
    print(f"quiz items: {quiz_items}")
    print(f"glossary terms: {len(curriculum.glossary)}")
    print(f"warnings: {len(curriculum.warnings)}")
    for problem in curriculum.warnings:
        print(f"  {problem}")
    print(f"errors: {len(curriculum.errors)}")
    for problem in curriculum.errors:
        print(f"  {problem}")
    verdict = "not usable: fix the errors above" if curriculum.errors else "usable"
    print(f"result: {verdict}")
