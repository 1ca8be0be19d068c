"""Skills (fixed instruction texts under `skills/`) and the messages built from them.

Code never improvises a prompt: the system message is a skill file (static, so a provider's
prompt cache applies to it), the user message is JSON data. Untrusted text — fetched pages,
learner answers, model drafts — is delimited wherever it enters a prompt:

- mark it by wrapping the string in `Untrusted(...)`, or by putting it under a key that starts
  with `untrusted_` (every string inside that value is marked);
- each such string becomes `<{marker}>` + text + `</{marker}>`, where `marker` is random per
  request and is also sent as the top-level `marker` field (a short tag: it wraps every
  question, option and claim, so its tokens count many times over). The text itself is sent as
  it is (rewriting it word by word cost twice its tokens); the only change is that a copy of
  this request's closing tag inside it is broken, so it cannot close its own block.
"""

from __future__ import annotations

import json
import secrets
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from tutor.config import SKILLS_DIR

ROLE_SKILLS = ("scout", "tutor", "clerk", "grader", "doctor", "pack_extract", "pack_review")
GATES = ("fact_check", "quiz_audit", "grade_audit", "review")
SKILL_NAMES: tuple[str, ...] = (*ROLE_SKILLS, *(f"GATE:{g}" for g in GATES))

UNTRUSTED_PREFIX = "untrusted_"


class Untrusted(str):
    """Text from outside the program; delimited in every prompt."""


def skill_file(name: str) -> str:
    if name not in SKILL_NAMES:
        raise KeyError(f"unknown skill {name!r}; known: {', '.join(SKILL_NAMES)}")
    return f"gate-{name.removeprefix('GATE:')}.md" if name.startswith("GATE:") else f"{name}.md"


@cache
def load_skill(name: str) -> str:
    return (SKILLS_DIR / skill_file(name)).read_text(encoding="utf-8").strip()


def new_marker() -> str:
    return secrets.token_hex(4)


def delimit(text: str, marker: str) -> str:
    """`text` between this request's tags; a forged closing tag inside is broken."""
    body = text.replace(f"</{marker}>", f"</{marker}\u200b>")
    return f"<{marker}>{body}</{marker}>"


def mark_untrusted(value: Any, marker: str, *, untrusted: bool = False) -> Any:
    """A JSON-ready copy of `value` with every untrusted string delimited."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, Untrusted) or (untrusted and isinstance(value, str)):
        return delimit(str(value), marker)
    if isinstance(value, dict):
        return {
            str(k): mark_untrusted(
                v, marker, untrusted=untrusted or str(k).startswith(UNTRUSTED_PREFIX)
            )
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [mark_untrusted(v, marker, untrusted=untrusted) for v in value]
    return value


def build_messages(
    skill: str,
    data: dict[str, Any],
    *,
    purpose: str = "",
    answer_format: Literal["json", "text"] = "text",
    output_schema: dict[str, Any] | None = None,
    marker: str | None = None,
) -> list[dict[str, str]]:
    """System: the skill text. User: JSON {task, answer_format, marker, data[, output_schema]}.
    `output_schema` is for endpoints whose response format cannot carry the schema."""
    marker = marker or new_marker()
    payload: dict[str, Any] = {
        "task": purpose,
        "answer_format": answer_format,
        "marker": marker,
        "data": mark_untrusted(data, marker),
    }
    if output_schema is not None:
        payload["output_schema"] = output_schema
    return [
        {"role": "system", "content": load_skill(skill)},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False, default=str)},
    ]


def reask_message(errors: list[str]) -> dict[str, str]:
    """The data sent back after an answer failed validation; the skills say what to do with it."""
    return {
        "role": "user",
        "content": json.dumps({"validation_errors": errors[:20]}, ensure_ascii=False),
    }
