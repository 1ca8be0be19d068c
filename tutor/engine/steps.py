"""Teaching steps: which sections a lesson teaches from, a step compiled from its source's own
text (offline) or drafted by the model, and the step passed through fact_check. Used by the
plan, the teaching phase and the preparation ahead."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import zip_longest
from typing import TYPE_CHECKING, NotRequired, TypedDict

from learning_system.curriculum import Lesson, Section
from tutor.dossier.teaching import step_selection
from tutor.engine.context import LessonContext
from tutor.engine.words import words
from tutor.gates.checker import Block, Emit

if TYPE_CHECKING:
    from tutor.dossier.selection import Selection
    from tutor.engine.drafter import Drafter
    from tutor.engine.step_plan import StepPlan
    from tutor.scout.digest import Digest, SourceEntry

SKIP_SECTIONS = {"learning objectives", "further reading", "exercises", "ship it"}
RELEVANCE_MIN = 2  # shared substantive words for an external excerpt to join a step
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`])")


@dataclass(frozen=True)
class Step:
    """One teaching step: a section of a lesson (this one, or a prerequisite to refresh)."""

    title: str
    section: Section
    lesson: Lesson


class StepText(TypedDict):
    """A step's text as it is memoised: what is shown, the sources it cites and the excerpt
    it is checked against; `model` when a model drafted it."""

    content: str
    sources: list[str]
    excerpt: str
    model: NotRequired[bool]
    key: NotRequired[str]  # a drafted step's cache key (tutor.engine.step_plan.draft_key)
    refused: NotRequired[str]  # why the model's variant was not shown (tutor.engine.fact_survival)


def key_sentences(text: str, n: int = 2, spread: bool = False) -> list[str]:
    """The first prose sentences of a section: its load-bearing claims, quoted verbatim (not a
    lead-in to a table, list or code, "… looks like this:", which says nothing alone). `spread`:
    each paragraph's first sentence before any paragraph's second, so that they cover the
    section (what a checkpoint asks about a step), not its opening alone."""
    paragraphs: list[list[str]] = []
    for para in re.split(r"\n\s*\n", text):
        p = para.strip()
        if not p or p.startswith(("#", "```", "|", "-", "*", ">", "    ")) or len(p) < 40:
            continue
        sentences = _SENTENCE.split(" ".join(p.split()))
        paragraphs.append([s for s in sentences if 30 <= len(s) <= 300 and not s.endswith(":")])
    if spread:
        ordered = [s for rank in zip_longest(*paragraphs) for s in rank if s is not None]
    else:
        ordered = [s for sentences in paragraphs for s in sentences]
    return list(dict.fromkeys(ordered))[:n]


def teaching_sections(lesson: Lesson) -> list[Section]:
    """Each `##` section with its subsections, in order, when it has prose to teach from."""
    out = []
    for s in lesson.sections:
        if s.level != 2 or s.title.lower() in SKIP_SECTIONS:
            continue
        text = lesson.section_text(s.title) or s.text
        if key_sentences(text, 1):
            out.append(Section(title=s.title, level=2, text=text))
    return out


def where(ctx: LessonContext, step: Step) -> str:
    """`primary` for the lesson's own section, else the prerequisite's lesson id."""
    return "primary" if step.lesson is ctx.lesson else step.lesson.id


def labels(ctx: LessonContext, step: Step, urls: list[str]) -> list[str]:
    """The step's sources as a learner reads them: `primary §The Concept`, a title."""
    titles = {s.url: s.title or s.url for s in ctx.digest.sources}
    own = {ctx.primary, str(step.lesson.doc_path)}
    return [
        f"{where(ctx, step)} §{step.section.title}" if u in own else titles.get(u, u) for u in urls
    ]


def external_for(digest: Digest, section: Section) -> SourceEntry | None:
    """The external excerpt that best matches the section's claims (most shared substantive
    words, at least RELEVANCE_MIN), or None."""
    ok = [
        s
        for s in digest.sources
        if s.kind != "primary" and s.status in ("ok", "changed", "new") and s.excerpt
    ]
    if not ok:
        return None
    wanted = words(" ".join([section.title, *key_sentences(section.text, 3)]))
    scored = [(len(wanted & words(s.excerpt)), -n, s) for n, s in enumerate(ok)]
    score, _, best = max(scored, key=lambda t: (t[0], t[1]))
    return best if score >= RELEVANCE_MIN else None


def compile_step(ctx: LessonContext, step: Step, plan: StepPlan | None = None) -> StepText:
    """Offline: the step is the source's own section with its provenance, not generated — in
    the order its plan asks (the code before the prose, say), with the reason when a request
    could not be met."""
    section = step.section
    parts = [f"[source: {where(ctx, step)} §{section.title}]"]
    body = section.text.strip()
    brief = plan is not None and plan.support.density == 1
    if plan is not None and brief:
        from tutor.engine.section_blocks import essentials
        from tutor.engine.step_plan import FACTS_PER_STEP

        facts = key_sentences(section.text, FACTS_PER_STEP)
        body, left = essentials(body, facts, plan.representations)
        if left:
            parts.append(f"[density 1: the essentials — {left} more parts at density 2 or 3]")
    if plan is not None and plan.representations != ("prose",):
        from tutor.engine.section_blocks import arrange

        asked = any(f"declared:{r}" in plan.rationale for r in plan.representations)
        why = "as you asked" if asked else "from your record"
        parts.append(f"[shown: {', '.join(plan.representations)} — {why}]")
        body = arrange(body, plan.representations)
    if plan is not None and plan.fallback_reason:
        parts.append(f"[not as asked: {plan.fallback_reason}]")
    parts += ["", body]
    excerpt = [section.text]
    sources = [ctx.primary if step.lesson is ctx.lesson else str(step.lesson.doc_path)]
    ext = None if brief else external_for(ctx.digest, section)
    if ext:
        parts += ["", f"[external: {ext.title or ext.url}]", ext.excerpt]
        excerpt.append(ext.excerpt)
        sources.append(ext.url)
    return {"content": "\n".join(parts), "sources": sources, "excerpt": "\n\n".join(excerpt)}


def _drafted(
    ctx: LessonContext,
    drafter: Drafter,
    step: Step,
    n: int,
    plan: StepPlan,
    chosen: Selection | None,
    compiled: StepText,
) -> StepText:
    """The model's draft of step n (the compiled step when it has none): from the section's
    excerpts, or from the knowledge pack's selection — then checked against the source units
    the selection rests on."""
    from tutor.engine.personal import projection
    from tutor.engine.step_plan import draft_key

    position = f"step {n} of {len(ctx.plan_titles)}"
    model = str(getattr(drafter.provider, "model", ""))
    key = draft_key(plan, projection(ctx), model, "teach_step")
    if chosen is None:
        made = drafter.draft(step.title, compiled, ctx.verdicts, position, plan.prompt_view())
        return _keeps_facts({**made, "key": key}, plan, step, compiled) if made else compiled
    made = drafter.draft(
        step.title,
        {**compiled, "excerpt": chosen.excerpt()},
        ctx.verdicts,
        position,
        plan.prompt_view(),
        whole=True,
    )
    if made is None:
        return compiled
    made = {**made, "excerpt": "\n\n".join(chosen.unit_text), "key": key}
    return _keeps_facts(made, plan, step, compiled)


def _keeps_facts(made: StepText, plan: StepPlan, step: Step, compiled: StepText) -> StepText:
    """A personalised variant that dropped a required fact is refused: the step is shown from
    its source, with the reason (kept with the step's text in the session)."""
    from tutor.engine.fact_survival import dropped, personalised, rejection

    missing = dropped(plan, step.section, made["content"]) if personalised(plan) else []
    if not missing:
        return made
    reason = rejection(missing)
    first, rest = compiled["content"].split("\n", 1)
    return {**compiled, "content": f"{first}\n[{reason}]\n{rest}", "refused": reason}


GAP_VERDICTS = ("unknown", "unstable")  # a probe verdict that found a gap


def pack_selection(ctx: LessonContext, step: Step) -> Selection | None:
    """What a step of the lesson's own sections takes from its ready pack: filtered by the
    learner's recent error types — this session's mistakes (newest first), then the store's
    from before it — as they stand at the first selection (kept in the log, so a replay
    selects the same), with the invariants of each prerequisite the probe found a gap in."""
    if step.lesson is not ctx.lesson or ctx.pack is None:
        return None
    from tutor.engine.projection import RECENT_MISTAKES

    recent = ctx.journal.memo(
        "pack:recent_errors",
        lambda: [*reversed(ctx.journal.error_types), *ctx.evidence.error_types][:RECENT_MISTAKES],
    )
    gaps = {
        lesson_id: pack
        for lesson_id, pack in ctx.prerequisite_packs.items()
        if ctx.verdicts.get(ctx.curriculum.lesson(lesson_id).title) in GAP_VERDICTS
    }
    return step_selection(ctx.pack, step.section.title, recent, gaps)


def prepare_step(ctx: LessonContext, step: Step, n: int) -> tuple[StepText, Emit | Block]:
    """Draft step n (compiled offline, or by the model) and pass it through fact_check."""
    from tutor.engine.personal import step_plan, text_key

    drafter = ctx.drafter
    chosen = pack_selection(ctx, step)
    plan = step_plan(ctx, step, n)

    def draft() -> StepText:
        compiled = compile_step(ctx, step, plan)
        if drafter is None or not ctx.gate.model_checks():
            return compiled  # a draft no model can check is never shown: not asked for
        return _drafted(ctx, drafter, step, n, plan, chosen, compiled)

    key = text_key(plan, n)
    if chosen is not None:
        key += f":{chosen.pack_sha[:12]}:{chosen.sha256[:12]}"
    made = ctx.journal.memo(key, draft)
    mid = f"{ctx.session_id}:teach:{n}"
    revise = None
    if drafter is not None and made.get("model"):

        def revise(text: str, flagged: list[tuple[str, str]]) -> str | None:
            cycle = ctx.revisions.setdefault(n, 0) + 1
            ctx.revisions[n] = cycle
            return ctx.journal.memo(
                f"revise:{n}:{cycle}", lambda: drafter.revise(step.title, made, text, flagged)
            )

    outcome = ctx.gate.teach(
        mid, made["content"], made["sources"], made["excerpt"], context=step.title, revise=revise
    )
    # checked: by a model, or in full by the program (every sentence found in the excerpt)
    whole = isinstance(outcome, Emit) and not outcome.unverified
    unchecked = made.get("model") and ctx.gate.verified_by.get(mid) != "model" and not whole
    if unchecked or (
        isinstance(outcome, Block) and (made.get("model") or ctx.gate.verifier is not None)
    ):
        # the model's draft stayed blocked, or no model could check it (the verifier failed
        # or went offline): the lesson's own text, checked against itself
        made = compile_step(ctx, step, plan)
        outcome = ctx.gate.teach(
            mid + ":source",
            made["content"],
            made["sources"],
            made["excerpt"],
            context=step.title,
            offline=True,
        )
    return made, outcome
