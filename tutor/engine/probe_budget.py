"""How many questions a lesson's probe asks and where they go: every strand two answers of its
own first (one, while it confirms them, for a strand the learner's records show solid), then
what is left of the lesson's budget to the strand whose answers leave most in doubt whether it
is known, then its level — the most informative question, not the next in line."""

from __future__ import annotations

from collections.abc import Sequence

from learning_system.curriculum import Lesson
from tutor.engine.edge_search import EdgeSearch
from tutor.engine.items import Presented
from tutor.engine.learner_levels import Weighed, doubts
from tutor.engine.verdicts import CONFIRM, MIN_EVIDENCE, needed

LESSON_QUESTIONS = 12  # a lesson's probe questions, unless its strands need more first
DOUBT_SHARE = 1  # a question more per strand not on record, in a lesson of many strands
STRAND_MAX = 6  # answers one strand's search asks at most
SURE_ENOUGH = 0.9  # a strand whose likeliest level is this likely is asked no more


def lesson_budget(strands: int, recorded: int = 0) -> int:
    """The probe's questions for a lesson with this many strands, `recorded` of them solid in
    the learner's records (re-probes not counted): LESSON_QUESTIONS, or when that is more, what
    its strands need first (MIN_EVIDENCE each, CONFIRM for a recorded one) and DOUBT_SHARE more
    for each strand not on record, asked where the answers leave most in doubt — two answers
    cannot tell one slip from half knowing."""
    fresh = strands - recorded
    return max(LESSON_QUESTIONS, (MIN_EVIDENCE + DOUBT_SHARE) * fresh + CONFIRM * recorded)


def most_asked(strands: int, recorded: int = 0) -> int:
    """About how many questions the probe asks at most (what the prior tells the learner): the
    lesson's budget, or STRAND_MAX for each strand when that is less."""
    return min(lesson_budget(strands, recorded), STRAND_MAX * strands)


def batch_budget(left: int, needs_left: int, needs: int) -> int:
    """A batch's questions: the share of what is left of the lesson's budget (what an earlier
    batch did not use goes to the later ones) that its strands' first needs are of all those
    left (`needs` of `needs_left` answers), at least its needs."""
    share = left * needs // needs_left if needs_left else 0
    return max(needs, share)


def _doubts_of(search: EdgeSearch) -> tuple[float, float]:
    return doubts(Weighed(k, not k, i in search.recall) for i, k in search.answers.items())


def short_of(search: EdgeSearch, recorded: bool = False) -> bool:
    """Whether a group has fewer answers than its verdict needs (tutor.engine.verdicts.needed:
    one that confirms its records, else MIN_EVIDENCE)."""
    return len(search.answers) < needed(recorded, search.answers.values())


def pick(searches: Sequence[EdgeSearch], recorded: Sequence[bool] = ()) -> int | None:
    """The group asked next: one with fewer answers than it needs (`short_of`; `recorded`: each
    group's records show it solid), the fewest first, else — of those whose likeliest level is
    below SURE_ENOUGH, with fewer than STRAND_MAX answers — the one whose being known its
    answers leave most in doubt (solid or not decides what is taught), then whose level; None
    when every group is settled or out of items."""
    open_ = [k for k, s in enumerate(searches) if s.rest()]
    short = [k for k in open_ if short_of(searches[k], k < len(recorded) and recorded[k])]
    if short:
        return min(short, key=lambda k: (len(searches[k].answers), k))
    left = {k: _doubts_of(searches[k]) for k in open_ if len(searches[k].answers) < STRAND_MAX}
    wanted = [k for k, (_, d) in left.items() if d > 1 - SURE_ENOUGH + 1e-9]
    if not wanted:
        return None
    return max(wanted, key=lambda k: (*left[k], -len(searches[k].answers), -k))


def most_in_doubt(searches: Sequence[EdgeSearch]) -> int:
    """The group whose level its answers leave most in doubt (the first, on a tie)."""
    levels = [_doubts_of(s)[1] for s in searches]
    return levels.index(max(levels))


def fill_ups(
    lesson: Lesson, recall: Sequence[Presented], explain: Presented | None
) -> list[Presented]:
    """What a strand may be asked beyond its searched items when they cannot give it
    MIN_EVIDENCE answers: its lesson's items asked as free recall, then explaining the lesson
    in one's own words when it has something to explain (those the search already runs over
    are left out: `beyond`)."""
    return [p for p in recall if p.lesson_id == lesson.id] + ([explain] if explain else [])


def beyond(fill: Sequence[Presented], queue: Sequence[Presented]) -> list[Presented]:
    """A strand's fill-ups that its edge search does not already ask."""
    return [p for p in fill if p not in queue]


def planned(
    fills: Sequence[Sequence[Presented]], queues: Sequence[Sequence[Presented]]
) -> list[Presented]:
    """The fill-ups a batch asks when nothing is withheld: for each strand, as many as its
    searched items fall short of MIN_EVIDENCE."""
    return [
        p
        for f, q in zip(fills, queues, strict=True)
        for p in beyond(f, q)[: max(0, MIN_EVIDENCE - len(q))]
    ]
