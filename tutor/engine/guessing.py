"""Answer-free strategies — what a learner who knows nothing could still use to pick an
option (length, echoes of the stem, agreement among options, hedged wording, the closest pair,
striking what shares no word with the question) — and the cap on how often any of them may
find the key (held by tutor.engine.admission)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tutor.engine.answer_kinds import fits
from tutor.engine.option_forms import form
from tutor.engine.repair import stems
from tutor.engine.words import content_words

GUESS_CAP = 0.30  # no answer-free strategy may pick the key in more than this share of MCQs
# items are admitted against a lower share, so that a lesson's presented subset of its phase's
# choices (and the strategies a learner combines) stays under GUESS_CAP
ADMIT_CAP = 0.25
# test-wise wording: a claim that admits no exception is struck, a hedged one is kept
_ABSOLUTE = re.compile(r"\b(always|never|only|all|none|every|must|cannot|completely|entirely)\b")
_HEDGE = re.compile(r"\b(usually|often|may|might|can|typically|generally|some|most|tends?)\b")


def _trigrams(text: str) -> set[str]:
    t = " ".join(text.lower().split())
    return {t[n : n + 3] for n in range(max(1, len(t) - 2))}


def _closest_pair(options: Sequence[str]) -> list[float]:
    """Per option, its likeness (shared letter triples) to the option most like it: "when two
    options are nearly the same, one of them is the answer"."""
    grams = [_trigrams(o) for o in options]
    return [
        max((len(g & h) / len(g | h) if g | h else 0.0) for m, h in enumerate(grams) if m != n)
        for n, g in enumerate(grams)
    ]


def strategy_scores(
    question: str,
    options: Sequence[str],
    title: str = "",
    seen: Sequence[int] = (),
    shown: Sequence[int] = (),
) -> dict[str, list[float]]:
    """Per answer-free strategy, the score it gives each option (it picks a highest one):
    length and shape, words shared with the stem and the lesson's title, the odd one out, the
    option of the kind the stem asks for, and — given, per option, how many other items have it
    as their key (`seen`) or among their options (`shown`) — the option seen most often as a
    key, or least often, and the one shown most often."""
    counts = [float(n) for n in seen] if seen else [0.0] * len(options)
    times = [float(n) for n in shown] if shown else [0.0] * len(options)
    lengths = [len(o) for o in options]
    mean = sum(lengths) / len(lengths)
    stem = content_words(question)
    topic = content_words(title)
    option_words = [content_words(o) for o in options]
    shared = [
        float(sum(len(w & v) for m, v in enumerate(option_words) if m != n))
        for n, w in enumerate(option_words)
    ]
    shapes = [form(o) for o in options]
    # strike one longest option, pick the longest left: when several tie for longest, striking
    # any of them leaves the rest, so it picks as "longest" does (whatever the shown order)
    longest = max(lengths) if lengths.count(max(lengths)) == 1 else -1
    return {
        "longest": [float(n) for n in lengths],
        "shortest": [float(-n) for n in lengths],
        "most_words": [float(len(o.split())) for o in options],
        "fewest_words": [float(-len(o.split())) for o in options],
        "stem_overlap": [float(len(stem & w)) for w in option_words],
        "title_overlap": [float(len(topic & w)) for w in option_words],
        "stem_title_overlap": [float(len((stem | topic) & w)) for w in option_words],
        "convergence": shared,
        "word_odd_one_out": [-v for v in shared],
        "odd_length": [abs(n - mean) for n in lengths],
        "typical_length": [-abs(n - mean) for n in lengths],
        "odd_shape": [float(-sum(1 for t in shapes if t == s)) for s in shapes],
        "strike_longest": [float(n) if n != longest else -1.0 for n in lengths],
        "hedged": [
            float(len(_HEDGE.findall(o.lower())) - 2 * len(_ABSOLUTE.findall(o.lower())))
            for o in options
        ],
        "closest_pair": [round(v, 6) for v in _closest_pair(options)],
        "strike_off_topic": [float(bool(stems(stem | topic) & stems(w))) for w in option_words],
        "answer_kind": [float(fits(question, o)) for o in options],
        "seen_key": counts,
        "strike_seen_key": [-n for n in counts],
        "most_shown": times,
    }


def chance_of_key(values: Sequence[float], key: int) -> float:
    """The chance that picking a highest-scoring option (ties broken at random) picks the
    key."""
    best = max(values)
    tied = sum(1 for v in values if v == best)
    return 1.0 / tied if values[key] == best else 0.0


def _rank_chances(values: Sequence[float], key: int) -> list[float]:
    """For each place r below the top (the 2nd, 3rd, 4th highest score, ties sharing a place),
    the chance that "pick the option in place r" picks the key (a place no option holds is a
    blind guess)."""
    levels = sorted(set(values), reverse=True)
    out = []
    for r in range(1, len(values)):
        if r >= len(levels):
            out.append(1.0 / len(values))
            continue
        tied = sum(1 for v in values if v == levels[r])
        out.append(1.0 / tied if values[key] == levels[r] else 0.0)
    return out


def guess_weights(
    question: str,
    options: Sequence[str],
    key: int,
    title: str = "",
    seen: Sequence[int] = (),
    shown: Sequence[int] = (),
) -> dict[str, float]:
    """For each answer-free strategy, the chance it picks the key: 1 when the key alone scores
    highest, 1/k when it ties with k − 1 others (a guesser breaks ties at random), else 0."""
    return {
        name: chance_of_key(values, key)
        for name, values in strategy_scores(question, options, title, seen, shown).items()
    }


def placed_weights(
    question: str,
    options: Sequence[str],
    key: int,
    title: str = "",
    seen: Sequence[int] = (),
    shown: Sequence[int] = (),
) -> dict[str, float]:
    """guess_weights, and for each strategy also "pick the option in its 2nd, 3rd or 4th
    place" (`name@2` …): what a test-wise learner who has seen where keys fall learns. An
    admission that keeps each of these near chance leaves such a learner nothing to learn."""
    out: dict[str, float] = {}
    for name, values in strategy_scores(question, options, title, seen, shown).items():
        out[name] = chance_of_key(values, key)
        for r, w in enumerate(_rank_chances(values, key), start=2):
            out[f"{name}@{r}"] = w
    return out


# the tells one item can avoid on its own (the others are weighed over a bank: every option is
# the extreme of some strategy, so only a bank can keep each of them near chance)
SINGLE_ITEM_TELLS = frozenset({"longest", "shortest", "most_words", "stem_overlap", "odd_length"})


def guessable_by(
    question: str,
    options: Sequence[str],
    key: int,
    title: str = "",
    among: frozenset[str] | None = None,
) -> list[str]:
    """The answer-free strategies that single out the key, alone or in a tie (a strategy that
    scores every option alike picks nothing)."""
    everyone = 1 / len(options)
    return [
        name
        for name, w in guess_weights(question, options, key, title).items()
        if w > 0 and abs(w - everyone) > 1e-9 and (among is None or name in among)
    ]
