"""Where the learner's files live. Settings for models live in tutor.llm.settings."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SKILLS_DIR = PROJECT_ROOT / "skills"


def tutor_home() -> Path:
    """The learner's home folder: $TUTOR_HOME, else the platform data directory."""
    env = os.environ.get("TUTOR_HOME")
    if env:
        home = Path(env).expanduser()
    else:
        from platformdirs import user_data_dir

        home = Path(user_data_dir("tutor", appauthor=False))
    home.mkdir(parents=True, exist_ok=True)
    return home


def store_path() -> Path:
    return tutor_home() / "tutor.db"


def builtin_course_path() -> Path:
    return Path(__file__).resolve().parent.parent / "learning_system" / "courses" / "builtin"
