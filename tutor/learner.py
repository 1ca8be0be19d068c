"""The learner's choices that outlive a session: which curriculum they follow."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tutor.config import builtin_course_path
from tutor.errors import TutorError

if TYPE_CHECKING:
    from learning_system.store import Store

CURRICULUM_KEY = "curriculum"


STORE_WAIT_ENV = "TUTOR_STORE_WAIT"


def open_store() -> Store:
    """The learner's store, checked on opening. A write that finds the store locked by another
    program waits up to $TUTOR_STORE_WAIT seconds (default 30), saying so once on stderr."""
    import os
    import sys

    from learning_system.store import DEFAULT_WAIT, Store, StoreError
    from tutor.config import store_path

    raw = os.environ.get(STORE_WAIT_ENV, "").strip()
    try:
        wait = float(raw) if raw else DEFAULT_WAIT
    except ValueError:
        wait = -1.0
    if not 0 <= wait <= 3600:
        raise TutorError(f"{STORE_WAIT_ENV}={raw!r} is not a number of seconds from 0 to 3600")
    try:
        return Store(
            store_path(),
            wait=wait,
            notify=lambda message: print(f"tutor: {message}", file=sys.stderr),
        )
    except StoreError as exc:
        raise TutorError(str(exc)) from None


def curriculum_path(store: Store | None, override: str | Path | None = None) -> Path:
    """The curriculum in effect: the command's --curriculum, else `tutor init`'s, else built-in.
    Without a store (a fresh home, before its store is created), nothing was chosen yet."""
    if override:
        return Path(override).expanduser().resolve()
    chosen = store.get_setting(CURRICULUM_KEY) if store is not None else None
    return Path(chosen) if chosen else builtin_course_path()


def continue_path(
    store: Store, override: str | Path | None = None, lesson_ref: str | None = None
) -> Path:
    """The curriculum `tutor continue` opens: the command's --curriculum; else, when no lesson
    is asked for, the curriculum of the latest unfinished session (whichever curriculum it was
    started with, so a lesson begun with --curriculum is never stranded); else the chosen one."""
    if override or lesson_ref:
        return curriculum_path(store, override)
    latest = store.sessions.latest_unfinished()
    if latest and latest["curriculum"] and Path(latest["curriculum"]).is_dir():
        return Path(latest["curriculum"])
    return curriculum_path(store)


def resume_command(store: Store, root: Path) -> str:
    """The command that comes back to this session: `tutor continue` resumes the latest
    unfinished session whatever its curriculum; the curriculum is named when it is not the
    learner's chosen one, so the command also works after another lesson was started."""
    import shlex

    if curriculum_path(store) == root:
        return "tutor continue"
    return f"tutor continue --curriculum {shlex.quote(str(root))}"


def lessons_for_continue(store: Store, root: Path, lesson_ref: str | None) -> list[str] | None:
    """The lessons `tutor continue` needs read first: the one asked for, else the unfinished
    session's; None (read everything) when the next lesson has to be found."""
    if lesson_ref:
        return [lesson_ref]
    latest = store.sessions.latest(curriculum=str(root))
    if latest and latest["status"] not in ("done", "abandoned"):
        return [latest["lesson_id"]]
    return None


def load(path: Path, only: list[str] | None = None):
    """Load a curriculum or explain, in one line, why it cannot be used. With `only` (lesson
    ids), read just those lessons and their prerequisites; the rest are read when asked for."""
    from learning_system.curriculum import CurriculumError, load_curriculum

    try:
        curriculum = load_curriculum(path, only=only)
    except CurriculumError as exc:
        raise TutorError(str(exc)) from None
    if curriculum.errors:
        first = curriculum.errors[0]
        raise TutorError(
            f"the curriculum at {path} cannot be used: {first.file}: {first.message} "
            f"(run `tutor curriculum check {path}` for the full list)"
        )
    return curriculum
