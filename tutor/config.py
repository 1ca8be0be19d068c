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
    if home.exists() and not home.is_dir():
        from tutor.errors import TutorError

        raise TutorError(
            f"the tutor home {home} is a file, not a folder: set TUTOR_HOME to a folder"
        )
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from tutor.errors import TutorError

        why = exc.strerror or type(exc).__name__
        raise TutorError(
            f"the tutor home {home} cannot be used ({why}): set TUTOR_HOME to a folder you can "
            "write, or remove what is in its way"
        ) from None
    if not os.access(home, os.W_OK | os.X_OK):
        from tutor.errors import TutorError

        raise TutorError(
            f"the tutor home {home} is not writable: set TUTOR_HOME to a folder you can write"
        )
    return home


def store_path() -> Path:
    return tutor_home() / "tutor.db"


def builtin_course_path() -> Path:
    return Path(__file__).resolve().parent.parent / "learning_system" / "courses" / "builtin"


def fetch_references() -> bool:
    """Whether a new lesson reads its external references (its Further Reading) live:
    `TUTOR_REFERENCES=off` (or `on`) in the environment, else `fetch = false` under
    `[sources]` in settings.toml in the tutor home, else on. `--offline` skips them too."""
    env = os.environ.get("TUTOR_REFERENCES", "").strip().lower()
    if env in ("off", "0", "false", "no"):
        return False
    if env in ("on", "1", "true", "yes"):
        return True
    path = tutor_home() / "settings.toml"
    if not path.is_file():
        return True
    import tomllib

    from tutor.errors import TutorError

    try:
        section = tomllib.loads(path.read_text(encoding="utf-8")).get("sources", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TutorError(f"cannot read {path}: {exc}; fix or remove the file") from None
    value = section.get("fetch", True) if isinstance(section, dict) else True
    if not isinstance(value, bool):
        raise TutorError(f"{path}: [sources] fetch must be true or false")
    return value
