"""The dependency direction of DESIGN.md, and a cold start that imports nothing heavy."""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def imported_modules(folder: Path) -> dict[str, set[str]]:
    """The modules each file under `folder` imports, by path (read once per run: read-only)."""
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
    imports = imported_modules(ROOT / "tutor")
    for path in sorted((ROOT / "tutor").glob("*.py")):
        if path.name in front_ends:
            continue
        names = imports.get(str(path.relative_to(ROOT)), set())
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


def test_the_engine_stays_in_small_phases():
    """A newcomer finds the lesson's phases: no engine module over 400 lines, the lesson's
    conductor under 250, and no function over 65 lines (issue 20)."""
    engine = ROOT / "tutor" / "engine"
    for path in engine.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        limit = 250 if path == engine / "lesson.py" else 400
        assert len(source.splitlines()) <= limit, path
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= 65, f"{path}:{node.lineno} {node.name} is {length} lines"
    phases = {p.stem for p in (engine / "phases").glob("*.py")}
    assert {"prior", "probe", "results", "plan", "teach", "quiz", "end"} <= phases


# the store layer: learning_system/store.py and the tables under learning_system/tables/ ----
STORE_LAYER = (
    "learning_system/store.py",
    "learning_system/store_errors.py",  # SQLite's errors told apart
    "learning_system/store_files.py",  # the read-only opening checks
    "learning_system/tables/",
)
SQL = re.compile(
    r"\b(SELECT\s.*\bFROM\b|INSERT\s+(OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|"
    r"CREATE\s+(TABLE|INDEX|VIEW|TRIGGER)\b|DROP\s+(TABLE|INDEX)\b|PRAGMA\s|BEGIN\s+IMMEDIATE)",
    re.S,
)
RUNS_SQL = {"execute", "executemany", "executescript", "rows", "fetchone", "fetchall"}


def sql_outside_the_store_layer() -> list[str]:
    found = []
    for package in ("tutor", "learning_system"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(STORE_LAYER):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{rel}:{getattr(node, 'lineno', '?')}"
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if SQL.search(node.value):
                        found.append(f"{where}: an SQL string")
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    if node.func.attr in RUNS_SQL:
                        found.append(f"{where}: .{node.func.attr}(…)")
                elif isinstance(node, ast.Import | ast.ImportFrom):
                    names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                    module = node.module if isinstance(node, ast.ImportFrom) else None
                    if any(n.split(".")[0] in ("sqlite3", "sqlite_utils") for n in names) or (
                        module and module.split(".")[0] in ("sqlite3", "sqlite_utils")
                    ):
                        found.append(f"{where}: imports SQLite")
    return found


def test_only_the_store_layer_runs_sql():
    """One data-access style: every SQL statement is in learning_system/store.py or a table
    of learning_system/tables/; everything else calls their methods (`store.concepts.get`,
    `store.sessions.save`, …), never `execute`/`rows` or a connection of its own."""
    assert sql_outside_the_store_layer() == []


def test_the_sql_rule_sees_sql():
    assert SQL.search("SELECT id FROM concepts WHERE x = ?")
    assert SQL.search("INSERT OR IGNORE INTO attempts (id) VALUES (?)")
    assert SQL.search("UPDATE mistakes SET status = ?")
    assert not SQL.search("Select the option you are sure of, then update the plan.")


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
