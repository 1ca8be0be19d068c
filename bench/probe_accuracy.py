"""How well the probe measures what a learner knows: simulated learners of known knowledge,
driven along the learner's path, and the probe's verdicts compared with what they know.

    python bench/probe_accuracy.py [--curriculum PATH ...] [--learners K] [--lessons N]
                                   [--seed S] [--partial random|easier] [--records]
                                   [--slip P] [--oversure P]

The learner's path: each lesson is opened as `tutor continue --plain --lesson L` opens it — the
curriculum read with only that lesson and its prerequisites (`tutor.learner.load`), the session
opened by `tutor.engine.runner.open_session` in a fresh home (its id is the seed) — and answered
through the session API the line dialogue drives, up to the plan.

Each learner (drawn from the seed, the lesson and its number, so that two versions of the
engine meet the same learners) has, per strand (prerequisite lesson), a level drawn at random:
`known` (expected verdict `solid`), `partial` (`unstable`) or `unknown` (`unknown`). A partial
learner knows half of that lesson's items, chosen at random per strand (`--partial random`, the
default; not the engine's difficulty order) or the easier half (`--partial easier`), and its
explain-back half the time. Answers are noisy: a known item is slipped now and then (`--slip`,
6% by default) and tagged a hunch sometimes; an unknown one is "I don't know" or a guess, tagged
sure now and then (`--oversure`, 15%). A known free-recall item is answered with its reference
and its key points are marked honestly. `--slip 0 --oversure 0`: learners whose answers say
exactly what they know.

With `--records`, each learner's store holds an earlier session whose probe found each strand:
solid when known, unknown when unknown, and a half-known one solid half the time (learned once,
half forgotten since) — a strand solid in the records needs one confirming answer, not two.

Courses: the shared corpus (../shared/corpus/aiefs; skipped with a message when absent) and two
generated courses unlike it (tutor.testing.course_maker: machines with six-item banks and long
keys; tutor.testing.ledger_maker: bookkeeping with numeric items, banks of 1–8 items and wide
prerequisite fans).

Printed per course: exact (verdict = expected, over strands with a verdict) and solid-vs-not
((verdict is solid) = (level is known), over all strands, `not probed` counting as not solid),
overall, for own strands (probed in a batch of their own) and catch-up strands, for lessons of
at most 4 strands (a budget of 12 questions) and of more (where it gives each strand its 2
answers and one more where they leave doubt), and per true level; the `not probed` share;
probe questions per lesson (re-probes included), overall and for lessons of three strands or
more, and per strand in lessons of at most 4 strands and of more. The generated courses are
small: each of their lessons gets GENERATED_LEARNERS times the learners.
Targets: exact ≥ 0.85, solid-vs-not ≥ 0.95, not probed ≤ 5%, ≤ 12 questions per lesson.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learning_system.curriculum import Lesson, load_curriculum  # noqa: E402
from learning_system.store import Store  # noqa: E402
from tutor import learner as load_path  # noqa: E402
from tutor.engine import selection  # noqa: E402
from tutor.engine.items import Presented, broad_to_narrow  # noqa: E402
from tutor.engine.runner import open_session  # noqa: E402
from tutor.engine.turns import Action, Prompt  # noqa: E402

EXPECTED = {"known": "solid", "partial": "unstable", "unknown": "unknown"}
LEVELS = list(EXPECTED)
SLIP = 0.06  # a known item answered wrong (--slip)
HUNCH = 0.15  # a known item right but tagged a hunch
IDK = 0.4  # an unknown item answered "I don't know"
OVERSURE = 0.15  # a guess tagged sure (--oversure)
GENERATED_LEARNERS = 3
WIDE = 4  # a lesson with more strands has 3 questions a strand (tutor.engine.probe_budget)
NOT_RECALLED = "something about it, I think"  # a free-recall answer that makes no key point
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "aiefs"


class SimulatedLearner:
    """Knows, per prerequisite lesson, a level and (when partial) which of its items; answers
    every prompt the way such a learner would."""

    def __init__(
        self,
        levels: dict[str, str],
        lessons: dict[str, Lesson],
        setting: Setting,
        rng: random.Random,
    ) -> None:
        self.levels = levels
        self.setting = setting
        partial = setting.partial
        self.rng = rng
        self.known_items: set[str] = set()
        self.explains: dict[str, bool] = {}
        for lesson_id, level in levels.items():
            bank = broad_to_narrow(lessons[lesson_id].quiz)
            half = len(bank) // 2 + (len(bank) % 2 and rng.random() < 0.5)
            if level == "known":
                chosen = bank
            elif level == "partial":
                chosen = rng.sample(bank, half) if partial == "random" else bank[:half]
            else:
                chosen = []
            self.known_items |= {q.id for q in chosen}
            self.explains[lesson_id] = level == "known" or (
                level == "partial" and rng.random() < 0.5
            )
        self.right_by_question: dict[str, bool] = {}
        self.asked: list[Prompt] = []

    def knows(self, item: Presented) -> bool:
        if item.id.endswith("-explain"):
            return self.explains.get(item.lesson_id, False)
        return item.id in self.known_items

    def act(self, prompt: Prompt) -> Action:
        if prompt.kind == "read":
            return Action(kind="next")
        if prompt.item is not None and prompt.needs_confidence:
            return self.answer(prompt, prompt.item)
        content = prompt.content
        if prompt.kind == "text":  # a "why?"
            question = content.removeprefix("You were sure about: ").rsplit("\nWhy? ", 1)[0]
            right = self.right_by_question.get(question)
            return Action(kind="text", text="because " + question if right else "not sure why")
        if prompt.kind == "yes_no":  # a key point of a free recall, or a "why?" checked
            if content.startswith("Your reasoning: "):
                reasoning = content.split("\n", 1)[0]
                return Action(kind="yes_no", value="y" if "because" in reasoning else "n")
            # the question (it may span lines), the answer given, the key point: a point is
            # made when the answer given was the reference (other items may share the question)
            given = content.split("\n  Your answer: ", 1)[-1].split("\n", 1)[0]
            return Action(kind="yes_no", value="n" if given == NOT_RECALLED else "y")
        if prompt.kind == "error_type":
            return Action(kind="error_type", value="1", text="did not know it")
        raise AssertionError(prompt.kind)

    def answer(self, prompt: Prompt, item: Presented) -> Action:
        if prompt.stage == "probe":
            self.asked.append(prompt)
        rng = self.rng
        known = self.knows(item)
        right = known and rng.random() >= self.setting.slip
        self.right_by_question[item.question] = right
        if not known and rng.random() < IDK:
            return Action(kind="text" if item.type == "free_recall" else "answer", value="idk")
        if right:
            confidence = "hunch" if rng.random() < HUNCH else "sure"
        elif known:
            confidence = "hunch"
        else:
            oversure = rng.random() < self.setting.oversure
            confidence = "sure" if oversure else rng.choice(["hunch", "no_idea"])
        if item.type == "free_recall":
            text = item.reference if right else NOT_RECALLED
            return Action(kind="text", text=text, confidence=confidence)
        if item.type == "numeric":
            number = (item.answer or 0) + (0 if right else 7)
            return Action(kind="answer", value=repr(float(number)), confidence=confidence)
        wrong = [n for n in range(len(item.options)) if n != item.correct_index]
        chosen = item.correct_index if right else rng.choice(wrong)
        return Action(kind="answer", value=str(chosen), confidence=confidence)


@dataclass
class Tally:
    """Verdicts against levels, by kind of strand, and questions per lesson."""

    pairs: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, level, verdict)
    wide: list[bool] = field(default_factory=list)  # each pair's lesson has over WIDE strands
    questions: list[tuple[int, int]] = field(default_factory=list)  # (strands, questions)
    answers: list[int] = field(default_factory=list)  # each pair's strand's probe questions

    def rows(self, kind: str | None, level: str | None) -> list[tuple[str, str]]:
        """(level, verdict) of the strands of this kind ("own", "catch-up", "narrow" or "wide"
        lessons; None: all) and true level (None: all)."""
        return [
            (lv, v)
            for (k, lv, v), wide in zip(self.pairs, self.wide, strict=True)
            if kind in (None, k, "wide" if wide else "narrow") and level in (None, lv)
        ]

    def exact(self, kind: str | None = None, level: str | None = None) -> tuple[float, int]:
        rows = [(lv, v) for lv, v in self.rows(kind, level) if v != "not probed"]
        return sum(EXPECTED[lv] == v for lv, v in rows) / max(1, len(rows)), len(rows)

    def solid(self, kind: str | None = None, level: str | None = None) -> tuple[float, int]:
        rows = self.rows(kind, level)
        hits = sum((v == "solid") == (lv == "known") for lv, v in rows)
        return hits / max(1, len(rows)), len(rows)


@dataclass(frozen=True)
class Setting:
    """How the simulated learners are made: which half a partial learner knows, whether their
    records hold an earlier probe's verdicts, and how noisy their answers are."""

    partial: str
    records: bool
    slip: float = SLIP
    oversure: float = OVERSURE


def earlier_verdicts(levels: dict[str, str], rng: random.Random) -> dict[str, str]:
    """What an earlier probe found, by level: a known strand solid, an unknown one unknown, a
    half-known one solid half the time (learned once, half forgotten since), else unstable."""
    found = {"known": "solid", "unknown": "unknown"}
    return {k: found.get(v) or rng.choice(["solid", "unstable"]) for k, v in levels.items()}


def run_one(
    home: Path, root: Path, lesson_id: str, setting: Setting, rng: random.Random, tally: Tally
):
    """One learner through one lesson's probe, as `tutor continue --plain --lesson` opens it."""
    curriculum = load_path.load(root, [lesson_id])
    lesson = curriculum.lesson(lesson_id)
    strands = selection.strands(curriculum, lesson)
    batches = selection.probe_batches(curriculum, lesson)
    kind = "catch-up" if any(b.members for b in batches) else "own"
    levels = {s.lesson.id: rng.choice(LEVELS) for s in strands}
    lessons = {s.lesson.id: s.lesson for s in strands}
    learner = SimulatedLearner(levels, lessons, setting, rng)
    with Store(home / "tutor.db") as store:
        if setting.records:
            found = earlier_verdicts(levels, rng)
            store.sessions.save("earlier", "earlier", str(root), "done", "end", {})
            body = {"verdicts": {s.name: found[s.lesson.id] for s in strands}}
            store.sessions.add_note("earlier-verdicts", "earlier", "verdict", body)
        session = open_session(store, curriculum, lesson_ref=lesson_id, offline=True)
        assert session is not None
        try:
            for _ in range(500):
                if session.prompt.stage in ("plan", "teach", "done"):
                    break
                session.act(learner.act(session.prompt))
            verdicts = dict(session.context.verdicts)
        finally:
            session.close()
    per_strand = Counter(p.item.lesson_id for p in learner.asked if p.item is not None)
    for s in strands:
        tally.pairs.append((kind, levels[s.lesson.id], verdicts.get(s.name, "not probed")))
        tally.wide.append(len(strands) > WIDE)
        tally.answers.append(per_strand[s.lesson.id])
    tally.questions.append((len(strands), len(learner.asked)))


def bench(root: Path, learners: int, lessons: int | None, setting: Setting, seed: int) -> Tally:
    rng = random.Random(seed)
    whole = load_curriculum(root)
    chosen = [x.id for x in whole.lessons if selection.strands(whole, x)]
    if lessons is not None:
        chosen = rng.sample(chosen, min(lessons, len(chosen)))
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        for n, lesson_id in enumerate(chosen):
            for k in range(learners):
                home = Path(tmp) / f"{n}-{k}"
                home.mkdir()
                os.environ["TUTOR_HOME"] = str(home)
                # each session its own draws: two versions of the engine meet the same learners
                learner_rng = random.Random(f"{seed}:{lesson_id}:{k}")
                run_one(home, root, lesson_id, setting, learner_rng, tally)
    return tally


def report(label: str, tally: Tally, took: float) -> None:
    def both(kind: str | None = None, level: str | None = None) -> str:
        (e, ne), (s, ns) = tally.exact(kind, level), tally.solid(kind, level)
        return f"exact {e:.3f} ({ne:>4})   solid-vs-not {s:.3f} ({ns:>4})"

    unprobed = sum(v == "not probed" for _, _, v in tally.pairs) / max(1, len(tally.pairs))
    asked = [q for _, q in tally.questions]
    many = [q for s, q in tally.questions if s >= 3]
    sessions = len(tally.questions)
    print(
        f"\n{label}: {sessions} sessions (lessons × learners), {len(tally.pairs)} strands,"
        f" {took:.0f} s"
    )
    print(f"  overall        {both()}")
    for kind in ("own", "catch-up"):
        print(f"  {kind:<14} {both(kind)}")
    print(f"  ≤{WIDE} strands    {both('narrow')}")
    print(f"  >{WIDE} strands    {both('wide')}   (3 questions a strand)")
    for level in LEVELS:
        print(f"  true {level:<9} {both(level=level)}")
    print(
        f"  not probed {unprobed:.3f}   questions per lesson {sum(asked) / max(1, len(asked)):.1f}"
        f" (max {max(asked, default=0)}; lessons of 3+ strands "
        f"{sum(many) / max(1, len(many)):.1f} over {len(many)})"
    )
    for wide, side in ((False, f"≤{WIDE}"), (True, f">{WIDE}")):
        counts = [n for n, w in zip(tally.answers, tally.wide, strict=True) if w == wide]
        print(
            f"  questions a strand in lessons of {side} strands"
            f" {sum(counts) / max(1, len(counts)):.2f} (re-probes included)"
        )
    confusion = Counter((lv, v) for _, lv, v in tally.pairs)
    for (level, verdict), n in sorted(confusion.items()):
        print(f"    {level:<8} → {verdict:<11} {n}")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--curriculum", action="append", type=Path, help="a course (repeatable)")
    ap.add_argument("--learners", type=int, default=2, help="simulated learners per lesson")
    ap.add_argument("--lessons", type=int, default=None, help="sample this many lessons")
    ap.add_argument("--partial", choices=("random", "easier"), default="random")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument(
        "--records", action="store_true", help="learners with an earlier probe's verdicts"
    )
    ap.add_argument("--slip", type=float, default=SLIP, help="a known item answered wrong")
    ap.add_argument("--oversure", type=float, default=OVERSURE, help="a guess tagged sure")
    args = ap.parse_args()
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        os.environ.pop(name, None)  # offline: no model
    with tempfile.TemporaryDirectory() as tmp:
        # (label, course, learners per lesson)
        courses: list[tuple[str, Path, int]] = [
            (str(p), p, args.learners) for p in args.curriculum or []
        ]
        if not courses:
            if (CORPUS / "phases").is_dir():
                courses.append(("shared corpus (aiefs)", CORPUS, args.learners))
            else:
                print(f"shared corpus not found at {CORPUS}: skipped")
            from tutor.testing.course_maker import write_course
            from tutor.testing.ledger_maker import write_ledger_course

            more = GENERATED_LEARNERS * args.learners
            courses.append(("generated workshop", write_course(Path(tmp) / "workshop"), more))
            courses.append(("generated ledger", write_ledger_course(Path(tmp) / "ledger"), more))
        print(
            "targets: exact ≥ 0.85, solid-vs-not ≥ 0.95, not probed ≤ 0.05, ≤ 12 questions per"
            f" lesson; partial learners know {args.partial} halves"
            + ("; records of an earlier probe" if args.records else "")
            + f"; slips {args.slip:.2f}, sure guesses {args.oversure:.2f}"
        )
        setting = Setting(args.partial, args.records, args.slip, args.oversure)
        for label, root, learners in courses:
            started = time.perf_counter()
            tally = bench(root, learners, args.lessons, setting, args.seed)
            report(label, tally, time.perf_counter() - started)


if __name__ == "__main__":
    main()
