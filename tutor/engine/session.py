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

import re
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from learning_system import ledger
from learning_system.curriculum import Curriculum, Lesson
from learning_system.outcome import IngestConcept, PendingIngest, TaughtStep
from learning_system.store import Store, iso
from tutor.engine.concepts import evidence_for, lesson_concepts
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.items import Presented
from tutor.engine.lesson import LessonScript
from tutor.engine.progress import Activity
from tutor.engine.selection import concept_id
from tutor.engine.sources import gate_digest, lesson_digest
from tutor.engine.turns import Action, InvalidAction, Prompt, check_action


def concept_status(store: Store, concept: str) -> str:
    """The status rule (learning_system.scheduling.concept_status) over every graded answer
    the store holds for the concept."""
    from datetime import datetime

    from learning_system.scheduling import concept_status as rule

    return rule(
        (datetime.fromisoformat(a["created_at"]), a["outcome"], a["confidence"])
        for a in ledger.attempts(store, concept_id=concept)
    )


class ReplayError(Exception):
    """The recorded session no longer fits the script (e.g. the curriculum changed)."""


class Session:
    def __init__(
        self,
        store: Store,
        curriculum: Curriculum,
        lesson: Lesson,
        session_id: str,
        digest: dict[str, Any],
        provider=None,
        drafter=None,
        activity: Activity | None = None,
    ) -> None:
        self.store = store
        self.curriculum = curriculum
        self.lesson = lesson
        self.id = session_id
        self.digest = digest
        self.drafter = drafter
        self.resumed = False
        self.activity = activity or Activity()
        self.title = f"{lesson.id} {lesson.title}"
        self._lock = threading.Lock()
        self._acting = threading.Lock()
        self._breakers = [
            b
            for p in (provider, getattr(provider, "verifier", None))
            if (b := getattr(p, "breaker", None)) is not None
        ]
        settings = getattr(provider, "settings", None)
        self._wait_max = float(getattr(settings, "wait_max", 0) or 0)
        events = store.events(session_id)
        self._memos = {
            e["payload"]["key"]: e["payload"]["value"] for e in events if e["kind"] == "memo"
        }
        self._seq = (events[-1]["seq"] + 1) if events else 0
        self._notes = 0
        gate = Gatekeeper(store, gate_digest(digest, lesson, curriculum), provider)
        gate.activity = self.activity
        if events:  # resuming: the replay finds the model verdicts it already had
            gate.reuse(session_id)
        if drafter is not None:
            drafter.activity = self.activity
        self.script = LessonScript(
            session_id=session_id,
            lesson=lesson,
            curriculum=curriculum,
            digest=digest,
            gate=gate,
            memo=self._memo,
            record=self._record,
            drafter=drafter,
            memoized=self._memoized,
        )
        self._gen = self.script.run()
        recorded = [e for e in events if e["kind"] == "action"]
        self.script.replaying = bool(recorded)
        self.prompt: Prompt = next(self._gen)
        for n, e in enumerate(recorded, 1):
            action = Action.model_validate(e["payload"])
            try:
                check_action(self.prompt, action)
            except ValueError as exc:
                raise ReplayError(f"recorded action {e['seq']} no longer fits: {exc}") from None
            if n == len(recorded):  # it lands where the learner stopped: prepare ahead again
                self.script.replayed()
            self.prompt = self._gen.send(action)
        self.held: Action | None = self._held(events)
        self._save(self._status())

    def _held(self, events: list[dict[str, Any]]) -> Action | None:
        """Text typed at the current prompt and saved before it was complete (its confidence
        not yet given), to be offered back on resume; None when there is none."""
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
        provider=None,
        drafter=None,
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
        digest = lesson_digest(
            store, curriculum, lesson, offline=offline, activity=activity, provider=provider
        )
        session_id = f"s-{concept_id(lesson)[:24]}-{uuid.uuid4().hex[:8]}"
        store.save_session(
            session_id,
            lesson.id,
            str(curriculum.root),
            "active",
            "prior",
            {"digest_id": digest["id"]},
        )
        return cls(store, curriculum, lesson, session_id, digest, provider, drafter, activity)

    @classmethod
    def resume(
        cls,
        store: Store,
        curriculum: Curriculum,
        row: dict[str, Any],
        *,
        provider=None,
        drafter=None,
        activity: Activity | None = None,
    ) -> Session:
        lesson = curriculum.lesson(row["lesson_id"])
        digest = store.digest(row["state"].get("digest_id", "")) or {}
        if not digest:
            raise ReplayError("the session's digest is missing from the store")
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
                self._notes += 1
                self.store.add_note(
                    f"{self.id}:claim:{self._seq}",
                    self.id,
                    "claimed_known",
                    {"kind": "claimed_known", "text": action.text[:500]},
                )
                return self.prompt
            self._append("action", action.model_dump(exclude_defaults=True))
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
                breaker.stall(f"{limit:g} s at one screen")

        timer = threading.Timer(limit, stalled)
        timer.daemon = True
        timer.start()
        return timer

    def hold(self, action: Action) -> None:
        """Save text the learner typed, the moment it was entered, before the action is complete
        (a free-recall answer still waiting for its confidence tag). It goes to the event log as
        `held`, durably, but is not an action: replay skips it, and a resumed session offers it
        back as `held` for the learner to tag. Raises InvalidAction when it does not fit."""
        if self.prompt.kind != "text" or action.kind != "text" or not action.text.strip():
            raise InvalidAction("only typed text can be held before it is complete")
        self._append(
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
        return "done" if self.script.completed else "incomplete"

    def close(self) -> None:
        """Stop background work (drafts, verifications); safe to call more than once."""
        self.activity.cancel()
        if self.drafter is not None:
            self.drafter.close()

    def pause(self) -> None:
        if not self.done:
            self._save("paused")

    def _save(self, status: str) -> None:
        self.store.save_session(
            self.id,
            self.lesson.id,
            str(self.curriculum.root),
            status,
            self.prompt.position,
            {"digest_id": self.digest.get("id")},
        )

    def _append(self, kind: str, payload: dict[str, Any]) -> None:
        with self._lock:
            self.store.append_event(self.id, self._seq, kind, payload)
            self._seq += 1

    def _memoized(self, key: str) -> bool:
        with self._lock:
            return key in self._memos

    def _memo(self, key: str, compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._memos:
                return self._memos[key]
        value = compute()
        with self._lock:
            if key not in self._memos:
                self._memos[key] = value
                self.store.append_event(self.id, self._seq, "memo", {"key": key, "value": value})
                self._seq += 1
            return self._memos[key]

    # records the Tutor may write: attempts, mistakes, notes, the pending ingest --------------
    def _record(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "attempt":
            item: Presented | None = data.get("item")
            ledger.record_attempt(
                self.store,
                ledger.Attempt(
                    id=data["attempt_id"],
                    session_id=self.id,
                    lesson_id=self.lesson.id,
                    concept_id=data.get("concept"),
                    item_id=item.id if item else None,
                    kind=data["purpose"],
                    answer=str(data.get("answer", ""))[:4000],
                    outcome=data["outcome"],
                    confidence=data.get("confidence"),
                    feynman=data.get("feynman"),
                    payload={
                        "question": item.question if item else "",
                        "rubric_hits": data.get("rubric_hits", []),
                    },
                ),
            )
        elif kind == "grade":
            ledger.grade_attempt(self.store, data["attempt_id"], data["outcome"])
        elif kind == "mistake":
            item = data.get("item")
            ledger.record_mistake(
                self.store,
                ledger.Mistake(
                    id="m:" + data["attempt_id"],
                    attempt_id=data["attempt_id"],
                    concept_id=data.get("concept"),
                    item_id=item.id if item else None,
                    lesson_id=self.lesson.id,
                    error_type=data["error_type"],
                    attribution=data.get("attribution", "")[:2000],
                    retest_early=bool(data.get("retest_early")),
                    item=item.model_dump(mode="json") if item else {},
                ),
            )
        elif kind == "note":
            self._notes += 1
            self.store.add_note(f"{self.id}:note:{self._notes}", self.id, data["kind"], data)
        elif kind == "finish":
            self._finish(data)

    def _finish(self, data: dict[str, Any]) -> None:
        attempts = ledger.attempts(self.store, session_id=self.id)
        mistakes = [
            m["id"]
            for m in ledger.mistakes(self.store)
            if m["attempt_id"].startswith(self.id + ":")
        ]
        by_concept: dict[str, list[str]] = {}
        for a in attempts:
            if a["concept_id"]:
                by_concept.setdefault(a["concept_id"], []).append(a["id"])
        names = {concept_id(self.lesson): self.lesson.title}
        verdict_by_concept: dict[str, str] = {}
        for ref in self.lesson.prerequisites:
            try:
                pre = self.curriculum.lesson(ref)
            except LookupError:
                continue
            names[concept_id(pre)] = pre.title
            if pre.title in data["verdicts"]:
                verdict_by_concept[concept_id(pre)] = data["verdicts"][pre.title]
        concepts = [
            IngestConcept(
                id=cid,
                name=names.get(cid, cid),
                lesson_id=self.lesson.id,
                kind_hint=self.lesson.type,
                language=", ".join(self.lesson.languages),
                status_hint=concept_status(self.store, cid),
                evidence=ids,
            )
            for cid, ids in sorted(by_concept.items())
        ]
        text = self._lesson_text()
        glossary = {
            term: meaning
            for term, meaning in sorted(self.curriculum.glossary.items())
            if re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE)
        }
        own = [a for a in attempts if a["concept_id"] == concept_id(self.lesson)]
        known = {c.id for c in concepts}
        for c in lesson_concepts(self.lesson, glossary):  # each of the lesson's concepts
            if c["id"] not in known:
                concepts.append(
                    IngestConcept(
                        id=c["id"],
                        name=c["name"],
                        lesson_id=self.lesson.id,
                        kind_hint=self.lesson.type,
                        language=", ".join(self.lesson.languages),
                        evidence=evidence_for(c, own),
                    )
                )
        pending = PendingIngest(
            id=f"ingest:{self.id}",
            session_id=self.id,
            lesson_id=self.lesson.id,
            lesson_title=self.lesson.title,
            curriculum=str(self.curriculum.root),
            concepts=concepts,
            attempt_ids=[a["id"] for a in attempts],
            mistake_ids=mistakes,
            glossary=glossary,
            verdict=data["verdicts"],
            plan=data["plan"],
            taught=[
                TaughtStep(
                    step_id=t["step_id"],
                    title=t["title"],
                    content=t["content"],
                    sources=t["sources"],
                    unverified=t["unverified"],
                    receipt_ids=[r["receipt_id"] for r in self.store.receipts_for(t["step_id"])],
                    concept_id=concept_id(self.lesson),
                )
                for t in data["taught"]
            ],
            skipped=list(data.get("skipped", [])),
            created_at=iso(),
        )
        self.store.save_ingest(pending.id, self.id, self.lesson.id, pending.model_dump(mode="json"))

    def _lesson_text(self) -> str:
        path: Path | None = self.lesson.doc_path
        try:
            return path.read_text(encoding="utf-8", errors="replace") if path else ""
        except OSError:
            return ""
