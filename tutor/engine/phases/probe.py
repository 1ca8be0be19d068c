"""Probe: one batch per strand (or catch-up batch), answers withheld until the batch is over.
Each strand's choice items are searched for the edge of what is known, the lesson's question
budget going where the answers leave most in doubt (tutor.engine.probe_budget); a strand whose
choice items cannot give it two answers of its own is asked its items as free recall and then
to explain its lesson in its own words; with room in the budget, the strand left most in doubt
explains its lesson; then the results (tutor.engine.phases.results)."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import probe_budget, probe_items, selfgrade
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


def _known_now(answer: Answer) -> bool:
    """What a withheld answer says for the search: right is known (a hunch is re-probed later,
    and the verdict counts it only then); a free recall not graded yet is known when the program
    finds that it touches more than half of the reference's key points (the learner or the
    model grades it with the results)."""
    item = answer.item
    if answer.outcome != "pending" or item is None:
        return answer.outcome == "correct"
    touched = selfgrade.touched(answer.answer, item.question, item.reference)
    return selfgrade.passes(len(touched), len(selfgrade.key_points(item.reference)))


def strand_batch(
    ctx: LessonContext, strand: Strand, n: int, total: int, budget: int
) -> Generator[Prompt, Action, int]:
    """One batch, results only after the whole batch: the edge search of each of its strands
    within `budget` questions (less what the fill-ups need, and one for an explain-back when
    the budget has room beyond MIN_EVIDENCE a strand), the fill-ups of any strand left with
    fewer than MIN_EVIDENCE answers, then — with that room — the strand left most in doubt
    explains its lesson in its own words (an answer no option can give away). Returns the
    questions asked."""
    pool, fills = ctx.prep.questions(strand)
    queues = probe_items.queues(strand, pool)
    fills = [probe_budget.beyond(f, q) for f, q in zip(fills, queues, strict=True)]
    planned = probe_budget.planned(fills, queues)
    room = budget - len(planned)
    explains = (
        [p for f in fills for p in f[-1:] if p.id.endswith("-explain")]
        if room > MIN_EVIDENCE * len(queues)
        else []
    )
    ctx.prep.audits(f"audit:{n}:fill", [*planned, *explains], "probe")
    ctx.prep.batch_asked(n)  # the next batch is prepared while this one is answered
    title = f"Probe · strand {n} of {total} · {strand.name}"
    searches = [EdgeSearch(len(q)) for q in queues]
    searched = yield from _search(ctx, searches, queues, (n, total), title, room - bool(explains))
    answers = [a for a in searched if a.item is None or a.item.type != "free_recall"]
    free = [a for a in searched if a not in answers]
    for fill, search in zip(fills, searches, strict=True):
        for item in fill[: max(0, MIN_EVIDENCE - len(search.answers))]:
            given = yield from _free(ctx, item, (n, total), title, len(answers) + len(free))
            if given:
                free.append(given)
    if explains and not any(f.item is not None and f.item.id.endswith("-explain") for f in free):
        doubted = strand.members[probe_budget.most_in_doubt(searches)] if strand.members else strand
        explain = next((p for p in explains if p.lesson_id == doubted.lesson.id), explains[0])
        given = yield from _free(ctx, explain, (n, total), title, len(answers) + len(free))
        if given:
            free.append(given)
    ctx.position = f"probe · strand {n}/{total} · results"
    yield from results.run(ctx, strand, title, answers, free)
    return len(answers) + len(free)


def _free(
    ctx: LessonContext, item: Presented, batch: tuple[int, int], title: str, asked: int
) -> Generator[Prompt, Action, Answer | None]:
    """A free-recall question of the batch (a fill-up or the explain-back)."""
    where = "in your own words" if item.id.endswith("-explain") else f"question {asked + 1}"
    ctx.position = f"probe · strand {batch[0]}/{batch[1]} · {where}"
    return (yield from ask(ctx, item, "probe", f"{title} · {where}", ctx.concept_of(item)))


def _search(
    ctx: LessonContext,
    searches: list[EdgeSearch],
    queues: list[list[Presented]],
    batch: tuple[int, int],
    title: str,
    budget: int,
) -> Generator[Prompt, Action, list[Answer]]:
    """The choice items asked, at most `budget`: the group the budget picks, the item its edge
    search picks; the answers, withheld."""
    answers: list[Answer] = []
    n, total = batch
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
