"""A tutoring session: the lesson script, its durable event log, and resume by replay.

Every learner action is appended to the store (committed) before the engine moves on, and so is
anything non-deterministic the script used (memos: the prior's search result, model drafts).
Resuming replays the log through the same script and lands on the same prompt.

Lessons and reviews are both sessions (`tutor.engine.protocol.TutorSession`): a front end reads
`prompt`, sends `act(action)`, and calls `pause()` and `close()`. `act` blocks while the engine
works (gating, drafting, verifying) and is safe to call from a worker thread; progress is
reported through the session's `activity`, which `close()` cancels.
"""

from __future__ import annotations

import threading
import uuid
from typing import TYPE_CHECKING, Any

from learning_system import ledger
from learning_system.curriculum import Curriculum, Lesson
from learning_system.store import Store
from tutor.dossier.distractors import common_errors
from tutor.dossier.teaching import PackAtStart, pack_at_start, session_packs
from tutor.engine import parse
from tutor.engine.context import LessonContext
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.journal import SessionJournal
from tutor.engine.lesson import lesson_script
from tutor.engine.personal import session_learner
from tutor.engine.progress import Activity
from tutor.engine.selection import concept_id
from tutor.engine.sources import gate_digest, lesson_digest, model_notes_later
from tutor.engine.turns import Action, InvalidAction, Prompt, check_action

CLOSE_GRACE = 2.0  # seconds background work may finish in when a lesson closes

if TYPE_CHECKING:
    from learning_system.tables.rows import EventRow, SessionRow
    from tutor.engine.drafter import Drafter
    from tutor.scout.digest import Digest


class ReplayError(Exception):
    """The recorded session no longer fits the script (e.g. the curriculum changed)."""


class Session:
    def __init__(
        self,
        store: Store,
        curriculum: Curriculum,
        lesson: Lesson,
        session_id: str,
        digest: Digest,
        provider: Any = None,
        drafter: Drafter | None = None,
        activity: Activity | None = None,
    ) -> None:
        self.store = store
        self.curriculum = curriculum
        self.lesson = lesson
        self.id = session_id
        self.digest = digest
        self.drafter = drafter
        self.resumed = False
        self.pack_start = (
            PackAtStart()
        )  # a new lesson's: its build meanwhile, notice, sources lines
        self.activity = activity or Activity()
        self.title = f"{lesson.id} {lesson.title}"
        self._acting = threading.Lock()
        self._breakers = [
            b
            for p in (provider, getattr(provider, "verifier", None))
            if (b := getattr(p, "breaker", None)) is not None
        ]
        settings = getattr(provider, "settings", None)
        self._wait_max = float(getattr(settings, "wait_max", 0) or 0)
        self.journal = SessionJournal(store, curriculum, lesson, session_id)
        events = self.journal.events
        gate = Gatekeeper(
            store, gate_digest(digest, lesson, curriculum), provider, activity=self.activity
        )
        if events:  # resuming: the replay finds the model verdicts it already had
            gate.reuse(session_id)
        if drafter is not None:
            drafter.activity = self.activity
        self.context = self._context(gate, drafter)
        self._gen = lesson_script(self.context)
        watchdog = self._watchdog()  # the first screen is held to the same wait as any other
        try:
            self.prompt: Prompt = self._replay(events)
        finally:
            if watchdog is not None:
                watchdog.cancel()
        self.held: Action | None = self._held(events)
        self._save(self._status())

    def _context(self, gate: Gatekeeper, drafter: Drafter | None) -> LessonContext:
        """The lesson's context: the learner, and the knowledge packs as the session started."""
        store, curriculum, lesson = self.store, self.curriculum, self.lesson
        learner, evidence = session_learner(store, curriculum, lesson)
        pack, prerequisite_packs = session_packs(store, curriculum, lesson, self.journal.memo)
        if drafter is not None:  # its choice items may take distractors from the pack's errors
            drafter.common_errors = common_errors(pack)
        return LessonContext(
            session_id=self.id,
            lesson=lesson,
            curriculum=curriculum,
            digest=self.digest,
            gate=gate,
            journal=self.journal,
            drafter=drafter,
            pack=pack,
            prerequisite_packs=prerequisite_packs,
            learner=learner,
            evidence=evidence,
            revealed=frozenset(self._revealed()),
        )

    def _revealed(self) -> list[str]:
        """The lesson's and its prerequisites' items seen graded before this session, as its log
        keeps them; none for a session begun before the log kept them (its replay must ask what
        it asked)."""
        journal = self.journal
        if journal.events and not journal.memoized("revealed"):
            return []
        lessons = [self.lesson.id, *self.lesson.prerequisites]
        return journal.memo("revealed", lambda: ledger.revealed_items(self.store, lessons))

    def _replay(self, events: list[EventRow]) -> Prompt:
        """The first prompt, then the recorded actions replayed: the prompt the learner left."""
        recorded = [e for e in events if e["kind"] == "action"]
        prompt = next(self._gen)
        for n, e in enumerate(recorded, 1):
            action = Action.model_validate(e["payload"])
            try:
                check_action(prompt, action)
            except ValueError as exc:
                raise ReplayError(f"recorded action {e['seq']} no longer fits: {exc}") from None
            if n == len(recorded):  # it lands where the learner stopped: prepare ahead again
                self.journal.replayed()
                self.context.prep.replayed()
            prompt = self._gen.send(action)
        return prompt

    def _held(self, events: list[EventRow]) -> Action | None:
        """An answer given at the current prompt and saved before it was complete (its
        confidence not yet given), to be offered back on resume; None when there is none."""
        last_action = max((e["seq"] for e in events if e["kind"] == "action"), default=-1)
        for e in reversed(events):
            if e["seq"] <= last_action:
                return None
            if e["kind"] == "held" and e["payload"].get("message_id") == self.prompt.message_id:
                return Action.model_validate(e["payload"]["action"])
        return None

    # starting and resuming --------------------------------------------------------------------
    @classmethod
    def start(
        cls,
        store: Store,
        curriculum: Curriculum,
        lesson: Lesson,
        *,
        provider: Any = None,
        drafter: Drafter | None = None,
        offline: bool = True,
        activity: Activity | None = None,
    ) -> Session:
        activity = activity or Activity()
        for breaker in (
            getattr(provider, "breaker", None),
            getattr(getattr(provider, "verifier", None), "breaker", None),
        ):
            if breaker is not None:
                breaker.reset()  # each lesson tries the model again
        warm = getattr(provider, "warm", None)
        if warm is not None:
            warm()
        # without the model: the first screen never waits on the Scout's model calls
        digest = lesson_digest(store, curriculum, lesson, offline=offline, activity=activity)
        session_id = f"s-{concept_id(lesson)[:24]}-{uuid.uuid4().hex[:8]}"
        store.sessions.save(
            session_id,
            lesson.id,
            str(curriculum.root),
            "active",
            "prior",
            {"digest_id": digest.id},
        )
        model_work = drafter is not None and not offline and not getattr(provider, "offline", True)
        if model_work:
            model_notes_later(store, curriculum, lesson, provider, drafter)
        session = cls(store, curriculum, lesson, session_id, digest, provider, drafter, activity)
        # after the first screen, so that screen never waits for the pack's build
        session.pack_start = pack_at_start(
            store, curriculum, lesson, provider, session.context.pack, build=model_work
        )
        return session

    @classmethod
    def resume(
        cls,
        store: Store,
        curriculum: Curriculum,
        row: SessionRow,
        *,
        provider: Any = None,
        drafter: Drafter | None = None,
        activity: Activity | None = None,
    ) -> Session:
        lesson = curriculum.lesson(row["lesson_id"])
        from pydantic import ValidationError

        from tutor.scout.digest import Digest

        stored = store.digests.get(row["state"].get("digest_id", ""))
        if not stored:
            raise ReplayError("the session's digest is missing from the store")
        try:
            digest = Digest.model_validate(stored)
        except ValidationError as exc:
            raise ReplayError(f"the session's digest in the store is unreadable: {exc}") from exc
        return cls(store, curriculum, lesson, row["id"], digest, provider, drafter, activity)

    # acting ---------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.prompt.kind == "done"

    def act(self, action: Action) -> Prompt:
        """Validate, persist (durably), then advance; returns the next prompt. Blocks while the
        engine works; one action at a time. Raises InvalidAction for an action that does not fit
        the prompt, Cancelled when the session was closed meanwhile (the action is saved, and a
        resumed session carries on from it)."""
        with self._acting:
            self.activity.check()
            check_action(self.prompt, action)
            if action.kind == "claim":  # "I already know X": recorded; the probe still checks
                self.journal.claimed(action.text)
                return self.prompt
            self.journal.append("action", action.model_dump(exclude_defaults=True))
            self.held = None
            watchdog = self._watchdog()
            try:
                self.prompt = self._gen.send(action)
            finally:
                if watchdog is not None:
                    watchdog.cancel()
            self._save(self._status())
            return self.prompt

    def _watchdog(self) -> threading.Timer | None:
        """A learner kept waiting on the model past `wait_max` seconds at one screen: the model
        goes offline for the rest of the lesson (its requests in flight are cancelled), so the
        screen comes from the lesson's own text and the offline checks."""
        limit = self._wait_max
        if not self._breakers or not limit:
            return None

        def stalled() -> None:
            for breaker in self._breakers:
                breaker.stall(f"{limit:g} s at one screen; TUTOR_WAIT_MAX sets that wait")

        timer = threading.Timer(limit, stalled)
        timer.daemon = True
        timer.start()
        return timer

    def hold(self, action: Action) -> None:
        """Save an answer the moment it was given, before the action is complete (typed text, a
        choice or a number still waiting for its confidence tag). It goes to the event log as
        `held`, durably, but is not an action: replay skips it, and a resumed session offers it
        back as `held` for the learner to tag. Raises InvalidAction when it does not fit."""
        if not parse.holdable(self.prompt, action):
            raise InvalidAction("only an answer waiting for its confidence can be held")
        self.journal.append(
            "held",
            {
                "message_id": self.prompt.message_id,
                "action": action.model_dump(exclude_defaults=True),
            },
        )
        self.held = action

    def _status(self) -> str:
        """`done` only for a lesson that taught or asked something; `incomplete` otherwise."""
        if not self.done:
            return "active"
        return "done" if self.context.completed else "incomplete"

    def close(self) -> None:
        """Stop background work (drafts, verifications): what has started may finish for
        CLOSE_GRACE seconds, then its model requests in flight are cancelled, so a hung model
        never holds a pause or a quit up; safe to call more than once."""
        self.activity.cancel()
        if self.pack_start.build is not None:
            self.pack_start.build.cancel()
        if self.drafter is None:
            return
        halt = threading.Timer(CLOSE_GRACE, self._halt_models)
        halt.daemon = True
        halt.start()
        try:
            self.drafter.close()
        finally:
            halt.cancel()

    def _halt_models(self) -> None:
        for breaker in self._breakers:
            breaker.halt("the lesson was closed")

    def pause(self) -> None:
        if not self.done:
            self._save("paused")

    def _save(self, status: str) -> None:
        self.store.sessions.save(
            self.id,
            self.lesson.id,
            str(self.curriculum.root),
            status,
            self.prompt.position,
            {"digest_id": self.digest.id},
        )
