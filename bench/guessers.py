"""Can a learner who knows nothing pick the keys of the choices the tutor presents?

    python bench/guessers.py [--curriculum PATH ...] [--seeds N] [--lessons N] [--check]

For every lesson of each course, the items are taken as a learner's session presents them —
the lesson loaded with its prerequisites only (`tutor continue --plain`, `tutor items
--session`) and a session seed per run — and every no-knowledge strategy is run over the
multiple-choice items:

- length and shape: the longest, the shortest, most or fewest words, the odd one out by
  length, the second longest ("strike the longest"), the odd one out by form (opening,
  capitals, end stop);
- words and topic: most words shared with the stem, with the lesson's title, with both;
  the option sharing most (or fewest) words with the other options;
- wording: strike the option that admits no exception (`always`, `never`, `only` …), keep the
  hedged one (`usually`, `may` …); of the two options most alike (shared letter triples),
  one is the key; strike the options sharing no word (by stem) with the stem or the title;
- answer kind: the option of the kind the stem asks for (a reason for "why …", an action for
  "what does X do", a number for "how many") — elimination by the form of the answer;
- seen as a key elsewhere: strike the option revealed least often as another item's key in the
  course, or pick the one revealed most often; pick the option shown most often over the
  course's choices (a closed set whose keys recur more than its other members);
- strategies the admission does not weigh (as a guesser the team has not seen might use them):
  `unweighed_roots`, most word roots shared with the stem and the title (words cut to their
  first five letters, so "approximation" meets "approximate"); `unweighed_rare_roots`, the same
  with each root weighed by how rare it is among the course's options (a shared "scaling"
  counts, a shared "model" hardly); `unweighed_strike_forms`, strike the options a reader
  sets aside by their look (a "Name: …" label, an instruction, a sentence to the reader or one
  opening "And", "Every", "Why"), then pick by rare roots; `unweighed_reasons`, for a stem
  asking why, the option with most words that give a reason or a result ("because", "so",
  ", making …"), by chance elsewhere;
- test-wise: a scorer trained on the revealed keys of the OTHER lessons of the course
  (features of each option relative to its siblings: length and word ranks, overlaps, form,
  answer kind, how often it was revealed as a key),
  picking the option it scores highest.

A strategy's hit rate is its expected share of keys found, ties broken at random. Printed per
course: the share of presented items that are choices, each strategy's hit rate (the worst
over the seeds) and the best. Targets: choices ≥ 50% and best ≤ 0.30 on every course.
Default courses: the shared corpus (../shared/corpus/aiefs, skipped with a message when
absent) and generated courses unlike it (tutor.testing.course_maker, .ledger_maker,
.glossary_course).
`--check` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learning_system.curriculum import load_curriculum  # noqa: E402
from tutor.commands.items import presented_items  # noqa: E402
from tutor.engine.guessing import chance_of_key, strategy_scores  # noqa: E402
from tutor.engine.option_forms import form  # noqa: E402
from tutor.engine.words import content_words  # noqa: E402

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "aiefs"
CHOICE_FLOOR = 0.50
GUESS_CEILING = 0.30


@dataclass(frozen=True)
class Shown:
    """One presented choice: where it was asked and what the learner saw."""

    lesson: str  # the lesson being taken
    home: str  # the lesson whose bank holds the item
    title: str  # the lesson being taken's title
    question: str
    options: tuple[str, ...]
    key: int


def collect(root: Path, seed: str, lessons: int) -> tuple[list[Shown], int]:
    """The choices every lesson's session presents (loaded as the learner's path loads it), and
    how many items were presented in all."""
    listing = load_curriculum(root)
    shown: list[Shown] = []
    total = 0
    for lesson_ref in [x.id for x in listing.lessons][:lessons]:
        curriculum = load_curriculum(root, only=[lesson_ref])
        lesson = curriculum.lesson(lesson_ref)
        for _, p in presented_items(curriculum, lesson, f"{seed}-{lesson.id}"):
            total += 1
            if p.type == "mcq" and p.correct_index is not None:
                shown.append(
                    Shown(
                        lesson.id,
                        p.lesson_id,
                        lesson.title,
                        p.question,
                        tuple(p.options),
                        p.correct_index,
                    )
                )
    return shown, total


# the strategies that need more than the item: its course's revealed keys ----------------------
def seen_counts(shown: Sequence[Shown]) -> list[list[int]]:
    """Per shown choice, per option: how many other presented items (by question) revealed it
    as their key (what "strike the option seen as a key elsewhere" and "pick the one seen
    most" use)."""
    keys: dict[str, set[str]] = defaultdict(set)
    for s in shown:
        keys[_norm(s.options[s.key])].add(s.question)
    return [[len(keys.get(_norm(o), set()) - {s.question}) for o in s.options] for s in shown]


def shown_counts(shown: Sequence[Shown]) -> list[list[int]]:
    """Per shown choice, per option: in how many other presented items (by question) it is an
    option (a closed set whose keys recur more than its other members gives them away with no
    key revealed: "pick the option shown most")."""
    asked: dict[str, set[str]] = defaultdict(set)
    for s in shown:
        for o in s.options:
            asked[_norm(o)].add(s.question)
    return [[len(asked[_norm(o)] - {s.question}) for o in s.options] for s in shown]


def _features(s: Shown, seen: Sequence[int], times: Sequence[int]) -> list[list[float]]:
    """Per option, features relative to its siblings (ranks and shares, never raw text)."""
    scores = strategy_scores(s.question, s.options, s.title, seen, times)
    shapes = [form(o) for o in s.options]
    out = []
    for n in range(len(s.options)):
        row: list[float] = []
        for values in scores.values():
            rank = sum(1 for v in values if v > values[n])
            row += [1.0 if rank == r else 0.0 for r in range(4)]
        row.append(sum(1 for x in shapes if x == shapes[n]) / len(shapes))
        row.append(1.0 if any(c.isdigit() for c in s.options[n]) else 0.0)
        out.append(row)
    return out


def _train(rows: Sequence[tuple[list[list[float]], int]], rounds: int = 60) -> list[float]:
    """A softmax-over-options scorer fitted by gradient steps: the test-wise learner."""
    if not rows:
        return []
    w = [0.0] * len(rows[0][0][0])
    for _ in range(rounds):
        grad = [0.0] * len(w)
        for feats, key in rows:
            logits = [sum(a * b for a, b in zip(w, f, strict=True)) for f in feats]
            top = max(logits)
            exp = [math.exp(v - top) for v in logits]
            z = sum(exp)
            for n, f in enumerate(feats):
                g = exp[n] / z - (1.0 if n == key else 0.0)
                for k, x in enumerate(f):
                    grad[k] += g * x
        w = [a - 0.5 * g / len(rows) for a, g in zip(w, grad, strict=True)]
    return w


def testwise(
    shown: Sequence[Shown], seen: Sequence[Sequence[int]], times: Sequence[Sequence[int]]
) -> list[float]:
    """Trained on the revealed keys of every other lesson's items (how often each option was
    revealed as a key among them), tried on this lesson's."""
    feats = [_features(*row) for row in zip(shown, seen, times, strict=True)]
    by_home: dict[str, list[int]] = defaultdict(list)
    for n, s in enumerate(shown):
        by_home[s.home].append(n)
    out = [0.0] * len(shown)
    for home, mine in by_home.items():
        rows = [(feats[n], shown[n].key) for n, s in enumerate(shown) if s.home != home]
        w = _train(rows)
        for n in mine:
            if not w:  # nothing revealed elsewhere to learn from: a blind guess
                out[n] = 1 / len(shown[n].options)
                continue
            values = [round(sum(a * b for a, b in zip(w, f, strict=True)), 9) for f in feats[n]]
            out[n] = chance_of_key(values, shown[n].key)
    return out


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .;:!")


ROOT = 5  # the letters a word is matched on by `shared_roots`


def shared_roots(s: Shown) -> list[float]:
    """Per option, how many word roots (first ROOT letters) it shares with the stem and the
    lesson's title: matching by eye, which the admission does not weigh."""
    asked = _roots(s.question) | _roots(s.title)
    return [float(len(asked & _roots(o))) for o in s.options]


def _roots(text: str) -> set[str]:
    return {w[:ROOT] for w in content_words(text)}


def rare_roots(s: Shown, rarity: dict[str, float]) -> list[float]:
    """Per option, its roots shared with the stem and the title, each weighed by its rarity."""
    asked = _roots(s.question) | _roots(s.title)
    return [sum(rarity.get(w, 0.0) for w in asked & _roots(o)) for o in s.options]


_SET_ASIDE = re.compile(
    r"^([^\s:][^:.!?]{0,40}?:\s|(you|your|we|our|and|every|why|note)\b|(use|try|build|compute|"
    r"find|look|include|reduce|increase|add|remove|implement|write|avoid|apply|check|make|keep|"
    r"pick|choose|take|swap|sort|split|plot|run|start)\s+(a|an|the|every|each|all|your|its)\b)",
    re.I,
)
_REASONS = re.compile(
    r"\b(because|so|since|therefore|thus|due to|otherwise|prevents?|causes?|leads? to|results? "
    r"in)\b|, (making|causing|leading|resulting|preventing|allowing|giving)\b",
    re.I,
)


def struck_then_rare(s: Shown, rarity: dict[str, float]) -> list[float]:
    scores = rare_roots(s, rarity)
    aside = [1000.0 if _SET_ASIDE.match(o.strip()) else 0.0 for o in s.options]
    return [v - a for v, a in zip(scores, aside, strict=True)]


def reasons(s: Shown) -> list[float]:
    if not re.match(r"\s*why\b", s.question, re.I):
        return [0.0] * len(s.options)
    return [float(len(_REASONS.findall(o))) for o in s.options]


def hit_rates(shown: Sequence[Shown]) -> dict[str, float]:
    """Each strategy's expected share of keys found over the shown choices."""
    if not shown:
        return {}
    per: dict[str, list[float]] = defaultdict(list)
    seen, times = seen_counts(shown), shown_counts(shown)
    found = Counter(w for s in shown for o in s.options for w in _roots(o))
    total = sum(len(s.options) for s in shown)
    rarity = {w: math.log(total / (1 + n)) for w, n in found.items()}
    for s, counts, n in zip(shown, seen, times, strict=True):
        for name, values in strategy_scores(s.question, s.options, s.title, counts, n).items():
            per[name].append(chance_of_key(values, s.key))
        per["unweighed_roots"].append(chance_of_key(shared_roots(s), s.key))
        per["unweighed_rare_roots"].append(chance_of_key(rare_roots(s, rarity), s.key))
        per["unweighed_strike_forms"].append(chance_of_key(struck_then_rare(s, rarity), s.key))
        per["unweighed_reasons"].append(chance_of_key(reasons(s), s.key))
    per["testwise"] = testwise(shown, seen, times)
    return {name: sum(v) / len(shown) for name, v in per.items()}


def generated_courses(tmp: Path) -> dict[str, Path]:
    from tutor.testing import glossary_course
    from tutor.testing.course_maker import write_course
    from tutor.testing.ledger_maker import write_ledger_course

    return {
        "generated: workshop": write_course(tmp / "workshop"),
        "generated: ledger": write_ledger_course(tmp / "ledger"),
        "generated: glossary (weather)": glossary_course.write_course(tmp / "weather", "weather"),
        "generated: glossary (kitchen)": glossary_course.write_course(
            tmp / "kitchen", "kitchen", seed=11
        ),
    }


def measure(name: str, root: Path, seeds: int, lessons: int, say: Callable[[str], None]) -> bool:
    worst: dict[str, float] = {}
    choice_shares = []
    for k in range(seeds):
        shown, total = collect(root, f"s{k}", lessons)
        choice_shares.append(len(shown) / max(1, total))
        for strategy, rate in hit_rates(shown).items():
            worst[strategy] = max(worst.get(strategy, 0.0), rate)
    share = min(choice_shares)
    best = max(worst, key=worst.__getitem__) if worst else "-"
    say(f"\n{name}  ({root})")
    say(f"  choices: {share:.1%} of presented items (lowest over {seeds} seeds)")
    for strategy, rate in sorted(worst.items(), key=lambda kv: -kv[1]):
        say(f"    {strategy:<22} {rate:6.1%}")
    ok = share >= CHOICE_FLOOR and worst.get(best, 0.0) <= GUESS_CEILING
    say(
        f"  best strategy: {best} {worst.get(best, 0.0):.1%} "
        f"(targets: choices ≥ {CHOICE_FLOOR:.0%}, best ≤ {GUESS_CEILING:.0%}) "
        + ("OK" if ok else "MISSED")
    )
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--curriculum", action="append", type=Path, help="a course (repeatable)")
    ap.add_argument("--seeds", type=int, default=3, help="session seeds per lesson")
    ap.add_argument("--lessons", type=int, default=10_000, help="lessons per course, at most")
    ap.add_argument("--generated-only", action="store_true", help="skip the shared corpus")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        courses: dict[str, Path] = {}
        if args.curriculum:
            courses = {str(p): p for p in args.curriculum}
        else:
            if args.generated_only:
                pass
            elif REFERENCE.exists():
                courses["shared corpus"] = REFERENCE
            else:
                print(f"shared corpus not found at {REFERENCE}: skipped")
            courses.update(generated_courses(Path(tmp)))
        for name, root in courses.items():
            ok = measure(name, root, args.seeds, args.lessons, print) and ok
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
