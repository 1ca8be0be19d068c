"""Probe: one batch per strand (or catch-up batch), answers withheld until the batch is over.
A strand's choice items are searched for the edge of what is known; then its free-recall and
explain-in-your-own-words items; then the results (tutor.engine.phases.results)."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import probe_items
from tutor.engine.asking import ask
from tutor.engine.context import LessonContext
from tutor.engine.edge_search import EdgeSearch, ahead
from tutor.engine.items import Presented
from tutor.engine.phases import results
from tutor.engine.prefetch import OPEN
from tutor.engine.records import Answer
from tutor.engine.selection import Strand
from tutor.engine.turns import Action, Prompt
from tutor.engine.verdicts import MIN_EVIDENCE

MAX_STRAND_MCQ = 8
MIN_STRAND_MCQ = 3
CATCH_UP_MIN = 6

Script = Generator[Prompt, Action, None]


def run(ctx: LessonContext) -> Script:
    batches = ctx.prep.batches()
    for n, strand in enumerate(batches, 1):
        yield from strand_batch(ctx, strand, n, len(batches))


def _known_now(answer: Answer) -> bool | None:
    """What a withheld answer says for the search: right is known (a hunch is re-probed later,
    and the verdict counts it only then); a pending free recall says nothing yet."""
    if answer.outcome == "pending":
        return None
    return answer.outcome == "correct"


def strand_batch(ctx: LessonContext, strand: Strand, n: int, total: int) -> Script:
    """One batch, results only after the whole batch. A strand binary-searches its items
    (easiest first) for the edge of what is known, MIN_STRAND_MCQ–MAX_STRAND_MCQ answers,
    then one free-recall item. A catch-up batch asks CATCH_UP_MIN–MAX_STRAND_MCQ items
    spread round-robin over its member strands, and 2 free-recall items."""
    choice, recall, explains = ctx.prep.questions(strand)
    ctx.prep.audits(f"audit:{n}:explain", explains, "probe")
    ctx.prep.batch_asked(n)  # the next batch is prepared while this one is answered
    title = f"Probe · strand {n} of {total} · {strand.name}"
    answers = yield from _search(ctx, strand, choice, n, total, title)
    if not strand.members:
        for item in recall[: max(0, MIN_STRAND_MCQ - len(answers))]:
            # too few choice items: converted items as free recall (graded later, so they
            # never decide the search or the stop)
            ctx.position = f"probe · strand {n}/{total} · question {len(answers) + 1}"
            asked = title + f" · question {len(answers) + 1}"
            answer = yield from ask(ctx, item, "probe", asked, strand.concept)
            if answer is not None:
                answers.append(answer)
    free = []
    for k, explain in enumerate(explains, 1):
        ctx.position = f"probe · strand {n}/{total} · explain {k}/{len(explains)}"
        given = yield from ask(
            ctx, explain, "probe", title + " · in your own words", ctx.concept_of(explain)
        )
        if given:
            free.append(given)
    ctx.position = f"probe · strand {n}/{total} · results"
    yield from results.run(ctx, strand, title, answers, free)


def _search(
    ctx: LessonContext, strand: Strand, choice: list[Presented], n: int, total: int, title: str
) -> Generator[Prompt, Action, list[Answer]]:
    """The choice items asked by the edge search of each group (round-robin in a catch-up);
    the answers, withheld."""
    answers: list[Answer] = []
    queues = probe_items.queues(strand, choice)
    searches = [EdgeSearch(len(q)) for q in queues]
    enough = MIN_EVIDENCE if strand.members else MIN_STRAND_MCQ
    least = CATCH_UP_MIN if strand.members else MIN_STRAND_MCQ
    while len(answers) < MAX_STRAND_MCQ:
        # the strand with the fewest answers among those still searching; in a catch-up,
        # others too while the batch is below its minimum
        open_ = [k for k, srch in enumerate(searches) if srch.wants_more(enough)]
        if not open_ and len(answers) < least:
            open_ = [k for k, srch in enumerate(searches) if srch.wants_more(OPEN)]
        if not open_:
            break
        k = min(open_, key=lambda j: (len(searches[j].answers) + len(searches[j].skipped), j))
        i = searches[k].next_index(enough if len(answers) >= least else OPEN)
        if i is None:
            searches[k].skipped.update(searches[k].rest())
            continue
        item = queues[k][i]
        # while this one is answered, the audits of the questions that may follow it
        after = enough if len(answers) + 1 >= least else OPEN
        ctx.prep.audits(
            f"ahead:{n}:{len(answers)}:{k}:{i}",
            ahead(searches, queues, k, after, asked=i),
            "probe",
        )
        ctx.position = f"probe · strand {n}/{total} · question {len(answers) + 1}"
        asked = title + f" · question {len(answers) + 1}"
        answer = yield from ask(ctx, item, "probe", asked, ctx.concept_of(item))
        searches[k].record(i, None if answer is None else _known_now(answer))
        if answer is not None:
            answers.append(answer)
    return answers
