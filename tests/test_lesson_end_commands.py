"""What a lesson's end and `tutor status` tell the learner to type next: the command that opens
the curriculum the lesson was taken in, not the built-in course's."""

from __future__ import annotations

import json
import shlex

from test_reliability_store import run_tutor

from learning_system.store import Store


def _course(root):
    """One lesson with a title and nothing else: no section to teach from, no question."""
    folder = root / "phases" / "01-p" / "01-empty"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "en.md").write_text("# Empty\n", encoding="utf-8")
    (folder / "quiz.json").write_text(json.dumps([]), encoding="utf-8")
    return root


def test_an_empty_lesson_says_it_has_nothing_and_how_to_try_again(tmp_path):
    """An examiner's empty lesson said its questions were withheld, "already in your records",
    "Next: P2 L01" and "Run `tutor continue`" (which opened the built-in course)."""
    course = _course(tmp_path / "course")
    home = tmp_path / "home"
    done = run_tutor(
        home, "continue", "--plain", "--offline", "--curriculum", str(course), stdin=b"\n" * 20
    )
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "has no questions and no sections to teach from" in out, out
    assert "withheld" not in out and "Next:" not in out and "already in your records" not in out
    again = f"tutor continue --curriculum {shlex.quote(str(course))}"
    assert f"Run `{again}` to try it again." in out, out


def test_status_names_the_curriculum_of_a_finished_lesson(tmp_path):
    course = _course(tmp_path / "course")
    home = tmp_path / "home"
    home.mkdir()
    with Store(home / "tutor.db") as store:
        store.sessions.save("s1", "P1 L01", str(course), "done", "end", {})
    out = run_tutor(home, "status").stdout
    again = f"tutor continue --curriculum {shlex.quote(str(course))}"
    assert f"finished P1 L01 — `{again}` starts the next lesson" in out, out
