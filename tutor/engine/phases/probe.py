"""Probe: one batch per strand (or catch-up batch), answers withheld until the batch is over.
Each strand's choice items are searched for the edge of what is known, the lesson's question
budget going where the answers leave most in doubt (tutor.engine.probe_budget); a strand whose
choice items cannot give it two answers of its own is asked its items as free recall and then
to explain its lesson in its own words; then the results (tutor.engine.phases.results)."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import probe_budget, probe_items
from tutor.engine.asking import ask
from tutor.engine.context import LessonContext
from tutor.engine.edge_search import EdgeSearch, ahead
from tutor.engine.items import Presented
from tutor.engine.phases import results
from tutor.engine.records import Answer
from tutor.engine.selection import Strand
from tutor.engine.turns import Action, Prompt
from tutor.engine.verdicts import MIN_EVIDENCE

Script = Generator[Prompt, Action, None]


def run(ctx: LessonContext) -> Script:
    batches = ctx.prep.batches()
    strands_left = sum(len(b.members) or 1 for b in batches)
    left = probe_budget.lesson_budget(strands_left)
    for n, strand in enumerate(batches, 1):
        size = len(strand.members) or 1
        budget = probe_budget.batch_budget(left, strands_left, size)
        asked = yield from strand_batch(ctx, strand, n, len(batches), budget)
        left, strands_left = max(0, left - asked), strands_left - size


def _known_now(answer: Answer) -> bool | None:
    """What a withheld answer says for the search: right is known (a hunch is re-probed later,
    and the verdict counts it only then); a pending free recall says nothing yet."""
    if answer.outcome == "pending":
        return None
    return answer.outcome == "correct"


def strand_batch(
    ctx: LessonContext, strand: Strand, n: int, total: int, budget: int
) -> Generator[Prompt, Action, int]:
    """One batch, results only after the whole batch: the edge search of each of its strands
    within `budget` questions (less what the fill-ups need), then the fill-ups of any strand
    left with fewer than MIN_EVIDENCE answers. Returns the questions asked."""
    choice, fills = ctx.prep.questions(strand)
    queues = probe_items.queues(strand, choice)
    planned = probe_budget.planned(fills, queues)
    ctx.prep.audits(f"audit:{n}:fill", planned, "probe")
    ctx.prep.batch_asked(n)  # the next batch is prepared while this one is answered
    title = f"Probe · strand {n} of {total} · {strand.name}"
    answers = yield from _search(ctx, queues, n, total, title, max(0, budget - len(planned)))
    groups = strand.members or (strand,)
    free: list[Answer] = []
    for group, fill in zip(groups, fills, strict=True):
        own = sum(1 for a in answers if a.item is not None and a.item.lesson_id == group.lesson.id)
        for item in fill[: max(0, MIN_EVIDENCE - own)]:
            where = (
                "in your own words"
                if item.id.endswith("-explain")
                else f"question {len(answers) + len(free) + 1}"
            )
            ctx.position = f"probe · strand {n}/{total} · {where}"
            asked = f"{title} · {where}"
            given = yield from ask(ctx, item, "probe", asked, ctx.concept_of(item))
            if given:
                free.append(given)
    ctx.position = f"probe · strand {n}/{total} · results"
    yield from results.run(ctx, strand, title, answers, free)
    return len(answers) + len(free)


def _search(
    ctx: LessonContext,
    queues: list[list[Presented]],
    n: int,
    total: int,
    title: str,
    budget: int,
) -> Generator[Prompt, Action, list[Answer]]:
    """The choice items asked, at most `budget`: the group the budget picks, the item its edge
    search picks; the answers, withheld."""
    answers: list[Answer] = []
    searches = [EdgeSearch(len(q)) for q in queues]
    while len(answers) < budget:
        k = probe_budget.pick(searches)
        i = None if k is None else searches[k].next_index()
        if k is None or i is None:
            break
        item = queues[k][i]
        # while this one is answered, the audits of the questions that may follow it
        ctx.prep.audits(f"ahead:{n}:{len(answers)}:{k}:{i}", ahead(searches, queues, k, i), "probe")
        ctx.position = f"probe · strand {n}/{total} · question {len(answers) + 1}"
        asked = title + f" · question {len(answers) + 1}"
        answer = yield from ask(ctx, item, "probe", asked, ctx.concept_of(item))
        searches[k].record(i, None if answer is None else _known_now(answer))
        if answer is not None:
            answers.append(answer)
    return answers
