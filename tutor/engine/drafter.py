"""With a model: teaching drafts, rewrites of bank items that failed the quiz rules, isomorphic
re-probes and free-recall grades, prepared in the background while the learner reads, so step
boundaries rarely wait on the model. Everything made here is then gated."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from tutor import aio
from tutor.gates.claims import is_scaffold
from tutor.gates.text import normalise

if TYPE_CHECKING:
    from tutor.engine.items import Presented
    from tutor.engine.progress import Activity
    from tutor.engine.steps import StepText
    from tutor.llm.provider import Provider

M = TypeVar("M", bound=BaseModel)

_DOING = {
    "teach": "drafting the next step from its sources",
    "reprobe": "writing a re-probe question",
    "rewrite": "rewriting a quiz item into a fair multiple-choice question",
    "grade": "grading your answer against the reference",
    "revise": "revising the draft where the check found problems",
}
log = logging.getLogger("tutor.engine")
# Tokens (estimated) of a step's excerpt the drafter is sent; the rest of a longer step is
# shown after the draft as the source's own text.
DRAFT_EXCERPT_TOKENS = 280
DRAFT_GROWTH = 4  # a draft may run to this many times its excerpts' length …
DRAFT_ROOM = 3000  # … or this many characters, whichever is more; longer: the compiled step
_TOKENISH = re.compile(r"\w+|[^\w\s]")
CONTINUED = "[the source, continued]"
FAILED_RULES = "rewritten by the model from a bank item that failed the quiz rules"


class StepDraft(BaseModel):
    """A drafted step. `claims` is the drafter's own list, kept for the model's sake only: the
    claims checked are every asserting sentence of `content` (tutor.gates.claims)."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1)
    claims: list[str] = []


class IsomorphicItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    options: list[str]
    correct_index: int


class RewrittenItem(IsomorphicItem):
    id: str


class RewrittenItems(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[RewrittenItem]


class FreeRecallGrade(BaseModel):
    model_config = ConfigDict(extra="forbid")

    passed: bool
    explanation: str


class Drafter:
    """Work keyed by what it is for: each key is worked once per lesson, in the background
    (`prefetch`) or when needed (`take` with the work to do if it was not prefetched). A result
    that is None — a rejected rewrite, a failed call — is kept too, so it is never asked
    again."""

    def __init__(self, provider: Provider, workers: int = 4) -> None:
        self.provider = provider
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tutor-prep")
        self._futures: dict[str, Future[Any]] = {}
        # progress, and the learner quitting: the session's, once it opens
        self.activity: Activity | None = None
        # the lesson's common errors, offered as distractors (tutor.dossier.distractors)
        self.common_errors: list[dict[str, str]] = []
        self._work: dict[str, Callable[[], Any]] = {}
        self._lock = threading.Lock()

    def prefetch(self, key: str, work: Callable[[], Any]) -> None:
        with self._lock:
            if key not in self._futures:
                self._futures[key] = self._pool.submit(work)
                self._work[key] = work

    def take(self, key: str, work: Callable[[], Any] | None = None) -> Any:
        """The result of the work for `key`: prefetched, else done now with `work` (once). Work
        still queued is taken back and done here, so a waiting task never waits on the queue
        (no deadlock when preparations wait on each other)."""
        with self._lock:
            future = self._futures.get(key)
            run_here: Callable[[], Any] | None = None
            if future is None and work is not None:
                run_here = work
            elif future is not None and future.cancel():
                run_here = self._work.get(key) or work
            if run_here is not None:
                future = Future()
                self._futures[key] = future
        if future is None:
            return None
        if run_here is not None:
            try:
                future.set_result(run_here())
            except Exception as exc:  # kept on the future; reported below like a prefetch's
                future.set_exception(exc)
        try:
            return future.result()
        except Exception as exc:  # a bug in preparation: logged; the caller falls back
            log.warning("preparing %s failed: %s: %s", key, type(exc).__name__, exc)
            return None

    def close(self) -> None:
        """Cancel what has not started; wait for what has (its model-call record included), so
        nothing writes to the store after it closes."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _call(self, skill: str, data: dict[str, Any], schema: type[M], purpose: str) -> M | None:
        from tutor.llm.provider import ModelFailure

        if self.activity is not None:
            if self.activity.cancelled:
                return None
            self.activity.report(_DOING.get(purpose, "asking the model"))
        try:
            return aio.run(
                self.provider.structured(skill=skill, data=data, schema=schema, purpose=purpose),
                self.provider,
            )
        except ModelFailure:
            return None

    def draft(
        self,
        step: str,
        compiled: StepText,
        verdicts: dict[str, str] | None = None,
        position: str = "",
        plan: dict[str, object] | None = None,
        *,
        whole: bool = False,
    ) -> StepText | None:
        """A fresh explanation of the step (its title) from its excerpts, for a learner whose probe
        verdicts are `verdicts` (prerequisite → solid / unstable / unknown), shaped by the step's
        `plan` (tutor.engine.step_plan: never the learner's profile); None → teach the compiled
        step. A step longer than DRAFT_EXCERPT_TOKENS is drafted from its first paragraphs, and
        the rest follows the draft as the source's own text — unless `whole` (a knowledge pack's
        selection, which is not the source's text): all of it is sent."""
        if whole:
            given, rest = compiled["excerpt"], ""
        else:
            given, rest = split_excerpt(compiled["excerpt"], DRAFT_EXCERPT_TOKENS)
        made = self._call(
            "tutor",
            {
                "task": "teach_step",
                "step": step,
                "position": position,
                "verdicts": verdicts or {},
                "untrusted_excerpts": given,
                **({"plan": plan} if plan is not None else {}),
            },
            StepDraft,
            "teach",
        )
        content = _usable(made, given)
        if content is None:
            return None
        if rest:
            content = f"{content}\n\n{CONTINUED}\n\n{rest}"
        return {
            "content": content,
            "sources": compiled["sources"],
            "excerpt": compiled["excerpt"],
            "model": True,
        }

    def revise(
        self, step: str, made: StepText, draft: str, flagged: list[tuple[str, str]]
    ) -> str | None:
        """The draft revised where the verifier found issues (claims it disputes, with its
        explanation); None when the model cannot revise it."""
        revised = self._call(
            "tutor",
            {
                "task": "revise_step",
                "step": step,
                "untrusted_draft": draft,
                "untrusted_disputed": [{"claim": c, "problem": why} for c, why in flagged],
                "untrusted_excerpts": split_excerpt(made["excerpt"], DRAFT_EXCERPT_TOKENS)[0],
            },
            StepDraft,
            "revise",
        )
        return _usable(revised, draft)

    def isomorphic(self, item: Presented) -> dict[str, Any] | None:
        """The same concept, structurally different wording: the re-probe after a lucky hunch."""
        made = self._call(
            "tutor",
            {
                "task": "isomorphic_item",
                "untrusted_item": item.question,
                "untrusted_reference": item.reference,
                **self._errors(),
            },
            IsomorphicItem,
            "reprobe",
        )
        return _fair_mcq(made, item, item.id + "-iso", "an isomorphic re-probe made by the model")

    def rewrite(self, item: Presented, problems: str = "") -> dict[str, Any] | None:
        """A bank item that failed the quiz rules — or whose audit found `problems` — rewritten
        by the model as an MCQ."""
        data = {
            "task": "rewrite_item",
            "untrusted_item": item.question,
            "untrusted_reference": item.reference,
            **self._errors(),
        }
        if problems:
            data["untrusted_options"] = " | ".join(item.options)
            data["untrusted_problems"] = problems
        made = self._call("tutor", data, IsomorphicItem, "rewrite")
        return _fair_mcq(
            made,
            item,
            item.id,
            "rewritten by the model where the quiz audit found problems"
            if problems
            else FAILED_RULES,
        )

    def rewrite_all(self, items: list[Presented]) -> dict[str, dict[str, Any] | None]:
        """Bank items that failed the quiz rules rewritten as MCQs in one call (the skill and
        the rules sent once), each kept as `rewrite` keeps one: by item id, None where the model
        gave no fair item or could not answer."""
        made = self._call(
            "tutor",
            {
                "task": "rewrite_items",
                "items": [
                    {"id": p.id, "untrusted_item": p.question, "untrusted_reference": p.reference}
                    for p in items
                ],
                **self._errors(),
            },
            RewrittenItems,
            "rewrite",
        )
        given = {m.id: m for m in made.items} if made is not None else {}
        return {p.id: _fair_mcq(given.get(p.id), p, p.id, FAILED_RULES) for p in items}

    def _errors(self) -> dict[str, list[dict[str, str]]]:
        return {"untrusted_common_errors": self.common_errors} if self.common_errors else {}

    def grade(self, item: Presented, answer: str) -> bool | None:
        """The model's grade of a free-recall answer against the reference; None when it cannot
        grade (the learner then grades it)."""
        made = self._call(
            "grader",
            {
                "task": "grade_free_recall",
                "question": item.question,
                "untrusted_reference": item.reference,
                "untrusted_answer": answer,
            },
            FreeRecallGrade,
            "grade",
        )
        return None if made is None else made.passed


def estimated_tokens(text: str) -> int:
    """About how many tokens a model's tokenizer makes of `text`: its words and punctuation
    marks (close to o200k for prose, code and formulas alike)."""
    return len(_TOKENISH.findall(text))


def split_excerpt(excerpt: str, limit: int) -> tuple[str, str]:
    """(the start of `excerpt` within about `limit` tokens, cut at a blank line when one is
    there, else at a line's end, never inside a code block; the rest). All of it when it
    cannot be cut."""
    ends = [m.end() for m in _TOKENISH.finditer(excerpt)]
    if len(ends) <= limit:
        return excerpt, ""
    head = excerpt[: ends[limit - 1]]
    cut = head.rfind("\n\n")
    if cut <= 0:
        cut = head.rfind("\n")
    if cut <= 0:
        cut = len(head)
    if excerpt[:cut].count("```") % 2:  # never inside a code block: cut before it opens
        cut = excerpt.rfind("```", 0, cut)
    if cut <= 0:
        return excerpt, ""
    return excerpt[:cut].rstrip(), excerpt[cut:].strip()


def _usable(made: StepDraft | None, given: str) -> str | None:
    """A draft's text, or None when it is empty, runs past DRAFT_GROWTH times its excerpts
    (`given`; at least DRAFT_ROOM characters: a reply that ignores its token budget is not a
    teaching step), or carries a [bracketed] scaffold line — those are the program's provenance
    marks, exempt from claim extraction, so a model may not write them."""
    if made is None or not normalise(made.content):
        return None
    if len(made.content) > max(DRAFT_ROOM, DRAFT_GROWTH * len(given)):
        return None
    if any(is_scaffold(line) for line in made.content.splitlines()):
        return None
    return made.content


def _fair_mcq(
    made: IsomorphicItem | None, item: Presented, new_id: str, note: str
) -> dict[str, Any] | None:
    """A model-made MCQ as a presented item, kept only when it passes the mechanical rules and
    no answer-free strategy finds its key; its options are placed like any other item's."""
    from tutor.engine.guessing import SINGLE_ITEM_TELLS, guessable_by
    from tutor.engine.items import place_key
    from tutor.gates import mcq
    from tutor.gates.envelopes import QuizQuestion

    if made is None or len(made.options) != 4 or not 0 <= made.correct_index < 4:
        return None
    question = QuizQuestion(
        id=new_id,
        type="mcq",
        question=made.question,
        options=made.options,
        correct_index=made.correct_index,
    )
    if mcq.blocking(mcq.audit_item(question)):
        return None
    if guessable_by(made.question, made.options, made.correct_index, among=SINGLE_ITEM_TELLS):
        return None
    options, key = place_key(made.options, made.correct_index, new_id)
    return {
        "id": new_id,
        "lesson_id": item.lesson_id,
        "type": "mcq",
        "question": made.question,
        "options": options,
        "correct_index": key,
        "reference": item.reference,
        "bloom": item.bloom,
        "stage": item.stage,
        "note": note,
        "written_by": "model",
    }
