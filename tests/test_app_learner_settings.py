"""The app's settings screen: declared presentations and the theme are saved into `[learner]` of
settings.toml (other tables untouched), read back by the next lesson and the next start."""

from __future__ import annotations

import os
import tomllib
from typing import get_args

import pytest
from test_app_snapshots import _app

from tutor.app.learner_screen import LearnerScreen
from tutor.app.look import THEMES
from tutor.learner_settings import LearnerSettings, load_learner

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def home(tmp_path, monkeypatch, isolated_model_env):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    (tmp_path / "settings.toml").write_text("[sources]\nfetch = false\n\n[learner]\ndensity = 3\n")
    return tmp_path


async def _open(pilot) -> None:
    """From the home screen by its key, as a learner opens it (also in the palette)."""
    await pilot.pause()
    await pilot.press("p")
    await pilot.pause()
    assert isinstance(pilot.app.screen, LearnerScreen)


@pytest.mark.asyncio
async def test_declared_code_and_worked_example_are_saved_and_read_back(home):
    app = _app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await _open(pilot)
        await pilot.press("3", "5", "d", "n", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, LearnerScreen)
    saved = tomllib.loads((home / "settings.toml").read_text())
    assert saved["sources"] == {"fetch": False}
    assert saved["learner"]["presentations"] == ["code", "worked_example"]
    chosen = load_learner()  # as the next session reads it, after a restart
    assert chosen.presentations == ["code", "worked_example"]
    assert chosen.density == 1 and chosen.no_colour and not chosen.screen_reader


@pytest.mark.asyncio
async def test_escape_leaves_the_settings_as_they_were(home):
    before = (home / "settings.toml").read_text()
    app = _app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await _open(pilot)
        await pilot.press("3", "t")
        assert app.theme == "textual-light"  # the theme is seen as it is chosen
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == "textual-dark"
    assert (home / "settings.toml").read_text() == before


@pytest.mark.asyncio
async def test_the_theme_is_saved_shown_at_once_and_applied_on_the_next_start(home):
    app = _app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark" and not app.no_color
        await _open(pilot)
        await pilot.press("t", "n", "enter")
        await pilot.pause()
        assert app.theme == "textual-light"
    saved = tomllib.loads((home / "settings.toml").read_text())["learner"]
    assert saved["theme"] == "light" and saved["no_colour"] is True and saved["density"] == 3
    again = _app(home)  # a restart
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.theme == "textual-light"
        assert again.no_color  # Textual's monochrome filter: no colour reaches the terminal
        assert "Monochrome" in [type(f).__name__ for f in again.get_line_filters()]
    assert "NO_COLOR" not in os.environ  # nothing else in this process loses its colour


@pytest.mark.asyncio
async def test_an_unknown_theme_is_a_notice_and_the_dark_theme_not_a_traceback(home):
    (home / "settings.toml").write_text('[learner]\ntheme = "neon"\n')
    app = _app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "textual-dark"
        notes = [n.message for n in app._notifications]
        assert any("theme must be one of dark, light" in n for n in notes), notes


def test_the_apps_themes_are_the_settings_themes():
    assert set(THEMES) == set(get_args(LearnerSettings.model_fields["theme"].annotation))


@pytest.mark.parametrize("size", SIZES)
def test_settings_screen(snap_compare, home, size):
    async def run_before(pilot) -> None:
        await _open(pilot)
        await pilot.press("3", "5", "t")
        await pilot.pause()

    assert snap_compare(_app(home), terminal_size=size, run_before=run_before)
