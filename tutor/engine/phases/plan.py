"""Plan: the steps from the probe's verdicts to the lesson's goal — a refresh (or reframe) of
each prerequisite not solid, then the lesson's own sections — shown once its quoted sentences
passed fact_check."""

from __future__ import annotations

import re
from collections.abc import Generator

from learning_system.curriculum import Section
from tutor.engine.context import LessonContext
from tutor.engine.records import Note
from tutor.engine.screens import show, status, withheld
from tutor.engine.selection import Strand
from tutor.engine.selfgrade import stems
from tutor.engine.steps import Step, key_sentences, teaching_sections, where
from tutor.engine.turns import Action, Prompt, Table
from tutor.engine.verdicts import NOT_PROBED
from tutor.gates.checker import Block

_EXAMPLE = re.compile(r"build|example|worked|in practice", re.I)


def steps(ctx: LessonContext, strands: list[Strand]) -> list[Step]:
    """The probe's verdict decides; where it gave none (not probed) the prior's plan does: a
    strand solid (or skip-fast) gets no step, one to expand gets a refresh from its lesson's
    teaching section that says most of what the probe found missed (`teaches`), one to
    reframe is refreshed through its lesson's worked example (a Build It or example section)
    when it has one."""
    out = []
    hypothesis = {r.prerequisite: r.plan for r in ctx.prior_table}
    for s in strands:
        if s.lesson is ctx.lesson:
            continue
        verdict = ctx.verdicts.get(s.name, NOT_PROBED)
        guess = hypothesis.get(s.name, "expand")
        if verdict == "solid" or (verdict == NOT_PROBED and guess == "skip-fast"):
            continue
        sections = teaching_sections(s.lesson)
        if not sections:
            continue
        how = "reframe" if guess == "reframe" else "refresh"
        example = [x for x in sections if _EXAMPLE.search(x.title)]
        missed = ctx.missed.get(s.lesson.id, [])
        section = example[0] if how == "reframe" and example else teaches(sections, missed)
        why = "not probed" if verdict == NOT_PROBED else verdict
        out.append(Step(f"{how}: {s.name} ({why}; prior: {guess})", section, s.lesson))
    out += [Step(sec.title, sec, ctx.lesson) for sec in teaching_sections(ctx.lesson)]
    return out


def teaches(sections: list[Section], missed: list[str]) -> Section:
    """The section a refresh teaches: the one that says most of what the probe found missed
    (its questions' and right answers' words), else the first."""
    wanted = stems(" ".join(missed))
    best = max(sections, key=lambda x: len(wanted & stems(x.text)))
    return best if wanted & stems(best.text) else sections[0]


def sources(ctx: LessonContext, plan: list[Step]) -> list[str]:
    """The primary, then each refreshed prerequisite's document the digest holds."""
    urls = [ctx.primary]
    for s in plan:
        if s.lesson is not ctx.lesson and s.lesson.doc_path:
            key = str(s.lesson.doc_path)
            if key in ctx.gate.digest.sources and key not in urls:
                urls.append(key)
    return urls


def run(ctx: LessonContext, plan: list[Step]) -> Generator[Prompt, Action, None]:
    ctx.position = "plan"
    ctx.plan_titles = [s.title for s in plan]
    ctx.prep.steps(plan, 0)  # the first steps are prepared while the plan is read
    if not plan:
        ctx.journal.record(Note("plan", {"steps": []}))
        yield from status(
            ctx,
            "plan",
            "Plan",
            f"{ctx.lesson.title} has no teaching text to build steps from (its document is "
            "missing, empty or refused: `tutor curriculum check` says which), so the "
            "end-of-lesson quiz comes next.",
        )
        return
    goal = ctx.lesson.objectives[0] if ctx.lesson.objectives else ctx.lesson.title
    # structure lines are [bracketed] scaffold; the sentences under them are the claims
    lines = [f'[Your path to "{goal}"]', ""]
    lines += [
        f"  [{'✓' if v == 'solid' else '◆'} {name} ({v})]" for name, v in ctx.verdicts.items()
    ]
    excerpts = []
    rows = [["✓" if v == "solid" else "◆", name, v] for name, v in ctx.verdicts.items()]
    for s in plan:
        first = key_sentences(s.section.text, 1)[0]
        rows.append(["◆", s.title, f"{where(ctx, s)} §{s.section.title}"])
        lines.append(f"  [◆ {s.title} ...... {where(ctx, s)} §{s.section.title}]")
        lines.append(f"      {first}")
        excerpts.append(first)
    content = "\n".join(lines)
    mid = ctx.mid("plan")
    urls = sources(ctx, plan)
    outcome = ctx.gate.teach(mid, content, urls, "\n\n".join(excerpts), context="lesson plan")
    if isinstance(outcome, Block) and ctx.gate.verifier is not None:
        # the plan quotes the lesson's own sentences: checked against them, offline
        outcome = ctx.gate.teach(
            mid + ":source",
            content,
            urls,
            "\n\n".join(excerpts),
            context="lesson plan",
            offline=True,
        )
    ctx.journal.record(Note("plan", {"steps": ctx.plan_titles}))
    if isinstance(outcome, Block):
        yield from withheld(ctx, "plan", "Plan", outcome)
        return
    yield from show(
        ctx, "plan", "Plan", outcome, table=Table(headers=["", "step", "sources"], rows=rows)
    )
