"""Probe: one batch per strand (or catch-up batch), answers withheld until the batch is over.
Each strand's items, choice and free recall alike, are searched for the edge of what is known,
the lesson's question budget going where the answers leave most in doubt
(tutor.engine.probe_budget); a strand whose items cannot give it the answers it needs is asked
to explain its lesson in its own words; with room in the budget, the strand left most in doubt
explains its lesson; then the results (tutor.engine.phases.results)."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import grading, probe_budget, probe_items, selfgrade, verdicts
from tutor.engine.asking import ask
from tutor.engine.context import LessonContext
from tutor.engine.edge_search import EdgeSearch, ahead
from tutor.engine.items import Presented
from tutor.engine.phases import results
from tutor.engine.records import Answer
from tutor.engine.selection import Strand
from tutor.engine.turns import Action, Prompt
from tutor.engine.verdicts import needed

Script = Generator[Prompt, Action, None]


def run(ctx: LessonContext) -> Script:
    batches = ctx.prep.batches()
    recorded = verdicts.recorded_solid(ctx.prior_table)
    on_record = [[m.name in recorded for m in b.members or (b,)] for b in batches]
    left = probe_budget.lesson_budget(sum(map(len, on_record)), sum(map(sum, on_record)))
    needs = [sum(needed(r, ()) for r in b) for b in on_record]  # each batch's answers first
    needs_left = sum(needs)
    for n, (strand, need) in enumerate(zip(batches, needs, strict=True), 1):
        budget = probe_budget.batch_budget(left, needs_left, need)
        asked = yield from strand_batch(ctx, strand, (n, len(batches)), budget, recorded)
        left, needs_left = max(0, left - asked), needs_left - need


def _known_now(answer: Answer) -> bool:
    """What a withheld answer says for the search: right is known (a hunch is re-probed later,
    and the verdict counts it only then) unless tagged "no idea" (a lucky guess, which the
    verdict does not credit either); a free recall not graded yet is known when the program
    finds that it touches more than half of the reference's key points (the learner or the
    model grades it with the results)."""
    item = answer.item
    if answer.outcome != "pending" or item is None:
        return answer.outcome == "correct" and answer.confidence != "no_idea"
    touched = grading.offered(item, answer.answer)
    points = selfgrade.key_points(grading.graded_reference(item))
    return selfgrade.passes(len(touched), len(points))


def strand_batch(
    ctx: LessonContext,
    strand: Strand,
    batch: tuple[int, int],
    budget: int,
    recorded: frozenset[str] = frozenset(),
) -> Generator[Prompt, Action, int]:
    """One batch, results only after the whole batch: the edge search of each of its strands
    within `budget` questions (less what the fill-ups need, and one for an explain-back when
    the budget has room beyond what its strands need), the fill-ups of any strand still short
    of the answers it needs (MIN_EVIDENCE; one that confirms it, for a strand `recorded` solid
    in the learner's records), then — with that room — the strand left most in doubt explains
    its lesson in its own words (an answer no option can give away). Returns the questions
    asked."""
    n, total = batch
    groups = strand.members or (strand,)
    on_record = [g.name in recorded for g in groups]
    pool, fills = ctx.prep.questions(strand)
    queues = probe_items.queues(strand, pool)
    fills = [probe_budget.beyond(f, q) for f, q in zip(fills, queues, strict=True)]
    planned = probe_budget.planned(fills, queues)
    room = budget - len(planned)
    explains = (
        [p for f in fills for p in f[-1:] if p.id.endswith("-explain")]
        if room > sum(needed(r, ()) for r in on_record)
        else []
    )
    ctx.prep.audits(f"audit:{n}:fill", [*planned, *explains], "probe")
    ctx.prep.batch_asked(n)  # the next batch is prepared while this one is answered
    title = f"Probe · strand {n} of {total} · {strand.name}"
    searches = [probe_items.search(q, ctx.revealed) for q in queues]
    searched = yield from _search(
        ctx, searches, queues, batch, title, room - bool(explains), on_record
    )
    answers = [a for a in searched if a.item is None or a.item.type != "free_recall"]
    free = [a for a in searched if a not in answers]
    for fill, search, r in zip(fills, searches, on_record, strict=True):
        known = list(search.answers.values())
        for item in fill:
            if len(known) >= needed(r, known):
                break
            given = yield from _free(ctx, item, batch, title, len(answers) + len(free))
            if given:
                free.append(given)
                known.append(_known_now(given))
    if explains and not any(f.item is not None and f.item.id.endswith("-explain") for f in free):
        doubted = strand.members[probe_budget.most_in_doubt(searches)] if strand.members else strand
        explain = next((p for p in explains if p.lesson_id == doubted.lesson.id), explains[0])
        given = yield from _free(ctx, explain, batch, title, len(answers) + len(free))
        if given:
            free.append(given)
    ctx.position = f"probe · strand {n}/{total} · results"
    yield from results.run(ctx, strand, title, answers, free, recorded)
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
    recorded: list[bool],
) -> Generator[Prompt, Action, list[Answer]]:
    """The items asked: the group the budget picks, the item its edge search picks; at most
    `budget` questions but for a group still short of the answers it needs (`recorded`: each
    group's records show it solid, so one answer may confirm it); the answers, withheld."""
    answers: list[Answer] = []
    n, total = batch
    while True:
        k = probe_budget.pick(searches, recorded)
        i = None if k is None else searches[k].next_index()
        if k is None or i is None:
            break
        if len(answers) >= budget and not probe_budget.short_of(searches[k], recorded[k]):
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
