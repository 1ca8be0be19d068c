"""`tutor review`: due mistakes first, then due concepts. Offline."""

from __future__ import annotations

import argparse
from contextlib import suppress


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="review what is due: mistakes first, then concepts (offline)",
        description="Review what is due: mistakes first, then concepts. Stop any time: q or "
        "ctrl+q (ctrl+q in a text box) on a terminal; p or q with --plain (/p at a written "
        "answer). Every answer is saved when you give it.",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="line-mode dialogue on stdin/stdout (screen readers, scripts)",
    )
    return p


def run(args: argparse.Namespace) -> int:
    from tutor.commands.continue_ import wants_app

    if wants_app(args):
        from tutor.app import run_app

        return run_app("review")
    from tutor import learner
    from tutor.engine.runner import open_review
    from tutor.plain import Paused, PlainIO, drive

    io = PlainIO()
    with learner.open_store() as store:
        session = open_review(store, curriculum=learner.load(learner.curriculum_path(store)))
        try:
            drive(io, session)
        except Paused as stop:
            with suppress(OSError):  # after a hangup there is no terminal to say it on
                io.say("Review stopped. Everything you answered is saved.")
            return stop.exit_code
        finally:
            session.close()
    return 0
