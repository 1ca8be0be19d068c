"""What the learner types, read one way for both front ends.

The line dialogue passes whole lines (`2 s`, `b h`, `x`, `i know X`); the app maps single
keystrokes to the same text (`2`, then `s`) and calls the same functions, so an answer means the
same thing whichever front end took it. `parse` returns an `Action` (possibly still without its
confidence tag: see `wants_confidence`) or a `Command` (help, pause) — or raises
`InvalidAction` with what is expected."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tutor.engine import numbers
from tutor.engine.turns import (
    CONFIDENCE_KEYS,
    ERROR_TYPE_MEANING,
    ERROR_TYPES,
    Action,
    InvalidAction,
    Prompt,
)

MAX_ANSWER = 4000  # characters kept of a typed answer; a longer one is refused, not cut
PAUSE_WORDS = frozenset({"p", "q", "pause", "quit"})
SLASH_PAUSE = frozenset({"/p", "/q", "/pause", "/quit"})
OPTION_KEYS = "abcd"
# "I don't know" in words, as the screens label 0/x
_DONT_KNOW = re.compile(
    r"^((i\s+)?(do\s*n[o']?t|dont)\s+know|(i\s+have\s+)?no\s+(idea|clue)|dunno|not\s+sure)[.!]?$",
    re.I,
)
# a written answer's confidence after a comma, a dash or in brackets: "…, hunch", "… (sure)"
# (never a bracket the answer opened: "f(s)", "f(a, s)")
_TAG = r"(sure|hunch|no idea|not sure|s|h)"
_TEXT_TAG = re.compile(
    rf"(?:\s*[,;]\s*|\s+-+\s*){_TAG}[.!]?$|\s+\(\s*{_TAG}\s*\)[.!]?$|\s([sShH])$", re.I
)
# how else a choice is written: "2.", "(b)", "b)", "option 2", "2, sure", "2 - sure", "2 sure.",
# an option's text with a closing full stop after a bracket ("[0, infinity).")
_CHOICE_NOISE = re.compile(
    r"^(option|answer|choice)\s+|[()\[\],;:]|(?<=[\w)\]])\.(?=\s|$)|\s-+\s", re.I
)


class Command(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["help", "pause"]


def option_label(n: int) -> str:
    """How option n (0-based, in shown order) is picked: `1/a`."""
    return f"{n + 1}/{OPTION_KEYS[n]}"


def _choice(token: str) -> str | None:
    t = token.lower()
    if t in ("0", "x", "idk"):
        return "idk"
    if t in ("1", "2", "3", "4"):
        return str(int(t) - 1)
    if len(t) == 1 and t in OPTION_KEYS:
        return str(OPTION_KEYS.index(t))
    return None


# tags in words (after an answer, `not sure` would otherwise read as `not` and a sure tag)
_TAG_PHRASES = (("no idea", "no_idea"), ("no_idea", "no_idea"), ("not sure", "hunch"))


def confidence_of(token: str) -> str | None:
    """`s`/`h`/`n` (or the words; `not sure` is a hunch) → the tag; None when it is not one."""
    t = token.strip().lower()
    if t in CONFIDENCE_KEYS:
        return CONFIDENCE_KEYS[t]
    if t in CONFIDENCE_KEYS.values():
        return t
    return dict(_TAG_PHRASES).get(t)


def _split_tag(text: str) -> tuple[str, str | None]:
    """`2 s` → ("2", "sure"); `2s`, `2 sure`, `2 no idea` too, and `2 not sure` a hunch;
    anything else is left whole."""
    low = text.lower()
    for words, said in _TAG_PHRASES:
        if low.endswith(" " + words):
            return text[: -len(words)].strip(), said
    parts = text.rsplit(None, 1)
    if len(parts) == 2 and (tag := confidence_of(parts[1])):
        return parts[0], tag
    if len(text) == 2 and (tag := confidence_of(text[1])):
        return text[0], tag
    return text, None


def _bad_tag(body: str, valid: Callable[[str], object]) -> None:
    """`2 z`: a fitting answer followed by something that is not a confidence tag."""
    parts = body.rsplit(None, 1)
    if len(parts) == 2 and len(parts[1]) <= 8 and valid(parts[0]):
        raise InvalidAction(
            f"`{parts[1]}` is not a confidence tag: after the answer add s "
            "(sure), h (hunch) or n (no idea), e.g. `2 s`"
        )


# single letters that are units (s, h and n are confidence tags; x and e belong to a number)
_UNIT_LETTERS = frozenset("gLlmKJVAMNWCFT")
# words after a number that make it prose, not a unit: `20 because ...`
_PROSE = frozenset(
    "because since as so and or but then is it its i im i'm think guess maybe probably about "
    "approx approximately roughly around not the a an of for to with if which that this".split()
)
_UNIT_CHARS = "°%µ²³⁻¹/"
_ATTACHED = re.compile(r"(.*\d)([^\d\s]+)")


def _unit_word(word: str) -> bool:
    """`mol`, `g`, `°C`, `g/mol`, `cm³`, `%`: letters, °, µ, % (a single letter only when it is
    a unit symbol), and not a word of prose."""
    if len(word) == 1:
        return word in _UNIT_LETTERS or word == "%"
    return (
        word.lower() not in _PROSE
        and any(c.isalpha() or c in "°%" for c in word)
        and all(c.isalpha() or c in _UNIT_CHARS for c in word)
        and not (word.startswith("/") or word.endswith("/"))
    )


def _split_unit(body: str) -> tuple[str, list[str]]:
    """`20 neutrons` → ("20", ["neutrons"]); `25 °C`, `2 mol L`, `14.61g`, `75%` too: at most
    two unit words after the number, the spaces inside the number dropped."""
    words = body.split()
    units: list[str] = []
    while len(words) > 1 and len(units) < 2 and _unit_word(words[-1]):
        units.insert(0, words.pop())
    if words and len(units) < 2 and (m := _ATTACHED.fullmatch(words[-1])):
        if _unit_word(m.group(2)) or m.group(2).lower() in numbers.PERCENT:
            words[-1] = m.group(1)
            units.insert(0, m.group(2))
    return "".join(words), units


def _number_text(body: str) -> str | None:
    """The number as recorded (`2,0`, `1.204x10^24`, `75%`), its unit dropped; None when
    `body` is not a number (with at most a unit after it)."""
    number, units = _split_unit(body)
    if units and units[0].lower() in numbers.PERCENT and not number.endswith("%"):
        number += "%"
    return number if numbers.readings(number) else None


def _prose(body: str) -> None:
    """`20 because it has 20 neutrons`: a number followed by words that are not its unit."""
    parts = body.split(None, 1)
    if len(parts) != 2 or len(parts[1]) < 2 or not parts[1][0].isalpha():
        return
    if number := _number_text(parts[0]):
        raise InvalidAction(
            f"give the number (a unit after it is fine) without `{parts[1][:40]}`: "
            f"`{number}`, then your confidence (s sure, h hunch, n no idea), e.g. `{number} s`"
        )


def _claim(text: str) -> Action | None:
    if text.lower().startswith("i know ") and text[7:].strip():
        return Action(kind="claim", text=text[7:].strip()[:500])
    return None


def _number(text: str) -> str:
    number = _number_text(text)
    if number is None:
        commas = (
            "a comma is a decimal comma (2,5) or groups thousands in threes (12,345); "
            if "," in text
            else ""
        )
        raise InvalidAction(
            commas + "reply with the final number (e.g. 6, -0.5, 2,5, 1e-3, 6.02 x 10^23, "
            "3/4, 75%), or x for I don't know"
        )
    return number


def _long(text: str) -> None:
    if len(text) > MAX_ANSWER:
        raise InvalidAction(
            f"answers are kept up to {MAX_ANSWER:,} characters and yours has "
            f"{len(text):,}: shorten it"
        )


def parse(prompt: Prompt, raw: str) -> Action | Command:
    text = raw.strip()
    kind = prompt.kind
    if text == "?":
        return Command(kind="help")
    if text.lower() in SLASH_PAUSE or (kind != "text" and text.lower() in PAUSE_WORDS):
        return Command(kind="pause")
    if kind == "read":
        return _read(prompt, text)
    if kind in ("choice", "numeric"):
        return _answer(prompt, text)
    if kind == "text":
        return _text(prompt, text)
    if kind == "yes_no":
        word = text.lower().rstrip(".!")
        if word in ("y", "yes"):
            return Action(kind="yes_no", value="y")
        if word in ("n", "no"):
            return Action(kind="yes_no", value="n")
        raise InvalidAction("answer y (yes) or n (no)")
    if kind == "error_type":
        return _error_type(text)
    raise InvalidAction("nothing to answer here: the lesson is over")


def _read(prompt: Prompt, text: str) -> Action:
    if text.lower() in ("", "n", "next"):
        return Action(kind="next")
    if text.lower() in ("k", "skip") and prompt.stage == "teach":
        return Action(kind="skip")
    if claim := _claim(text):
        return claim
    raise InvalidAction(
        "press enter for the next screen"
        + (", k to skip this step" if prompt.stage == "teach" else "")
        + ", ? for help"
    )


def _answer(prompt: Prompt, text: str) -> Action:
    """A choice or a number, with its confidence tag. A choice may be written `2.`, `(b)`,
    `option 2`, `2, sure`; "I don't know" in words is 0/x."""
    if claim := _claim(text):
        return claim
    if _DONT_KNOW.match(text):
        return Action(kind="answer", value="idk")
    if prompt.kind == "choice":
        text = " ".join(_CHOICE_NOISE.sub(" ", text).split())
    body, tag = _split_tag(text)
    if prompt.kind == "choice":
        value = _choice(body) or _option_named(prompt, body)
        if value is None:
            _bad_tag(body, _choice)
            raise InvalidAction("choose 1-4 or a-d, or 0/x for I don't know")
    else:
        body = body.rstrip(",")
        if body.lower() not in ("x", "idk") and _number_text(body) is None:
            _prose(body)
            _bad_tag(body, _number_text)
        value = "idk" if body.lower() in ("x", "idk") else _number(body)
    if value == "idk":
        return Action(kind="answer", value="idk")
    return Action(kind="answer", value=value, confidence=tag)


def _option_named(prompt: Prompt, body: str) -> str | None:
    """The option whose whole text the learner typed (`Avogadro` for option 3 `Avogadro`),
    case, spacing and punctuation aside; None for anything else, a part of one included."""
    if prompt.item is None or len(body) < 2:
        return None
    said = [" ".join(_CHOICE_NOISE.sub(" ", o).split()).lower() for o in prompt.item.options]
    found = [n for n, o in enumerate(said) if o == body.lower()]
    return str(found[0]) if len(found) == 1 else None


def _text(prompt: Prompt, text: str) -> Action:
    """A written answer; a trailing `s` or `h` tags it (a trailing `n` is too often a
    variable name), and so does a tag after a comma or a dash or in brackets (`…, hunch`,
    `… (sure)`, `… - no idea`)."""
    if text.lower() in ("x", "idk") or _DONT_KNOW.match(text.strip()):
        return Action(kind="text", value="idk")
    body, tag = text, None
    tagged = _TEXT_TAG.search(text) if prompt.needs_confidence else None
    if tagged:
        word = next(g for g in tagged.groups() if g)
        body, tag = text[: tagged.start()], confidence_of(word)
    if len(body.strip()) < 2:
        raise InvalidAction(
            "write your answer (a word, a name or a sentence), or x for I don't know"
        )
    _long(body)
    return Action(kind="text", text=body.strip(), confidence=tag)


def _error_type(text: str) -> Action:
    head, _, rest = text.partition(" ")
    value = error_type_key(head)
    if value is None:
        raise InvalidAction(
            "choose "
            + ", ".join(f"{n} {t}" for n, t in enumerate(ERROR_TYPES, 1))
            + " (? explains them)"
        )
    _long(rest)
    return Action(kind="error_type", value=value, text=rest.strip())


def error_type_key(token: str) -> str | None:
    """`2`, `deviation` or a prefix of it (`dev`) → "2"."""
    t = token.strip().lower()
    if t in ("1", "2", "3", "4"):
        return t
    for n, name in enumerate(ERROR_TYPES, 1):
        if len(t) >= 3 and name.startswith(t):
            return str(n)
    return None


MAX_ATTRIBUTION = 2000


def attribution(raw: str) -> str:
    """The learner's own words on what went wrong (may be empty); refused when too long."""
    text = raw.strip()
    if len(text) > MAX_ATTRIBUTION:
        raise InvalidAction(
            f"this is kept up to {MAX_ATTRIBUTION:,} characters and yours has "
            f"{len(text):,}: shorten it"
        )
    return text


def wants_confidence(prompt: Prompt, action: Action) -> bool:
    """True when this answer still needs its confidence tag before it can be given."""
    return (
        prompt.needs_confidence
        and action.kind in ("answer", "text")
        and action.value != "idk"
        and action.confidence is None
    )


def holdable(prompt: Prompt, action: Action) -> bool:
    """An answer a session may hold before its confidence tag: typed text at a written
    answer, a choice or a number (not "I don't know", which needs no tag)."""
    if prompt.kind == "text":
        return action.kind == "text" and bool(action.text.strip())
    return (
        prompt.kind in ("choice", "numeric")
        and action.kind == "answer"
        and action.value not in ("", "idk")
    )


def with_confidence(action: Action, raw: str) -> Action:
    tag = confidence_of(raw)
    if tag is None:
        got = raw.strip()
        raise InvalidAction(
            (f"`{got[:20]}` is not a confidence tag" if got else "a confidence tag is needed")
            + ": s sure, h hunch, n no idea"
        )
    return action.model_copy(update={"confidence": tag})


def keys_for(prompt: Prompt) -> list[tuple[str, str]]:
    """The keys that work on this screen and what they do (for help and footers)."""
    kind = prompt.kind
    keys: list[tuple[str, str]] = []
    if kind == "read":
        keys.append(("enter", "next screen"))
        if prompt.stage == "teach":
            keys.append(("k", "skip this teaching step"))
        keys.append(("i know X", "tell the tutor you already know X (the probe still checks)"))
    elif kind == "choice":
        keys += [("1-4 / a-d", "choose an option"), ("0 / x", "I don't know")]
    elif kind == "numeric":
        keys += [("a number", "the final answer (work it on paper)"), ("x", "I don't know")]
    elif kind == "text":
        keys.append(("text", "your answer in your own words"))
        if prompt.needs_confidence:
            keys.append(("x", "I don't know"))
    elif kind == "yes_no":
        keys.append(("y / n", "yes / no"))
    elif kind == "error_type":
        keys += [(str(n), f"{t}: {ERROR_TYPE_MEANING[t]}") for n, t in enumerate(ERROR_TYPES, 1)]
    if prompt.needs_confidence:
        keys.append(("s / h / n", "confidence: sure / hunch / no idea (required)"))
    if kind != "done":
        keys.append(("p / q", "pause; `tutor continue` comes back here"))
    keys.append(("?", "this help"))
    return keys
