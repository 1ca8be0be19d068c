"""A lesson session's durable event log: actions, text held before it was complete, memos, and
the records the phases write (attempts, grades, mistakes, notes, the finished lesson). Every
write has committed when the call returns."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from learning_system import ledger
from learning_system.curriculum import Curriculum, Lesson
from learning_system.store import Store
from tutor.engine.pending import pending_ingest
from tutor.engine.records import Answer, Finish, Grade, Mistake, Note, Record, Revealed

T = TypeVar("T")


class SessionJournal:
    """The journal a lesson's phases write through (tutor.engine.context.Journal). It reads
    the session's log once: its memos, and how many recorded actions a resume replays."""

    def __init__(
        self, store: Store, curriculum: Curriculum, lesson: Lesson, session_id: str
    ) -> None:
        self.store = store
        self.curriculum = curriculum
        self.lesson = lesson
        self.session_id = session_id
        self.events = store.sessions.events(session_id)
        self._memos: dict[str, Any] = {
            e["payload"]["key"]: e["payload"]["value"] for e in self.events if e["kind"] == "memo"
        }
        self._seq = (self.events[-1]["seq"] + 1) if self.events else 0
        self._notes = 0
        self._lock = threading.Lock()
        self.error_types: list[str] = []  # of this session's mistakes, in order (replay too)
        self.replaying = any(e["kind"] == "action" for e in self.events)

    def replayed(self) -> None:
        """The replay has reached the learner's last recorded action."""
        self.replaying = False

    def append(self, kind: str, payload: dict[str, Any]) -> None:
        with self._lock:
            self.store.sessions.append_event(self.session_id, self._seq, kind, payload)
            self._seq += 1

    def memoized(self, key: str) -> bool:
        with self._lock:
            return key in self._memos

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._memos:
                return self._memos[key]  # type: ignore[no-any-return]
        value = compute()
        with self._lock:
            if key not in self._memos:
                self._memos[key] = value
                self.store.sessions.append_event(
                    self.session_id, self._seq, "memo", {"key": key, "value": value}
                )
                self._seq += 1
            return self._memos[key]  # type: ignore[no-any-return]

    def claimed(self, text: str) -> None:
        """ "I already know X": kept as a note (the probe still checks)."""
        self._notes += 1
        self.store.sessions.add_note(
            f"{self.session_id}:claim:{self._seq}",
            self.session_id,
            "claimed_known",
            {"kind": "claimed_known", "text": text[:500]},
        )

    def record(self, record: Record) -> None:
        if isinstance(record, Answer):
            self._attempt(record)
        elif isinstance(record, Grade):
            ledger.grade_attempt(self.store, record.attempt_id, record.outcome)
        elif isinstance(record, Revealed):
            ledger.reveal_attempts(self.store, record.attempt_ids)
        elif isinstance(record, Mistake):
            self._mistake(record)
        elif isinstance(record, Note):
            self._notes += 1
            self.store.sessions.add_note(
                f"{self.session_id}:note:{self._notes}",
                self.session_id,
                record.kind,
                {"kind": record.kind, **record.body},
            )
        elif isinstance(record, Finish):
            pending = pending_ingest(
                self.store, self.curriculum, self.lesson, self.session_id, record
            )
            self.store.ingests.save(
                pending.id, self.session_id, self.lesson.id, pending.model_dump(mode="json")
            )

    def _attempt(self, a: Answer) -> None:
        item = a.item
        ledger.record_attempt(
            self.store,
            ledger.Attempt(
                id=a.attempt_id,
                session_id=self.session_id,
                lesson_id=self.lesson.id,
                concept_id=a.concept,
                item_id=item.id if item else None,
                kind=a.purpose,
                answer=a.answer[:4000],
                outcome=a.outcome,
                confidence=a.confidence,
                feynman=a.feynman,
                payload={
                    "question": item.question if item else "",
                    "rubric_hits": list(a.rubric_hits),
                    **({"withheld": True} if a.withheld else {}),
                },
            ),
        )

    def _mistake(self, m: Mistake) -> None:
        self.error_types.append(m.error_type)
        a, item = m.answer, m.answer.item
        ledger.record_mistake(
            self.store,
            ledger.Mistake(
                id="m:" + a.attempt_id,
                attempt_id=a.attempt_id,
                concept_id=a.concept,
                item_id=item.id if item else None,
                lesson_id=self.lesson.id,
                error_type=m.error_type,
                attribution=m.attribution[:2000],
                retest_early=m.retest_early,
                item=item.model_dump(mode="json") if item else {},
            ),
        )
