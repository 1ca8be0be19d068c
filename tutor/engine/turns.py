"""What the engine shows (a Prompt) and what the learner does (an Action).

A prompt carries data, not presentation: `content` is exactly the gated text (an item's stem
and options in shown order, a teaching step, a grade); which keys pick what is each front end's
own business, so the receipt binds what is shown and nothing else."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from learning_system.ledger import ErrorType
from tutor.engine import numbers
from tutor.engine.items import Presented

PromptKind = Literal["read", "choice", "numeric", "text", "yes_no", "error_type", "done"]
ActionKind = Literal["next", "answer", "text", "yes_no", "error_type", "skip", "claim"]
Confidence = Literal["sure", "hunch", "no_idea"]

PROMPT_KIND: dict[str, PromptKind] = {"mcq": "choice", "numeric": "numeric", "free_recall": "text"}
CONFIDENCE_KEYS = {"s": "sure", "h": "hunch", "n": "no_idea"}
ERROR_TYPES: tuple[ErrorType, ...] = ("structural", "deviation", "application", "metacognitive")
ERROR_TYPE_MEANING = {
    "structural": "I did not know or misunderstood the idea itself",
    "deviation": "I knew it but slipped: a misread, a sign, a step skipped",
    "application": "I knew the idea but not how to use it here",
    "metacognitive": "I was sure (or unsure) without good reason: guessed, rushed, overtrusted",
}


class Table(BaseModel):
    """Tabular data of a screen (the prior's hypotheses, a batch's evidence, the plan's path),
    for front ends that draw tables; the same rows are in `content` as text."""

    model_config = ConfigDict(extra="forbid")

    headers: list[str]
    rows: list[list[str]]
    note: str = ""  # a line shown under the table (it ends `content` too)


class Prompt(BaseModel):
    """One screen. `content` is exactly the gated text; the rest is navigation."""

    model_config = ConfigDict(extra="forbid")

    kind: PromptKind
    message_id: str
    stage: str  # prior, probe, results, plan, teach, checkpoint, quiz, done
    title: str
    position: str
    content: str
    item: Presented | None = None
    needs_confidence: bool = False
    unverified: list[str] = Field(default_factory=list)
    # of a teaching turn: the sentences those ids name, as the learner reads them
    unverified_claims: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    banner: str | None = None
    table: Table | None = None
    sources: list[str] = Field(default_factory=list)  # where a teaching step's text comes from


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: ActionKind
    value: str = ""  # the chosen option index (0-based, as shown), a number, "idk", "y"/"n", 1-4
    confidence: Confidence | None = None
    text: str = ""  # free text: an answer, a justification, an attribution, an "I know X" claim


class InvalidAction(ValueError):
    """The action does not fit the prompt; the message says what is expected."""


def check_action(prompt: Prompt, action: Action) -> None:
    expected = {
        "read": {"next", "skip", "claim"},
        "choice": {"answer", "claim"},
        "numeric": {"answer", "claim"},
        "text": {"text"},
        "yes_no": {"yes_no"},
        "error_type": {"error_type"},
        "done": set(),
    }[prompt.kind]
    if action.kind not in expected:
        raise InvalidAction(f"this screen takes {', '.join(sorted(expected)) or 'no action'}")
    if action.kind == "answer":
        idk = action.value == "idk"
        if prompt.kind == "choice" and not idk:
            options = len(prompt.item.options) if prompt.item else 0
            if not (action.value.isdigit() and 0 <= int(action.value) < options):
                raise InvalidAction(f"choose 1–{options} (or a–d), or 0/x for I don't know")
        if prompt.kind == "numeric" and not idk:
            if not numbers.readings(action.value):
                raise InvalidAction("reply with a number, or x for I don't know")
        if prompt.needs_confidence and not idk and action.confidence is None:
            raise InvalidAction("tag your confidence: s sure, h hunch, n no idea")
    if action.kind == "text" and prompt.needs_confidence and action.value != "idk":
        if action.confidence is None:
            raise InvalidAction("tag your confidence: s sure, h hunch, n no idea")
        if not action.text.strip():
            raise InvalidAction("write an answer, or x for I don't know")
    if action.kind == "yes_no" and action.value not in ("y", "n"):
        raise InvalidAction("answer y or n")
    if action.kind == "error_type" and action.value not in ("1", "2", "3", "4"):
        raise InvalidAction("choose 1 structural, 2 deviation, 3 application, 4 metacognitive")
