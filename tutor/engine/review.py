"""Review: due mistakes first (the same item again), then due concepts, each with a confidence
tag; the schedule moves as it goes. Offline. Every answer is recorded when it is given, so a
stopped review simply continues with what is still due."""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Generator
from datetime import datetime
from typing import Any

from learning_system import ledger
from learning_system.curriculum import Curriculum
from learning_system.scheduling import Confidence
from learning_system.scheduling import Outcome as Graded
from learning_system.session_lock import SessionLease
from learning_system.store import Store
from tutor.engine import parse, selection
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.grading import YesNoScreen, graded_answer, key_point_grade
from tutor.engine.items import Presented, grade, place_key, present
from tutor.engine.progress import Activity
from tutor.engine.turns import PROMPT_KIND, Action, InvalidAction, Prompt, PromptKind, check_action
from tutor.engine.words import counted
from tutor.gates.checker import Block, Emit
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import QuizQuestion

Script = Generator[Prompt, Action, None]


class ReviewSession:
    """A review as a session (see tutor.engine.protocol): due mistakes, then due concepts.
    Each answer is recorded as it is given, so pausing needs nothing saved."""

    title = "Review"

    def __init__(
        self,
        store: Store,
        now: datetime | None = None,
        provider: Any = None,
        activity: Activity | None = None,
        curriculum: Curriculum | None = None,
        lease: SessionLease | None = None,
    ) -> None:
        self.store = store
        self._lease = lease  # released when the review closes
        self.activity = activity or Activity()
        self.run_id = f"r-{uuid.uuid4().hex[:8]}"
        self._acting = threading.Lock()
        self._script = review_script(store, now, provider, self.run_id, curriculum)
        self.prompt: Prompt = next(self._script)
        self.held: Action | None = None

    @property
    def done(self) -> bool:
        return self.prompt.kind == "done"

    def act(self, action: Action) -> Prompt:
        with self._acting:
            self.activity.check()
            check_action(self.prompt, action)
            if action.kind == "claim":
                self.store.sessions.add_note(
                    f"{self.run_id}:claim:{uuid.uuid4().hex[:8]}",
                    self.run_id,
                    "claimed_known",
                    {"kind": "claimed_known", "text": action.text[:500]},
                )
                return self.prompt
            self.held = None
            self.prompt = self._script.send(action)
            return self.prompt

    def hold(self, action: Action) -> None:
        """An answer saved the moment it was given, before its confidence tag (typed text, a
        choice, a number): kept as a session note of this review run (a review keeps no event
        log to replay)."""
        if not parse.holdable(self.prompt, action):
            raise InvalidAction("only an answer waiting for its confidence can be held")
        self.store.sessions.add_note(
            f"{self.prompt.message_id}:held",
            self.run_id,
            "held_answer",
            {
                "kind": "held_answer",
                "question": self.prompt.item.question if self.prompt.item else "",
                "text": action.text or action.value,
            },
        )
        self.held = action

    def pause(self) -> None:
        """Nothing to keep: every answer is already recorded, and what is left stays due."""

    def close(self) -> None:
        self.activity.cancel()
        self._script.close()
        if self._lease is not None:
            self.store.leases.pop(self._lease.session_id, None)
            self._lease.release()


def _withheld(message_id: str, title: str, position: str, outcome: Block) -> Prompt:
    """The screen shown instead of a turn its gate blocked: the block's banner, no content."""
    return Prompt(
        kind="read",
        message_id=message_id,
        stage="review",
        title=title,
        position=position,
        content="",
        banner=outcome.banner,
    )


def reshuffled(item: Presented, salt: str) -> Presented:
    """A multiple-choice item with its options in a fresh order, the key in another slot than
    before (so "it was b" is no help)."""
    if item.type != "mcq" or item.correct_index is None or len(item.options) < 2:
        return item
    options, key = place_key(item.options, item.correct_index, salt)
    if key == item.correct_index:
        shift = 1 + _seed_int(salt) % (len(options) - 1)
        options = options[-shift:] + options[:-shift]
        key = (key + shift) % len(options)
    return item.model_copy(update={"options": options, "correct_index": key})


def _seed_int(salt: str) -> int:
    return int(hashlib.sha256(salt.encode()).hexdigest()[:8], 16)


def concept_item(
    store: Store, curriculum: Curriculum | None, concept_id: str, salt: str
) -> Presented | None:
    """An item from the concept's own lesson bank, presented fairly: multiple choice first, one
    not asked about this concept before when there is one, else the one asked longest ago."""
    if curriculum is None:
        return None
    lesson = next((x for x in curriculum.lessons if selection.concept_id(x) == concept_id), None)
    if lesson is None or not lesson.quiz:
        return None
    shown = present(lesson.quiz, lesson, salt=salt, curriculum=curriculum)
    last_asked: dict[str, str] = {}
    for a in ledger.attempts(store, concept_id=concept_id):
        if a["item_id"]:
            last_asked[a["item_id"]] = a["created_at"]
    shown.sort(
        key=lambda p: (p.type == "free_recall", p.id in last_asked, last_asked.get(p.id, ""), p.id)
    )
    return shown[0]


def _due_item(
    store: Store, curriculum: Curriculum | None, due: ledger.DueItem, run_id: str
) -> tuple[Presented, str] | None:
    """What a due row is asked with, and the screen's title; None when it cannot be asked (it
    stays due rather than asking its title)."""
    if due.kind == "mistake":
        row = ledger.mistake(store, due.id)  # read when it is shown, not all up front
        if not row or row["status"] != "open" or not row["item"]:
            return None
        item = reshuffled(Presented.model_validate(row["item"]), f"{run_id}:{due.id}")
        return item, f"Review · mistake from {row['lesson_id'] or 'an earlier lesson'}"
    concept = ledger.concept_row(store, due.id) or {}
    found = concept_item(store, curriculum, due.id, f"{run_id}:{due.id}")
    if found is None:
        return None
    return found, f"Review · concept {concept.get('name') or due.id}"


def _record(
    store: Store,
    due: ledger.DueItem,
    item: Presented,
    attempt_id: str,
    answer: str,
    outcome: Graded,
    confidence: Confidence,
    now: datetime | None,
) -> str:
    """The answer recorded and the schedule moved; what happens next, in words."""
    ledger.record_attempt(
        store,
        ledger.Attempt(
            id=attempt_id,
            kind="review",
            concept_id=due.concept_id,
            item_id=item.id,
            lesson_id=item.lesson_id or None,
            answer=answer[:4000],
            outcome=outcome,
            confidence=confidence,
            payload={"due": due.kind},
            created_at=now,
        ),
    )
    if due.kind == "mistake":
        if ledger.review_mistake(store, due.id, outcome, confidence, now) == "resolved":
            return "resolved: it leaves your due list"
        return "it comes back tomorrow" + (" to confirm" if outcome == "correct" else "")
    row = ledger.review_concept(store, due.id, outcome, confidence, now)
    return f"next review {row['next_review'][:10]}; status {row['status']}"


def _screen(
    kind: PromptKind,
    outcome: Emit | Block,
    title: str,
    position: str,
    item: Presented | None = None,
) -> Prompt:
    """A gated review screen, or the banner of a withheld one."""
    if isinstance(outcome, Block):
        return _withheld(outcome.message_id, title, position, outcome)
    return Prompt(
        kind=kind,
        message_id=outcome.message_id,
        stage="review",
        title=title,
        position=position,
        content=outcome.content,
        item=item,
        needs_confidence=item is not None,
        unverified=outcome.unverified,
        flags=outcome.flags,
    )


def review_script(
    store: Store,
    now: datetime | None = None,
    provider: Any = None,
    run_id: str | None = None,
    curriculum: Curriculum | None = None,
) -> Script:
    run_id = run_id or f"r-{uuid.uuid4().hex[:8]}"
    gate = Gatekeeper(store, GateDigest(sources={}), provider)
    queue = ledger.due_queue(store, now)
    total = len(queue)
    if not total:
        empty = gate.notice_turn(f"{run_id}:empty", "Nothing is due.")
        content = empty.content if isinstance(empty, Emit) else ""
        yield _done(f"{run_id}:empty", content)
        return
    # an item answered in this run, by item id: another open mistake of it (made in another
    # lesson) takes the same answer rather than asking the question again
    answered: dict[str, tuple[str, Graded, Confidence]] = {}
    for n, due in enumerate(queue, 1):
        found = _due_item(store, curriculum, due, run_id)
        if found is None:
            continue
        item, title = found
        message_id = f"{run_id}:{n}"
        if due.kind == "mistake" and item.id in answered:
            _record(store, due, item, f"{message_id}:answer", *answered[item.id], now)
            continue
        position = f"review {n}/{total}"
        given = yield from _ask_one(store, gate, due, item, title, message_id, position, now)
        if given is not None:
            answered[item.id] = given
    yield _done(
        f"{run_id}:done", f"Review done: {counted(total, 'item')}. The schedule is updated."
    )


def _ask_one(
    store: Store,
    gate: Gatekeeper,
    due: ledger.DueItem,
    item: Presented,
    title: str,
    message_id: str,
    position: str,
    now: datetime | None,
) -> Generator[Prompt, Action, tuple[str, Graded, Confidence] | None]:
    """One due item asked, graded, recorded and its grade shown: the answer, its outcome and
    confidence; None when it was not graded (withheld: it stays due)."""
    concept = due.concept_id or item.id
    asked = gate.ask(
        message_id, item.render(), [item.to_question()], "checkpoint", concept, item.reference
    )
    action = yield _screen(PROMPT_KIND[item.type], asked, title, position, item)
    if isinstance(asked, Block):
        return None
    idk = action.value == "idk"
    answer = action.text if item.type == "free_recall" else action.value
    passed = None if idk else grade(item, answer)
    if passed is None and not idk:
        screen = _self_grade_screens(gate, message_id, title, position, answer, concept)
        passed = yield from key_point_grade(item, answer, screen)
        if passed is None:
            return None  # a key-point screen was withheld: not graded, it stays due
    outcome: Graded = "idk" if idk else ("correct" if passed else "wrong")
    confidence: Confidence = "no_idea" if idk or action.confidence is None else action.confidence
    status = _record(store, due, item, f"{message_id}:answer", answer, outcome, confidence, now)
    shown = answer
    if item.type == "mcq" and answer.isdigit():
        shown = f"{int(answer) + 1}. {item.options[int(answer)]}"
    shown = "I don't know" if idk else f"{shown} ({confidence.replace('_', ' ')})"
    content = (
        f"{item.question}\n  You answered: {shown}\n  "
        f"{'right' if passed else 'not yet'}. Reference: {item.reference}\n  ({status})"
    )
    graded = gate.grade(
        message_id + ":grade",
        content,
        item.to_question(),
        graded_answer(item, "idk" if idk else answer),
        bool(passed),
        item.reference,
        unsourced=item.unsourced,
    )
    yield _screen("read", graded, title, position)
    return (shown if item.type == "mcq" else answer), outcome, confidence  # words, not a place


def _done(message_id: str, content: str) -> Prompt:
    return Prompt(
        kind="done",
        message_id=message_id,
        stage="done",
        title="Review",
        position="done",
        content=content,
    )


def _self_grade_screens(
    gate: Gatekeeper, message_id: str, title: str, position: str, answer: str, concept: str
) -> YesNoScreen:
    """The key-point screens of one answer's self-grade."""

    def screen(k: int, point: str) -> Generator[Prompt, Action, Action | None]:
        text = f"Your answer: {answer}\n\n{point}"
        return (
            yield from _self_grade_screen(
                gate, f"{message_id}:self:{k}", title, position, text, concept
            )
        )

    return screen


def _self_grade_screen(
    gate: Gatekeeper, message_id: str, title: str, position: str, text: str, concept: str
) -> Generator[Prompt, Action, Action | None]:
    """A self-grade screen shows the reference, so it passes the checker like a question; None
    when it is withheld (its banner shown instead)."""
    gated = gate.ask(
        message_id,
        text,
        [QuizQuestion(id=f"{message_id}-self-grade", type="free_recall", question=text)],
        "checkpoint",
        concept,
        text,
    )
    if isinstance(gated, Block):
        yield _withheld(message_id, title, position, gated)
        return None
    return (
        yield Prompt(
            kind="yes_no",
            message_id=message_id,
            stage="review",
            title=title,
            position=position,
            content=gated.content,
            unverified=gated.unverified,
            flags=gated.flags,
        )
    )
