"""The learning request: eleven canonical fields, normalised, and the hash rules."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from learning_system.packets import (
    CANONICAL_FIELDS,
    LearningRequest,
    RequestError,
    normalize_request,
    request_hash,
)

BASE = {
    "topic": "j² return mapping",
    "goal": "Implement the return map",
    "generation_option": "deterministic_outline",
}


def test_normalize_returns_exactly_the_eleven_keys_with_their_defaults():
    canonical = normalize_request(BASE)
    assert tuple(canonical) == CANONICAL_FIELDS and len(canonical) == 11
    assert canonical == {
        "topic": "j² return mapping",
        "goal": "Implement the return map",
        "audience": "engineer",
        "depth": "implementation",
        "generation_option": "deterministic_outline",
        "seed_tags": [],
        "max_nodes": None,
        "max_depth": None,
        "include_pitfalls": True,
        "include_code_links": True,
        "exporters": [],
    }


def test_each_field_is_normalised_by_its_rule():
    canonical = normalize_request(
        {
            "topic": "  Chain Rule ",
            "goal": " Build It\n",
            "audience": " Researcher ",
            "depth": "DERIVATION",
            "generation_option": " Anthology ",
            "seed_tags": [" Gradient", "autograd ", "GRADIENT"],
            "max_nodes": "5",
            "max_depth": 2.0,
            "include_pitfalls": "false",
            "include_code_links": 0,
            "exporters": ["HTML", " markdown"],
        }
    )
    assert canonical == {
        "topic": "Chain Rule",
        "goal": "Build It",
        "audience": "researcher",
        "depth": "derivation",
        "generation_option": "anthology",
        "seed_tags": ["autograd", "gradient"],
        "max_nodes": 5,
        "max_depth": 2,
        "include_pitfalls": False,
        "include_code_links": False,
        "exporters": ["html", "markdown"],
    }


def test_the_hash_is_sha256_of_compact_sorted_utf8_json():
    canonical = normalize_request(BASE)
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert "j² return mapping" in text  # not \u00b2: the same bytes on every machine
    assert request_hash(BASE) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    # pinned: a change to the canonical form or the hash is a change of every packet id
    assert request_hash(BASE) == "8d2864dea4eb4554282a60d53f28b787ce637ef09b480ce171b2391c2b706c6b"
    assert LearningRequest.from_raw(BASE).hash == request_hash(BASE)


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"goal": "g", "generation_option": "pitfall"}, "needs 'topic'"),
        ({**BASE, "topic": "   "}, "'topic' is empty"),
        ({**BASE, "goal": 3}, "'goal' must be text"),
        ({"topic": "t", "goal": "g"}, "needs 'generation_option'"),
        ({**BASE, "max_nodes": 0}, "'max_nodes' must be 1 or more"),
        ({**BASE, "max_depth": "two"}, "'max_depth' must be a whole number"),
        ({**BASE, "max_nodes": 2.5}, "whole number"),
        ({**BASE, "max_nodes": True}, "whole number"),
        ({**BASE, "include_pitfalls": "maybe"}, "true or false"),
        ({**BASE, "seed_tags": [1]}, "must be text"),
        ({**BASE, "exporters": 7}, "list of text"),
    ],
)
def test_unusable_requests_are_refused_with_a_reason(bad, message):
    with pytest.raises(RequestError, match=message):
        normalize_request(bad)


def test_a_request_that_is_not_an_object_is_refused():
    with pytest.raises(RequestError, match="JSON object"):
        normalize_request(["topic"])  # type: ignore[arg-type]


# the hash rules, over random requests --------------------------------------------------------
words = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "Zs")), min_size=1, max_size=12
).filter(lambda s: s.strip())
tags = st.lists(st.text(alphabet="abcdefghij-", min_size=1, max_size=6), max_size=5)
extras = st.dictionaries(
    st.sampled_from(
        [
            "session_id",
            "ui_state",
            "learner_profile",
            "granularity",
            "model",
            "temperature",
            "created_at",
            "x",
        ]
    ),
    st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=3)),
    max_size=4,
)
optional = st.fixed_dictionaries(
    {},
    optional={
        "audience": words,
        "depth": words,
        "seed_tags": tags,
        "exporters": tags,
        "max_nodes": st.one_of(st.none(), st.integers(1, 50)),
        "max_depth": st.one_of(st.none(), st.integers(0, 9)),
        "include_pitfalls": st.booleans(),
        "include_code_links": st.booleans(),
    },
)


def _vary_case(items: list[str], flips: list[bool]) -> list[str]:
    return [
        t.upper() if (flips[n % len(flips)] if flips else False) else t for n, t in enumerate(items)
    ]


@settings(max_examples=150, deadline=None)
@given(
    topic=words,
    goal=words,
    mode=st.sampled_from(["deterministic_outline", "pitfall"]),
    rest=optional,
    junk=extras,
    flips=st.lists(st.booleans(), max_size=4),
    data=st.data(),
)
def test_hash_rules_hold_over_random_requests(topic, goal, mode, rest, junk, flips, data):
    request = {"topic": topic, "goal": goal, "generation_option": mode, **rest}
    expected = request_hash(request)
    assert set(normalize_request(request)) == set(CANONICAL_FIELDS)
    # extras are dropped
    assert request_hash({**junk, **request}) == expected
    # order and case of lists are irrelevant, and so is surrounding space
    varied = dict(request)
    for key in ("seed_tags", "exporters"):
        if key in varied:
            shuffled = data.draw(st.permutations(varied[key]))
            varied[key] = [f" {t} " for t in _vary_case(list(shuffled), flips)]
    varied["generation_option"] = f" {mode.upper()} "
    assert request_hash(varied) == expected
    # None and missing are the same
    with_nones = {
        **request,
        **{
            k: None
            for k in ("max_nodes", "max_depth", "seed_tags", "exporters", "audience", "depth")
            if k not in request
        },
    }
    assert request_hash(with_nones) == expected
    # and the canonical form is a fixed point
    assert request_hash(normalize_request(request)) == expected


@settings(max_examples=60, deadline=None)
@given(a=words, b=words)
def test_topic_and_goal_keep_their_case_so_different_text_hashes_differently(a, b):
    base = {"goal": "g", "generation_option": "pitfall"}
    if a.strip() != b.strip():
        assert request_hash({**base, "topic": a}) != request_hash({**base, "topic": b})
