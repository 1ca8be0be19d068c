"""Knowledge packs for people (issue 24, parts 6 and 7): without a model the lesson says once,
quietly, that no pack is built and teaches from its digest (plain and app); the app's sources
screen shows the lesson's pack state and its blocking gaps only."""

from __future__ import annotations

import asyncio
import re

import pytest
from app_driver import settle
from plain_driver import Learner
from test_app_snapshots import _fixed_session_id
from test_app_snapshots import _scout as _sources
from test_plain import drive_until

from learning_system.store import Store
from tutor import learner
from tutor.app.app import TutorApp
from tutor.app.session_screen import SessionScreen
from tutor.dossier.build import build_pack
from tutor.dossier.teaching import OFFLINE_LESSON
from tutor.dossier.units import lesson_source
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer
from tutor.testing.pack_model import PackModel

pytestmark = pytest.mark.usefixtures("isolated_model_env")


def first_lesson_pack(home, model: PackModel) -> str:
    """Build the pack of the lesson `tutor continue` starts first, in `home`'s store."""
    with Store(home / "tutor.db") as store, ModelServer(default=model) as srv:
        curriculum = learner.load(learner.continue_path(store))
        lesson = curriculum.lessons[0]
        settings = fast_settings(srv.base_url, timeout=5)
        source = lesson_source(lesson, curriculum)
        return asyncio.run(build_pack(store, source, lesson.title, settings)).state


def test_without_a_model_the_plain_lesson_says_once_that_no_pack_is_built(tmp_path):
    first = Learner(tmp_path, "continue", "--plain", "--offline")
    drive_until(first, r"Step 2/\d+")
    first.finish()
    assert first.stderr.count(OFFLINE_LESSON) == 1, first.stderr
    assert OFFLINE_LESSON not in first.transcript  # quietly: not in the lesson's dialogue
    assert re.search(r"Step 2/\d+", first.transcript)  # taught, from the digest

    again = Learner(tmp_path, "continue", "--plain", "--offline")
    assert "resuming at" in again.read_prompt()
    again.finish()
    assert OFFLINE_LESSON not in again.stderr  # once per lesson: not again on resume


def test_with_a_ready_pack_and_no_model_there_is_no_notice(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    assert first_lesson_pack(tmp_path, PackModel()) == "ready"
    run = Learner(tmp_path, "continue", "--plain", "--offline")
    run.read_prompt()
    run.finish()
    assert OFFLINE_LESSON not in run.stderr


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    _fixed_session_id(monkeypatch)
    return tmp_path


def test_the_sources_screen_shows_a_review_required_pack_and_its_gaps(snap_compare, home):
    assert first_lesson_pack(home, PackModel(uncovered={"u2", "u3"})) == "review_required"
    app = TutorApp(mode="continue", offline=True, store=Store(home / "tutor.db"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_sources)


def body_text(screen: SessionScreen) -> str:
    return "\n".join(str(w.render()) for w in screen.query("#body Static"))


async def test_in_the_app_the_notice_is_on_the_sources_screen_only(home):
    app = TutorApp(mode="continue", offline=True, store=Store(home / "tutor.db"))
    async with app.run_test(size=(100, 30)) as pilot:
        await _sources(pilot)
        screen = pilot.app.screen
        assert body_text(screen).count(OFFLINE_LESSON) == 1
        for _ in range(3):
            await pilot.press("enter")
            await settle(pilot, screen)
            assert screen.stage == "prompt" and OFFLINE_LESSON not in body_text(screen)


def test_pack_lines_show_the_state_and_blocking_gaps_only():
    from tutor.dossier.report import BUILD_IT, BUILDING, pack_lines
    from tutor.dossier.status import LessonPack

    gaps = [
        f"gap: unit u{n} (docs/en.md lines {n}-{n + 1}, 'Part') is covered by no atom"
        for n in range(7)
    ]
    pack = LessonPack("P1 L02", "review_required", [*gaps, "evidence e1 points at no atom"])
    lines = pack_lines(pack)
    assert lines[0].startswith("knowledge pack: review_required — 7 blocking gaps and 1 other")
    assert lines[1] == "  gap: 'Part' (lines 0-1 of en.md, u0)"
    assert len(lines) == 1 + 5 + 1 and "2 more" in lines[-1]
    assert not any("e1" in line for line in lines)
    assert pack_lines(LessonPack("P1 L02", "stale"), later=BUILDING) == [
        "knowledge pack: stale (building it in the background for your next session)"
    ]
    assert pack_lines(LessonPack("P1 L02", "none"), later=BUILD_IT) == [
        "knowledge pack: not built (`tutor dossier build` builds it)"
    ]
    assert pack_lines(LessonPack("P1 L02", "none"), OFFLINE_LESSON) == [OFFLINE_LESSON]
