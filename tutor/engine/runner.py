"""Which session `tutor continue` opens, with which model, and what happens after a lesson."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from learning_system.curriculum import Curriculum, Lesson
from learning_system.session_lock import REVIEW, REVIEW_BUSY, lease, opening
from learning_system.store import Store
from learning_system.tables.rows import SessionRow
from tutor.engine.progress import Activity
from tutor.engine.review import ReviewSession
from tutor.engine.session import ReplayError, Session
from tutor.engine.summary import LessonEnd, lesson_end
from tutor.errors import TutorError


def model_provider(store: Store, progress: Callable[[str], None] | None = None) -> Any:
    """The configured model provider, or None to run on the embedded offline default — also
    when a model is configured but does not answer (said once, then the lesson goes on)."""
    from tutor.llm import make_provider
    from tutor.llm.health import check_model
    from tutor.llm.recorder import StoreRecorder
    from tutor.llm.settings import load_settings

    settings = load_settings()
    if settings.offline:
        return None
    health = check_model(settings)
    said = {"unreachable": "unreachable", "rejected": "refused", "error": "not usable"}
    if health["status"] in said:
        if progress:
            progress(f"model {said[health['status']]} — running offline ({health['message']})")
        return None
    if not health["ok"] and progress:
        progress(f"model: {health['message']}")
    return make_provider(settings, recorder=StoreRecorder(store))


def open_session(
    store: Store,
    curriculum: Curriculum,
    *,
    lesson_ref: str | None = None,
    offline: bool = False,
    progress: Callable[[str], None] | None = None,
    activity: Activity | None = None,
    take_over: bool = False,
) -> Session | None:
    """Resume the latest unfinished session of this curriculum (of the lesson asked for, when
    one is), else start the next lesson (or the one asked for). None when the curriculum is
    finished. `progress` hears one-line notices (a model that does not answer, a session that
    could not be resumed); `activity` hears the progress of long work and is how the learner
    cancels it. One tutor at a time chooses; the session opened is leased to this tutor
    (SessionBusy when another one has it, unless `take_over`)."""
    with opening(store, notify=progress):
        session = _open_session(
            store,
            curriculum,
            lesson_ref=lesson_ref,
            offline=offline,
            progress=progress,
            activity=activity,
            take_over=take_over,
        )
        if session is not None:
            lease(store, session.id)
        return session


def _open_session(
    store: Store,
    curriculum: Curriculum,
    *,
    lesson_ref: str | None,
    offline: bool,
    progress: Callable[[str], None] | None,
    activity: Activity | None,
    take_over: bool,
) -> Session | None:
    provider = model_provider(store, progress)
    drafter = None
    if provider is not None:
        from tutor.engine.drafter import Drafter

        drafter = Drafter(provider)
    lesson = _lesson(curriculum, lesson_ref)
    latest = store.sessions.latest(
        curriculum=str(curriculum.root), lesson_id=lesson.id if lesson else None
    )
    if latest is not None and latest["status"] not in UNRESUMABLE:
        lease(store, latest["id"], take_over=take_over)  # before replay: fences the other tutor
        try:
            session = Session.resume(
                store, curriculum, latest, provider=provider, drafter=drafter, activity=activity
            )
            session.resumed = True
            return session
        except (ReplayError, LookupError, ValueError, TypeError) as exc:
            _abandon(store, latest, exc, progress)
            try:
                lesson = curriculum.lesson(latest["lesson_id"])
            except LookupError:
                lesson = None  # the lesson is gone from the curriculum: the next one
    if lesson is None:
        done = store.sessions.latest(curriculum=str(curriculum.root), status="done")
        lesson = curriculum.next_lesson(done["lesson_id"] if done else None)
        if lesson is None:
            return None
    from tutor.config import fetch_references

    return Session.start(
        store,
        curriculum,
        lesson,
        provider=provider,
        drafter=drafter,
        offline=offline or not fetch_references(),
        activity=activity,
    )


UNRESUMABLE = ("done", "incomplete", "abandoned")


def _lesson(curriculum: Curriculum, lesson_ref: str | None) -> Lesson | None:
    if lesson_ref is None:
        return None
    try:
        return curriculum.lesson(lesson_ref)
    except LookupError as exc:
        raise TutorError(str(exc)) from None


def _abandon(
    store: Store, row: SessionRow, exc: Exception, progress: Callable[[str], None] | None
) -> None:
    """A log that cannot be replayed is never a dead end: the session is set aside (its answers
    stay in the records) and its lesson starts afresh."""
    store.sessions.save(
        row["id"], row["lesson_id"], row["curriculum"], "abandoned", row["position"], row["state"]
    )
    if progress:
        why = (str(exc).splitlines() or [type(exc).__name__])[0]
        progress(
            f"Could not resume {row['lesson_id']} ({why}); starting it afresh. "
            "Your earlier answers stay in your records."
        )


def open_review(
    store: Store, activity: Activity | None = None, curriculum: Curriculum | None = None
) -> ReviewSession:
    """A review of what is due now, offline. Concepts are asked with items of their own
    lesson's bank in `curriculum`; without one, only mistakes are asked. One review at a time
    per home: a second is refused (SessionBusy) while one is open."""
    held = lease(store, REVIEW, busy=REVIEW_BUSY)
    return ReviewSession(store, activity=activity, curriculum=curriculum, lease=held)


def after_lesson(store: Store, curriculum: Curriculum, session: Session) -> LessonEnd:
    """Hand the lesson to the Clerk; the score, the mastery move, what comes due and next."""
    from tutor.clerk.ingest import ingest_pending

    said = []
    for result in ingest_pending(store, provider=None):
        if result.status == "accepted":
            said.append(f"{result.lesson_id}: written ({result.changed} records)")
        elif result.status == "rejected":
            said.append(f"{result.lesson_id}: rejected — " + "; ".join(result.reasons))
    done = session.context.completed
    records = "; ".join(said) or ("already in your records" if done else "nothing to write")
    return lesson_end(store, curriculum, session.id, session.lesson.id, records, done)
