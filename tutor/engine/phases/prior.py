"""Prior: what the learner's records suggest for each probe strand (a hypothesis the probe
overrules), read once and memoised, shown as a table."""

from __future__ import annotations

from collections.abc import Generator

from tutor.engine import prior
from tutor.engine.context import LessonContext
from tutor.engine.records import Note
from tutor.engine.screens import status
from tutor.engine.selection import Strand, slug
from tutor.engine.turns import Action, Prompt, Table
from tutor.engine.words import clip


def run(ctx: LessonContext, strands: list[Strand]) -> Generator[Prompt, Action, None]:
    ctx.position = "prior"
    # one row per probe strand, under the strand's own name: the prior and the probe speak of
    # the same prerequisites, and the plan reads both
    prereqs = [
        {"concept": s.name, "keywords": [*slug(s.lesson.title).split("-"), s.concept]}
        for s in strands
    ]

    def compute() -> list[dict[str, str]]:
        known = prior.inherited(ctx.gate.store, ctx.session_id)
        rest = [p for p in prereqs if p["concept"] not in known]
        keywords = [k for p in rest for k in p.get("keywords", [])]
        found = {
            r["prerequisite"]: r
            for r in prior.hypothesis(rest, prior.search(ctx.gate.store, keywords))
        }
        return [known.get(str(p["concept"])) or found[str(p["concept"])] for p in prereqs]

    ctx.prep.probe(1)  # the first batch is prepared while the prior is read
    table = ctx.journal.memo("prior", compute)
    ctx.prior_table = table
    ctx.journal.record(Note("prior", {"hypothesis": table}))
    lines = [
        "Before we start: what your records suggest (a hypothesis — the probe decides)",
        "",
    ]
    lines += [
        f"  {clip(r['prerequisite'], 34):<34} {clip(r['evidence'], 34):<34} {r['plan']}"
        for r in table
    ]
    rows = [[r["prerequisite"], r["evidence"], r["plan"]] for r in table]
    yield from status(
        ctx,
        "prior",
        "Prior",
        "\n".join(lines),
        table=Table(headers=["prerequisite", "evidence", "plan"], rows=rows),
    )
