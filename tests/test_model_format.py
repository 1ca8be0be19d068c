"""Issue 22, part 3: an endpoint that answers, but never validly (malformed JSON, extra fields,
missing fields, prose with no JSON, refusals), is a failing endpoint (valid JSON wrapped in
prose, a fence or a model's thinking is an answer). Whole lessons against
both loopback servers (the project's and the independent mini server of test_model_gaps), with
the real store: each mode costs at most MAX_REQUESTS requests per lesson, and the learner is told
once, in words, that the answers do not follow the required format."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from test_model_gaps import Behaviour, drafting, endpoint, run, taught

from tutor.llm.breaker import FORMAT_NOTICE
from tutor.llm.openai_provider import _json_text

MAX_REQUESTS = 15  # CONTRACT.md, Models: "a lesson sends at most 15 requests to an endpoint…"

pytestmark = pytest.mark.usefixtures("isolated_model_env")
__all__ = ["endpoint"]  # the fixture: both loopback servers in turn

# what a healthy model would answer; each mode spoils it the same way for every request
HEALTHY = drafting(lambda step: f"The model restates {step} for this learner.", lambda c: "PASS")


def _spoil(spoil: Callable[[dict], tuple[str, Any]]) -> Behaviour:
    def behave(body: dict) -> tuple[str, Any]:
        kind, value = HEALTHY(body)
        if kind != "json":
            return kind, value
        return spoil(value)

    return behave


def _without_a_field(value: dict) -> tuple[str, Any]:
    return "json", dict(list(value.items())[1:])


PROSE_ONLY = "Sure! I would restate the step in plain words, without any JSON."

MODES: dict[str, Behaviour] = {
    "malformed": _spoil(lambda v: ("text", json.dumps(v)[:-7] + ', "')),
    "extra-field": _spoil(lambda v: ("json", {**v, "confidence": "high"})),
    "missing-field": _spoil(_without_a_field),
    "prose-only": _spoil(lambda v: ("text", PROSE_ONLY)),
    "refusing": lambda body: ("refusal", "I can't help with that."),
}

# valid answers in the wrappings quirky endpoints and chat templates put around them
WRAPPINGS: dict[str, Callable[[str], str]] = {
    "prose-around": lambda j: f"Sure! Here is the JSON you asked for:\n{j}\nDone.",
    "fenced-in-prose": lambda j: f"Here it is:\n```json\n{j}\n```\nHope that helps {{:)}}.",
    "orphan-think-end": lambda j: f"The schema wants {{content, claims}}; fine.\n</think>\n\n{j}",
}


def test_every_spoiled_answer_really_is_invalid():
    """Guard: a spoiled answer that happened to validate would make the lesson test pass
    without testing anything."""
    from tutor.engine.drafter import StepDraft

    good = {"content": "The model restates a step.", "claims": []}
    StepDraft.model_validate_json(_json_text(json.dumps(good)))
    for spoiled in (
        json.dumps(good)[:-7] + ', "',
        json.dumps({**good, "confidence": "high"}),
        json.dumps(dict(list(good.items())[1:])),
        PROSE_ONLY,
    ):
        with pytest.raises(ValueError):
            StepDraft.model_validate_json(_json_text(spoiled))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_endpoint_that_never_answers_validly_is_bounded_and_told_once(store, endpoint, mode):
    server = endpoint(MODES[mode])
    session, seen = run(store, server.base_url, retries=2)
    assert session.done and taught(seen), "the lesson goes on with its own text"
    sent = len(server.bodies())
    assert 0 < sent <= MAX_REQUESTS, f"{mode}: {sent} requests"
    told = [f for p in seen for f in p.flags if f == FORMAT_NOTICE or "required format" in f]
    assert told == [FORMAT_NOTICE], told
    assert "going on with the lesson's own text" in FORMAT_NOTICE
    # what the learner read is the lesson's own text, and every receipt is the offline verifier's
    assert all(p.content.startswith("[source: ") for p in taught(seen))
    verifiers = {
        json.loads(r["payload"])["verifier"] for r in store.rows("SELECT payload FROM receipts")
    }
    assert verifiers == {"offline"}
    # the calls are recorded as failed, with the kind that says why
    kinds = {r["error_kind"] for r in store.rows("SELECT error_kind FROM model_calls")}
    assert kinds & {"schema", "refusal"}, kinds
    assert not re.search(r"stopped answering", " ".join(f for p in seen for f in p.flags))


def test_a_separate_verifier_that_never_answers_validly_is_named_once(store, endpoint, monkeypatch):
    """The drafting endpoint is healthy; the separately named verifier answers prose without
    JSON. The verifier's requests stay bounded, no model draft is shown unchecked, and the one
    notice names the verifier model."""
    drafter = endpoint(HEALTHY)
    judge = endpoint(MODES["prose-only"])
    monkeypatch.setenv("TUTOR_VERIFIER_BASE_URL", judge.base_url)
    monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge")
    session, seen = run(store, drafter.base_url, retries=2)
    assert session.done and taught(seen)
    assert 0 < len(judge.bodies()) <= MAX_REQUESTS
    assert all(p.content.startswith("[source: ") for p in taught(seen))
    told = [f for p in seen for f in p.flags if "required format" in f]
    assert told == [FORMAT_NOTICE.replace("The model's", "The verifier model's", 1)], told


@pytest.mark.parametrize("wrapping", sorted(WRAPPINGS))
def test_a_valid_answer_wrapped_in_prose_a_fence_or_thinking_is_used(store, endpoint, wrapping):
    """Prose around the JSON, a fenced block amid prose, a `</think>` whose opening tag the chat
    template stripped: the answer inside is the model's, and the lesson shows it."""

    def behave(body: dict) -> tuple[str, Any]:
        kind, value = HEALTHY(body)
        return ("text", WRAPPINGS[wrapping](json.dumps(value))) if kind == "json" else (kind, value)

    server = endpoint(behave)
    session, seen = run(store, server.base_url, retries=2)
    shown = taught(seen)
    assert session.done and shown
    assert all(p.content.startswith("The model restates") for p in shown), shown[0].content
    assert not [f for p in seen for f in p.flags if "required format" in f]
    kinds = {r["error_kind"] for r in store.rows("SELECT error_kind FROM model_calls")}
    assert kinds == {None}, kinds


@pytest.mark.parametrize("wrapping", ["fenced-in-prose", "prose-around"])
def test_json_holding_a_code_fence_is_read_whole_inside_a_fence_or_prose(wrapping):
    """Found with an outside server: a draft whose content holds a ```python block, sent in a
    ```json fence or after a sentence, was cut at the inner fence and re-asked as invalid JSON
    (every step with code was dropped, and the knowledge pack failed)."""
    from tutor.engine.drafter import StepDraft

    draft = {"content": "Run it:\n```python\nprint(1)\n```\nDone.", "claims": []}
    reply = WRAPPINGS[wrapping](json.dumps(draft))
    assert StepDraft.model_validate_json(_json_text(reply)).content == draft["content"]
