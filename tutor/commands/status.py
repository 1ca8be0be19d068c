"""`tutor status`: where the learner is and what is due."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.output import dumps

if TYPE_CHECKING:
    from tutor.engine.calibration import Calibration


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="position, due counts, concepts by status, mastery",
        description="Show where you are, what is due, and your concepts.",
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return p


def gather() -> tuple[dict, Calibration]:
    """What `tutor status` shows, and the calibration its JSON was made from."""
    from learning_system import ledger
    from tutor import learner
    from tutor.engine.calibration import calibration

    with learner.open_store() as store:
        calibrated = calibration(store)
        session = store.sessions.latest_unfinished() or store.sessions.latest()
        chosen = str(learner.curriculum_path(store))
        shown = session["curriculum"] if session and session["curriculum"] else chosen
        data = {
            "store": str(store.path),
            # the curriculum of the position shown; the chosen one when nothing is started
            "curriculum": shown,
            "continue": learner.resume_command(store, Path(shown)),
            "default_curriculum": chosen,
            "position": None
            if session is None
            else {
                "session": session["id"],
                "lesson": session["lesson_id"],
                "status": session["status"],
                "where": session["position"],
            },
            "due": ledger.due_counts(store),
            "concepts": ledger.concepts_by_status(store),
            "mastery": ledger.mean_mastery(store),
            "calibration": calibrated.as_json(),
        }
        return data, calibrated


def run(args: argparse.Namespace) -> int:
    from tutor.engine.home_summary import due_now

    data, calibrated = gather()
    if args.json:
        print(dumps(data, indent=2))
        return 0
    pos = data["position"]
    print(f"Curriculum: {data['curriculum']}")
    if data["default_curriculum"] != data["curriculum"]:
        print(f"            (your chosen curriculum: {data['default_curriculum']})")
    if pos is None:
        where = "not started — run `tutor continue`"
    elif pos["status"] == "done":
        where = f"finished {pos['lesson']} — `{data['continue']}` starts the next lesson"
    else:
        where = f"{pos['lesson']} · {pos['where']} ({pos['status']})"
    print(f"Position:   {where}")
    print(f"Due now:    {due_now(data['due']['mistakes'], data['due']['concepts'])}")
    held = ", ".join(f"{n} {s}" for s, n in sorted(data["concepts"].items())) or "none yet"
    print(f"Concepts:   {held}")
    if data["mastery"] is not None:
        print(f"Mastery:    {data['mastery']:.2f} of 0.80 (advisory)")
    for line in calibrated.lines():
        print(line)
    print(f"Store:      {data['store']}")
    return 0
