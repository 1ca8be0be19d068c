"""The learner's choices that outlive a session: which curriculum they follow."""

from __future__ import annotations

from pathlib import Path

from learning_system.store import Store
from tutor.config import builtin_course_path
from tutor.errors import TutorError

CURRICULUM_KEY = "curriculum"


def open_store() -> Store:
    from learning_system.store import StoreError
    from tutor.config import store_path

    try:
        return Store(store_path())
    except StoreError as exc:
        raise TutorError(str(exc)) from None


def curriculum_path(store: Store, override: str | Path | None = None) -> Path:
    """The curriculum in effect: the command's --curriculum, else `tutor init`'s, else built-in."""
    if override:
        return Path(override).expanduser().resolve()
    chosen = store.get_setting(CURRICULUM_KEY)
    return Path(chosen) if chosen else builtin_course_path()


def load(path: Path):
    """Load a curriculum or explain, in one line, why it cannot be used."""
    from learning_system.curriculum import CurriculumError, load_curriculum

    try:
        curriculum = load_curriculum(path)
    except CurriculumError as exc:
        raise TutorError(str(exc)) from None
    if curriculum.errors:
        first = curriculum.errors[0]
        raise TutorError(
            f"the curriculum at {path} cannot be used: {first.file}: {first.message} "
            f"(run `tutor curriculum check {path}` for the full list)"
        )
    return curriculum
