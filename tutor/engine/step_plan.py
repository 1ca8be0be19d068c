"""A plan per teaching step (`plan-policy/1`): what the step must teach (its objective and the
source facts it must keep — never personalised) and how it is shown (representations, support,
component candidates), with a code for every choice and the reason a request could not be met.
Pure and frozen: stored with the session, so a step shown is never re-planned."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass

from learning_system.curriculum import Section
from tutor.engine.components import BY_REPRESENTATION, CATALOGUE_VERSION, candidates, operable
from tutor.engine.projection import PROJECTION_VERSION, Presentation, Projection
from tutor.engine.section_blocks import Declined, chunks, produce
from tutor.engine.steps import key_sentences
from tutor.engine.words import words

POLICY_VERSION = "plan-policy/1"
OBJECTIVE_VERSION = "objective/1"
FACTS_PER_STEP = 3
_MISSIONS = (
    ("debug", re.compile(r"mistake|pitfall|debug|error|gotcha|wrong", re.I)),
    ("compare", re.compile(r"\bvs\b|versus|compar|differ|trade-?off", re.I)),
    ("apply", re.compile(r"build|example|worked|in practice|exercise", re.I)),
)


@dataclass(frozen=True)
class FactRef:
    """A key sentence of a source section, by reference: where it is and its hash, never the
    sentence itself."""

    source: str
    section: str
    sentence: int
    sha: str


@dataclass(frozen=True)
class SupportPolicy:
    hint_ladder: bool
    example_first: bool
    density: int


@dataclass(frozen=True)
class StepPlan:
    step: str
    objective: str
    mission: str
    source_functions: tuple[str, ...]
    representations: tuple[Presentation, ...]
    required_facts: tuple[FactRef, ...]
    support: SupportPolicy
    components: tuple[str, ...]
    rationale: tuple[str, ...]
    fallback_reason: str | None
    policy_version: str = POLICY_VERSION
    projection_version: str = PROJECTION_VERSION
    catalogue_version: str = CATALOGUE_VERSION

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> StepPlan:
        """The plan as stored with the session (JSON: lists for tuples)."""
        raw = dict(data)
        facts = raw.pop("required_facts")
        support = raw.pop("support")
        if not isinstance(facts, list | tuple) or not isinstance(support, dict):
            raise ValueError("a stored step plan lacks its facts or support policy")
        tuples = ("source_functions", "representations", "components", "rationale")
        return cls(
            required_facts=tuple(FactRef(**f) for f in facts),
            support=SupportPolicy(**support),
            **{k: tuple(v) if k in tuples else v for k, v in raw.items()},  # type: ignore[arg-type]
        )

    def prompt_view(self) -> dict[str, object]:
        """What a drafter is told: the plan without its rationale (which names the learner's
        buckets), its versions (in the draft's cache key, not for the model), what the drafter
        is told beside it or cannot use (the screen's components and hint ladder are the
        program's), and an empty fallback reason; each required fact by its section and sentence
        number."""
        view = self.as_dict()
        for key in (
            "step",  # the drafter's `step`
            "rationale",
            "source_functions",
            "components",  # the program chooses the screen's parts; the drafter writes text
            "policy_version",
            "projection_version",
            "catalogue_version",
        ):
            del view[key]
        if view["fallback_reason"] is None:
            del view["fallback_reason"]
        view["required_facts"] = [f"{f.section} #{f.sentence + 1}" for f in self.required_facts]
        view["support"] = {
            "example_first": self.support.example_first,
            "density": self.support.density,
        }
        return view


def objective(section: Section, objectives: list[str]) -> str:
    """The section's goal: the lesson objective sharing most words with it, else its title."""
    wanted = words(" ".join([section.title, *key_sentences(section.text, 3)]))
    scored = [(len(wanted & words(o)), -n, o) for n, o in enumerate(objectives)]
    best = max(scored, default=(0, 0, ""))
    return best[2] if best[0] else f"§{section.title}"


def mission(title: str, refresh: bool) -> str:
    if refresh:
        return "recall"
    return next((m for m, pattern in _MISSIONS if pattern.search(title)), "understand")


def facts(section: Section, source: str) -> tuple[FactRef, ...]:
    return tuple(
        FactRef(source, section.title, n, hashlib.sha256(s.encode()).hexdigest()[:16])
        for n, s in enumerate(key_sentences(section.text, FACTS_PER_STEP))
    )


def plan_step(
    title: str,
    section: Section,
    objectives: list[str],
    source: str,
    projection: Projection | None,
    refresh: bool = False,
) -> StepPlan:
    """The step's plan; without a projection, the unpersonalised plan (prose, the default
    support)."""
    parts = chunks(section.text)
    kinds = sorted({b.kind for c in parts for b in c.blocks})
    goal = objective(section, objectives)
    task = mission(section.title if not refresh else title, refresh)
    caps = projection.capabilities if projection else ("keyboard",)
    wanted, codes = _requests(projection)
    shown: list[Presentation] = []
    reasons: list[str] = []
    for rep, declared in wanted:
        if not operable(BY_REPRESENTATION[rep], caps):
            codes.append(f"inaccessible:{rep}")
            if declared:
                reasons.append(f"{rep} is not offered with {', '.join(caps)}")
            continue
        made = produce(rep, parts, section.title)
        if isinstance(made, Declined):
            codes.append(f"declined:{rep}")
            if declared:
                reasons.append(made.reason)
            continue
        shown.append(rep)
    if "prose" not in shown:
        shown.append("prose")
    order = {c: n for n, c in enumerate(BY_REPRESENTATION[r].name for r in shown)}
    usable = candidates(task, caps)
    ranked = sorted(usable, key=lambda c: (c.representation is None, order.get(c.name, len(order))))
    components = [c.name for c in ranked if c.representation is None or c.name in order]
    density = projection.density if projection else 2
    example_first = shown[0] == "worked_example" or (
        projection is not None and projection.band == "novice" and "worked_example" in shown
    )
    return StepPlan(
        step=title,
        objective=goal,
        mission=task,
        source_functions=tuple(kinds),
        representations=tuple(shown),
        required_facts=facts(section, source),
        support=SupportPolicy(hint_ladder=True, example_first=example_first, density=density),
        components=tuple(components),
        rationale=tuple(codes),
        fallback_reason="; ".join(reasons) + ": shown from what the source holds"
        if reasons
        else None,
    )


def _requests(projection: Projection | None) -> tuple[list[tuple[Presentation, bool]], list[str]]:
    """The representations asked for, in order (declared first, then the inferred one, then
    the band's), each with whether the learner declared it; and the codes saying why."""
    if projection is None:
        return [], ["unpersonalised"]
    codes = [f"band:{projection.band}", f"density:{projection.density}"]
    wanted: list[tuple[Presentation, bool]] = [(p, True) for p in projection.declared]
    codes += [f"declared:{p}" for p in projection.declared]
    if projection.calibrating:
        codes.append("calibrating")
    if projection.error_signal:
        codes.append(f"signal:{projection.error_signal}")
    if projection.inferred not in ("unknown", *projection.declared):
        wanted.append((projection.inferred, False))  # type: ignore[arg-type]
        codes.append(f"inferred:{projection.inferred}")
    if projection.band == "novice" and "worked_example" not in [p for p, _ in wanted]:
        wanted.append(("worked_example", False))
        codes.append("novice:worked_example")
    return wanted, codes


def draft_key(plan: StepPlan, projection: Projection | None, model: str, prompt: str) -> str:
    """A draft's cache key: the step, objective, policy, projection (its buckets), catalogue,
    model and prompt versions — no identity. Everything a drafter is told is in it."""
    held = {
        "plan": {k: v for k, v in plan.as_dict().items() if k != "rationale"},
        "objective_version": OBJECTIVE_VERSION,
        "buckets": projection.buckets() if projection else None,
        "model": model,
        "prompt": prompt,
    }
    return hashlib.sha256(json.dumps(held, sort_keys=True).encode()).hexdigest()[:24]
