"""The app's settings screen: declared presentations are saved into `[learner]` of
settings.toml (other tables untouched), read back by the next lesson, and shape its steps."""

from __future__ import annotations

import tomllib

import pytest
from test_app_snapshots import _app

from tutor.app.learner_screen import LearnerScreen
from tutor.learner_settings import load_learner

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def home(tmp_path, monkeypatch, isolated_model_env):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    (tmp_path / "settings.toml").write_text("[sources]\nfetch = false\n\n[learner]\ndensity = 3\n")
    return tmp_path


async def _open(pilot) -> None:
    await pilot.pause()
    pilot.app.show_learner_settings()
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
        await pilot.press("3", "escape")
        await pilot.pause()
    assert (home / "settings.toml").read_text() == before


@pytest.mark.parametrize("size", SIZES)
def test_settings_screen(snap_compare, home, size):
    async def run_before(pilot) -> None:
        await _open(pilot)
        await pilot.press("3", "5")
        await pilot.pause()

    assert snap_compare(_app(home), terminal_size=size, run_before=run_before)
