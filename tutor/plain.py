"""The plain front end: the tutor as a numbered line-mode dialogue on stdin/stdout, for screen
readers, dumb terminals and scripts. End of input pauses; everything answered is already saved."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from learning_system.terminal import strip_terminal
from tutor.engine.turns import CONFIDENCE_KEYS, Action, InvalidAction, Prompt

HELP = """Keys
  1-4 or a-d   choose an option          0 or x   I don't know
  s / h / n    confidence: sure / hunch / no idea (add it after the answer: "2 s", "b h")
  enter        next screen               k        skip this teaching step
  y / n        yes / no                  p or q   pause (resume with `tutor continue`)
  i know X     tell the tutor you already know X (the probe still checks)
  ?            this help"""


class Paused(Exception):
    """The learner paused (or input ended)."""


class PlainIO:
    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.count = 0

    def say(self, text: str = "") -> None:
        """Print a line. Curriculum text, fetched excerpts and the learner's own words all pass
        through here, so terminal escape sequences in them are removed, never interpreted."""
        self.stdout.write(strip_terminal(text) + "\n")
        self.stdout.flush()

    def ask(self, label: str) -> str:
        self.stdout.write(label)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.say()
            raise Paused
        text = line.rstrip("\n").strip()
        if text.lower() in ("p", "q", "pause", "quit"):
            raise Paused
        return text

    def show(self, prompt: Prompt) -> None:
        self.count += 1
        self.say()
        self.say(f"[{self.count}] {prompt.title}" + (f"  ({prompt.position})"
                                                    if prompt.position else ""))
        if prompt.banner:
            self.say(f"!! {prompt.banner}")
        if prompt.content:
            self.say(prompt.content)
        if prompt.unverified:
            self.say(f"!! UNVERIFIED: {len(prompt.unverified)} part(s) of this screen were not "
                     "checked by a verifier (none is configured, it failed, or the grade is your "
                     "own); treat them with care.")
        for flag in prompt.flags:
            self.say(f"!! flag: {flag}")


def _choice(text: str) -> str | None:
    t = text.lower()
    if t in ("0", "x"):
        return "idk"
    if t in ("1", "2", "3", "4"):
        return str(int(t) - 1)
    if t in ("a", "b", "c", "d"):
        return str("abcd".index(t))
    return None


def _split_confidence(text: str) -> tuple[str, str | None]:
    parts = text.rsplit(None, 1)
    if len(parts) == 2 and parts[1].lower() in CONFIDENCE_KEYS:
        return parts[0], CONFIDENCE_KEYS[parts[1].lower()]
    if len(text) == 2 and text[1].lower() in CONFIDENCE_KEYS and text[0] not in " ":
        return text[0], CONFIDENCE_KEYS[text[1].lower()]
    return text, None


def read_action(io: PlainIO, prompt: Prompt) -> Action:
    """Ask until the learner gives an action that fits this prompt."""
    while True:
        try:
            return _read_once(io, prompt)
        except InvalidAction as exc:
            if str(exc):
                io.say(f"  {exc}")


def _confidence(io: PlainIO, given: str | None) -> str:
    while given is None:
        given = CONFIDENCE_KEYS.get(io.ask("confidence (s sure, h hunch, n no idea): ").lower())
    return given


def _read_once(io: PlainIO, prompt: Prompt) -> Action:
    kind = prompt.kind
    if kind == "read":
        hint = "enter next · k skip · p pause · ? help > " if prompt.stage == "teach" else \
            "enter next · p pause · ? help > "
        text = io.ask(hint)
        if text == "?":
            io.say(HELP)
            raise InvalidAction("")
        if text.lower() in ("k", "skip") and prompt.stage == "teach":
            return Action(kind="skip")
        if text.lower().startswith("i know "):
            return Action(kind="claim", text=text[7:])
        return Action(kind="next")
    if kind in ("choice", "numeric"):
        text = io.ask("answer > ")
        if text == "?":
            io.say(HELP)
            raise InvalidAction("")
        if text.lower().startswith("i know "):
            io.say("  Noted. The probe still checks it: answer the question too.")
            return Action(kind="claim", text=text[7:])
        body, conf = _split_confidence(text)
        if kind == "choice":
            value = _choice(body)
            if value is None:
                raise InvalidAction("choose 1-4 or a-d, or 0/x for I don't know")
        else:
            value = "idk" if body.lower() in ("x", "0") else body
            if value != "idk":
                try:
                    float(value.replace(",", ""))
                except ValueError:
                    raise InvalidAction("reply with a number, or x for I don't know") from None
        if value == "idk":
            return Action(kind="answer", value="idk")
        return Action(kind="answer", value=value, confidence=_confidence(io, conf))
    if kind == "text":
        text = io.ask("your answer (x: I don't know) > " if prompt.needs_confidence
                      else "your answer > ")
        if text == "?":
            io.say(HELP)
            raise InvalidAction("")
        if prompt.needs_confidence and text.lower() == "x":
            return Action(kind="text", value="idk")
        if not text:
            raise InvalidAction("write a sentence or two" + (", or x for I don't know"
                                                           if prompt.needs_confidence else ""))
        conf = _confidence(io, None) if prompt.needs_confidence else None
        return Action(kind="text", text=text, confidence=conf)
    if kind == "yes_no":
        text = io.ask("y / n > ").lower()
        if text not in ("y", "n"):
            raise InvalidAction("answer y or n")
        return Action(kind="yes_no", value=text)
    if kind == "error_type":
        value = io.ask("1-4 > ")
        if value not in ("1", "2", "3", "4"):
            raise InvalidAction("choose 1 structural, 2 deviation, 3 application, 4 metacognitive")
        words = io.ask("in your words, what happened? > ")
        return Action(kind="error_type", value=value, text=words)
    raise InvalidAction(f"nothing to answer on a {kind} screen")


def drive(io: PlainIO, prompt: Prompt, act: Callable[[Action], Prompt]) -> Prompt:
    """Show prompts and feed the learner's actions until the script is done. Raises Paused."""
    while True:
        io.show(prompt)
        if prompt.kind == "done":
            return prompt
        while True:
            action = read_action(io, prompt)
            try:
                prompt = act(action)
                break
            except InvalidAction as exc:
                io.say(f"  {exc}")
