"""One lesson as a script: prior → probe → plan → teach → end-of-lesson quiz → pending ingest.

The script is a generator: it yields a Prompt and receives the learner's Action. It is
deterministic given its inputs and its memos (anything read from the store or made by a model is
memoised in the session's event log), so replaying the recorded actions lands exactly where the
learner stopped.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Generator
from typing import Any

from learning_system.curriculum import Curriculum, Lesson, Section
from tutor.engine import items as bank
from tutor.engine import prior, selection
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.items import Presented
from tutor.engine.selection import concept_id, slug
from tutor.engine.turns import ERROR_TYPES, Action, Prompt, Table
from tutor.gates.checker import Block, Emit
from tutor.gates.envelopes import QuizQuestion

Script = Generator[Prompt, Action, None]
SKIP_SECTIONS = {"learning objectives", "further reading", "exercises", "ship it"}
MAX_STRAND_MCQ = 8
MIN_STRAND_MCQ = 3
CATCH_UP_MIN = 6
QUIZ_SIZE = 5
RELEVANCE_MIN = 2  # shared substantive words for an external excerpt to join a step
FEYNMAN_RUBRIC = [
    "says what it is in your own words",
    "says when and why it is used",
    "says how it differs from its nearest neighbour",
    "gives one concrete example",
]
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`])")


def key_sentences(text: str, n: int = 2) -> list[str]:
    """The first prose sentences of a section: its load-bearing claims, quoted verbatim."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        p = para.strip()
        if not p or p.startswith(("#", "```", "|", "-", "*", ">", "    ")) or len(p) < 40:
            continue
        for sentence in _SENTENCE.split(" ".join(p.split())):
            if 30 <= len(sentence) <= 300 and sentence not in out:
                out.append(sentence)
            if len(out) >= n:
                return out
    return out


def _audit_purpose(purpose: str) -> str:
    return "end-of-lesson quiz" if purpose == "quiz" else purpose


def graded_answer(item: Presented, answer: str) -> str:
    """The answer as the grade auditor reads it: options numbered from 1."""
    if answer == "idk":
        return "I don't know"
    return str(int(answer) + 1) if item.type == "mcq" and answer.isdigit() else answer


def strand_verdict(evidence: list[dict[str, Any]], recall_ok: bool, misconception: bool) -> str:
    """solid: every answer known (right and sure, or right on the re-probe) and the free recall
    right; unknown: fewer than half known; otherwise unstable — and always after a
    misconception."""
    known = [r for r in evidence if r["outcome"] == "correct" and (
        r["confidence"] == "sure" or r["follow_up"] == "re-probe: right")]
    if not evidence:
        return "unstable" if recall_ok else "unknown"
    if len(known) == len(evidence) and recall_ok and not misconception:
        return "solid"
    if len(known) * 2 < len(evidence):
        return "unknown"
    return "unstable"


class LessonScript:
    """Holds the session's context; `run()` is the generator."""

    def __init__(self, *, session_id: str, lesson: Lesson, curriculum: Curriculum,
                 digest: dict[str, Any], gate: Gatekeeper, memo: Callable[[str, Callable], Any],
                 record: Callable[[str, dict[str, Any]], None], drafter=None) -> None:
        self.session_id = session_id
        self.lesson = lesson
        self.curriculum = curriculum
        self.digest = digest
        self.gate = gate
        self.memo = memo
        self.record = record  # (kind, data) → attempt / mistake / note written durably
        self.drafter = drafter
        self.concept = concept_id(lesson)
        self.primary = next((s["url"] for s in digest.get("sources", [])
                             if s.get("kind") == "primary"), str(lesson.doc_path))
        self.asked: set[str] = set()
        self.verdicts: dict[str, str] = {}
        self.plan_titles: list[str] = []
        self.taught: list[dict[str, Any]] = []
        self.position = ""
        self.completed = True  # False when nothing could be taught or asked
        self._n = 0
        self._pools: dict[str, list[Presented]] = {}
        self._pool_lock = threading.Lock()
        self._quiz_lock = threading.Lock()
        self._pool_locks: dict[str, threading.Lock] = {}
        self._probe_batches: list[dict[str, Any]] | None = None
        self._quiz_candidates: list[Presented] | None = None
        self._revisions: dict[int, int] = {}

    # helpers ------------------------------------------------------------------------------
    def mid(self, label: str) -> str:
        self._n += 1
        return f"{self.session_id}:{self._n}:{label}"

    def read(self, stage: str, title: str, content: str, message_id: str | None = None,
             **kw: Any) -> Script:
        action = yield Prompt(kind="read", message_id=message_id or self.mid(stage), stage=stage,
                              title=title, position=self.position, content=content,
                              **{**kw, "flags": self._flags(kw.get("flags", []))})
        return action

    def _flags(self, flags: list[str]) -> list[str]:
        """The screen's flags, with the one line saying the model went offline (shown once)."""
        told = self.gate.notice()
        return [*flags, told] if told else list(flags)

    def status(self, stage: str, title: str, content: str, **kw: Any) -> Script:
        """Status text (the prior table, a verdict summary, navigation): through the checker as
        a notice — it carries no claim and no question."""
        outcome = self.gate.notice_turn(self.mid(stage), content)
        if isinstance(outcome, Block):
            return (yield from self.notice_blocked(stage, title, outcome))
        return (yield from self.show(stage, title, outcome, **kw))

    def gated(self, kind: str, stage: str, title: str, content: str, purpose: str = "checkpoint"
              ) -> Generator[Prompt, Action, Action | None]:
        """A screen that asks the learner something of the program's own making (why?, the
        Feynman explain-back, a self-grade against the reference): its text is the stem of a
        free-recall question and passes quiz_audit. None when it is withheld."""
        message_id = self.mid(stage)
        question = QuizQuestion(id=f"{self.concept}-{stage}-{self._n}", type="free_recall",
                                question=content)
        outcome = self.gate.ask(message_id, content, [question], _audit_purpose(purpose),
                                self.concept, content)
        if isinstance(outcome, Block):
            yield from self.notice_blocked(stage, title, outcome)
            return None
        return (yield Prompt(kind=kind, message_id=message_id, stage=stage,  # type: ignore[arg-type]
                             title=title, position=self.position, content=outcome.content,
                             unverified=outcome.unverified, flags=self._flags(outcome.flags)))

    def show(self, stage: str, title: str, outcome: Emit, **kw: Any) -> Script:
        """Show a turn that passed its gate, under the message id its receipts are bound to."""
        return (yield from self.read(stage, title, outcome.content, outcome.message_id,
                                     unverified=outcome.unverified, flags=outcome.flags, **kw))

    def notice_blocked(self, stage: str, title: str, outcome: Block) -> Script:
        self.record("note", {"kind": "withheld", "code": outcome.code, "reason": outcome.reason})
        return (yield from self.read(stage, title, "", banner=outcome.banner + ". Continue with "
                                     "the next step, or review the source."))

    # the lesson ------------------------------------------------------------------------------
    def run(self) -> Script:
        strands = selection.strands(self.curriculum, self.lesson)
        yield from self.prior_step(strands)
        yield from self.probe()
        steps = self.plan(strands)
        yield from self.plan_step(steps)
        for n, step in enumerate(steps, 1):
            self.position = f"step {n}/{len(steps)}"
            yield from self.teach_step(step, n, len(steps), steps[n] if n < len(steps) else None)
        self.position = "end-of-lesson quiz"
        yield from self.quiz()
        self.position = "done"
        if not self.taught and not self.asked:
            # nothing was taught or asked (every screen withheld): not a finished lesson
            self.completed = False
            self.record("note", {"kind": "incomplete", "reason": "nothing was taught or asked"})
            yield Prompt(kind="done", message_id=self.mid("done"), stage="done",
                         title=f"{self.lesson.id} {self.lesson.title}", position="done",
                         content=f"{self.lesson.title} could not be taught this time: every "
                         "step and question was withheld. It is not recorded as done; "
                         "`tutor continue` tries it again.")
            return
        self.record("finish", {"verdicts": self.verdicts, "plan": self.plan_titles,
                               "taught": self.taught})
        yield Prompt(kind="done", message_id=self.mid("done"), stage="done",
                     title=f"{self.lesson.id} {self.lesson.title}", position="done",
                     content=f"Lesson complete: {self.lesson.title}. Your answers and mistakes "
                     "are saved.")

    def prior_step(self, strands: list[dict[str, Any]]) -> Script:
        self.position = "prior"
        prereqs = self.digest.get("prereqs") or [
            {"concept": s["name"], "keywords": slug(s["name"]).split("-")} for s in strands]

        def compute() -> list[dict[str, str]]:
            known = prior.inherited(self.gate.store, self.session_id)
            rest = [p for p in prereqs if p["concept"] not in known]
            keywords = [k for p in rest for k in p.get("keywords", [])]
            found = {r["prerequisite"]: r for r in
                     prior.hypothesis(rest, prior.search(self.gate.store, keywords))}
            return [known.get(p["concept"]) or found[p["concept"]] for p in prereqs]

        self._prepare_probe(1)  # the first batch is prepared while the prior is read
        table = self.memo("prior", compute)
        self.record("note", {"kind": "prior", "hypothesis": table})
        lines = ["Before we start: what your records suggest (a hypothesis — the probe decides)",
                 ""]
        lines += [f"  {r['prerequisite'][:34]:<34} {r['evidence'][:34]:<34} {r['plan']}"
                  for r in table]
        rows = [[r["prerequisite"], r["evidence"], r["plan"]] for r in table]
        yield from self.status("prior", "Prior", "\n".join(lines), table=Table(
            headers=["prerequisite", "evidence", "plan"], rows=rows))

    # probe ----------------------------------------------------------------------------------
    def _batches(self) -> list[dict[str, Any]]:
        if self._probe_batches is None:
            self._probe_batches = selection.probe_batches(self.curriculum, self.lesson)
        return self._probe_batches

    def probe(self) -> Script:
        batches = self._batches()
        for n, strand in enumerate(batches, 1):
            yield from self.probe_strand(strand, n, len(batches))

    def _pool(self, strand: dict[str, Any]) -> list[Presented]:
        """A strand's presented items, built once (rewrites included): a re-probe or the
        background preparation reuses them and never requests them again."""
        key = strand["name"]
        with self._pool_lock:
            lock = self._pool_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._pools:
                ordered = bank.broad_to_narrow(strand["items"])
                self._pools[key] = self._rewritten(bank.present(ordered, strand["lesson"],
                                                                salt=selection.PROBE_SALT))
            return self._pools[key]

    def _strand_questions(self, strand: dict[str, Any]) -> tuple[list[Presented],
                                                                 list[Presented]]:
        """(the questions a strand's batch asks, its explain-in-your-own-words items)."""
        members = strand.get("members", [])
        minimum = CATCH_UP_MIN if members else MIN_STRAND_MCQ
        pool = self._pool(strand)
        choice = [p for p in pool if p.type in ("mcq", "numeric")]
        recall = [p for p in pool if p.type == "free_recall"]
        # too few gated choice items: ask converted items as free recall to reach the minimum
        questions = choice[:MAX_STRAND_MCQ]
        questions += recall[: max(0, minimum - len(questions))]
        explains = [self.explain_item(m) for m in (members[:2] or [strand])]
        return questions, explains

    def _prepare_probe(self, n: int) -> None:
        """In the background: batch n's items (rewrites included) and their audits."""
        batches = self._batches()
        if self.drafter is None or n > len(batches):
            return
        strand = batches[n - 1]

        def work() -> None:
            questions, explains = self._strand_questions(strand)
            envelopes = [self._ask_envelope(i, "probe", strand["concept"])
                         for i in [*questions, *explains]]
            self.gate.prewarm(envelopes[:1])  # the first question first: it is needed first
            self.gate.prewarm(envelopes[1:])

        self.drafter.prefetch(f"prepare-probe:{n}", work)

    def _quiz_pool(self) -> list[Presented]:
        with self._quiz_lock:
            if self._quiz_candidates is None:
                self._quiz_candidates = self._rewritten(bank.present(
                    selection.quiz_bank(self.lesson), self.lesson, salt=selection.QUIZ_SALT))
            return self._quiz_candidates

    def _prepare_quiz(self) -> None:
        """In the background, during the last teaching step: the quiz's items and audits."""
        if self.drafter is None:
            return

        def work() -> None:
            pool = sorted(self._quiz_pool(), key=lambda p: p.type == "free_recall")
            envelopes = [self._ask_envelope(i, "quiz", self.concept) for i in pool[:QUIZ_SIZE + 2]]
            self.gate.prewarm(envelopes[:1])
            self.gate.prewarm(envelopes[1:])

        self.drafter.prefetch("prepare-quiz", work)

    def _rewritten(self, pool: list[Presented]) -> list[Presented]:
        """With a model, bank items that failed the quiz rules are rewritten as MCQs; a rewrite
        is used only when it passes the same rules, else the item stays free recall."""
        if self.drafter is None:
            return pool
        failed = [p for p in pool if p.type == "free_recall" and p.note]
        for p in failed:
            self.drafter.prefetch(f"rewrite:{p.id}", lambda p=p: self.drafter.rewrite(p))
        out = []
        for p in pool:
            made = None
            if p in failed:
                made = self.memo(f"rewrite:{p.id}", lambda p=p: self.drafter.take(
                    f"rewrite:{p.id}", lambda: self.drafter.rewrite(p)))
            out.append(Presented.model_validate(made) if made else p)
        return out

    def _ask_envelope(self, item: Presented, purpose: str, concept: str):
        return self.gate.ask_envelope([item.to_question()], _audit_purpose(purpose), concept,
                                      item.reference)

    def _prewarm_asks(self, key: str, items: list[Presented], purpose: str, concept: str) -> None:
        """Audit a batch's questions concurrently, in the background, before they are asked."""
        if self.drafter is not None and items:
            envelopes = [self._ask_envelope(i, purpose, concept) for i in items]
            self.drafter.prefetch(key, lambda: self.gate.prewarm(envelopes))

    def probe_strand(self, strand: dict[str, Any], n: int, total: int) -> Script:
        """One batch: broad to narrow, stopping once the edge is found, then free recall;
        results only after the whole batch. A catch-up batch asks 6–8 MCQs and 2 free-recall
        items across its member strands."""
        members = strand.get("members", [])
        minimum = CATCH_UP_MIN if members else MIN_STRAND_MCQ
        questions, explains = self._strand_questions(strand)
        self._prewarm_asks(f"audit:{n}", [*questions, *explains], "probe", strand["concept"])
        self._prepare_probe(n + 1)  # the next batch is prepared while this one is answered
        title = f"Probe · strand {n} of {total} · {strand['name']}"
        answers: list[dict[str, Any]] = []
        streak_unknown = 0
        for q_n, item in enumerate(questions, 1):
            self.position = f"probe · strand {n}/{total} · question {q_n}"
            answer = yield from self.ask(item, "probe", title + f" · question {q_n}",
                                         strand["concept"])
            if answer is None:
                continue
            answers.append(answer)
            known = answer["outcome"] == "correct" and answer["confidence"] == "sure"
            streak_unknown = 0 if known else streak_unknown + 1
            if len(answers) >= minimum and streak_unknown >= 2:
                break  # the edge is found
        free = []
        for k, explain in enumerate(explains, 1):
            self.position = f"probe · strand {n}/{total} · explain {k}/{len(explains)}"
            given = yield from self.ask(explain, "probe", title + " · in your own words",
                                        strand["concept"])
            if given:
                free.append(given)
        self.position = f"probe · strand {n}/{total} · results"
        yield from self.results(strand, title, answers, free)

    def explain_item(self, strand: dict[str, Any]) -> Presented:
        lesson: Lesson = strand["lesson"]
        reference = lesson.motto or (lesson.objectives[0] if lesson.objectives else lesson.title)
        math = any(i.type == "numeric" for i in lesson.quiz)
        what = ("the key insight behind" if math else "in your own words:")
        return Presented(
            id=f"{concept_id(lesson)}-explain", lesson_id=lesson.id, type="free_recall",
            question=f"Explain {what} {lesson.title}.", reference=reference,
            bloom="understand", stage="pre",
        )

    def ask(self, item: Presented, purpose: str, title: str, concept: str,
            feedback: bool = False) -> Generator[Prompt, Action, dict[str, Any] | None]:
        """Ask one gated item; record the answer (not yet graded when feedback is withheld)."""
        message_id = self.mid(f"ask:{item.id}")
        outcome = self.gate.ask(message_id, item.render(), [item.to_question()],
                                _audit_purpose(purpose), concept, item.reference)
        if isinstance(outcome, Block) and item.type == "mcq" and outcome.code in ("Q04", "Q05"):
            # the audit disputes the choice item: ask the same item as free recall instead
            item = bank.as_free_recall(item, f"the quiz audit found issues ({outcome.code})")
            message_id = self.mid(f"ask:{item.id}:recall")
            outcome = self.gate.ask(message_id, item.render(), [item.to_question()],
                                    _audit_purpose(purpose), concept, item.reference)
        if isinstance(outcome, Block):
            yield from self.notice_blocked(purpose, title, outcome)
            return None
        self.asked.add(item.id)
        kind = {"mcq": "choice", "numeric": "numeric", "free_recall": "text"}[item.type]
        action = yield Prompt(kind=kind, message_id=message_id, stage=purpose, title=title,
                              position=self.position, content=outcome.content, item=item,
                              needs_confidence=True, unverified=outcome.unverified,
                              flags=self._flags(outcome.flags))
        given = action.text if item.type == "free_recall" else action.value
        idk = action.value == "idk"
        graded = None if idk else bank.grade(item, given)
        result = {
            "item": item, "answer": "idk" if idk else given,
            "confidence": "no_idea" if idk else action.confidence,
            "outcome": "idk" if idk else ("pending" if graded is None else
                                          ("correct" if graded else "wrong")),
            "attempt_id": f"{message_id}:answer", "purpose": purpose, "concept": concept,
        }
        self.record("attempt", result)
        if feedback:
            yield from self.reveal([result], title, concept)
        return result

    def reveal(self, answers: list[dict[str, Any]], title: str, concept: str) -> Script:
        """Grade answers (free recall: by the model when there is one, else by the learner
        against the reference), gate each grade, show it, and record the mistakes with the
        learner's own attribution. Independent grades are verified concurrently."""
        self._prewarm_grades([a for a in answers if a["outcome"] != "pending"])
        if self.drafter is not None:
            for a in answers:
                if a["outcome"] == "pending":
                    self.drafter.prefetch(f"grade:{a['attempt_id']}", lambda a=a: (
                        self.drafter.grade(a["item"], a["answer"])))
        for a in answers:
            item: Presented = a["item"]
            pending = a["outcome"] == "pending"
            by_model = False
            if pending:
                passed = None
                if self.drafter is not None:
                    passed = self.memo(f"grade:{a['attempt_id']}", lambda a=a: self.drafter.take(
                        f"grade:{a['attempt_id']}", lambda: self.drafter.grade(
                            a["item"], a["answer"])))
                by_model = passed is not None
                if passed is None:
                    passed = yield from self.self_grade(item, a, title)
                    if passed is None:
                        continue  # the self-grade screen was withheld: the answer stays pending
                a["outcome"] = "correct" if passed else "wrong"
            outcome = self.gate.grade(self.mid(f"grade:{item.id}"), self._graded(a),
                                      item.to_question(), graded_answer(item, a["answer"]),
                                      a["outcome"] == "correct", item.reference)
            if isinstance(outcome, Block) and by_model and outcome.code in ("R01", "R02"):
                # the audit disputes the model's grade: the learner grades it against the reference
                passed = yield from self.self_grade(item, a, title)
                if passed is None:
                    a["outcome"] = "pending"
                    continue
                a["outcome"] = "correct" if passed else "wrong"
                outcome = self.gate.grade(self.mid(f"regrade:{item.id}"), self._graded(a),
                                          item.to_question(), graded_answer(item, a["answer"]),
                                          passed, item.reference)
            if pending:
                self.record("grade", a)
            if isinstance(outcome, Block):
                yield from self.notice_blocked("results", title, outcome)
                continue
            yield from self.show("results", title, outcome)
            if a["outcome"] == "wrong":
                yield from self.attribute(a, title, a["confidence"] == "sure")

    @staticmethod
    def _graded(a: dict[str, Any]) -> str:
        item: Presented = a["item"]
        shown = a["answer"]
        if item.type == "mcq" and shown.isdigit():
            shown = f"{int(shown) + 1}. {item.options[int(shown)]}"
        passed = a["outcome"] == "correct"
        verdict = "right" if passed else ("I don't know" if a["outcome"] == "idk" else
                                          "not quite")
        return (f"{item.question}\n  You answered: {shown} ({a['confidence']})\n"
                f"  {verdict}. Reference: {item.reference}")

    def self_grade(self, item: Presented, a: dict[str, Any], title: str
                   ) -> Generator[Prompt, Action, bool | None]:
        action = yield from self.read_yes_no(
            "results", title, f"{item.question}\n  Your answer: {a['answer']}\n"
            f"  Reference: {item.reference}\n\nDid your answer match the reference?")
        return None if action is None else action.value == "y"

    def _prewarm_grades(self, answers: list[dict[str, Any]]) -> None:
        self.gate.prewarm([
            self.gate.grade_envelope(a["item"].to_question(), graded_answer(a["item"],
                                     a["answer"]), a["outcome"] == "correct", a["item"].reference)
            for a in answers
        ])

    def read_yes_no(self, stage: str, title: str, content: str
                    ) -> Generator[Prompt, Action, Action | None]:
        return (yield from self.gated("yes_no", stage, title, content))

    def attribute(self, answer: dict[str, Any], title: str, confident: bool) -> Script:
        content = "What kind of slip was it? Then, in your words, what happened?"
        checked = self.gate.notice_turn(self.mid("mistake"), content)  # navigation text only
        action = yield Prompt(
            kind="error_type", message_id=checked.message_id, stage="mistake", title=title,
            position=self.position, content=checked.content if isinstance(checked, Emit) else "",
            flags=self._flags([]))
        self.record("mistake", {**answer, "error_type": ERROR_TYPES[int(action.value) - 1],
                                "attribution": action.text, "retest_early": confident})

    def results(self, strand: dict[str, Any], title: str, answers: list[dict[str, Any]],
                free: list[dict[str, Any]]) -> Script:
        title = title + " · results"
        if not answers and not free:
            # every question of the strand was withheld: there is nothing to judge
            self.record("note", {"kind": "verdict", "strand": strand["name"],
                                 "verdict": "not probed", "evidence": []})
            yield from self.status("results", title, f"No verdict for {strand['name']}: its "
                                   "questions were withheld, so nothing was asked.")
            return
        yield from self.reveal(answers + free, title, strand["concept"])
        evidence = []
        misconceived: set[str] = set()
        why_done = False
        for a in answers:
            item: Presented = a["item"]
            row = {"item": item.id, "answer": a["answer"], "confidence": a["confidence"],
                   "outcome": a["outcome"], "follow_up": ""}
            if a["outcome"] == "correct" and a["confidence"] == "hunch":
                row["follow_up"] = yield from self.reprobe(strand, item, title)
            elif (a["outcome"] == "correct" and a["confidence"] == "sure" and not why_done
                  and item.bloom in ("apply", "analyze", "evaluate", "create")):
                why_done = True
                sound = yield from self.why(a, title)
                if sound is None:
                    row["follow_up"] = "why: withheld"
                else:
                    row["follow_up"] = "why: sound" if sound else "why: misconception"
                if sound is False:
                    misconceived.add(item.id)
            evidence.append(row)
        recall = {f["item"].id: f["outcome"] == "correct" for f in free}
        verdict = strand_verdict(evidence, all(recall.values()), bool(misconceived))
        self.verdicts[strand["name"]] = verdict
        for member in strand.get("members", []):  # a catch-up's gaps, mapped to its strands
            ids = {q.id for q in member["items"]}
            rows = [r for r in evidence if r["item"] in ids]
            own_recall = recall.get(self.explain_item(member).id, True)
            self.verdicts[member["name"]] = strand_verdict(rows, own_recall,
                                                           bool(ids & misconceived))
        evidence += [{"item": f["item"].id, "answer": f["answer"], "confidence": f["confidence"],
                      "outcome": f["outcome"], "follow_up": "free recall"} for f in free]
        self.record("note", {"kind": "verdict", "strand": strand["name"], "verdict": verdict,
                             "evidence": evidence, "verdicts": dict(self.verdicts)})
        lines = [f"Verdict for {strand['name']}: {verdict}", ""]
        lines += [f"  {r['item'][:28]:<28} {r['answer'][:18]:<18} {r['confidence'] or '':<8} "
                  f"{r['outcome']:<8} {r['follow_up']}" for r in evidence]
        if strand.get("members"):
            lines += ["", "By strand:"]
            lines += [f"  {m['name']}: {self.verdicts[m['name']]}" for m in strand["members"]]
        rows = [[r["item"], r["answer"], r["confidence"] or "", r["outcome"], r["follow_up"]]
                for r in evidence]
        yield from self.status("results", title, "\n".join(lines), table=Table(
            headers=["item", "answer", "confidence", "outcome", "follow-up"], rows=rows))

    def reprobe(self, strand: dict[str, Any], item: Presented, title: str) -> Script:
        """Right but a hunch: one more item on the same concept, worded differently."""
        spare = [p for p in self._pool(strand) if p.id not in self.asked]
        if self.drafter is not None:
            made = self.memo(f"reprobe:{item.id}", lambda: self.drafter.isomorphic(item))
            if made:
                spare.insert(0, Presented.model_validate(made))
        if not spare:
            return "re-probe: none available offline"
        yield from self.status("results", title, "You were right but tagged it a hunch: one "
                               "more, worded differently.")
        again = yield from self.ask(spare[0], "probe", title + " · re-probe", strand["concept"],
                                    feedback=True)
        return "re-probe: right" if again and again["outcome"] == "correct" else "re-probe: wrong"

    def why(self, answer: dict[str, Any], title: str) -> Generator[Prompt, Action, bool | None]:
        """None when the spot-check could not be shown (withheld)."""
        item: Presented = answer["item"]
        action = yield from self.gated("text", "results", title,
                                       f"You were sure about: {item.question}\nWhy? Give your "
                                       "reasoning in a sentence or two.", purpose="probe")
        if action is None:
            return None
        check = yield from self.read_yes_no(
            "results", title, f"Your reasoning: {action.text}\nReference: {item.reference}\n\n"
            "Does your reasoning match the reference?")
        if check is None:
            return None
        sound = check.value == "y"
        why = {**answer, "answer": action.text, "attempt_id": answer["attempt_id"] + ":why",
               "outcome": "correct" if sound else "wrong", "purpose": "why"}
        self.record("attempt", why)
        if not sound:
            self.record("mistake", {**why, "error_type": "structural",
                                    "attribution": "misconception: " + action.text,
                                    "retest_early": True})
        return sound

    # plan -----------------------------------------------------------------------------------
    def plan(self, strands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        steps = []
        for s in strands:
            if self.verdicts.get(s["name"], "solid") != "solid" and s["lesson"] is not self.lesson:
                sec = self._teaching_sections(s["lesson"])[:1]
                if sec:
                    steps.append({"title": f"refresh: {s['name']}", "section": sec[0],
                                  "lesson": s["lesson"]})
        for sec in self._teaching_sections(self.lesson):
            steps.append({"title": sec.title, "section": sec, "lesson": self.lesson})
        return steps

    @staticmethod
    def _teaching_sections(lesson: Lesson) -> list[Section]:
        """Each `##` section with its subsections, in order, when it has prose to teach from."""
        out = []
        for s in lesson.sections:
            if s.level != 2 or s.title.lower() in SKIP_SECTIONS:
                continue
            text = lesson.section_text(s.title) or s.text
            if key_sentences(text, 1):
                out.append(Section(title=s.title, level=2, text=text))
        return out

    def plan_step(self, steps: list[dict[str, Any]]) -> Script:
        self.position = "plan"
        if self.drafter is not None and steps:  # step 1 is prepared while the plan is read
            self.drafter.prefetch("step:1", lambda: self.prepare_step(steps[0], 1))
        self.plan_titles = [s["title"] for s in steps]
        if not steps:
            self.record("note", {"kind": "plan", "steps": []})
            yield from self.status("plan", "Plan", f"{self.lesson.title} has no teaching text to "
                                   "build steps from (its document is missing or empty), so "
                                   "the end-of-lesson quiz comes next.")
            return
        goal = self.lesson.objectives[0] if self.lesson.objectives else self.lesson.title
        # structure lines are [bracketed] scaffold; the sentences under them are the claims
        lines = [f'[Your path to "{goal}"]', ""]
        lines += [f"  [{'✓' if v == 'solid' else '◆'} {name} ({v})]"
                  for name, v in self.verdicts.items()]
        excerpts = []
        rows = [["✓" if v == "solid" else "◆", name, v] for name, v in self.verdicts.items()]
        for s in steps:
            first = key_sentences(s["section"].text, 1)[0]
            where = "primary" if s["lesson"] is self.lesson else s["lesson"].id
            rows.append(["◆", s["title"], f"{where} §{s['section'].title}"])
            lines.append(f"  [◆ {s['title']} ...... {where} §{s['section'].title}]")
            lines.append(f"      {first}")
            excerpts.append(first)
        content = "\n".join(lines)
        mid = self.mid("plan")
        outcome = self.gate.teach(mid, content, self._sources(steps), "\n\n".join(excerpts),
                                  context="lesson plan")
        if isinstance(outcome, Block) and self.gate.verifier is not None:
            # the plan quotes the lesson's own sentences: checked against them, offline
            outcome = self.gate.teach(mid + ":source", content, self._sources(steps),
                                      "\n\n".join(excerpts), context="lesson plan",
                                      offline=True)
        self.record("note", {"kind": "plan", "steps": self.plan_titles})
        if isinstance(outcome, Block):
            yield from self.notice_blocked("plan", "Plan", outcome)
            return
        yield from self.show("plan", "Plan", outcome, table=Table(
            headers=["", "step", "sources"], rows=rows))

    def _sources(self, steps: list[dict[str, Any]]) -> list[str]:
        urls = [self.primary]
        for s in steps:
            if s["lesson"] is not self.lesson and s["lesson"].doc_path:
                key = str(s["lesson"].doc_path)
                if key in self.gate.digest.sources and key not in urls:
                    urls.append(key)
        return urls

    # teach ----------------------------------------------------------------------------------
    def _labels(self, step: dict[str, Any], urls: list[str]) -> list[str]:
        """The step's sources as a learner reads them: `primary §The Concept`, a title."""
        titles = {s["url"]: s.get("title") or s["url"] for s in self.digest.get("sources", [])}
        where = "primary" if step["lesson"] is self.lesson else step["lesson"].id
        own = {self.primary, str(step["lesson"].doc_path)}
        return [f"{where} §{step['section'].title}" if u in own else titles.get(u, u)
                for u in urls]

    def external_for(self, step: dict[str, Any]) -> dict[str, Any] | None:
        """The external excerpt that best matches the step's claims (most shared substantive
        words, at least RELEVANCE_MIN), or None."""
        ok = [s for s in self.digest.get("sources", []) if s.get("kind") != "primary"
              and s.get("status") in ("ok", "changed", "new") and s.get("excerpt")]
        if not ok:
            return None
        section = step["section"]
        wanted = bank.words(" ".join([section.title, *key_sentences(section.text, 3)]))
        scored = [(len(wanted & bank.words(s["excerpt"])), -n, s) for n, s in enumerate(ok)]
        score, _, best = max(scored, key=lambda t: (t[0], t[1]))
        return best if score >= RELEVANCE_MIN else None

    def compile_step(self, step: dict[str, Any], n: int) -> dict[str, Any]:
        """Offline: the step is the source's own section with its provenance, not generated."""
        section = step["section"]
        where = ("primary" if step["lesson"] is self.lesson else step["lesson"].id)
        parts = [f"[source: {where} §{section.title}]", "", section.text.strip()]
        excerpt = [section.text]
        sources = [self.primary if step["lesson"] is self.lesson else str(step["lesson"].doc_path)]
        ext = self.external_for(step)
        if ext:
            parts += ["", f"[external: {ext.get('title') or ext['url']}]", ext["excerpt"]]
            excerpt.append(ext["excerpt"])
            sources.append(ext["url"])
        return {"content": "\n".join(parts), "sources": sources,
                "excerpt": "\n\n".join(excerpt)}

    def prepare_step(self, step: dict[str, Any], n: int) -> tuple[dict[str, Any], Any]:
        """Draft step n (compiled offline, or by the model) and pass it through fact_check."""
        def draft() -> dict[str, Any]:
            compiled = self.compile_step(step, n)
            return (self.drafter.draft(step, compiled) if self.drafter else None) or compiled

        made = self.memo(f"step:{n}", draft)
        mid = f"{self.session_id}:teach:{n}"
        revise = None
        if self.drafter is not None and made.get("model"):
            def revise(text: str, flagged: list[tuple[str, str]], made=made) -> str | None:
                cycle = self._revisions.setdefault(n, 0) + 1
                self._revisions[n] = cycle
                return self.memo(f"revise:{n}:{cycle}",
                                 lambda: self.drafter.revise(step, made, text, flagged))
        outcome = self.gate.teach(mid, made["content"], made["sources"], made["excerpt"],
                                  context=step["title"], revise=revise)
        if isinstance(outcome, Block) and (made.get("model") or self.gate.verifier is not None):
            # the model's draft stayed blocked: the lesson's own text, checked against itself
            made = self.compile_step(step, n)
            outcome = self.gate.teach(mid + ":source", made["content"], made["sources"],
                                      made["excerpt"], context=step["title"], offline=True)
        return made, outcome

    def teach_step(self, step: dict[str, Any], n: int, total: int,
                   upcoming: dict[str, Any] | None) -> Script:
        if self.drafter is not None and upcoming is not None:
            self.drafter.prefetch(f"step:{n + 1}", lambda: self.prepare_step(upcoming, n + 1))
        if upcoming is None:
            self._prepare_quiz()  # the quiz is prepared while the last step is read
        prepared = self.drafter.take(f"step:{n}") if self.drafter is not None else None
        made, outcome = prepared or self.prepare_step(step, n)
        title = f"Step {n}/{total} · {step['title']}"
        if isinstance(outcome, Block):
            yield from self.notice_blocked("teach", title, outcome)
            return
        self.taught.append({"step_id": outcome.message_id, "title": step["title"],
                            "content": outcome.content, "sources": made["sources"],
                            "unverified": outcome.unverified})
        action = yield from self.show("teach", title, outcome,
                                      sources=self._labels(step, made["sources"]))
        if action.kind == "skip":
            self.record("note", {"kind": "skipped", "step": step["title"]})
            return
        yield from self.checkpoint(step, n, total)

    def checkpoint(self, step: dict[str, Any], n: int, total: int) -> Script:
        title = f"Step {n}/{total} · checkpoint"
        if n == total and self.lesson.type.lower() in ("learn", "concept", "design", ""):
            yield from self.feynman(title)
            return
        checks = [p for p in bank.present([q for q in self.lesson.quiz if q.stage == "check"],
                                          self.lesson, salt=selection.QUIZ_SALT)
                  if p.id not in self.asked and p.type in ("mcq", "numeric")]
        if checks:
            yield from self.ask(checks[0], "checkpoint", title, self.concept, feedback=True)

    def feynman(self, title: str) -> Script:
        action = yield from self.gated(
            "text", "checkpoint", title,
            f"Explain {self.lesson.title} back, as if to a friend. A good explanation:\n"
            + "\n".join(f"  {n}. {r}" for n, r in enumerate(FEYNMAN_RUBRIC, 1)))
        if action is None:
            return
        hits = []
        for n, rule in enumerate(FEYNMAN_RUBRIC, 1):
            check = yield from self.read_yes_no(
                "checkpoint", title, f"Your explanation: {action.text}\n\nDoes it {rule}? "
                f"({n} of {len(FEYNMAN_RUBRIC)})")
            if check is None:
                return  # a rubric screen was withheld: no Feynman grade from part of the rubric
            if check.value == "y":
                hits.append(rule)
        passed = len(hits) == len(FEYNMAN_RUBRIC)
        self.record("attempt", {"attempt_id": self.mid("feynman-attempt"), "purpose": "feynman",
                                "answer": action.text, "outcome": "correct" if passed else
                                "wrong", "confidence": None, "concept": self.concept,
                                "feynman": passed, "item": None, "rubric_hits": hits})
        item = Presented(id=f"{self.concept}-feynman", lesson_id=self.lesson.id,
                         type="free_recall", question=f"Explain {self.lesson.title} back.",
                         reference=self.lesson.motto or self.lesson.title, bloom="understand",
                         stage="check")
        missing = [r for r in FEYNMAN_RUBRIC if r not in hits]
        content = (f"Feynman check: {'passed' if passed else 'not yet'} — {len(hits)} of "
                   f"{len(FEYNMAN_RUBRIC)}." + ("" if passed else " Still to cover: it "
                                                  + "; it ".join(missing) + "."))
        outcome = self.gate.grade(self.mid("feynman-grade"), content, item.to_question(),
                                  action.text, passed, item.reference, rubric=FEYNMAN_RUBRIC,
                                  rubric_hits=hits)
        if isinstance(outcome, Block):
            yield from self.notice_blocked("checkpoint", title, outcome)
        else:
            yield from self.show("checkpoint", title, outcome)

    # end-of-lesson quiz ------------------------------------------------------------------------
    def quiz(self) -> Script:
        pool = [p for p in self._quiz_pool() if p.id not in self.asked]
        pool.sort(key=lambda p: p.type == "free_recall")
        title = f"End-of-lesson quiz · {self.lesson.title}"
        self._prewarm_asks("audit:quiz", pool[:QUIZ_SIZE], "quiz", self.concept)
        answers = []
        for n, item in enumerate(pool[:QUIZ_SIZE], 1):
            self.position = f"quiz · question {n}"
            a = yield from self.ask(item, "quiz", title + f" · question {n}", self.concept)
            if a:
                answers.append(a)
        if answers:
            yield from self.reveal(answers, title + " · results", self.concept)
