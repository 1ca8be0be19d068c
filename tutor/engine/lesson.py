"""One lesson as a script: prior → probe → plan → teach → end-of-lesson quiz → pending ingest.

The script is a generator: it yields a Prompt and receives the learner's Action. It is
deterministic given its inputs and its memos (anything read from the store or made by a model is
memoised in the session's event log), so replaying the recorded actions lands exactly where the
learner stopped.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable, Generator
from typing import Any

from learning_system.curriculum import Curriculum, Lesson, Section
from tutor.engine import items as bank
from tutor.engine import prior, selection, selfgrade
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
STEPS_AHEAD = 2  # teaching steps prepared ahead of the one shown
QUIZ_KEEP = 2  # checkpoints never take the end-of-lesson quiz below this many items
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


def shown_answer(item: Presented, answer: str) -> str:
    """An answer as the learner reads it: an option by its 1-based number (`option 2`), as
    the options are numbered on screen, never by its 0-based index."""
    if answer == "idk":
        return "I don't know"
    if item.type == "mcq" and answer.isdigit():
        return f"option {int(answer) + 1}"
    return answer


def _cut(text: str, width: int) -> str:
    """One line of at most `width` characters; a cut is marked with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def feynman_question(rule: str) -> str:
    """`says what it is…` → `Does it say what it is…?`"""
    verb, _, rest = rule.partition(" ")
    base = {"says": "say", "gives": "give", "does": "do", "has": "have"}.get(
        verb, verb[:-1] if verb.endswith("s") else verb
    )
    return f"Does it {base} {rest}?"


MIN_EVIDENCE = 2  # a strand's verdict needs this many graded answers of its own concept
SELF_GRADED_WEIGHT = 0.5  # a self-graded free-recall answer counts half an MCQ's
SOLID_SHARE = 0.7
UNKNOWN_SHARE = 0.25
NOT_PROBED = "not probed"
MIXED_EVIDENCE = 4  # answers a strand needs before mixed (known and unknown) ones settle it


def credit(row: dict[str, Any]) -> float:
    """How known an answer shows the strand to be: 1 when right and sure, or right with a hunch
    and then right and sure on its re-probe; 0.5 when the re-probe is right but unsure again
    (two lucky guesses in a row are unlikely), and for a free-recall answer right but unsure
    (it cannot be guessed from options); otherwise 0."""
    if row["outcome"] != "correct":
        return 0.0
    if row["confidence"] == "sure" or row.get("follow_up") == "re-probe: right, sure":
        return 1.0
    if row.get("follow_up") in ("re-probe: right, unsure", "free recall"):
        return 0.5  # right twice, or in one's own words, yet unsure
    return 0.0


def strand_verdict(evidence: list[dict[str, Any]], misconception: bool = False) -> str:
    """From a strand's own graded answers: the known share (each answer's credit, weighted 1,
    a self-graded one SELF_GRADED_WEIGHT). `solid` at SOLID_SHARE or more with no
    misconception; `unknown` below UNKNOWN_SHARE; otherwise `unstable`. Fewer than
    MIN_EVIDENCE graded answers: `not probed` (no verdict)."""
    graded = [r for r in evidence if r["outcome"] in ("correct", "wrong", "idk")]
    if len(graded) < MIN_EVIDENCE:
        return NOT_PROBED
    weight = [SELF_GRADED_WEIGHT if r.get("self_graded") else 1.0 for r in graded]
    share = sum(w * credit(r) for w, r in zip(weight, graded, strict=True)) / sum(weight)
    if share < UNKNOWN_SHARE:
        return "unknown"
    if share >= SOLID_SHARE and not misconception:
        return "solid"
    return "unstable"


def _category(known: float, total: float) -> str:
    share = known / total if total else 0.0
    return "unknown" if share < UNKNOWN_SHARE else "solid" if share >= SOLID_SHARE else ("unstable")


class EdgeSearch:
    """The edge of what is known, over one strand's items ordered easiest first: a binary
    search — the middle item, then a harder one after a known answer and an easier one after an
    unknown one — and then the unasked items nearest the edge (the split the answers contradict
    least). The edge counts as found when the next answer, known or not, could no longer change
    the verdict the answers point to; until then, and until `enough` answers are in, it asks on.
    A slip (a known learner missing one item) thus makes it ask around the slip instead of
    ending the strand on it. An ungraded answer neither moves the search nor stops it."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.lo, self.hi = 0, n - 1
        self.answers: dict[int, bool] = {}
        self.skipped: set[int] = set()

    def edge(self) -> int:
        """The split that the answers contradict least: items below it known, the rest not."""
        return min(
            range(self.n + 1),
            key=lambda e: (
                sum(1 for i, k in self.answers.items() if (i < e) != k),
                abs(e - self.n / 2),
            ),
        )

    def settled(self) -> bool:
        known = sum(self.answers.values())
        total = len(self.answers)
        if 0 < known < total and total < MIXED_EVIDENCE:
            return False  # mixed answers: a slip or the edge? ask more before judging
        return _category(known + 1, total + 1) == _category(known, total + 1)

    def _rest(self) -> list[int]:
        return [j for j in range(self.n) if j not in self.answers and j not in self.skipped]

    def wants_more(self, enough: int) -> bool:
        return bool(self._rest()) and (
            len(self.answers) < enough or self.lo <= self.hi or not self.settled()
        )

    def next_index(self, enough: int) -> int | None:
        rest = self._rest()
        if not rest:
            return None
        if self.lo <= self.hi:
            inside = [j for j in rest if self.lo <= j <= self.hi]
            if inside:
                middle = (self.lo + self.hi) / 2
                return min(inside, key=lambda j: (abs(j - middle), j))
            self.lo = self.hi + 1
        if len(self.answers) >= enough and self.settled():
            return None
        e = self.edge()
        return min(rest, key=lambda j: (abs(j - e + 0.5), j))

    def record(self, i: int, known: bool | None) -> None:
        if known is None:
            self.skipped.add(i)
            return
        self.answers[i] = known
        if self.lo <= self.hi:
            if known:
                self.lo = max(self.lo, i + 1)
            else:
                self.hi = min(self.hi, i - 1)


def _known_now(answer: dict[str, Any]) -> bool | None:
    """What a withheld answer says for the search: right is known (a hunch is re-probed later,
    and the verdict counts it only then); a pending free recall says nothing yet."""
    if answer["outcome"] == "pending":
        return None
    return answer["outcome"] == "correct"


class LessonScript:
    """Holds the session's context; `run()` is the generator."""

    def __init__(
        self,
        *,
        session_id: str,
        lesson: Lesson,
        curriculum: Curriculum,
        digest: dict[str, Any],
        gate: Gatekeeper,
        memo: Callable[[str, Callable], Any],
        record: Callable[[str, dict[str, Any]], None],
        drafter=None,
        memoized: Callable[[str], bool] = lambda key: False,
    ) -> None:
        self.session_id = session_id
        self.lesson = lesson
        self.curriculum = curriculum
        self.digest = digest
        self.gate = gate
        self.memo = memo
        self.record = record  # (kind, data) → attempt / mistake / note written durably
        self.drafter = drafter
        self.memoized = memoized  # the key's result is in the session's log (a replay has it)
        self.replaying = False  # set by the session while it replays recorded actions
        self._deferred: list[int] = []  # probe batches to prepare once the replay is over
        self._batch = 0  # the probe batch being asked
        self.concept = concept_id(lesson)
        self.primary = next(
            (s["url"] for s in digest.get("sources", []) if s.get("kind") == "primary"),
            str(lesson.doc_path),
        )
        self.asked: set[str] = set()
        self.verdicts: dict[str, str] = {}
        self.prior_table: list[dict[str, str]] = []
        self.plan_titles: list[str] = []
        self.taught: list[dict[str, Any]] = []
        self.skipped: list[str] = []
        self.position = ""
        self.completed = True  # False when nothing could be taught or asked
        self._n = 0
        self._pools: dict[str, list[Presented]] = {}
        self._pool_lock = threading.Lock()
        self._quiz_lock = threading.Lock()
        self._pool_locks: dict[str, threading.Lock] = {}
        self._probe_batches: list[dict[str, Any]] | None = None
        self._quiz_candidates: tuple[tuple[str, ...], list[Presented]] | None = None
        self._revisions: dict[int, int] = {}

    # helpers ------------------------------------------------------------------------------
    def mid(self, label: str) -> str:
        self._n += 1
        return f"{self.session_id}:{self._n}:{label}"

    def read(
        self, stage: str, title: str, content: str, message_id: str | None = None, **kw: Any
    ) -> Script:
        action = yield Prompt(
            kind="read",
            message_id=message_id or self.mid(stage),
            stage=stage,
            title=title,
            position=self.position,
            content=content,
            **{**kw, "flags": self._flags(kw.get("flags", []))},
        )
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

    def gated(
        self, kind: str, stage: str, title: str, content: str, purpose: str = "checkpoint"
    ) -> Generator[Prompt, Action, Action | None]:
        """A screen that asks the learner something of the program's own making (why?, the
        Feynman explain-back, a self-grade against the reference): its text is the stem of a
        free-recall question and passes quiz_audit. None when it is withheld."""
        message_id = self.mid(stage)
        question = QuizQuestion(
            id=f"{self.concept}-{stage}-{self._n}", type="free_recall", question=content
        )
        outcome = self.gate.ask(
            message_id, content, [question], _audit_purpose(purpose), self.concept, content
        )
        if isinstance(outcome, Block):
            yield from self.notice_blocked(stage, title, outcome)
            return None
        return (
            yield Prompt(
                kind=kind,
                message_id=message_id,
                stage=stage,  # type: ignore[arg-type]
                title=title,
                position=self.position,
                content=outcome.content,
                unverified=outcome.unverified,
                flags=self._flags(outcome.flags),
            )
        )

    def show(self, stage: str, title: str, outcome: Emit, **kw: Any) -> Script:
        """Show a turn that passed its gate, under the message id its receipts are bound to."""
        return (
            yield from self.read(
                stage,
                title,
                outcome.content,
                outcome.message_id,
                unverified=outcome.unverified,
                flags=outcome.flags,
                **kw,
            )
        )

    def notice_blocked(self, stage: str, title: str, outcome: Block) -> Script:
        self.record("note", {"kind": "withheld", "code": outcome.code, "reason": outcome.reason})
        return (
            yield from self.read(
                stage,
                title,
                "",
                banner=outcome.banner + ". Continue with the next step, or review the source.",
            )
        )

    # the lesson ------------------------------------------------------------------------------
    def run(self) -> Script:
        strands = selection.strands(self.curriculum, self.lesson)
        yield from self.prior_step(strands)
        yield from self.probe()
        steps = self.plan(strands)
        yield from self.plan_step(steps)
        for n, step in enumerate(steps, 1):
            self.position = f"step {n}/{len(steps)}"
            yield from self.teach_step(step, n, steps)
        self.position = "end-of-lesson quiz"
        yield from self.quiz()
        self.position = "done"
        if not self.taught and not self.asked:
            # nothing was taught or asked (every screen withheld): not a finished lesson
            self.completed = False
            self.record("note", {"kind": "incomplete", "reason": "nothing was taught or asked"})
            yield Prompt(
                kind="done",
                message_id=self.mid("done"),
                stage="done",
                title=f"{self.lesson.id} {self.lesson.title}",
                position="done",
                content=f"{self.lesson.title} was not taught this time: "
                + (
                    "you skipped its steps and no question could be asked"
                    if self.skipped
                    else "every step and question was withheld"
                )
                + ". It is not recorded as done; `tutor continue` tries it again.",
            )
            return
        self.record(
            "finish",
            {
                "verdicts": self.verdicts,
                "plan": self.plan_titles,
                "taught": self.taught,
                "skipped": self.skipped,
            },
        )
        yield Prompt(
            kind="done",
            message_id=self.mid("done"),
            stage="done",
            title=f"{self.lesson.id} {self.lesson.title}",
            position="done",
            content=f"Lesson complete: {self.lesson.title}. Your answers and mistakes are saved.",
        )

    def prior_step(self, strands: list[dict[str, Any]]) -> Script:
        self.position = "prior"
        # one row per probe strand, under the strand's own name: the prior and the probe speak
        # of the same prerequisites, and the plan reads both
        prereqs = [
            {"concept": s["name"], "keywords": [*slug(s["lesson"].title).split("-"), s["concept"]]}
            for s in strands
        ]

        def compute() -> list[dict[str, str]]:
            known = prior.inherited(self.gate.store, self.session_id)
            rest = [p for p in prereqs if p["concept"] not in known]
            keywords = [k for p in rest for k in p.get("keywords", [])]
            found = {
                r["prerequisite"]: r
                for r in prior.hypothesis(rest, prior.search(self.gate.store, keywords))
            }
            return [known.get(p["concept"]) or found[p["concept"]] for p in prereqs]

        self._prepare_probe(1)  # the first batch is prepared while the prior is read
        table = self.memo("prior", compute)
        self.prior_table = table
        self.record("note", {"kind": "prior", "hypothesis": table})
        lines = [
            "Before we start: what your records suggest (a hypothesis — the probe decides)",
            "",
        ]
        lines += [
            f"  {r['prerequisite'][:34]:<34} {r['evidence'][:34]:<34} {r['plan']}" for r in table
        ]
        rows = [[r["prerequisite"], r["evidence"], r["plan"]] for r in table]
        yield from self.status(
            "prior",
            "Prior",
            "\n".join(lines),
            table=Table(headers=["prerequisite", "evidence", "plan"], rows=rows),
        )

    # probe ----------------------------------------------------------------------------------
    def _batches(self) -> list[dict[str, Any]]:
        if self._probe_batches is None:
            self._probe_batches = selection.probe_batches(self.curriculum, self.lesson)
        return self._probe_batches

    def probe(self) -> Script:
        batches = self._batches()
        for n, strand in enumerate(batches, 1):
            yield from self.probe_strand(strand, n, len(batches))

    def _presented(self, strand: dict[str, Any]) -> list[Presented]:
        """A strand's items as presented, broad to narrow, before any model rewrite."""
        return bank.present(
            bank.broad_to_narrow(strand["items"]),
            strand["lesson"],
            salt=f"{self.session_id}:probe:{strand['concept']}",
            curriculum=self.curriculum,
        )

    def _pool(self, strand: dict[str, Any]) -> list[Presented]:
        """A strand's presented items, built once (rewrites included): a re-probe or the
        background preparation reuses them and never requests them again."""
        key = strand["name"]
        with self._pool_lock:
            lock = self._pool_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._pools:
                self._pools[key] = self._rewritten(self._presented(strand))
            return self._pools[key]

    def _strand_questions(
        self, strand: dict[str, Any]
    ) -> tuple[list[Presented], list[Presented], list[Presented]]:
        """(a strand's choice items, its free-recall items, its explain-in-your-own-words
        items)."""
        members = strand.get("members", [])
        pool = self._pool(strand)
        choice = [p for p in pool if p.type in ("mcq", "numeric")]
        recall = [p for p in pool if p.type == "free_recall"]
        explains = [self.explain_item(m) for m in (self._explained(members) or [strand])]
        return choice, recall, explains

    @staticmethod
    def _queues(strand: dict[str, Any], choice: list[Presented]) -> list[list[Presented]]:
        """The choice items of each group the edge search runs over: one per catch-up member,
        or the strand's own."""
        members = strand.get("members", [])
        if not members:
            return [choice]
        return [[p for p in choice if p.lesson_id == m["lesson"].id] for m in members]

    def _prepare_probe(self, n: int) -> None:
        """In the background: batch n's items (rewrites included) and the audits of the
        questions asked first. The first question's audit is sent alongside the rewrites, as
        the items stand before them; it is needed first."""
        batches = self._batches()
        if self.drafter is None or n > len(batches):
            return
        if self.replaying:  # its audits, if still needed, once the replay is over
            self._deferred.append(n)
            return
        strand = batches[n - 1]

        def opening(choice: list[Presented]) -> list[Presented]:
            """The batch's first question, then those that may follow it."""
            queues = self._queues(strand, choice)
            searches = [EdgeSearch(len(q)) for q in queues]
            start = searches[0].next_index(99)
            if start is None:
                return []
            return [queues[0][start], *self._ahead(searches, queues, 0, 99, asked=start)]

        def work() -> None:
            before = self._presented(strand)
            self._prefetch_rewrites(before)
            # the first question as the items stand before the rewrites, while they are made
            self._prewarm_items(
                opening([p for p in before if p.type in ("mcq", "numeric")])[:1], "probe"
            )
            choice, _, explains = self._strand_questions(strand)
            self._prewarm_items([*opening(choice), *explains], "probe")

        self.drafter.prefetch(f"prepare-probe:{n}", work)

    def replayed(self) -> None:
        """The replay is over: prepare the probe batches it passed over that are still ahead."""
        self.replaying = False
        for n in self._deferred:
            if n > self._batch:
                self._prepare_probe(n)
        self._deferred.clear()

    def _quiz_pool(self) -> list[Presented]:
        """The quiz's items from the bank items not asked yet, built once per such set."""
        unasked = [q for q in selection.quiz_bank(self.lesson) if q.id not in self.asked]
        key = tuple(q.id for q in unasked)
        with self._quiz_lock:
            if self._quiz_candidates is None or self._quiz_candidates[0] != key:
                self._quiz_candidates = (
                    key,
                    self._rewritten(
                        bank.present(
                            unasked,
                            self.lesson,
                            salt=f"{self.session_id}:quiz",
                            curriculum=self.curriculum,
                        )
                    ),
                )
            return self._quiz_candidates[1]

    def _prepare_quiz(self) -> None:
        """In the background, during the last teaching step: the quiz's items and audits."""
        if self.drafter is None:
            return

        def work() -> None:
            pool = sorted(self._quiz_pool(), key=lambda p: p.type == "free_recall")
            self._prewarm_items(pool[:1], "quiz")  # the first question is needed first
            self._prewarm_items(pool[1:QUIZ_SIZE], "quiz")

        self.drafter.prefetch("prepare-quiz", work)

    def _prefetch_rewrites(self, pool: list[Presented]) -> list[Presented]:
        """Start the model rewrites of the bank items that failed the quiz rules; those items."""
        if self.drafter is None:
            return []
        failed = [p for p in pool if p.type == "free_recall" and p.note]
        for p in failed:
            if not self.memoized(f"rewrite:{p.id}"):
                self.drafter.prefetch(f"rewrite:{p.id}", lambda p=p: self.drafter.rewrite(p))
        return failed

    def _rewritten(self, pool: list[Presented]) -> list[Presented]:
        """With a model, bank items that failed the quiz rules are rewritten as MCQs; a rewrite
        is used only when it passes the same rules, else the item stays free recall."""
        failed = self._prefetch_rewrites(pool)
        out = []
        for p in pool:
            made = None
            if p in failed:
                made = self.memo(
                    f"rewrite:{p.id}",
                    lambda p=p: self.drafter.take(
                        f"rewrite:{p.id}", lambda: self.drafter.rewrite(p)
                    ),
                )
            out.append(Presented.model_validate(made) if made else p)
        return out

    def _ask_envelope(self, item: Presented, purpose: str):
        """The quiz_audit envelope `ask` builds for the item (same concept, same purpose), so a
        verdict prepared ahead is the one the question finds."""
        concept = self._concept_of(item) if purpose == "probe" else self.concept
        return self.gate.ask_envelope(
            [item.to_question()], _audit_purpose(purpose), concept, item.reference
        )

    def _prewarm_items(self, items: list[Presented], purpose: str) -> None:
        """Audit these questions now, concurrently (blocks; for background work)."""
        if items:
            self.gate.prewarm([self._ask_envelope(i, purpose) for i in items])

    def _prewarm_asks(self, key: str, items: list[Presented], purpose: str) -> None:
        """Audit questions concurrently, in the background, before they are asked (not while a
        resumed session replays its answers: those questions have their verdicts)."""
        if self.drafter is not None and items and not self.replaying:
            self.drafter.prefetch(key, lambda: self._prewarm_items(items, purpose))

    @staticmethod
    def _ahead(
        searches: list[EdgeSearch],
        queues: list[list[Presented]],
        k: int,
        enough: int,
        asked: int | None = None,
    ) -> list[Presented]:
        """The questions the edge search may ask next, whichever way the one at `asked` (in
        group k; None: nothing asked yet) is answered."""
        out: list[Presented] = []
        for g, search in enumerate(searches):
            outcomes: tuple[bool | None, ...] = (
                (True, False) if g == k and asked is not None else (None,)
            )
            for known in outcomes:
                trial = copy.deepcopy(search)
                if known is not None:
                    trial.record(asked, known)  # type: ignore[arg-type]
                j = trial.next_index(enough)
                if j is not None and queues[g][j] not in out:
                    out.append(queues[g][j])
        return out

    def probe_strand(self, strand: dict[str, Any], n: int, total: int) -> Script:
        """One batch, results only after the whole batch. A strand binary-searches its items
        (easiest first) for the edge of what is known, MIN_STRAND_MCQ–MAX_STRAND_MCQ answers,
        then one free-recall item. A catch-up batch asks CATCH_UP_MIN–MAX_STRAND_MCQ items
        spread round-robin over its member strands, and 2 free-recall items."""
        self._batch = n
        members = strand.get("members", [])
        choice, recall, explains = self._strand_questions(strand)
        self._prewarm_asks(f"audit:{n}:explain", explains, "probe")
        self._prepare_probe(n + 1)  # the next batch is prepared while this one is answered
        title = f"Probe · strand {n} of {total} · {strand['name']}"
        answers: list[dict[str, Any]] = []

        def asked_title() -> str:
            return title + f" · question {len(answers) + 1}"

        queues = self._queues(strand, choice)
        searches = [EdgeSearch(len(q)) for q in queues]
        enough = MIN_EVIDENCE if members else MIN_STRAND_MCQ
        least = CATCH_UP_MIN if members else MIN_STRAND_MCQ
        while len(answers) < MAX_STRAND_MCQ:
            # the strand with the fewest answers among those still searching; in a catch-up,
            # others too while the batch is below its minimum
            open_ = [k for k, srch in enumerate(searches) if srch.wants_more(enough)]
            if not open_ and len(answers) < least:
                open_ = [k for k, srch in enumerate(searches) if srch.wants_more(99)]
            if not open_:
                break
            k = min(open_, key=lambda j: (len(searches[j].answers) + len(searches[j].skipped), j))
            i = searches[k].next_index(enough if len(answers) >= least else 99)
            if i is None:
                searches[k].skipped.update(searches[k]._rest())
                continue
            item = queues[k][i]
            # while this one is answered, the audits of the questions that may follow it
            after = enough if len(answers) + 1 >= least else 99
            self._prewarm_asks(
                f"ahead:{n}:{len(answers)}:{k}:{i}",
                self._ahead(searches, queues, k, after, asked=i),
                "probe",
            )
            self.position = f"probe · strand {n}/{total} · question {len(answers) + 1}"
            answer = yield from self.ask(item, "probe", asked_title(), self._concept_of(item))
            searches[k].record(i, None if answer is None else _known_now(answer))
            if answer is not None:
                answers.append(answer)
        if not members:
            for item in recall[: max(0, MIN_STRAND_MCQ - len(answers))]:
                # too few choice items: converted items as free recall (graded later, so they
                # never decide the search or the stop)
                self.position = f"probe · strand {n}/{total} · question {len(answers) + 1}"
                answer = yield from self.ask(item, "probe", asked_title(), strand["concept"])
                if answer is not None:
                    answers.append(answer)
        free = []
        for k, explain in enumerate(explains, 1):
            self.position = f"probe · strand {n}/{total} · explain {k}/{len(explains)}"
            given = yield from self.ask(
                explain, "probe", title + " · in your own words", self._concept_of(explain)
            )
            if given:
                free.append(given)
        self.position = f"probe · strand {n}/{total} · results"
        yield from self.results(strand, title, answers, free)

    def _explained(self, members: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The two catch-up strands that get a free-recall item: those the MCQs reach least."""
        return members[:2]

    def _concept_of(self, item: Presented) -> str:
        try:
            return concept_id(self.curriculum.lesson(item.lesson_id))
        except LookupError:
            return self.concept

    def explain_item(self, strand: dict[str, Any]) -> Presented:
        lesson: Lesson = strand["lesson"]
        reference = lesson.motto or (lesson.objectives[0] if lesson.objectives else lesson.title)
        math = any(i.type == "numeric" for i in lesson.quiz)
        what = "the key insight behind" if math else "in your own words:"
        return Presented(
            id=f"{concept_id(lesson)}-explain",
            lesson_id=lesson.id,
            type="free_recall",
            question=f"Explain {what} {lesson.title}.",
            reference=reference,
            bloom="understand",
            stage="pre",
        )

    def ask(
        self, item: Presented, purpose: str, title: str, concept: str, feedback: bool = False
    ) -> Generator[Prompt, Action, dict[str, Any] | None]:
        """Ask one gated item; record the answer (not yet graded when feedback is withheld)."""

        def audited(item: Presented, label: str, cycles: int) -> tuple[str, Emit | Block]:
            message_id = self.mid(f"ask:{item.id}{label}")
            return message_id, self.gate.ask(
                message_id,
                item.render(),
                [item.to_question()],
                _audit_purpose(purpose),
                concept,
                item.reference,
                cycles=cycles,
            )

        message_id, outcome = audited(item, "", 0)
        # the audit disputes a choice item: at most 2 revision cycles, each audited again — the
        # model rewrites it from the problems found, then it is asked as free recall
        cycles = 0
        for label in ("fix", "recall"):
            if not (
                isinstance(outcome, Block) and item.type == "mcq" and outcome.code in ("Q04", "Q05")
            ):
                break
            revised = (
                self._fixed(item, message_id, outcome.reason)
                if label == "fix"
                else bank.as_free_recall(item, f"the quiz audit found issues ({outcome.code})")
            )
            if revised is not None:
                item, cycles = revised, cycles + 1
                message_id, outcome = audited(item, f":{label}", cycles)
        if isinstance(outcome, Block):
            yield from self.notice_blocked(purpose, title, outcome)
            return None
        self.asked.add(item.id)
        kind = {"mcq": "choice", "numeric": "numeric", "free_recall": "text"}[item.type]
        action = yield Prompt(
            kind=kind,
            message_id=message_id,
            stage=purpose,
            title=title,
            position=self.position,
            content=outcome.content,
            item=item,
            needs_confidence=True,
            unverified=outcome.unverified,
            flags=self._flags(outcome.flags),
        )
        given = action.text if item.type == "free_recall" else action.value
        idk = action.value == "idk"
        graded = None if idk else bank.grade(item, given)
        result = {
            "item": item,
            "answer": "idk" if idk else given,
            "confidence": "no_idea" if idk else action.confidence,
            "outcome": "idk"
            if idk
            else ("pending" if graded is None else ("correct" if graded else "wrong")),
            "attempt_id": f"{message_id}:answer",
            "purpose": purpose,
            "concept": concept,
        }
        self.record("attempt", result)
        if feedback:
            yield from self.reveal([result], title, concept)
        return result

    def _fixed(self, item: Presented, message_id: str, problems: str) -> Presented | None:
        """With a model: the choice item rewritten where its audit found problems (kept only
        when it passes the multiple-choice rules), or None."""
        if self.drafter is None or not self.gate.model_checks():
            return None
        made = self.memo(f"fix:{message_id}", lambda: self.drafter.rewrite(item, problems=problems))
        return Presented.model_validate(made) if made else None

    def reveal(self, answers: list[dict[str, Any]], title: str, concept: str) -> Script:
        """Grade answers (free recall: by the model when there is one, else by the learner
        against the reference), gate each grade, show it, and record the mistakes with the
        learner's own attribution. Independent grades are verified concurrently."""
        self._prewarm_grades([a for a in answers if a["outcome"] != "pending"])
        if self.drafter is not None:
            for a in answers:
                if a["outcome"] == "pending" and not self.memoized(f"grade:{a['attempt_id']}"):
                    self.drafter.prefetch(
                        f"grade:{a['attempt_id']}",
                        lambda a=a: self.drafter.grade(a["item"], a["answer"]),
                    )
        for a in answers:
            item: Presented = a["item"]
            pending = a["outcome"] == "pending"
            by_model = False
            if pending:
                passed = None
                if self.drafter is not None:
                    passed = self.memo(
                        f"grade:{a['attempt_id']}",
                        lambda a=a: self.drafter.take(
                            f"grade:{a['attempt_id']}",
                            lambda: self.drafter.grade(a["item"], a["answer"]),
                        ),
                    )
                by_model = passed is not None
                if passed is None:
                    passed = yield from self.self_grade(item, a["answer"], title)
                    if passed is None:
                        continue  # the self-grade screen was withheld: the answer stays pending
                a["outcome"] = "correct" if passed else "wrong"
            outcome = self.gate.grade(
                self.mid(f"grade:{item.id}"),
                self._graded(a),
                item.to_question(),
                graded_answer(item, a["answer"]),
                a["outcome"] == "correct",
                item.reference,
            )
            if isinstance(outcome, Block) and by_model and outcome.code in ("R01", "R02"):
                # the audit disputes the model's grade: the learner grades it against the reference
                passed = yield from self.self_grade(item, a["answer"], title)
                if passed is None:
                    a["outcome"] = "pending"
                    continue
                a["outcome"] = "correct" if passed else "wrong"
                outcome = self.gate.grade(
                    self.mid(f"regrade:{item.id}"),
                    self._graded(a),
                    item.to_question(),
                    graded_answer(item, a["answer"]),
                    passed,
                    item.reference,
                    cycles=1,
                )
            if pending:
                self.record("grade", a)
            if isinstance(outcome, Block):
                yield from self.notice_blocked("results", title, outcome)
                continue
            yield from self.show("results", title, outcome)
            if a["outcome"] == "wrong":
                yield from self.attribute(a, title, a["confidence"] == "sure")
            elif a["outcome"] == "idk":  # not known, so it comes back in review
                self.record(
                    "mistake",
                    {
                        **a,
                        "error_type": "structural",
                        "attribution": "I don't know",
                        "retest_early": False,
                    },
                )

    def self_grade(
        self, item: Presented, answer: str, title: str
    ) -> Generator[Prompt, Action, bool | None]:
        """Offline free recall: the reference split into 2–4 key points, the learner marks
        each one their answer covered; right when it covered more than half of them. An empty
        or nonsense answer is wrong without asking. None when a key-point screen was
        withheld (no grade from part of the points)."""
        if not selfgrade.looks_like_an_answer(answer, item.question + " " + item.reference):
            return False
        points = selfgrade.key_points(item.reference)
        covered = 0
        for n, point in enumerate(points, 1):
            check = yield from self.read_yes_no(
                "results",
                title,
                f"{item.question}\n  Your answer: {answer}\n\nKey point "
                f"{n} of {len(points)}: {point}\nDid your answer make this point?",
            )
            if check is None:
                return None
            covered += check.value == "y"
        return selfgrade.passes(covered, len(points))

    @staticmethod
    def _graded(a: dict[str, Any]) -> str:
        item: Presented = a["item"]
        shown = "I don't know" if a["answer"] == "idk" else a["answer"]
        if item.type == "mcq" and shown.isdigit():
            shown = f"{int(shown) + 1}. {item.options[int(shown)]}"
        sureness = (a["confidence"] or "").replace("_", " ")
        passed = a["outcome"] == "correct"
        verdict = "right" if passed else ("I don't know" if a["outcome"] == "idk" else "not quite")
        return (
            f"{item.question}\n  You answered: {shown} ({sureness})\n"
            f"  {verdict}. Reference: {item.reference}"
        )

    def _prewarm_grades(self, answers: list[dict[str, Any]]) -> None:
        self.gate.prewarm(
            [
                self.gate.grade_envelope(
                    a["item"].to_question(),
                    graded_answer(a["item"], a["answer"]),
                    a["outcome"] == "correct",
                    a["item"].reference,
                )
                for a in answers
            ]
        )

    def read_yes_no(
        self, stage: str, title: str, content: str
    ) -> Generator[Prompt, Action, Action | None]:
        return (yield from self.gated("yes_no", stage, title, content))

    def attribute(self, answer: dict[str, Any], title: str, confident: bool) -> Script:
        content = "What kind of slip was it? Then, in your words, what happened?"
        checked = self.gate.notice_turn(self.mid("mistake"), content)  # navigation text only
        action = yield Prompt(
            kind="error_type",
            message_id=checked.message_id,
            stage="mistake",
            title=title,
            position=self.position,
            content=checked.content if isinstance(checked, Emit) else "",
            flags=self._flags([]),
        )
        self.record(
            "mistake",
            {
                **answer,
                "error_type": ERROR_TYPES[int(action.value) - 1],
                "attribution": action.text,
                "retest_early": confident,
            },
        )

    def results(
        self,
        strand: dict[str, Any],
        title: str,
        answers: list[dict[str, Any]],
        free: list[dict[str, Any]],
    ) -> Script:
        title = title + " · results"
        if not answers and not free:
            # every question of the strand was withheld: there is nothing to judge
            self.record(
                "note",
                {
                    "kind": "verdict",
                    "strand": strand["name"],
                    "verdict": "not probed",
                    "evidence": [],
                },
            )
            yield from self.status(
                "results",
                title,
                f"No verdict for {strand['name']}: its "
                "questions were withheld, so nothing was asked.",
            )
            return
        yield from self.reveal(answers + free, title, strand["concept"])
        evidence = []
        misconceived: set[str] = set()
        why_done = False
        for a in answers:
            item: Presented = a["item"]
            row = {
                "item": item.id,
                "lesson": item.lesson_id,
                "answer": shown_answer(item, a["answer"]),
                "confidence": a["confidence"],
                "outcome": a["outcome"],
                "follow_up": "",
                "self_graded": item.type == "free_recall" and self.drafter is None,
            }
            if a["outcome"] == "correct" and a["confidence"] == "hunch":
                row["follow_up"] = yield from self.reprobe(strand, item, title)
            elif (
                a["outcome"] == "correct"
                and a["confidence"] == "sure"
                and not why_done
                and item.bloom in ("apply", "analyze", "evaluate", "create")
            ):
                why_done = True
                sound = yield from self.why(a, title)
                if sound is None:
                    row["follow_up"] = "why: withheld"
                else:
                    row["follow_up"] = "why: sound" if sound else "why: misconception"
                if sound is False:
                    misconceived.add(item.lesson_id)
            evidence.append(row)
        evidence += [
            {
                "item": f["item"].id,
                "lesson": f["item"].lesson_id,
                "answer": shown_answer(f["item"], f["answer"]),
                "confidence": f["confidence"],
                "outcome": f["outcome"],
                "follow_up": "free recall",
                "self_graded": self.drafter is None,
            }
            for f in free
        ]
        members = strand.get("members") or [strand]
        for member in members:  # each strand judged on its own answers only
            own = [r for r in evidence if r["lesson"] == member["lesson"].id]
            self.verdicts[member["name"]] = strand_verdict(own, member["lesson"].id in misconceived)
        if strand.get("members"):
            judged = [self.verdicts[m["name"]] for m in members]
            verdict = (
                NOT_PROBED
                if all(v == NOT_PROBED for v in judged)
                else strand_verdict(evidence, bool(misconceived))
            )
        else:
            verdict = self.verdicts[strand["name"]]
        self.record(
            "note",
            {
                "kind": "verdict",
                "strand": strand["name"],
                "verdict": verdict,
                "evidence": evidence,
                "verdicts": dict(self.verdicts),
            },
        )
        lines = [f"Verdict for {strand['name']}: {verdict}", ""]
        wide = max(len(r["item"]) for r in evidence) if evidence else 0
        lines += [
            f"  {r['item']:<{wide}}  {_cut(r['answer'], 24):<24} "
            f"{r['confidence'] or '':<8} {r['outcome']:<8} {r['follow_up']}".rstrip()
            for r in evidence
        ]
        if strand.get("members"):
            lines += ["", "By strand:"]
            lines += [f"  {m['name']}: {self.verdicts[m['name']]}" for m in strand["members"]]
        if NOT_PROBED in [self.verdicts[m["name"]] for m in members]:
            lines += [
                "",
                f"'{NOT_PROBED}': fewer than {MIN_EVIDENCE} answers of that strand's "
                "own, so no verdict; the plan refreshes it.",
            ]
        rows = [
            [r["item"], r["answer"], r["confidence"] or "", r["outcome"], r["follow_up"]]
            for r in evidence
        ]
        yield from self.status(
            "results",
            title,
            "\n".join(lines),
            table=Table(
                headers=["item", "answer", "confidence", "outcome", "follow-up"], rows=rows
            ),
        )

    def reprobe(self, strand: dict[str, Any], item: Presented, title: str) -> Script:
        """Right but a hunch: one more item on the same concept (the same lesson's bank), a
        different item; it counts only when it is right and sure."""
        spare = [
            p
            for p in self._pool(strand)
            if p.id not in self.asked and p.lesson_id == item.lesson_id
        ]
        spare.sort(key=lambda p: p.type == "free_recall")
        if self.drafter is not None:
            made = self.memo(f"reprobe:{item.id}", lambda: self.drafter.isomorphic(item))
            if made:
                spare.insert(0, Presented.model_validate(made))
        if not spare:
            return "re-probe: none available"
        yield from self.status(
            "results", title, "You were right but tagged it a hunch: one more, worded differently."
        )
        again = yield from self.ask(
            spare[0], "probe", title + " · re-probe", self._concept_of(spare[0]), feedback=True
        )
        if again and again["outcome"] == "correct":
            return (
                "re-probe: right, sure"
                if again["confidence"] == "sure"
                else ("re-probe: right, unsure")
            )
        return "re-probe: wrong"

    def why(self, answer: dict[str, Any], title: str) -> Generator[Prompt, Action, bool | None]:
        """None when the spot-check could not be shown (withheld)."""
        item: Presented = answer["item"]
        action = yield from self.gated(
            "text",
            "results",
            title,
            f"You were sure about: {item.question}\nWhy? Give your reasoning in a sentence or two.",
            purpose="probe",
        )
        if action is None:
            return None
        check = yield from self.read_yes_no(
            "results",
            title,
            f"Your reasoning: {action.text}\nReference: {item.reference}\n\n"
            "Does your reasoning match the reference?",
        )
        if check is None:
            return None
        sound = check.value == "y"
        why = {
            **answer,
            "answer": action.text,
            "attempt_id": answer["attempt_id"] + ":why",
            "outcome": "correct" if sound else "wrong",
            "purpose": "why",
        }
        self.record("attempt", why)
        if not sound:
            self.record(
                "mistake",
                {
                    **why,
                    "error_type": "structural",
                    "attribution": "misconception: " + action.text,
                    "retest_early": True,
                },
            )
        return sound

    # plan -----------------------------------------------------------------------------------
    def plan(self, strands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The probe's verdict decides; where it gave none (not probed) the prior's plan does:
        a strand solid (or skip-fast) gets no step, one to expand gets a refresh from its
        lesson's first teaching section, one to reframe is refreshed through its lesson's worked
        example (a Build It or example section) when it has one."""
        steps = []
        hypothesis = {r["prerequisite"]: r["plan"] for r in self.prior_table}
        for s in strands:
            if s["lesson"] is self.lesson:
                continue
            verdict = self.verdicts.get(s["name"], NOT_PROBED)
            guess = hypothesis.get(s["name"], "expand")
            if verdict == "solid" or (verdict == NOT_PROBED and guess == "skip-fast"):
                continue
            sections = self._teaching_sections(s["lesson"])
            if not sections:
                continue
            how = "reframe" if guess == "reframe" else "refresh"
            example = [
                x for x in sections if re.search(r"build|example|worked|in practice", x.title, re.I)
            ]
            section = example[0] if how == "reframe" and example else sections[0]
            why = "not probed" if verdict == NOT_PROBED else verdict
            steps.append(
                {
                    "title": f"{how}: {s['name']} ({why}; prior: {guess})",
                    "section": section,
                    "lesson": s["lesson"],
                }
            )
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
        self.plan_titles = [s["title"] for s in steps]
        self._prepare_steps(steps, 0)  # the first steps are prepared while the plan is read
        if not steps:
            self.record("note", {"kind": "plan", "steps": []})
            yield from self.status(
                "plan",
                "Plan",
                f"{self.lesson.title} has no teaching text to "
                "build steps from (its document is missing or empty), so "
                "the end-of-lesson quiz comes next.",
            )
            return
        goal = self.lesson.objectives[0] if self.lesson.objectives else self.lesson.title
        # structure lines are [bracketed] scaffold; the sentences under them are the claims
        lines = [f'[Your path to "{goal}"]', ""]
        lines += [
            f"  [{'✓' if v == 'solid' else '◆'} {name} ({v})]" for name, v in self.verdicts.items()
        ]
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
        outcome = self.gate.teach(
            mid, content, self._sources(steps), "\n\n".join(excerpts), context="lesson plan"
        )
        if isinstance(outcome, Block) and self.gate.verifier is not None:
            # the plan quotes the lesson's own sentences: checked against them, offline
            outcome = self.gate.teach(
                mid + ":source",
                content,
                self._sources(steps),
                "\n\n".join(excerpts),
                context="lesson plan",
                offline=True,
            )
        self.record("note", {"kind": "plan", "steps": self.plan_titles})
        if isinstance(outcome, Block):
            yield from self.notice_blocked("plan", "Plan", outcome)
            return
        yield from self.show(
            "plan", "Plan", outcome, table=Table(headers=["", "step", "sources"], rows=rows)
        )

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
        return [f"{where} §{step['section'].title}" if u in own else titles.get(u, u) for u in urls]

    def external_for(self, step: dict[str, Any]) -> dict[str, Any] | None:
        """The external excerpt that best matches the step's claims (most shared substantive
        words, at least RELEVANCE_MIN), or None."""
        ok = [
            s
            for s in self.digest.get("sources", [])
            if s.get("kind") != "primary"
            and s.get("status") in ("ok", "changed", "new")
            and s.get("excerpt")
        ]
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
        where = "primary" if step["lesson"] is self.lesson else step["lesson"].id
        parts = [f"[source: {where} §{section.title}]", "", section.text.strip()]
        excerpt = [section.text]
        sources = [self.primary if step["lesson"] is self.lesson else str(step["lesson"].doc_path)]
        ext = self.external_for(step)
        if ext:
            parts += ["", f"[external: {ext.get('title') or ext['url']}]", ext["excerpt"]]
            excerpt.append(ext["excerpt"])
            sources.append(ext["url"])
        return {"content": "\n".join(parts), "sources": sources, "excerpt": "\n\n".join(excerpt)}

    def prepare_step(self, step: dict[str, Any], n: int) -> tuple[dict[str, Any], Any]:
        """Draft step n (compiled offline, or by the model) and pass it through fact_check."""

        def draft() -> dict[str, Any]:
            compiled = self.compile_step(step, n)
            if self.drafter is None or not self.gate.model_checks():
                return compiled  # a draft no model can check is never shown: not asked for
            position = f"step {n} of {len(self.plan_titles)}"
            return self.drafter.draft(step, compiled, self.verdicts, position) or compiled

        made = self.memo(f"step:{n}", draft)
        mid = f"{self.session_id}:teach:{n}"
        revise = None
        if self.drafter is not None and made.get("model"):

            def revise(text: str, flagged: list[tuple[str, str]], made=made) -> str | None:
                cycle = self._revisions.setdefault(n, 0) + 1
                self._revisions[n] = cycle
                return self.memo(
                    f"revise:{n}:{cycle}", lambda: self.drafter.revise(step, made, text, flagged)
                )

        outcome = self.gate.teach(
            mid,
            made["content"],
            made["sources"],
            made["excerpt"],
            context=step["title"],
            revise=revise,
        )
        unchecked = made.get("model") and self.gate.verified_by.get(mid) != "model"
        if unchecked or (
            isinstance(outcome, Block) and (made.get("model") or self.gate.verifier is not None)
        ):
            # the model's draft stayed blocked, or no model could check it (the verifier failed
            # or went offline): the lesson's own text, checked against itself
            made = self.compile_step(step, n)
            outcome = self.gate.teach(
                mid + ":source",
                made["content"],
                made["sources"],
                made["excerpt"],
                context=step["title"],
                offline=True,
            )
        return made, outcome

    def _prepare_steps(self, steps: list[dict[str, Any]], shown: int) -> None:
        """In the background, the STEPS_AHEAD steps after step `shown` (drafted and checked, a
        draft and a verification each): a step that is read faster than one is prepared still
        finds the next one ready."""
        if self.drafter is None:
            return
        for n in range(shown + 1, min(shown + STEPS_AHEAD, len(steps)) + 1):
            self.drafter.prefetch(f"step:{n}", lambda n=n: self.prepare_step(steps[n - 1], n))

    def teach_step(self, step: dict[str, Any], n: int, steps: list[dict[str, Any]]) -> Script:
        total = len(steps)
        self._prepare_steps(steps, n)
        if n == total:
            self._prepare_quiz()  # the quiz is prepared while the last step is read
        prepared = self.drafter.take(f"step:{n}") if self.drafter is not None else None
        made, outcome = prepared or self.prepare_step(step, n)
        title = f"Step {n}/{total} · {step['title']}"
        if isinstance(outcome, Block):
            yield from self.notice_blocked("teach", title, outcome)
            return
        action = yield from self.show(
            "teach", title, outcome, sources=self._labels(step, made["sources"])
        )
        if action.kind == "skip":  # not taught: kept apart in the notes and the outcome
            self.skipped.append(step["title"])
            self.record("note", {"kind": "skipped", "step": step["title"]})
            return
        self.taught.append(
            {
                "step_id": outcome.message_id,
                "title": step["title"],
                "content": outcome.content,
                "sources": made["sources"],
                "unverified": outcome.unverified,
            }
        )
        yield from self.checkpoint(step, n, total)

    def checkpoint(self, step: dict[str, Any], n: int, total: int) -> Script:
        """A checkpoint after every second step (and the last): the Feynman explain-back at the
        end of the lesson; otherwise a bank item neither the probe nor the quiz uses (`check`
        items first; the quiz keeps at least QUIZ_KEEP), else a free-recall question on the
        step's own key sentences, self-graded by key points."""
        title = f"Step {n}/{total} · checkpoint"
        if n == total:
            yield from self.feynman(title)
            return
        if n % 2:
            return
        quiz_ids = [q.id for q in selection.quiz_bank(self.lesson) if q.id not in self.asked]
        spare_quiz = set(quiz_ids[QUIZ_KEEP:])
        candidates = [
            q
            for q in self.lesson.quiz
            if q.id not in self.asked
            and (q.stage == "check" or q.id not in quiz_ids or q.id in spare_quiz)
        ]
        candidates.sort(key=lambda q: (q.stage != "check", q.id in spare_quiz, q.index))
        checks = [
            p
            for p in bank.present(
                candidates,
                self.lesson,
                salt=f"{self.session_id}:check:{n}",
                curriculum=self.curriculum,
            )
            if p.type in ("mcq", "numeric")
        ]
        if checks:
            yield from self.ask(checks[0], "checkpoint", title, self.concept, feedback=True)
            return
        sentences = key_sentences(step["section"].text, 3)
        if not sentences:
            return
        item = Presented(
            id=f"{self.concept}-step{n}-recall",
            lesson_id=self.lesson.id,
            type="free_recall",
            question=f"In your own words: what did this step say about {step['section'].title}?",
            reference=" ".join(sentences),
            bloom="understand",
            stage="check",
        )
        yield from self.ask(item, "checkpoint", title, self.concept, feedback=True)

    def feynman(self, title: str) -> Script:
        action = yield from self.gated(
            "text",
            "checkpoint",
            title,
            f"Explain {self.lesson.title} back, as if to a friend. A good explanation:\n"
            + "\n".join(f"  {n}. {r}" for n, r in enumerate(FEYNMAN_RUBRIC, 1)),
        )
        if action is None:
            return
        hits = []
        for n, rule in enumerate(FEYNMAN_RUBRIC, 1):
            check = yield from self.read_yes_no(
                "checkpoint",
                title,
                f"Your explanation: {action.text}\n\n{feynman_question(rule)} "
                f"({n} of {len(FEYNMAN_RUBRIC)})",
            )
            if check is None:
                return  # a rubric screen was withheld: no Feynman grade from part of the rubric
            if check.value == "y":
                hits.append(rule)
        passed = len(hits) == len(FEYNMAN_RUBRIC)
        self.record(
            "attempt",
            {
                "attempt_id": self.mid("feynman-attempt"),
                "purpose": "feynman",
                "answer": action.text,
                "outcome": "correct" if passed else "wrong",
                "confidence": None,
                "concept": self.concept,
                "feynman": passed,
                "item": None,
                "rubric_hits": hits,
            },
        )
        item = Presented(
            id=f"{self.concept}-feynman",
            lesson_id=self.lesson.id,
            type="free_recall",
            question=f"Explain {self.lesson.title} back.",
            reference=self.lesson.motto or self.lesson.title,
            bloom="understand",
            stage="check",
        )
        missing = [r for r in FEYNMAN_RUBRIC if r not in hits]
        content = (
            f"Feynman check: {'passed' if passed else 'not yet'} — {len(hits)} of "
            f"{len(FEYNMAN_RUBRIC)}."
            + ("" if passed else " Still to cover: it " + "; it ".join(missing) + ".")
        )
        outcome = self.gate.grade(
            self.mid("feynman-grade"),
            content,
            item.to_question(),
            action.text,
            passed,
            item.reference,
            rubric=FEYNMAN_RUBRIC,
            rubric_hits=hits,
        )
        if isinstance(outcome, Block):
            yield from self.notice_blocked("checkpoint", title, outcome)
        else:
            yield from self.show("checkpoint", title, outcome)

    # end-of-lesson quiz ------------------------------------------------------------------------
    def quiz(self) -> Script:
        pool = list(self._quiz_pool())
        pool.sort(key=lambda p: p.type == "free_recall")
        title = f"End-of-lesson quiz · {self.lesson.title}"
        self._prewarm_asks("audit:quiz", pool[:QUIZ_SIZE], "quiz")
        answers = []
        for n, item in enumerate(pool[:QUIZ_SIZE], 1):
            self.position = f"quiz · question {n}"
            a = yield from self.ask(item, "quiz", title + f" · question {n}", self.concept)
            if a:
                answers.append(a)
        if answers:
            self.position = "quiz · results"
            yield from self.reveal(answers, title + " · results", self.concept)
