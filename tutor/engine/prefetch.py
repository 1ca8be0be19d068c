"""Preparation ahead, in the background, so the learner rarely waits on the model: each probe
batch's items (with their rewrites) and the audits of the questions it may ask next, the
teaching steps after the one shown, and the quiz. Also the item pools themselves, built once
so what was prepared is what is asked."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from tutor.engine import probe_budget, probe_items, selection
from tutor.engine.edge_search import ahead
from tutor.engine.items import Presented
from tutor.engine.selection import Strand
from tutor.engine.steps import Step, StepText, prepare_step
from tutor.gates.checker import Block, Emit
from tutor.gates.envelopes import QuizAuditEnvelope

if TYPE_CHECKING:
    from tutor.engine.context import LessonContext

STEPS_AHEAD = 2  # teaching steps prepared ahead of the one shown
QUIZ_SIZE = 5
REWRITES_PER_CALL = 6


class Prefetcher:
    """Owned by the lesson's context. Without a model nothing is prepared ahead (the pools are
    still built once). While a resumed session replays, nothing is sent: what the replay
    passes over is prepared when it lands (`replayed`)."""

    def __init__(self, ctx: LessonContext) -> None:
        self.ctx = ctx
        self._batches: list[Strand] | None = None
        self._batch = 0  # the probe batch being asked
        self._deferred: list[int] = []  # probe batches to prepare once the replay is over
        self._pools: dict[str, list[Presented]] = {}
        self._pool_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._quiz_lock = threading.Lock()
        self._quiz: tuple[tuple[str, ...], list[Presented]] | None = None
        # item id -> (the key of the call that rewrites it, the items that call rewrites)
        self._rewrite_calls: dict[str, tuple[str, list[Presented]]] = {}

    # the pools -----------------------------------------------------------------------------
    def batches(self) -> list[Strand]:
        if self._batches is None:
            self._batches = selection.probe_batches(self.ctx.curriculum, self.ctx.lesson)
        return self._batches

    def pool(self, strand: Strand) -> list[Presented]:
        """A strand's presented items, built once (rewrites included): a re-probe or the
        background preparation reuses them and never requests them again."""
        with self._lock:
            lock = self._pool_locks.setdefault(strand.name, threading.Lock())
        with lock:
            if strand.name not in self._pools:
                self._pools[strand.name] = self._rewritten(probe_items.presented(self.ctx, strand))
            return self._pools[strand.name]

    def questions(self, strand: Strand) -> tuple[list[Presented], list[list[Presented]]]:
        """(a batch's items the edge search runs over, the fill-ups of each of its strands: its
        free-recall items, then its explain-in-your-own-words item —
        tutor.engine.probe_budget.fill_ups)."""
        pool = self.pool(strand)
        recall = [p for p in pool if p.type == "free_recall"]
        fills = [
            probe_budget.fill_ups(g.lesson, recall, probe_items.explain_item(g.lesson))
            for g in strand.members or (strand,)
        ]
        return pool, fills

    def quiz_pool(self) -> list[Presented]:
        """The quiz's items from the bank items not asked yet, built once per such set."""
        ctx = self.ctx
        asked = frozenset(ctx.asked)
        key = tuple(q.id for q in selection.quiz_bank(ctx.lesson) if q.id not in asked)
        with self._quiz_lock:
            if self._quiz is None or self._quiz[0] != key:
                shown = selection.present_quiz(ctx.lesson, ctx.session_id, ctx.curriculum, asked)
                self._quiz = (key, self._rewritten(shown))
            return self._quiz[1]

    def _rewrites(self, pool: list[Presented]) -> list[Presented]:
        """Start the model rewrites of the bank items that failed the quiz rules, up to
        REWRITES_PER_CALL in one request; those items."""
        drafter = self.ctx.drafter
        if drafter is None:
            return []
        failed = [p for p in pool if p.type == "free_recall" and p.note]
        with self._lock:
            todo = [
                p
                for p in failed
                if p.id not in self._rewrite_calls
                and not self.ctx.journal.memoized(f"rewrite:{p.id}")
            ]
            calls = [
                ("rewrites:" + ",".join(p.id for p in items), items)
                for n in range(0, len(todo), REWRITES_PER_CALL)
                for items in [todo[n : n + REWRITES_PER_CALL]]
            ]
            self._rewrite_calls.update({p.id: call for call in calls for p in call[1]})
        for key, items in calls:
            drafter.prefetch(key, partial(drafter.rewrite_all, items))
        return failed

    def _rewrite_of(self, item: Presented) -> dict[str, object] | None:
        """The rewrite of one item, from the call that rewrote it with others (made now if it
        was not prepared)."""
        drafter = self.ctx.drafter
        if drafter is None:
            return None
        key, items = self._rewrite_calls.get(item.id, (f"rewrites:{item.id}", [item]))
        made = drafter.take(key, partial(drafter.rewrite_all, items))
        return None if made is None else made.get(item.id)

    def _rewritten(self, pool: list[Presented]) -> list[Presented]:
        """With a model, bank items that failed the quiz rules are rewritten as MCQs; a rewrite
        is used only when it passes the same rules, else the item stays free recall."""
        failed = self._rewrites(pool)
        out = []
        for p in pool:
            made = None
            if p in failed:
                made = self.ctx.journal.memo(f"rewrite:{p.id}", partial(self._rewrite_of, p))
            out.append(Presented.model_validate(made) if made else p)
        return out

    # audits ahead --------------------------------------------------------------------------
    def ask_envelope(self, item: Presented, purpose: str) -> QuizAuditEnvelope:
        """The quiz_audit envelope `ask` builds for the item (same concept, same purpose), so a
        verdict prepared ahead is the one the question finds."""
        from tutor.engine.screens import audit_purpose

        concept = self.ctx.concept_of(item) if purpose == "probe" else self.ctx.concept
        return self.ctx.gate.ask_envelope(
            [item.to_question()], audit_purpose(purpose), concept, item.reference
        )

    def audit_now(self, items: Sequence[Presented], purpose: str) -> None:
        """Audit these questions now, concurrently (blocks; for background work)."""
        if items:
            self.ctx.gate.prewarm([self.ask_envelope(i, purpose) for i in items])

    def audits(self, key: str, items: Sequence[Presented], purpose: str) -> None:
        """Audit questions concurrently, in the background, before they are asked (not while a
        resumed session replays its answers: those questions have their verdicts)."""
        drafter = self.ctx.drafter
        if drafter is not None and items and not self.ctx.journal.replaying:
            drafter.prefetch(key, lambda: self.audit_now(items, purpose))

    def gated_audit(self, key: str, stage: str, content: str) -> None:
        """In the background: the audit of a program-made question (the explain-back) before
        it is shown."""
        from tutor.engine.screens import audit_purpose, gated_question

        drafter = self.ctx.drafter
        if drafter is None or self.ctx.journal.replaying:
            return
        envelope = self.ctx.gate.ask_envelope(
            [gated_question(self.ctx, stage, content)],
            audit_purpose(stage),
            self.ctx.concept,
            content,
        )
        drafter.prefetch(key, partial(self.ctx.gate.prewarm, [envelope]))

    # the probe -----------------------------------------------------------------------------
    def batch_asked(self, n: int) -> None:
        """Batch n is being asked: the next one is prepared meanwhile."""
        self._batch = n
        self.probe(n + 1)

    def probe(self, n: int) -> None:
        """In the background: batch n's items (rewrites included) and the audits of the
        questions asked first. The first question's audit is sent alongside the rewrites, as
        the items stand before them; it is needed first."""
        drafter = self.ctx.drafter
        batches = self.batches()
        if drafter is None or n > len(batches):
            return
        if self.ctx.journal.replaying:  # its audits, if still needed, once the replay is over
            self._deferred.append(n)
            return
        strand = batches[n - 1]

        def opening(pool: list[Presented]) -> list[Presented]:
            """The batch's first question, then those that may follow it."""
            groups = probe_items.queues(strand, pool)
            searches = [probe_items.search(q, self.ctx.revealed) for q in groups]
            first = probe_budget.pick(searches)
            start = None if first is None else searches[first].next_index()
            if first is None or start is None:
                return []
            return [groups[first][start], *ahead(searches, groups, first, asked=start)]

        def work() -> None:
            before = probe_items.presented(self.ctx, strand)
            failed = self._rewrites(before)
            # the first question as the items stand before the rewrites (an item about to be
            # rewritten is not audited first), with the explain-back items the batch may ask
            explains = [
                e for g in strand.members or (strand,) if (e := probe_items.explain_item(g.lesson))
            ]
            first = [p for p in opening(before)[:1] if p not in failed]
            self.audit_now([*first, *explains], "probe")
            pool, fills = self.questions(strand)
            spare = probe_budget.planned(fills, probe_items.queues(strand, pool))
            self.audit_now([*opening(pool), *spare], "probe")

        drafter.prefetch(f"prepare-probe:{n}", work)

    def replayed(self) -> None:
        """The replay is over: prepare the probe batches it passed over that are still ahead."""
        for n in self._deferred:
            if n > self._batch:
                self.probe(n)
        self._deferred.clear()

    # teaching and the quiz -----------------------------------------------------------------
    def steps(self, steps: list[Step], shown: int) -> None:
        """In the background, the STEPS_AHEAD steps after step `shown` (drafted and checked, a
        draft and a verification each): a step that is read faster than one is prepared still
        finds the next one ready."""
        drafter = self.ctx.drafter
        if drafter is None:
            return
        for n in range(shown + 1, min(shown + STEPS_AHEAD, len(steps)) + 1):
            drafter.prefetch(f"step:{n}", partial(prepare_step, self.ctx, steps[n - 1], n))

    def step(self, step: Step, n: int) -> tuple[StepText, Emit | Block]:
        """Step n drafted and checked: as prepared ahead, else now."""
        drafter = self.ctx.drafter
        prepared = drafter.take(f"step:{n}") if drafter is not None else None
        return prepared or prepare_step(self.ctx, step, n)

    def quiz(self) -> None:
        """In the background, during the last teaching step: the quiz's items and audits."""
        drafter = self.ctx.drafter
        if drafter is None:
            return

        def work() -> None:
            pool = sorted(self.quiz_pool(), key=lambda p: p.type == "free_recall")
            self.audit_now(pool[:1], "quiz")  # the first question is needed first
            self.audit_now(pool[1:QUIZ_SIZE], "quiz")

        drafter.prefetch("prepare-quiz", work)
