"""Review: due mistakes first (the same item again), then due concepts, each with a confidence
tag; the schedule moves as it goes. Offline. Every answer is recorded when it is given, so a
stopped review simply continues with what is still due."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Generator
from datetime import datetime

from learning_system import ledger
from learning_system.store import Store
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.items import Presented, grade
from tutor.engine.lesson import graded_answer
from tutor.engine.progress import Activity
from tutor.engine.turns import Action, Prompt, check_action
from tutor.gates.checker import Block, Emit
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import QuizQuestion

Script = Generator[Prompt, Action, None]


class ReviewSession:
    """A review as a session (see tutor.engine.protocol): due mistakes, then due concepts.
    Each answer is recorded as it is given, so pausing needs nothing saved."""

    title = "Review"

    def __init__(self, store: Store, now: datetime | None = None, provider=None,
                 activity: Activity | None = None) -> None:
        self.store = store
        self.activity = activity or Activity()
        self.run_id = f"r-{uuid.uuid4().hex[:8]}"
        self._acting = threading.Lock()
        self._script = review_script(store, now, provider, self.run_id)
        self.prompt: Prompt = next(self._script)

    @property
    def done(self) -> bool:
        return self.prompt.kind == "done"

    def act(self, action: Action) -> Prompt:
        with self._acting:
            self.activity.check()
            check_action(self.prompt, action)
            if action.kind == "claim":
                self.store.add_note(f"{self.run_id}:claim:{uuid.uuid4().hex[:8]}", self.run_id,
                                    "claimed_known", {"kind": "claimed_known",
                                                      "text": action.text[:500]})
                return self.prompt
            self.prompt = self._script.send(action)
            return self.prompt

    def pause(self) -> None:
        """Nothing to keep: every answer is already recorded, and what is left stays due."""

    def close(self) -> None:
        self.activity.cancel()
        self._script.close()


def review_script(store: Store, now: datetime | None = None, provider=None,
                  run_id: str | None = None) -> Script:
    run_id = run_id or f"r-{uuid.uuid4().hex[:8]}"
    gate = Gatekeeper(store, GateDigest(sources={}), provider)
    queue = ledger.due_queue(store, now)
    total = len(queue)
    if not total:
        empty = gate.notice_turn(f"{run_id}:empty", "Nothing is due.")
        yield Prompt(kind="done", message_id=f"{run_id}:empty", stage="done", title="Review",
                     position="done", content=empty.content if isinstance(empty, Emit) else "")
        return
    mistakes = {m["id"]: m for m in ledger.mistakes(store, status="open")}
    for n, due in enumerate(queue, 1):
        position = f"review {n}/{total}"
        if due.kind == "mistake":
            row = mistakes.get(due.id)
            if not row or not row["item"]:
                continue
            item = Presented.model_validate(row["item"])
            title = f"Review · mistake from {row['lesson_id'] or 'an earlier lesson'}"
        else:
            concept = ledger.concept_row(store, due.id) or {}
            name = concept.get("name") or due.id
            item = Presented(id=f"{due.id}-recall", lesson_id=concept.get("lesson_id") or "",
                             type="free_recall", question=f"Recall {name}: explain it in your "
                             "own words.", reference=concept.get("notes") or name,
                             bloom="remember", stage="review")
            title = f"Review · concept {name}"
        message_id = f"{run_id}:{n}"
        outcome = gate.ask(message_id, item.render(), [item.to_question()], "checkpoint",
                           due.concept_id or item.id, item.reference)
        if isinstance(outcome, Block):
            yield Prompt(kind="read", message_id=message_id, stage="review", title=title,
                         position=position, content="", banner=outcome.banner)
            continue
        kind = {"mcq": "choice", "numeric": "numeric", "free_recall": "text"}[item.type]
        action = yield Prompt(kind=kind, message_id=message_id, stage="review", title=title,
                              position=position, content=outcome.content, item=item,
                              needs_confidence=True, unverified=outcome.unverified,
                              flags=outcome.flags)
        idk = action.value == "idk"
        answer = action.text if item.type == "free_recall" else action.value
        passed = None if idk else grade(item, answer)
        if passed is None and not idk:
            # the self-grade screen shows the reference: it passes the checker like a question
            text = (f"Your answer: {answer}\nReference: {item.reference}"
                    "\n\nDid your answer match the reference?")
            self_mid = message_id + ":self"
            gated = gate.ask(self_mid, text, [QuizQuestion(
                id=f"{item.id}-self-grade", type="free_recall", question=text)], "checkpoint",
                due.concept_id or item.id, text)
            if isinstance(gated, Block):
                yield Prompt(kind="read", message_id=self_mid, stage="review", title=title,
                             position=position, content="", banner=gated.banner)
                continue  # not graded: it stays due
            check = yield Prompt(kind="yes_no", message_id=self_mid, stage="review",
                                 title=title, position=position, content=gated.content,
                                 unverified=gated.unverified, flags=gated.flags)
            passed = check.value == "y"
        outcome_word = "idk" if idk else ("correct" if passed else "wrong")
        confidence = "no_idea" if idk else action.confidence
        ledger.record_attempt(store, ledger.Attempt(
            id=f"{message_id}:answer", kind="review", concept_id=due.concept_id,
            item_id=item.id, lesson_id=item.lesson_id or None, answer=answer[:4000],
            outcome=outcome_word, confidence=confidence, payload={"due": due.kind},
        ))
        if due.kind == "mistake":
            status = ledger.review_mistake(store, due.id, outcome_word, confidence, now)
            status = ("resolved: it leaves your due list" if status == "resolved" else
                      "it comes back tomorrow" + (" to confirm" if passed else ""))
        else:
            row = ledger.review_concept(store, due.id, outcome_word, confidence, now)
            status = f"next review {row['next_review'][:10]}"
        shown = answer
        if item.type == "mcq" and answer.isdigit():
            shown = f"{int(answer) + 1}. {item.options[int(answer)]}"
        shown = "I don't know" if idk else shown
        verdict = "right" if passed else "not yet"
        content = (f"{item.question}\n  You answered: {shown} ({confidence})\n  {verdict}. "
                   f"Reference: {item.reference}\n  ({status})")
        graded = gate.grade(message_id + ":grade", content, item.to_question(),
                            graded_answer(item, "idk" if idk else answer), bool(passed),
                            item.reference)
        if isinstance(graded, Block):
            yield Prompt(kind="read", message_id=message_id + ":grade", stage="review",
                         title=title, position=position, content="", banner=graded.banner)
        else:
            yield Prompt(kind="read", message_id=message_id + ":grade", stage="review",
                         title=title, position=position, content=graded.content,
                         unverified=graded.unverified, flags=graded.flags)
    yield Prompt(kind="done", message_id=f"{run_id}:done", stage="done", title="Review",
                 position="done", content=f"Review done: {total} items. The schedule is updated.")
