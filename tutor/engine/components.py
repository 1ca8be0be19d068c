"""The terminal component catalogue (`components/1`): what each component teaches or observes,
the representation it shows, what it needs from the sources, whether it works in the line
dialogue (a screen reader) and without colour, and the evidence it yields. Accessibility filters
the catalogue before anything is ranked."""

from __future__ import annotations

from dataclasses import dataclass

from tutor.engine.projection import Capability, Presentation

CATALOGUE_VERSION = "components/1"
TEACH = frozenset({"understand", "apply", "compare", "debug", "recall"})


@dataclass(frozen=True)
class Component:
    name: str
    missions: frozenset[str]
    representation: Presentation | None  # None: a checkpoint or support, not a presentation
    needs: str  # the source block it is produced from ("" when it needs none)
    line_dialogue: bool  # operable in the line dialogue, read by a screen reader
    without_colour: bool
    motion: bool
    evidence: str  # what it observes of the learner ("none" for a presentation)


CATALOGUE: tuple[Component, ...] = (
    Component("prose", TEACH, "prose", "prose", True, True, False, "none"),
    Component("table", TEACH, "table", "table", True, True, False, "none"),
    Component("code_block", TEACH, "code", "code", True, True, False, "none"),
    # box drawing read aloud is noise: not offered to a screen reader
    Component("ascii_diagram", TEACH, "diagram", "diagram", False, True, False, "none"),
    Component("worked_example", TEACH, "worked_example", "example", True, True, False, "none"),
    Component("hint_ladder", TEACH, None, "", True, True, False, "hints_used"),
    Component(
        "choice_checkpoint", TEACH, None, "quiz_item", True, True, False, "choice_correctness"
    ),
    Component("numeric_answer", TEACH, None, "quiz_item", True, True, False, "numeric_error"),
    Component("free_recall", TEACH, None, "prose", True, True, False, "key_points_recalled"),
    Component("ordering", frozenset({"apply", "recall"}), None, "steps", True, True, True, "order"),
)
BY_REPRESENTATION: dict[Presentation, Component] = {
    c.representation: c for c in CATALOGUE if c.representation is not None
}


def operable(component: Component, capabilities: tuple[Capability, ...]) -> bool:
    """Whether a learner with these capabilities can operate the component (every component
    is keyboard-driven)."""
    if "screen_reader" in capabilities and not component.line_dialogue:
        return False
    if "no_colour" in capabilities and not component.without_colour:
        return False
    return not ("reduced_motion" in capabilities and component.motion)


def candidates(mission: str, capabilities: tuple[Capability, ...]) -> list[Component]:
    """The catalogue's components for a mission that the learner can operate: intersection
    first, in catalogue order (ranking is the plan's)."""
    return [c for c in CATALOGUE if mission in c.missions and operable(c, capabilities)]
