"""Prior: what the learner's records suggest for each probe strand (a hypothesis the probe
overrules), read once and memoised, shown as a table."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import prior, probe_budget, verdicts
from tutor.engine.context import LessonContext
from tutor.engine.records import Note
from tutor.engine.screens import status
from tutor.engine.selection import Strand
from tutor.engine.turns import Action, Prompt, Table
from tutor.engine.words import clip


def run(ctx: LessonContext, strands: list[Strand]) -> Generator[Prompt, Action, None]:
    ctx.position = "prior"
    # one row per probe strand, under the strand's own name: the prior and the probe speak of
    # the same prerequisites, and the plan reads both
    prereqs = [prior.Prerequisite.of(s.name, s.lesson.title, s.concept) for s in strands]

    def compute() -> list[dict[str, str]]:
        return [r.as_json() for r in prior.table(ctx.gate.store, ctx.session_id, prereqs)]

    ctx.prep.probe(1)  # the first batch is prepared while the prior is read
    memo = ctx.journal.memo("prior", compute)
    ctx.journal.record(Note("prior", {"hypothesis": memo}))
    table = ctx.prior_table = [prior.PriorRow(**r) for r in memo]
    lines = [
        "Before we start: what your records suggest (a hypothesis — the probe decides)",
        "",
    ]
    lines += [
        f"  {clip(r.prerequisite, 34):<34} {clip(r.evidence, 34):<34} {r.plan}" for r in table
    ]
    most = probe_budget.most_asked(len(strands), len(verdicts.recorded_solid(table)))
    note = (
        f"The probe asks up to about {most} questions (re-checks of a hunch aside), fewer when "
        "your answers settle what you know sooner."
    )
    rows = [[r.prerequisite, r.evidence, r.plan] for r in table]
    yield from status(
        ctx,
        "prior",
        "Prior",
        "\n".join([*lines, "", note]),
        table=Table(headers=["prerequisite", "evidence", "plan"], rows=rows, note=note),
    )
