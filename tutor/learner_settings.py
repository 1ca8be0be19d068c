"""`[learner]` in settings.toml: the presentations a learner asks to be included, the density
of a step, and how they operate the tutor. These shape how a step is shown, never what it
teaches (tutor.engine.step_plan)."""

from __future__ import annotations

import tomllib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tutor.config import tutor_home
from tutor.errors import TutorError

LEARNER_SECTION = "learner"


class LearnerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    presentations: list[Literal["prose", "table", "code", "diagram", "worked_example"]] = Field(
        default=[], description="representations to include in each step, first asked first"
    )
    density: int = Field(default=2, ge=1, le=3, description="1 sparse, 3 dense")
    theme: Literal["dark", "light"] = Field(default="dark", description="the app's colours")
    screen_reader: bool = False
    no_colour: bool = False
    reduced_motion: bool = False

    def capabilities(self) -> list[str]:
        """What the learner operates the tutor with: the keyboard, and what they turned on."""
        flags = (
            ("screen_reader", self.screen_reader),
            ("no_colour", self.no_colour),
            ("reduced_motion", self.reduced_motion),
        )
        return ["keyboard", *(name for name, on in flags if on)]


def load_learner() -> LearnerSettings:
    """The `[learner]` table in effect; a learner-facing error (never a traceback) when it is
    not valid."""
    path = tutor_home() / "settings.toml"
    section: object = {}
    if path.is_file():
        try:
            section = tomllib.loads(path.read_text(encoding="utf-8")).get(LEARNER_SECTION, {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise TutorError(f"cannot read {path}: {exc}; fix or remove the file") from None
    if not isinstance(section, dict):
        raise TutorError(f"{path}: [{LEARNER_SECTION}] must be a table")
    try:
        return LearnerSettings.model_validate(section)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or LEARNER_SECTION}: {err['msg']}"
            for err in exc.errors()
        )
        raise TutorError(
            f"learner settings are invalid ({problems}); check the [{LEARNER_SECTION}] section "
            f"of {path}"
        ) from None


def toml_table(settings: LearnerSettings) -> str:
    """The `[learner]` table as TOML text."""
    listed = ", ".join(f'"{p}"' for p in settings.presentations)
    flags = (
        f"{name} = {str(getattr(settings, name)).lower()}"
        for name in ("screen_reader", "no_colour", "reduced_motion")
    )
    return "\n".join(
        [
            f"[{LEARNER_SECTION}]",
            f"presentations = [{listed}]",
            f"density = {settings.density}",
            f'theme = "{settings.theme}"',
        ]
        + list(flags)
    )


def save_learner(settings: LearnerSettings) -> None:
    """Write `[learner]` into settings.toml, every other table left as it was (checked by reading
    the file back before it replaces the old one)."""
    import os

    path = tutor_home() / "settings.toml"
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    try:
        before = tomllib.loads(old)
    except tomllib.TOMLDecodeError as exc:
        raise TutorError(f"cannot read {path}: {exc}; fix or remove the file") from None
    kept, inside = [], False
    for line in old.splitlines():
        header = line.strip().startswith("[")
        if header:
            inside = line.strip().strip("[]").strip() == LEARNER_SECTION
        if not inside:
            kept.append(line)
    new = "\n".join([*kept, "", toml_table(settings)]).strip("\n") + "\n"
    after = tomllib.loads(new)
    before.pop(LEARNER_SECTION, None)
    if after.pop(LEARNER_SECTION, None) is None or after != before:
        raise TutorError(f"{path} could not be updated safely; edit [learner] by hand")
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)
