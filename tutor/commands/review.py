"""`tutor review`: due mistakes first, then due concepts. Offline."""

from __future__ import annotations

import argparse


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help="review what is due: mistakes first, then concepts (offline)",
                       description="Review what is due: mistakes first, then concepts. "
                       "Stop any time with p; every answer is saved when you give it.")
    p.add_argument("--plain", action="store_true",
                   help="line-mode dialogue on stdin/stdout (screen readers, scripts)")
    return p


def run(args: argparse.Namespace) -> int:
    from tutor import learner
    from tutor.engine.review import review_script
    from tutor.plain import Paused, PlainIO, drive

    io = PlainIO()
    with learner.open_store() as store:
        script = review_script(store)
        try:
            drive(io, next(script), script.send)
        except Paused:
            io.say("Review stopped. Everything you answered is saved.")
    return 0
