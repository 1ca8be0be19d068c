"""The learning request and its identity.

Only the eleven canonical fields make a request's identity; everything else a caller sends (UI
state, session ids, the learner's profile, model settings) is dropped before hashing, so the
same request hashes the same on every machine, locale and front end."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from learning_system.packets.errors import RequestError

CANONICAL_FIELDS: tuple[str, ...] = (
    "topic",
    "goal",
    "audience",
    "depth",
    "generation_option",
    "seed_tags",
    "max_nodes",
    "max_depth",
    "include_pitfalls",
    "include_code_links",
    "exporters",
)
DEFAULTS: dict[str, Any] = {
    "audience": "engineer",
    "depth": "implementation",
    "seed_tags": [],
    "max_nodes": None,
    "max_depth": None,
    "include_pitfalls": True,
    "include_code_links": True,
    "exporters": [],
}
_TRUE = {"true", "yes", "on", "1", "y", "t"}
_FALSE = {"false", "no", "off", "0", "n", "f", ""}


class LearningRequest(BaseModel):
    """A normalised request: build it with `LearningRequest.from_raw`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str
    goal: str
    audience: str = "engineer"
    depth: str = "implementation"
    generation_option: str
    seed_tags: tuple[str, ...] = ()
    max_nodes: int | None = None
    max_depth: int | None = None
    include_pitfalls: bool = True
    include_code_links: bool = True
    exporters: tuple[str, ...] = ()

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any] | LearningRequest) -> LearningRequest:
        if isinstance(raw, LearningRequest):
            return raw
        return cls.model_validate(normalize_request(raw))

    def canonical(self) -> dict[str, Any]:
        """The eleven canonical fields as plain JSON data (lists, None kept as null)."""
        data = self.model_dump(mode="json")
        return {key: data[key] for key in CANONICAL_FIELDS}

    @property
    def hash(self) -> str:
        return request_hash(self.canonical())


def normalize_request(raw: Mapping[str, Any] | LearningRequest) -> dict[str, Any]:
    """Exactly the eleven canonical keys, normalised: strings trimmed (topic and goal keep their
    case, the rest are lowercased), lists trimmed, lowercased, without empties or repeats and
    sorted, integers coerced, booleans coerced. Raises RequestError on unusable input."""
    if isinstance(raw, LearningRequest):
        return raw.canonical()
    if not isinstance(raw, Mapping):
        raise RequestError(f"a learning request is a JSON object, not {type(raw).__name__}")
    out: dict[str, Any] = {
        "topic": _text(raw, "topic", lower=False),
        "goal": _text(raw, "goal", lower=False),
        "audience": _text(raw, "audience", lower=True),
        "depth": _text(raw, "depth", lower=True),
        "generation_option": _text(raw, "generation_option", lower=True),
        "seed_tags": _tags(raw, "seed_tags"),
        "max_nodes": _count(raw, "max_nodes", minimum=1),
        "max_depth": _count(raw, "max_depth", minimum=0),
        "include_pitfalls": _flag(raw, "include_pitfalls"),
        "include_code_links": _flag(raw, "include_code_links"),
        "exporters": _tags(raw, "exporters"),
    }
    return {key: out[key] for key in CANONICAL_FIELDS}


def canonical_json(data: Any) -> str:
    """The one serialisation every hash in a packet is taken over."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(data: Any) -> str:
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def request_hash(request: Mapping[str, Any] | LearningRequest) -> str:
    """SHA-256 hex of the canonical request (normalised first)."""
    return sha256_hex(normalize_request(request))


def _missing(raw: Mapping[str, Any], key: str) -> bool:
    return key not in raw or raw[key] is None


def _text(raw: Mapping[str, Any], key: str, *, lower: bool) -> str:
    if _missing(raw, key):
        if key in DEFAULTS:
            default: str = DEFAULTS[key]
            return default
        raise RequestError(f"the request needs '{key}'")
    value = raw[key]
    if not isinstance(value, str):
        raise RequestError(f"'{key}' must be text, not {type(value).__name__}")
    value = value.strip()
    if not value:
        if key in DEFAULTS:
            fallback: str = DEFAULTS[key]
            return fallback
        raise RequestError(f"'{key}' is empty; the request needs it")
    return value.lower() if lower else value


def _tags(raw: Mapping[str, Any], key: str) -> list[str]:
    if _missing(raw, key):
        return []
    value = raw[key]
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple | set | frozenset):
        raise RequestError(f"'{key}' must be a list of text, not {type(value).__name__}")
    tags: set[str] = set()
    for item in value:
        if not isinstance(item, str):
            raise RequestError(f"every entry of '{key}' must be text, not {type(item).__name__}")
        tag = item.strip().lower()
        if tag:
            tags.add(tag)
    return sorted(tags)


def _count(raw: Mapping[str, Any], key: str, *, minimum: int) -> int | None:
    if _missing(raw, key):
        return None
    value = raw[key]
    if isinstance(value, bool):
        raise RequestError(f"'{key}' must be a whole number, not true/false")
    try:
        if isinstance(value, str):
            value = value.strip()
            if not value:
                return None
            number = int(value) if value.lstrip("+-").isdigit() else float(value)
        else:
            number = value
        if isinstance(number, float):
            if not number.is_integer():
                raise ValueError
            number = int(number)
        if not isinstance(number, int):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise RequestError(f"'{key}' must be a whole number, not {value!r}") from None
    if number < minimum:
        raise RequestError(f"'{key}' must be {minimum} or more, not {number}")
    return number


def _flag(raw: Mapping[str, Any], key: str) -> bool:
    if _missing(raw, key):
        default: bool = DEFAULTS[key]
        return default
    value = raw[key]
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise RequestError(f"'{key}' must be true or false, not {value!r}")
