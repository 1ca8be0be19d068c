"""`tutor dossier build|status` in real processes against the loopback server's pack model
(issue 24): progress, states, the 80-column status, and offline said once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tutor.config import builtin_course_path
from tutor.testing.model_server import ModelServer
from tutor.testing.pack_model import PackModel

pytestmark = pytest.mark.usefixtures("isolated_model_env")


def tutor(home: Path, *args: str, base_url: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TUTOR_", "OPENAI_"))}
    env["TUTOR_HOME"] = str(home)
    if base_url is not None:
        env.update(TUTOR_BASE_URL=base_url, TUTOR_MODEL="loopback-model", TUTOR_TIMEOUT="10")
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture
def course(tmp_path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(builtin_course_path(), root)
    return root


def statuses(home: Path, course: Path) -> dict[str, dict]:
    out = tutor(home, "dossier", "status", "--json", "--curriculum", str(course))
    assert out.returncode == 0, out.stderr
    return {entry["lesson"]: entry for entry in json.loads(out.stdout)}


def test_a_phase_builds_to_ready_with_progress_and_status_shows_it(tmp_path, course):
    home = tmp_path / "home"
    with ModelServer() as srv:
        srv.always(PackModel())
        build = ("dossier", "build", "--phase", "1", "--curriculum", str(course))
        out = tutor(home, *build, base_url=srv.base_url)
        again = tutor(home, *build, base_url=srv.base_url)
    assert out.returncode == 0, out.stderr
    lessons = [ln for ln in out.stderr.splitlines() if ln.startswith("[")]
    assert len(lessons) >= 2 and lessons[-1].startswith("[####################]")
    assert "ready" in out.stdout and "Traceback" not in out.stderr
    assert "are ready and current" in again.stdout and not again.stderr  # nothing rebuilt
    states = statuses(home, course)
    phase1 = [e for lesson, e in states.items() if lesson.startswith("P1 ")]
    assert phase1 and all(e["state"] == "ready" and e["tokens"] > 0 for e in phase1)
    table = tutor(home, "dossier", "status", "--curriculum", str(course)).stdout
    assert all(len(line) <= 80 for line in table.splitlines())
    assert table.splitlines()[0].split() == ["LESSON", "STATE", "GAPS", "TOKENS", "AGE", "TITLE"]


def test_review_required_and_stale_are_shown_with_the_gaps_to_review(tmp_path, course):
    home = tmp_path / "home"
    with ModelServer() as srv:
        srv.always(PackModel(uncovered={"u3"}))
        out = tutor(
            home, "dossier", "build", "P1 L02", "--curriculum", str(course), base_url=srv.base_url
        )
        assert out.returncode == 0 and "1 review_required" in out.stdout
        srv.always(PackModel())
        tutor(
            home, "dossier", "build", "P1 L01", "--curriculum", str(course), base_url=srv.base_url
        )
    table = tutor(home, "dossier", "status", "--curriculum", str(course)).stdout
    assert "P1 L02 needs review:" in table
    assert any(ln.startswith("  - gap: unit u3 (") for ln in table.splitlines())
    assert all(len(line) <= 80 for line in table.splitlines())
    doc = next(course.glob("phases/01-*/01-*/docs/en.md"))
    doc.write_text(doc.read_text(encoding="utf-8") + "\nAn edit.\n", encoding="utf-8")
    states = statuses(home, course)
    assert states["P1 L01"]["state"] == "stale"
    assert states["P1 L02"]["state"] == "review_required"


def test_a_build_that_does_not_end_ready_says_why_on_the_spot(tmp_path, course):
    """Found by an outside tester: a failed build printed only "failed (0 tokens, 1.6 s)", the
    reason only in `tutor dossier status`. The line under the progress bar says it (the server's
    own words cleaned for the terminal); a pack needing review names its first problem."""
    from tutor.testing.model_server import Reply

    home = tmp_path / "home"
    args = ("dossier", "build", "P1 L02", "--curriculum", str(course))
    with ModelServer() as srv:
        srv.always(Reply.error(500, "internal error \x1b[31mboom"))
        failed = tutor(home, *args, base_url=srv.base_url)
        srv.always(PackModel(uncovered={"u3"}))
        review = tutor(home, *args, base_url=srv.base_url)
    lines = failed.stderr.splitlines()
    bar = next(n for n, line in enumerate(lines) if line.startswith("[") and "failed" in line)
    assert "500" in lines[bar + 1] and "internal error boom" in lines[bar + 1], failed.stderr
    assert "\x1b" not in failed.stderr
    lines = review.stderr.splitlines()
    bar = next(n for n, line in enumerate(lines) if "review_required" in line)
    assert lines[bar + 1].startswith("  ") and "u3" in lines[bar + 1], review.stderr


def test_offline_no_pack_is_built_and_it_is_said_once(tmp_path, course):
    out = tutor(tmp_path / "home", "dossier", "build", "--all", "--curriculum", str(course))
    assert out.returncode == 1
    assert out.stderr.count("no knowledge pack is built") == 1 and out.stdout == ""
    assert all(e["state"] == "none" for e in statuses(tmp_path / "home", course).values())


@pytest.mark.parametrize("args", [[], ["P1 L01", "--all"], ["--phase", "99"], ["P9 L99"]], ids=str)
def test_a_bad_choice_of_lessons_is_one_clear_line(tmp_path, course, args):
    out = tutor(tmp_path / "home", "dossier", "build", *args, "--curriculum", str(course))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
