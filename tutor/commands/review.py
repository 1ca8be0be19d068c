"""`tutor review`: due mistakes first, then due concepts. Offline."""

from __future__ import annotations

import argparse


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help="review what is due: mistakes first, then concepts (offline)",
                       description="Review what is due: mistakes first, then concepts.")
    p.add_argument("--plain", action="store_true",
                   help="line-mode dialogue on stdin/stdout (screen readers, scripts)")
    return p


def run(args: argparse.Namespace) -> int:
    from learning_system import ledger
    from tutor import learner

    with learner.open_store() as store:
        due = ledger.due_queue(store)
    print(f"{len(due)} items due." if due else "Nothing is due. Well done.")
    return 0
