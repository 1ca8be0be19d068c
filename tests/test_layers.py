"""The dependency direction of DESIGN.md, and a cold start that imports nothing heavy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(folder: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def test_learning_system_imports_nothing_from_the_app():
    for path, names in imported_modules(ROOT / "learning_system").items():
        assert not [n for n in names if n == "tutor" or n.startswith("tutor.")], path


def test_gates_stay_pure():
    banned = (
        "tutor.engine",
        "tutor.llm",
        "tutor.scout",
        "tutor.app",
        "tutor.clerk",
        "learning_system.store",
        "sqlite3",
        "httpx2",
        "openai",
    )
    for path, names in imported_modules(ROOT / "tutor" / "gates").items():
        if path.endswith("audit.py"):  # hands receipts to a store it is given
            continue
        assert not [n for n in names if n.startswith(banned)], path


def test_engine_does_not_import_a_front_end():
    for path, names in imported_modules(ROOT / "tutor" / "engine").items():
        assert not [
            n
            for n in names
            if n.startswith(("textual", "tutor.app", "tutor.plain", "tutor.commands"))
        ], path


def test_one_front_end_never_reaches_into_another():
    for path, names in imported_modules(ROOT / "tutor" / "app").items():
        assert not [n for n in names if n.startswith(("tutor.commands", "tutor.plain"))], path
    for path, names in imported_modules(ROOT / "tutor" / "commands").items():
        assert not [n for n in names if n.startswith("tutor.app.")], path  # `run_app` only


def test_the_modules_beside_the_front_ends_sit_below_the_engine():
    """tutor/*.py other than the front ends (cli, plain) is what every layer may use: settings,
    errors, output, the learner's choices, the doctor's report."""
    front_ends = {"cli.py", "plain.py"}
    for path in sorted((ROOT / "tutor").glob("*.py")):
        if path.name in front_ends:
            continue
        names = imported_modules(ROOT / "tutor").get(str(path.relative_to(ROOT)), set())
        assert not [
            n for n in names if n.startswith(("tutor.engine", "tutor.app", "tutor.commands"))
        ], path


def test_the_clerk_and_the_engine_share_the_lesson_outcome_without_importing_each_other():
    for path, names in imported_modules(ROOT / "tutor" / "clerk").items():
        assert not [n for n in names if n.startswith("tutor.engine")], path
    for path, names in imported_modules(ROOT / "tutor" / "engine").items():
        if path.endswith("runner.py"):  # hands a finished lesson to the Clerk, lazily
            continue
        assert not [n for n in names if n.startswith("tutor.clerk")], path


def test_cold_start_of_the_cli_imports_nothing_heavy():
    code = (
        "import sys; from tutor.cli import build_parser; build_parser(); "
        "print(sorted(m for m in ('openai', 'textual', 'httpx2', 'trafilatura', 'fsrs', "
        "'sqlite_utils') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


def test_the_parser_of_one_command_imports_that_command_alone():
    code = (
        "import sys; from tutor.cli import build_parser; "
        "args = build_parser('continue').parse_args(['continue', '--offline']); "
        "print(args.command, args.offline, sorted(m for m in sys.modules "
        "if m.startswith('tutor.commands.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "continue True ['tutor.commands.continue_']"
