"""The `tutor` command. Imports nothing heavy at module level: each command module is small and
imports what it needs inside its `run`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from tutor import __version__

# command name -> module under tutor.commands defining add_parser(subparsers) and run(args) -> int
COMMANDS: dict[str, str] = {
    "continue": "continue_",
    "review": "review",
    "status": "status",
    "init": "init",
    "curriculum": "curriculum",
    "views": "views",
    "ingest": "ingest",
    "doctor": "doctor",
    "scout": "scout",
    "items": "items",
    "gate": "gate",
    "quiz": "quiz",
    "packet": "packet",
    "dossier": "dossier",
    "plan": "plan",
}


# Commands that are front ends (plain dialogue or the app): they own their output.
INTERACTIVE = frozenset({"continue", "review", None})


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of `command` when it names one (its module alone is
    imported: `tutor continue` does not import the other twelve)."""
    parser = argparse.ArgumentParser(
        prog="tutor",
        description="A terminal tutor that finds the edge of what you know and teaches from "
        "checked sources. With no command, runs `tutor continue`.",
    )
    parser.add_argument("--version", action="version", version=f"tutor {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        if command in COMMANDS and name != command:
            continue
        mod = importlib.import_module(f"tutor.commands.{module}")
        p = mod.add_parser(sub, name)
        p.set_defaults(_run=mod.run, _parser=p)
    return parser


def main(argv: list[str] | None = None) -> int:
    # the tutor uses no pydantic plugins; looking for them reads every installed package's
    # metadata (~0.1 s of each start)
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["continue", *argv]
    parser = build_parser(argv[0])
    args, extra = parser.parse_known_args(argv)
    if extra:  # said with the command's own usage, not the top level's
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    from learning_system.errors import LearningSystemError

    stdout = sys.stdout
    if args.command not in INTERACTIVE:  # the front ends clean what they show themselves
        from tutor.output import SafeStream

        sys.stdout = SafeStream(stdout)
    try:
        return int(args._run(args) or 0)
    except LearningSystemError as exc:
        from tutor.output import one_line

        print(f"tutor: {one_line(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # output piped into a reader that stopped early (e.g. `| head`)
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("\ntutor: stopped; everything answered so far is saved.", file=sys.stderr)
        return 130
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
