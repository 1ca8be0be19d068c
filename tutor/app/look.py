"""How the app looks, from `[learner]` in settings.toml (`theme`, `no_colour`): read with
tomllib alone before the first paint — the whole table is validated when a lesson opens."""

from __future__ import annotations

from dataclasses import dataclass

from tutor.config import tutor_home

THEMES = {"dark": "textual-dark", "light": "textual-light"}  # the learner's word: Textual's


@dataclass(frozen=True)
class Look:
    theme: str  # a Textual theme's name
    no_colour: bool
    problem: str | None = None  # why the settings could not be followed, for a notice


def learner_look() -> Look:
    """The look `[learner]` asks for; the default look (with the problem) when the file or the
    values cannot be read."""
    path = tutor_home() / "settings.toml"
    default = Look(THEMES["dark"], False)
    if not path.is_file():
        return default
    import tomllib  # only when there is a file to read: not on a fresh learner's first paint

    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("learner", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Look(default.theme, False, f"cannot read {path}: {exc}")
    if not isinstance(table, dict):
        return Look(default.theme, False, f"{path}: [learner] must be a table")
    theme, no_colour = table.get("theme", "dark"), table.get("no_colour", False)
    if theme not in THEMES or not isinstance(no_colour, bool):
        return Look(
            default.theme,
            no_colour is True,
            f"{path}: [learner] theme must be one of {', '.join(THEMES)} and no_colour "
            "true or false; the dark theme is shown",
        )
    return Look(THEMES[theme], no_colour)
