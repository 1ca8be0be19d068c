"""Answer-free strategies — what a learner who knows nothing could still use to pick an
option (length, echoes of the stem, agreement among options) — and the cap on how often any of
them may find the key."""

from __future__ import annotations

from collections.abc import Sequence

from tutor.engine.repair import form
from tutor.engine.words import content_words

GUESS_CAP = 0.30  # no answer-free strategy may pick the key in more than this share of MCQs
# items are admitted against a lower share, so that a lesson's presented subset of its phase's
# choices (and the strategies a learner combines) stays under GUESS_CAP
ADMIT_CAP = 0.25


def strategy_scores(
    question: str, options: Sequence[str], title: str = ""
) -> dict[str, list[float]]:
    """Per answer-free strategy, the score it gives each option (it picks a highest one):
    length and shape, words shared with the stem and the lesson's title, the odd one out."""
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
    longest = max(range(len(options)), key=lambda n: lengths[n])
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
        "strike_longest": [
            float(lengths[n]) if n != longest else -1.0 for n in range(len(options))
        ],
    }


def guess_weights(
    question: str, options: Sequence[str], key: int, title: str = ""
) -> dict[str, float]:
    """For each answer-free strategy, the chance it picks the key: 1 when the key alone scores
    highest, 1/k when it ties with k − 1 others (a guesser breaks ties at random), else 0."""
    out = {}
    for name, values in strategy_scores(question, options, title).items():
        best = max(values)
        tied = sum(1 for v in values if v == best)
        out[name] = 1.0 / tied if values[key] == best else 0.0
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


def admit_within_guess_cap(forms: dict[str, tuple[str, list[str], int, str]]) -> set[str]:
    """Choose which items are asked as MCQs so that no answer-free strategy picks the key in
    more than ADMIT_CAP of them (expected share, ties broken at random): drop, one at a time,
    the item that feeds the over-cap strategies most, until none is over."""
    leaks = {
        item_id: guess_weights(q, opts, key, title)
        for item_id, (q, opts, key, title) in forms.items()
        if len(opts) == 4 and 0 <= key < 4
    }
    while leaks:
        totals: dict[str, float] = {}
        for found in leaks.values():
            for name, w in found.items():
                totals[name] = totals.get(name, 0.0) + w
        over = {name for name, t in totals.items() if t > ADMIT_CAP * len(leaks) + 1e-9}
        if not over:
            break
        worst = max(
            leaks, key=lambda i: (sum(leaks[i][n] for n in over), sum(leaks[i].values()), i)
        )
        del leaks[worst]
    return set(leaks)
