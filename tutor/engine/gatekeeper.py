"""Every turn the engine shows goes through here: envelope → verifier → receipt → checker.

With no model (or a model that fails) the deterministic verifier decides what it can and marks
the rest UNVERIFIED; the local checker has the last word. Receipts are kept in the store.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from learning_system.store import Store
from tutor import aio
from tutor.engine import gate_envelopes
from tutor.engine.progress import Activity
from tutor.engine.verifiers import NOT_INDEPENDENT, describe, online, same_model
from tutor.gates import offline_verifier
from tutor.gates.audit import save_receipt
from tutor.gates.checker import Block, Emit, check_turn
from tutor.gates.claims import extract_claims
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import (
    Claim,
    Envelope,
    FactCheckEnvelope,
    QuizQuestion,
)
from tutor.gates.floor import MODEL_WRITTEN, floor
from tutor.gates.receipts import MAX_CYCLES, Receipt, make_receipt, passed_ids
from tutor.gates.text import normalise
from tutor.gates.turns import Turn
from tutor.gates.verdicts import FactCheckVerdict, Verdict

Outcome = Emit | Block
# What a draft reviser returns: the revised text, or None when it cannot revise.
Reviser = Callable[[str, list[tuple[str, str]]], str | None]
log = logging.getLogger("tutor.engine")


class Gatekeeper:
    """`provider` drafts; its `verifier` (TUTOR_VERIFIER_*, else the provider itself) runs the
    gate verifiers. Receipts say which ran: `model` (and whether it was independent of the
    drafting model), `offline` (the deterministic verifier: no model, a model that failed, or a
    verdict the rules settle), or `none`."""

    def __init__(
        self,
        store: Store,
        digest: GateDigest,
        provider: Any = None,
        activity: Activity | None = None,
    ) -> None:
        self.store = store
        self.digest = digest
        self.provider = provider if online(provider) else None
        verifier = getattr(self.provider, "verifier", None) or self.provider
        self.verifier = verifier if online(verifier) else None
        self._verdicts: dict[str, tuple[Verdict, str, str]] = {}
        self._in_flight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self.activity = activity  # where model verifications report progress
        self.verified_by: dict[str, str] = {}  # message id → the verifier its receipt names

    def independent(self) -> bool:
        """Whether the verifier is another model than the drafting one: by their names, and by
        the names their endpoints' answers gave so far (tutor.engine.verifiers.same_model)."""
        return (
            self.verifier is not None
            and self.provider is not None
            and not same_model(self.verifier, self.provider)
        )

    # the model's health ------------------------------------------------------------------------
    def notice(self) -> str | None:
        """Once, after the model went offline for this lesson: the line that tells the learner
        (which model, when the verifier is a separate one, and what the lesson goes on with)."""
        separate = self.verifier is not None and self.verifier is not self.provider
        for p in (self.provider, self.verifier):
            b = getattr(p, "breaker", None)
            if b is None:
                continue
            if not separate:
                told = b.notice()
            elif p is self.verifier:
                told = b.notice(
                    "The verifier model",
                    "the lesson's own text and the offline "
                    "checks (nothing the model drafts is shown unchecked)",
                )
            else:
                told = b.notice(
                    "The model", "the lesson's own text, still checked by the verifier model"
                )
            if told:
                return str(told)
        return None

    def _verifier_down(self) -> bool:
        b = getattr(self.verifier, "breaker", None)
        return b is not None and b.is_open

    def reuse(self, session_id: str) -> int:
        """A resumed session: the model verdicts its turns already got (kept with their
        receipts) are used again for the same envelopes, so replaying to where the learner
        stopped sends nothing to the model. Only verdicts of the verifier model now in use;
        a receipt that is no longer valid is left out. Returns how many were taken."""
        if self.verifier is None:
            return 0
        from tutor.gates.audit import load_receipt_payload

        model = getattr(self.verifier, "model", None)
        taken = 0
        for row in self.store.receipts.of_session(session_id):
            receipt = load_receipt_payload(row.get("payload"))
            if receipt is None or receipt.verifier != "model" or receipt.verifier_model != model:
                continue
            with self._lock:
                self._verdicts.setdefault(
                    receipt.envelope.model_dump_json(), (receipt.verdict, "model", "")
                )
            taken += 1
        return taken

    def model_checks(self) -> bool:
        """Whether a model verifier runs now (configured, and its breaker closed): a model's
        draft is shown only when one does."""
        return self.verifier is not None and not self._verifier_down()

    # verification ---------------------------------------------------------------------------
    def _verify(self, envelope: Envelope) -> tuple[Verdict, str, str]:
        if self.verifier is None or self._verifier_down():
            return offline_verifier.verify(envelope), "offline", ""
        key = envelope.model_dump_json()
        self.prewarm([envelope])
        with self._lock:
            pending = self._in_flight.get(key)
        if pending is not None:
            pending.wait()
        with self._lock:
            return self._verdicts[key]

    def prewarm(self, envelopes: Sequence[Envelope]) -> None:
        """Run the model verifier on several envelopes at once (they are independent; one-question
        audits prepared together go in one request, tutor.llm.quiz_batches) and keep the
        verdicts for the turns that will carry them. An envelope already verified or being
        verified (e.g. in the background) is not sent again. Works from a plain thread and from
        a thread that already runs an event loop."""
        if self.verifier is None or self._verifier_down():
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
        from tutor.llm.quiz_batches import verify_all

        results: list[Any] = [RuntimeError("the verification did not finish")] * len(todo)
        try:
            results = aio.run(verify_all(self.verifier, list(todo.values())), self.verifier)
        except Exception as exc:  # the loop itself failed: logged below, offline verdicts
            results = [exc] * len(todo)
        finally:  # whatever escapes (a cancellation), no turn waits on these for ever
            self._settle(todo, results)
            done.set()

    def _settle(self, todo: dict[str, Envelope], results: list[Any]) -> None:
        """Keep the verdicts of a prewarm; for an exception, logged, the deterministic
        verifier's verdict."""
        with self._lock:
            for (key, envelope), result in zip(todo.items(), results, strict=True):
                if isinstance(result, BaseException):
                    # not a model failure (those come back as offline verdicts) but a bug:
                    # logged, and the deterministic verifier decides — never fewer checks
                    reason = f"verifier error: {type(result).__name__}: {result}"
                    log.warning("%s", reason)
                    self._verdicts[key] = (offline_verifier.verify(envelope), "offline", reason)
                else:
                    self._verdicts[key] = result
                self._in_flight.pop(key, None)

    ask_envelope = staticmethod(gate_envelopes.ask_envelope)
    grade_envelope = staticmethod(gate_envelopes.grade_envelope)

    def _receipt(
        self,
        message_id: str,
        envelope: Envelope,
        cycles: int = 0,
        verified: tuple[Verdict, str, str] | None = None,
        model_written: Sequence[str] = (),
    ) -> Receipt:
        """The receipt for one turn. A model's verdict is held to the floor of the program's
        checks (tutor.gates.floor): it can add doubt, never remove it; the receipt says which
        checks passed what (`checks`)."""
        verdict, verifier, _note = verified or self._verify(envelope)
        offline = offline_verifier.verify(envelope)
        extra: dict[str, Any] = {"checks": {"offline": passed_ids(envelope, offline)}}
        if verifier == "model" and self.verifier is not None:
            extra["checks"]["model"] = passed_ids(envelope, verdict)
            verdict = floor(envelope, verdict, offline, model_written=model_written)
            extra |= {
                "verifier_model": getattr(self.verifier, "model", None),
                "independent": self.independent(),
            }
        receipt = make_receipt(
            message_id,
            envelope,
            verdict,
            cycles,
            verifier,  # type: ignore[arg-type]
            **extra,
        )
        save_receipt(self.store, receipt)
        with self._lock:
            self.verified_by[message_id] = verifier
        return receipt

    def _check(self, turn: Turn, receipts: Sequence[Receipt]) -> Outcome:
        outcome = check_turn(turn, list(receipts), self.digest)
        if not isinstance(outcome, Emit):
            return outcome
        extra = []
        floored = [
            i
            for r in receipts
            for i in r.checks.get("model", [])
            if i in outcome.unverified and r.gate == "fact_check"
        ]
        if floored:
            n = len(floored)
            extra.append(
                f"{n} sentence{'s' * (n != 1)} the verifier model passed "
                f"{'are' if n != 1 else 'is'} marked UNVERIFIED: the program's own checks "
                "could not find them in the lesson's sources"
            )
        if any(
            r.gate == "quiz_audit" and r.verdict.verdict == "UNVERIFIED" and r.checks.get("model")
            for r in receipts
        ):
            extra.append(MODEL_WRITTEN)
        if any(r.independent is False for r in receipts):
            extra.append(NOT_INDEPENDENT)
        if extra:
            outcome = outcome.model_copy(update={"flags": [*outcome.flags, *extra]})
        return outcome

    def notice_turn(self, message_id: str, content: str) -> Outcome:
        """Navigation and status text (the prior table, a verdict summary): no claims, no
        questions, so no gate — but it still passes the checker."""
        return self._check(Turn(message_id=message_id, kind="notice", content=content), [])

    def ask(
        self,
        message_id: str,
        content: str,
        questions: list[QuizQuestion],
        purpose: str,
        concept: str,
        excerpt: str,
        cycles: int = 0,
        model_written: Sequence[str] = (),
    ) -> Outcome:
        """Audit and check a turn that asks; `cycles`: the revisions made before this audit
        (a disputed choice item asked again as free recall is one); `model_written`: the ids
        of questions a model wrote (shown UNVERIFIED whatever the verifier says)."""
        receipt = self._receipt(
            message_id,
            self.ask_envelope(questions, purpose, concept, excerpt),
            cycles,
            model_written=model_written,
        )
        turn = Turn(message_id=message_id, kind="ask", content=content, questions=questions)
        return self._check(turn, [receipt])

    def teach(
        self,
        message_id: str,
        content: str,
        sources: list[str],
        excerpt: str,
        context: str = "",
        revise: Reviser | None = None,
        offline: bool = False,
    ) -> Outcome:
        """Fact-check exactly this draft. Its claims are the program's: every sentence of the
        draft that asserts something (tutor.gates.claims). Corrections the verifier gives are
        folded in; claims with issues and no correction go to `revise` (a redraft), and the
        revised draft is checked again — at most MAX_CYCLES cycles. What still has issues then
        is blocked (F08 / F09), and the caller falls back. `offline` checks with the
        deterministic verifier only: for the lesson's own text, quoted as it is."""
        rendered = content
        cycles = 0
        while True:
            texts = extract_claims(rendered)
            if not texts:
                return self.notice_turn(message_id, rendered)
            claim_models = [Claim(id=f"c{n + 1}", claim=c) for n, c in enumerate(texts)]
            envelope = FactCheckEnvelope(
                claims=claim_models,
                rendered_content=rendered,
                source_urls=sources,
                reference_excerpt=excerpt,
                context=context,
            )
            verified = (
                (offline_verifier.verify(envelope), "offline", "")
                if offline
                else self._verify(envelope)
            )
            verdict = verified[0]
            flagged = []
            if isinstance(verdict, FactCheckVerdict):
                by_id = {c.id: c.claim for c in claim_models}
                flagged = [
                    (by_id[v.id], v.explanation)
                    for v in verdict.claims
                    if v.verdict == "ISSUES" and not v.corrected_claim
                ]
            if not flagged or revise is None or cycles >= MAX_CYCLES:
                break
            revised = revise(rendered, flagged)
            if not revised or revised == rendered:
                break
            rendered = revised
            cycles += 1
        receipt = self._receipt(message_id, envelope, cycles, verified)
        emitted = rendered
        if isinstance(verdict, FactCheckVerdict):
            for v in verdict.claims:
                if v.verdict == "ISSUES" and v.corrected_claim:
                    original = next(c.claim for c in claim_models if c.id == v.id)
                    emitted = emitted.replace(original, v.corrected_claim)
        turn = Turn(message_id=message_id, kind="teach", content=emitted, claims=claim_models)
        return self._check(turn, [receipt])

    def grade(
        self,
        message_id: str,
        content: str,
        item: QuizQuestion,
        answer: str,
        passed: bool,
        excerpt: str,
        rubric: list[str] | None = None,
        error_type: str | None = None,
        rubric_hits: list[str] | None = None,
        cycles: int = 0,
        unsourced: Sequence[str] = (),
    ) -> Outcome:
        """Audit and check a grade; `cycles`: the re-grades made before this audit;
        `unsourced`: sentences of the reference the program found in none of the sources (a
        knowledge pack's), marked UNVERIFIED whatever the verifier says."""
        envelope = self.grade_envelope(
            item, answer, passed, excerpt, rubric, error_type, rubric_hits
        )
        receipt = self._receipt(message_id, envelope, cycles)
        turn = Turn(message_id=message_id, kind="grade", content=content, questions=[item])
        outcome = self._check(turn, [receipt])
        return mark_unsourced(outcome, unsourced) if isinstance(outcome, Emit) else outcome


UNSOURCED = (
    "the reference comes from a knowledge pack a model wrote; the program found none of "
    "these sentences in the lesson's sources: "
)


def mark_unsourced(outcome: Emit, unsourced: Sequence[str]) -> Emit:
    """The claims of a shown text (`c1`, `c2` … over tutor.gates.claims) that hold one of the
    `unsourced` sentences, marked UNVERIFIED; a sentence no claim holds is named in a flag."""
    if not unsourced:
        return outcome
    claims = [normalise(c) for c in extract_claims(outcome.content)]
    wanted = [normalise(s).rstrip(" .!;:") for s in unsourced]
    ids = [f"c{n}" for n, c in enumerate(claims, 1) if any(w and w in c for w in wanted)]
    missed = [s for s, w in zip(unsourced, wanted, strict=True) if not any(w in c for c in claims)]
    flags = [*outcome.flags, UNSOURCED + " / ".join(missed)] if missed else outcome.flags
    unverified = [*outcome.unverified, *(i for i in ids if i not in outcome.unverified)]
    return outcome.model_copy(update={"unverified": unverified, "flags": flags})
