"""Reading one quiz bank (`quiz.json`): either `{"questions": [...]}` or a bare list of items.
Malformed items are dropped with a note naming them; reading never raises on content."""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from learning_system.text import InputLimitError, loads_bounded

STAGES = ("pre", "check", "post")
OPTION_COUNT = 4  # what a choice shows (tutor.gates.mcq); a bank item may hold 3 to MAX_OPTIONS
MIN_OPTIONS, MAX_OPTIONS = 3, 8
_BANK_KEYS = ("questions", "items", "quiz")
# real banks hold 5 to 30 questions; past this many the rest is left out (with a note), so the
# work of presenting a lesson stays bounded whatever a bank holds
MAX_QUIZ_ITEMS = 200


class QuizItem(BaseModel):
    """One candidate question from a quiz bank. `index` is its 0-based position in the bank file,
    so ids stay stable when a neighbouring item is fixed or dropped. A `numeric` item is answered
    with a number (`answer` ± `tolerance`); its options may be empty, and then `correct` is -1."""

    model_config = ConfigDict(extra="forbid")

    index: int
    id: str
    stage: str = "check"
    question: str
    options: list[str]
    correct: int
    explanation: str = ""
    bloom: str | None = None
    type: Literal["mcq", "numeric"] = "mcq"
    answer: float | None = None
    tolerance: float | None = None


# (item id or None for the whole bank, message)
Note = tuple[str | None, str]


def parse_quiz_bank(text: str, id_prefix: str) -> tuple[list[QuizItem], list[Note]]:
    """The usable items of a quiz bank, and a note for everything left out or repaired. A bank
    read again unchanged (a partly read curriculum read whole) is not parsed again."""
    items, notes = _parse_quiz_bank(text, id_prefix)
    return [item.model_copy(deep=True) for item in items], list(notes)


@lru_cache(maxsize=4)
def _parse_quiz_bank(text: str, id_prefix: str) -> tuple[tuple[QuizItem, ...], tuple[Note, ...]]:
    items, notes = _parse(text, id_prefix)
    return tuple(items), tuple(notes)


def _parse(text: str, id_prefix: str) -> tuple[list[QuizItem], list[Note]]:
    if not text.strip():
        return [], [(None, "quiz file is empty; no quiz items read")]
    try:
        data = loads_bounded(text)  # bounded depth and numbers; ids of any Unicode made valid
    except InputLimitError as exc:
        return [], [(None, f"beyond the input limits ({exc}); no quiz items read")]
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        where = (
            f" (line {exc.lineno}, column {exc.colno})"
            if isinstance(exc, json.JSONDecodeError)
            else ""
        )
        return [], [(None, f"not valid JSON{where}; no quiz items read")]
    raw_items = _bank_items(data)
    if raw_items is None:
        return [], [(None, 'expected a list of questions or {"questions": [...]}; none read')]
    if not raw_items:
        return [], [(None, "quiz bank is empty")]
    notes: list[Note] = []
    if len(raw_items) > MAX_QUIZ_ITEMS:
        notes.append(
            (
                None,
                f"{len(raw_items)} questions, more than the limit of {MAX_QUIZ_ITEMS}; "
                f"only the first {MAX_QUIZ_ITEMS} are used",
            )
        )
        raw_items = raw_items[:MAX_QUIZ_ITEMS]
    items: list[QuizItem] = []
    seen_ids: set[str] = set()
    for index, raw in enumerate(raw_items):
        fallback_id = f"{id_prefix}-q{index + 1:02d}"
        item, item_notes = _parse_item(raw, index, fallback_id)
        label = item.id if item else _raw_id(raw) or fallback_id
        notes.extend((label, message) for message in item_notes)
        if item is None:
            continue
        if item.id in seen_ids:
            notes.append(
                (item.id, f"item {index + 1}: id repeats an earlier item; renamed {fallback_id}")
            )
            item.id = fallback_id
        seen_ids.add(item.id)
        items.append(item)
    return items, notes


def _bank_items(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _BANK_KEYS:
            items = data.get(key)
            if isinstance(items, list):
                return items
    return None


def _raw_id(raw: Any) -> str | None:
    if isinstance(raw, dict) and isinstance(raw.get("id"), str | int) and str(raw["id"]).strip():
        return str(raw["id"]).strip()
    return None


def _parse_item(raw: Any, index: int, fallback_id: str) -> tuple[QuizItem | None, list[str]]:
    """The item, or None when it cannot be asked as written; plus what was wrong with it."""
    where = f"item {index + 1}"
    if not isinstance(raw, dict):
        return None, [f"dropped {where}: expected an object, found {type(raw).__name__}"]
    notes: list[str] = []
    question = raw.get("question")
    if not isinstance(question, str) or not question.strip():
        return None, [f"dropped {where}: missing or empty 'question'"]
    kind = raw.get("type", "mcq")
    if kind not in ("mcq", "numeric"):
        return None, [f"dropped {where}: unknown type {_short(kind)} (expected mcq or numeric)"]
    answer = number(raw.get("answer"))
    tolerance = number(raw.get("tolerance"))
    if kind == "numeric" and answer is None:
        return None, [f"dropped {where}: numeric item without a numeric 'answer'"]
    options, correct, problem = _options_and_key(raw, numeric=kind == "numeric")
    if problem:
        return None, [f"dropped {where}: {problem}"]
    stage = raw.get("stage", "check")
    if stage not in STAGES:
        notes.append(f"{where}: unknown stage {_short(stage)}; read as 'check'")
        stage = "check"
    explanation = raw.get("explanation", "")
    if not isinstance(explanation, str):
        notes.append(f"{where}: 'explanation' is not text; left out")
        explanation = ""
    bloom = raw.get("bloom")
    item = QuizItem(
        index=index,
        id=_raw_id(raw) or fallback_id,
        stage=stage,
        question=question.strip(),
        options=options,
        correct=correct,
        explanation=explanation.strip(),
        bloom=bloom.strip() if isinstance(bloom, str) and bloom.strip() else None,
        type=kind,
        answer=answer,
        tolerance=tolerance,
    )
    return item, notes


def _options_and_key(raw: dict[str, Any], numeric: bool) -> tuple[list[str], int, str]:
    """(options, correct index, problem); problem is "" when the pair is usable."""
    options = raw.get("options")
    if numeric and not options:
        return [], -1, ""
    if not isinstance(options, list):
        return [], -1, "missing 'options' list"
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        return [], -1, f"has {len(options)} options, expected {MIN_OPTIONS} to {MAX_OPTIONS}"
    texts: list[str] = []
    for option in options:
        text = option_text(option)
        if text is None:
            return [], -1, "an option is not text"
        if not text:
            return [], -1, "an option is empty"
        texts.append(text)
    correct = key_index(raw.get("correct"))
    if correct is None:
        return [], -1, "missing or non-integer 'correct'"
    if not 0 <= correct < len(texts):
        return [], -1, f"'correct' is {correct}, outside 0-{len(texts) - 1}"
    return texts, correct, ""


def option_text(option: Any) -> str | None:
    """An option as the bank is read: text, or a number written as one (`4` reads "4");
    None when it is neither (a list, an object, true/false). `tutor quiz audit` reads options
    the same way, so it audits what the learner would be shown."""
    if isinstance(option, bool) or not isinstance(option, str | int | float):
        return None
    return str(option).strip()


def key_index(correct: Any) -> int | None:
    """The key's index as the bank is read: an integer, or digits written as text ("2")."""
    if isinstance(correct, str) and correct.strip().isdigit():
        correct = int(correct.strip())
    if isinstance(correct, bool) or not isinstance(correct, int):
        return None
    return correct


def number(value: Any) -> float | None:
    """A finite number (an answer or a tolerance), or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
