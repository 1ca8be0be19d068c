"""`tutor views [--out DIR]`: write the markdown views of your records."""

from __future__ import annotations

import argparse


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="write markdown views of your records (concepts, mistakes, lessons, pages)",
        description="Generate markdown views of your records from the store: active concepts, "
        "mistakes, learning records, knowledge pages and session notes. They are rewritten "
        "from scratch each time and never read back.",
    )
    p.add_argument(
        "--out", metavar="DIR", help="folder to write them in (default: views/ in your tutor home)"
    )
    return p


def run(args: argparse.Namespace) -> int:
    from learning_system.views import ViewsError, write_views
    from tutor import learner
    from tutor.config import tutor_home
    from tutor.errors import TutorError

    with learner.open_store() as store:
        try:
            paths = write_views(store, args.out or tutor_home() / "views")
        except ViewsError as exc:
            raise TutorError(str(exc)) from None
        except OSError as exc:
            raise TutorError(
                f"cannot write the views to {args.out or 'your tutor home'}: "
                f"{exc.strerror or exc}; choose another folder with --out"
            ) from None
    for path in paths:
        print(path)
    return 0
