"""Every turn the engine shows goes through here: envelope → verifier → receipt → checker.

With no model (or a model that fails) the deterministic verifier decides what it can and marks
the rest UNVERIFIED; the local checker has the last word. Receipts are kept in the store.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

from learning_system.store import Store
from tutor import aio
from tutor.engine.progress import Activity
from tutor.gates import offline_verifier
from tutor.gates.audit import save_receipt
from tutor.gates.checker import Block, Emit, check_turn
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import (
    Claim,
    Envelope,
    FactCheckEnvelope,
    GradeAuditEnvelope,
    ProposedGrade,
    QuizAuditEnvelope,
    QuizQuestion,
)
from tutor.gates.receipts import MAX_CYCLES, Receipt, make_receipt
from tutor.gates.turns import Turn
from tutor.gates.verdicts import FactCheckVerdict, Verdict

Outcome = Emit | Block


def describe(envelopes: Sequence[Envelope]) -> str:
    """What a verification is doing, for the learner waiting on it."""
    claims = sum(len(e.claims) for e in envelopes if isinstance(e, FactCheckEnvelope))
    sources = len({u for e in envelopes if isinstance(e, FactCheckEnvelope)
                   for u in e.source_urls})
    questions = sum(len(e.questions_json) for e in envelopes
                    if isinstance(e, QuizAuditEnvelope))
    grades = sum(isinstance(e, GradeAuditEnvelope) for e in envelopes)
    parts = []
    if claims:
        parts.append(f"checking {claims} claim{'s' * (claims != 1)} against {sources} "
                     f"source{'s' * (sources != 1)}")
    if questions:
        parts.append(f"auditing {questions} question{'s' * (questions != 1)}")
    if grades:
        parts.append(f"checking {grades} grade{'s' * (grades != 1)}")
    return "; ".join(parts) or "verifying"


class Gatekeeper:
    def __init__(self, store: Store, digest: GateDigest, provider=None) -> None:
        self.store = store
        self.digest = digest
        self.provider = None if provider is None or getattr(provider, "offline", True) else provider
        self._verdicts: dict[str, tuple[Verdict, str]] = {}
        self._in_flight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.activity: Activity | None = None  # where model verifications report progress

    def _verify(self, envelope: Envelope) -> tuple[Verdict, str]:
        if self.provider is None:
            return offline_verifier.verify(envelope), "offline"
        key = envelope.model_dump_json()
        self.prewarm([envelope])
        with self._lock:
            pending = self._in_flight.get(key)
        if pending is not None:
            pending.wait()
        with self._lock:
            return self._verdicts[key]

    def prewarm(self, envelopes: Sequence[Envelope]) -> None:
        """Run a model verifier on several envelopes at once (they are independent) and keep
        the verdicts for the turns that will carry them. An envelope already being verified
        (e.g. in the background) is not sent twice."""
        if self.provider is None:
            return
        done = threading.Event()
        with self._lock:
            todo = {}
            for e in envelopes:
                key = e.model_dump_json()
                if key not in self._verdicts and key not in self._in_flight:
                    todo[key] = e
                    self._in_flight[key] = done
        if not todo:
            return
        if self.activity is not None:
            self.activity.report(describe(list(todo.values())))

        async def all_of() -> list:
            return await asyncio.gather(*(self.provider.verify(e) for e in todo.values()),
                                        return_exceptions=True)

        try:
            results = aio.run(all_of(), self.provider)
        except Exception as exc:  # the verifier could not run: UNVERIFIED, never a pass
            results = [exc] * len(todo)
        with self._lock:
            for (key, envelope), result in zip(todo.items(), results, strict=True):
                if isinstance(result, BaseException):
                    reason = f"verifier failed: {type(result).__name__}: {result}"
                    self._verdicts[key] = (offline_verifier.unverified(envelope, reason), "none")
                else:
                    self._verdicts[key] = (result, "model")
                del self._in_flight[key]
        done.set()

    @staticmethod
    def ask_envelope(questions: list[QuizQuestion], purpose: str, concept: str, excerpt: str
                     ) -> QuizAuditEnvelope:
        return QuizAuditEnvelope(
            questions_json=questions, purpose=purpose, concept=concept,  # type: ignore[arg-type]
            bloom_levels=sorted({q.target_bloom or "understand" for q in questions}),
            source_excerpt=excerpt,
        )

    @staticmethod
    def grade_envelope(item: QuizQuestion, answer: str, passed: bool, excerpt: str,
                       rubric: list[str] | None = None, error_type: str | None = None,
                       rubric_hits: list[str] | None = None) -> GradeAuditEnvelope:
        return GradeAuditEnvelope(
            item=item, learner_answer=answer,
            proposed_grade=ProposedGrade(passed=passed, error_type=error_type,  # type: ignore[arg-type]
                                         rubric_hits=rubric_hits or []),
            rubric=rubric or [], reference_excerpt=excerpt,
        )

    def _receipt(self, message_id: str, envelope: Envelope, cycles: int = 0) -> Receipt:
        verdict, verifier = self._verify(envelope)
        receipt = make_receipt(message_id, envelope, verdict, cycles, verifier)  # type: ignore[arg-type]
        save_receipt(self.store, receipt)
        return receipt

    def _check(self, turn: Turn, receipts: Sequence[Receipt]) -> Outcome:
        return check_turn(turn, list(receipts), self.digest)

    def ask(self, message_id: str, content: str, questions: list[QuizQuestion], purpose: str,
            concept: str, excerpt: str) -> Outcome:
        receipt = self._receipt(message_id, self.ask_envelope(questions, purpose, concept,
                                                              excerpt))
        turn = Turn(message_id=message_id, kind="ask", content=content, questions=questions)
        return self._check(turn, [receipt])

    def teach(self, message_id: str, content: str, claims: list[str], sources: list[str],
              excerpt: str, context: str = "") -> Outcome:
        """Fact-check exactly this draft; fold corrections in, re-checking only corrected
        claims, for at most MAX_CYCLES cycles."""
        claim_models = [Claim(id=f"c{n + 1}", claim=c) for n, c in enumerate(claims)]
        rendered = content
        cycles = 0
        while True:
            envelope = FactCheckEnvelope(
                claims=claim_models, rendered_content=rendered, source_urls=sources,
                reference_excerpt=excerpt, context=context,
            )
            verdict, verifier = self._verify(envelope)
            corrections = {}
            if isinstance(verdict, FactCheckVerdict):
                corrections = {v.id: v.corrected_claim for v in verdict.claims
                               if v.verdict == "ISSUES" and v.corrected_claim}
            if not corrections or cycles >= MAX_CYCLES:
                break
            emitted = rendered
            for claim in claim_models:
                if claim.id in corrections:
                    emitted = emitted.replace(claim.claim, corrections[claim.id])
            # the next cycle checks the corrected draft and only its corrected claims
            claim_models = [Claim(id=cid, claim=text) for cid, text in corrections.items()]
            rendered = emitted
            cycles += 1
        receipt = make_receipt(message_id, envelope, verdict, cycles, verifier)  # type: ignore[arg-type]
        save_receipt(self.store, receipt)
        emitted = rendered
        if isinstance(verdict, FactCheckVerdict):
            for v in verdict.claims:
                if v.verdict == "ISSUES" and v.corrected_claim:
                    original = next(c.claim for c in claim_models if c.id == v.id)
                    emitted = emitted.replace(original, v.corrected_claim)
        turn = Turn(message_id=message_id, kind="teach", content=emitted, claims=claim_models)
        return self._check(turn, [receipt])

    def grade(self, message_id: str, content: str, item: QuizQuestion, answer: str,
              passed: bool, excerpt: str, rubric: list[str] | None = None,
              error_type: str | None = None, rubric_hits: list[str] | None = None) -> Outcome:
        envelope = self.grade_envelope(item, answer, passed, excerpt, rubric, error_type,
                                       rubric_hits)
        receipt = self._receipt(message_id, envelope)
        turn = Turn(message_id=message_id, kind="grade", content=content, questions=[item])
        return self._check(turn, [receipt])
