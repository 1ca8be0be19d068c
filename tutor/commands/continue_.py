"""`tutor continue`: resume where the learner stopped, or start the next lesson."""

from __future__ import annotations

import argparse
import sys
from contextlib import suppress


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="resume where you stopped, or start the next lesson",
        description="Resume where you stopped, or start the next lesson.",
    )
    p.add_argument("--curriculum", metavar="PATH", help="use this curriculum for this run")
    p.add_argument(
        "--lesson",
        metavar="LESSON",
        help="this lesson (e.g. 'P1 L02'): resumed where you paused it, else started",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="line-mode dialogue on stdin/stdout (screen readers, scripts)",
    )
    p.add_argument(
        "--offline", action="store_true", help="do not fetch the lesson's external references"
    )
    p.add_argument(
        "--take-over",
        action="store_true",
        help="take this lesson over from another tutor that has it open",
    )
    return p


def wants_app(args: argparse.Namespace) -> bool:
    """The app when both ends are a terminal and --plain was not asked for."""
    return not args.plain and sys.stdin.isatty() and sys.stdout.isatty()


def run(args: argparse.Namespace) -> int:
    if wants_app(args):
        from tutor.app import run_app

        return run_app(
            "continue",
            curriculum=args.curriculum,
            lesson=args.lesson,
            offline=args.offline,
            take_over=args.take_over,
        )
    return run_plain(args)


def run_plain(args: argparse.Namespace) -> int:
    from tutor import learner
    from tutor.engine.progress import Activity
    from tutor.engine.runner import after_lesson, open_session
    from tutor.engine.sources import sources_summary
    from tutor.plain import Paused, PlainIO, drive, fit

    io = PlainIO()
    with learner.open_store() as store:
        path = learner.continue_path(store, args.curriculum, args.lesson)
        curriculum = learner.load(path, learner.lessons_for_continue(store, path, args.lesson))
        # references are read quietly (one summary line below); the model's work is said while
        # the learner waits on it
        activity = Activity(io.progress)
        session = open_session(
            store,
            curriculum,
            lesson_ref=args.lesson,
            offline=args.offline,
            progress=lambda line: print(fit(line, sys.stderr), file=sys.stderr),
            activity=activity,
            take_over=args.take_over,
        )
        if session is None:
            io.say(f"You have finished {curriculum.name}. Run `tutor review` to keep it fresh.")
            return 0
        io.say(
            f"{curriculum.name} · {session.title}"
            + (f" · resuming at {session.prompt.position}" if session.resumed else "")
        )
        if not session.resumed:
            for line in (
                sources_summary(session.digest, session.lesson.id),
                session.pack_start.notice,
            ):
                if line:
                    print(fit(line, sys.stderr), file=sys.stderr)
        try:
            drive(io, session)
        except Paused as stop:
            session.pause()
            with suppress(OSError):  # after a hangup there is no terminal to say it on
                io.say(
                    f"Paused at {session.prompt.position}. Everything you answered is saved; "
                    f"run `{learner.resume_command(store, curriculum.root)}` to pick up here."
                )
            return stop.exit_code
        finally:
            session.close()
        for line in after_lesson(store, curriculum, session).lines():
            io.say(line)
        again = learner.resume_command(store, curriculum.root)
        if session.context.completed:
            io.say(f"Run `{again}` for the next lesson, `tutor review` when answers come due.")
        else:
            io.say(f"Run `{again}` to try it again.")
    return 0
