"""The OpenAI-compatible provider against a real loopback server: every fault ends in a typed
failure within the retry bound, never a crash."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from tutor.llm.openai_provider import MAX_REASKS, OpenAIProvider, max_requests_per_call
from tutor.llm.provider import FAILURE_KINDS, ModelFailure
from tutor.llm.recorder import MemoryRecorder
from tutor.llm.skills import load_skill
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: int
    why: str


class LooseAnswer(BaseModel):  # no extra="forbid": the provider must still reject extras
    answer: int


GOOD = {"answer": 4, "why": "two and two"}


pytestmark = pytest.mark.usefixtures("isolated_model_env")


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
async def new_provider():
    """Makes providers, and closes their connections when the test ends."""
    made: list[OpenAIProvider] = []

    def make(*args, **kwargs) -> OpenAIProvider:
        made.append(OpenAIProvider(*args, **kwargs))
        return made[-1]

    yield make
    for provider in made:
        await provider.aclose()


@pytest.fixture
async def provider(srv, recorder, sleeps):
    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    provider = OpenAIProvider(fast_settings(srv.base_url), recorder, sleep=fake_sleep)
    yield provider
    await provider.aclose()


async def ask(provider, schema=Answer):
    return await provider.structured(
        skill="tutor", data={"question": "2+2?"}, schema=schema, purpose="test"
    )


async def test_structured_call_returns_the_validated_model_and_records_it(srv, provider, recorder):
    srv.script([Reply.json(GOOD)])
    result = await ask(provider)
    assert result == Answer(**GOOD)
    (request,) = srv.chat_requests
    body = request.body
    assert body["model"] == "loopback-model"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["additionalProperties"] is False
    assert body["messages"][0] == {"role": "system", "content": load_skill("tutor")}
    payload = json.loads(body["messages"][1]["content"])
    assert payload["task"] == "test" and payload["data"] == {"question": "2+2?"}
    assert payload["answer_format"] == "json"
    assert "output_schema" not in payload  # the response format carries it
    (call,) = recorder.calls
    assert (call.outcome, call.error_kind, call.purpose, call.provider) == (
        "ok",
        None,
        "test",
        "openai",
    )
    assert call.tokens_in > 0 and call.tokens_out > 0 and call.latency_ms > 0
    assert call.prompt is None


TRANSIENT = [
    pytest.param(Reply.error(500), "server_error", id="500"),
    pytest.param(Reply.error(503, "overloaded"), "server_error", id="503"),
    pytest.param(Reply.rate_limited(0.01), "rate_limited", id="429"),
    pytest.param(Reply.reset(), "connection", id="reset"),
    pytest.param(Reply.malformed(), "malformed", id="malformed-json"),
    pytest.param(Reply.truncated(json.dumps(GOOD)), "connection", id="truncated-body"),
]


async def test_a_hang_is_not_retried_it_opens_the_breaker(srv, provider, recorder):
    """One request past the timeout means the endpoint is not answering: no retries (each would
    wait the whole timeout again); the breaker opens, and the next call fails at once."""
    srv.script([Reply.hang(5), Reply.json(GOOD)])
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "timeout" and len(srv.chat_requests) == 1
    assert provider.breaker.is_open
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "unavailable" and len(srv.chat_requests) == 1
    provider.breaker.reset()  # the next lesson tries again
    assert await ask(provider) == Answer(**GOOD)


@pytest.mark.parametrize(("fault", "kind"), TRANSIENT)
async def test_a_persistent_fault_is_a_typed_failure_after_the_retries(
    srv, provider, recorder, fault, kind
):
    srv.always(fault)
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == kind
    retries = provider.settings.max_retries
    assert len(srv.chat_requests) == retries + 1
    assert len(srv.chat_requests) <= max_requests_per_call(retries)
    (call,) = recorder.calls
    assert (call.outcome, call.error_kind) == ("failed", kind)


@pytest.mark.parametrize(("fault", "kind"), TRANSIENT)
async def test_a_passing_fault_is_retried_and_the_call_succeeds(
    srv, provider, recorder, fault, kind
):
    srv.script([fault, Reply.json(GOOD)])
    assert await ask(provider) == Answer(**GOOD)
    assert len(srv.chat_requests) == 2
    assert recorder.calls[-1].outcome == "ok"


async def test_backoff_grows_with_jitter_and_is_capped(srv, sleeps, recorder, new_provider):
    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    settings = fast_settings(srv.base_url, max_retries=4, backoff_base=0.001, backoff_max=0.004)
    provider = new_provider(settings, recorder, sleep=fake_sleep)
    srv.always(Reply.error(500))
    with pytest.raises(ModelFailure):
        await ask(provider)
    assert len(sleeps) == 4 and len(srv.chat_requests) == 5
    for n, slept in enumerate(sleeps):
        ceiling = min(0.004, 0.001 * 2**n)
        assert ceiling / 2 <= slept <= ceiling


async def test_retry_after_is_honoured(srv, provider, sleeps):
    srv.script([Reply.rate_limited(0.3), Reply.json(GOOD)])
    assert await ask(provider) == Answer(**GOOD)
    assert sleeps == [pytest.approx(0.3)]


async def test_a_retry_after_longer_than_we_wait_fails_fast(srv, provider, sleeps):
    srv.always(Reply.rate_limited(120))
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "rate_limited"
    assert len(srv.chat_requests) == 1 and sleeps == []


async def test_a_503_with_a_short_retry_after_waits_it_and_a_long_one_fails_fast(
    srv, provider, sleeps
):
    srv.script([Reply.error(503, retry_after=0.2), Reply.json(GOOD)])
    assert await ask(provider) == Answer(**GOOD)
    assert sleeps == [pytest.approx(0.2)]
    srv.always(Reply.error(503, retry_after=3600))
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "server_error" and len(srv.chat_requests) == 3


@pytest.mark.parametrize(
    "body",
    [
        b'{"choices": []}',
        b'{"choices": [{"message": 3}]}',
        b"[1]",
        b'{"choices": [{"message": {"content": 5}}]}',
    ],
)
async def test_a_reply_that_is_json_but_not_a_completion_is_malformed(srv, provider, body):
    srv.always(Reply.malformed(body))
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "malformed"
    assert len(srv.chat_requests) == provider.settings.max_retries + 1


async def test_zero_retries_means_one_request(srv, recorder, new_provider):
    provider = new_provider(fast_settings(srv.base_url, max_retries=0), recorder)
    srv.always(Reply.error(502))
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "server_error" and len(srv.chat_requests) == 1


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        pytest.param(Reply.refusal("I won't."), "refusal", id="refusal"),
        pytest.param(Reply.length('{"answer": 4, "wh'), "length", id="length"),
        pytest.param(Reply.error(401, "bad key"), "unavailable", id="401"),
        pytest.param(Reply.error(404, "no such model"), "unavailable", id="404"),
    ],
)
async def test_refusals_cutoffs_and_rejections_fail_at_once(srv, provider, recorder, reply, kind):
    srv.always(reply)
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == kind
    assert len(srv.chat_requests) == 1
    assert recorder.calls[-1].error_kind == kind


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param({**GOOD, "confidence": 0.9}, id="extra-field"),
        pytest.param({"answer": "four", "why": "x"}, id="wrong-type"),
        pytest.param({"result": 4}, id="wrong-schema"),
        pytest.param("four, because two and two", id="not-json"),
        pytest.param([GOOD], id="array"),
    ],
)
async def test_invalid_answers_are_reasked_at_most_twice(srv, provider, recorder, bad):
    srv.always(bad)
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "schema"
    assert len(srv.chat_requests) == 1 + MAX_REASKS
    reask = srv.chat_requests[1].body["messages"]
    assert reask[-2]["role"] == "assistant"
    errors = json.loads(reask[-1]["content"])["validation_errors"]
    assert errors and all(isinstance(e, str) for e in errors)
    assert recorder.calls[-1].error_kind == "schema"


async def test_a_reask_that_fixes_the_answer_succeeds(srv, provider):
    srv.script([{**GOOD, "extra": True}, {"answer": "x", "why": ""}, GOOD])
    assert await ask(provider) == Answer(**GOOD)
    assert len(srv.chat_requests) == 3
    last = srv.chat_requests[2].body["messages"]
    assert len(last) == 6  # system, user, then two (answer, validation_errors) pairs
    assert "extra" in last[3]["content"]


async def test_unknown_fields_are_rejected_even_if_the_schema_allows_them(srv, provider):
    srv.script([{"answer": 1, "extra": 2}, {"answer": 1}])
    result = await ask(provider, schema=LooseAnswer)
    assert type(result) is LooseAnswer and result.answer == 1
    assert len(srv.chat_requests) == 2


async def test_fenced_json_from_plain_json_endpoints_is_accepted(srv, provider):
    srv.script([Reply.text("```json\n" + json.dumps(GOOD) + "\n```")])
    assert await ask(provider) == Answer(**GOOD)


async def test_a_reasoning_models_thinking_before_its_json_is_set_aside(srv, provider):
    thinking = "<think>The schema wants an answer; {not: json} here.</think>\n"
    srv.script([Reply.text(thinking + json.dumps(GOOD))])
    assert await ask(provider) == Answer(**GOOD)
    assert len(srv.chat_requests) == 1  # accepted as it came, no re-ask


@pytest.mark.parametrize(
    "reply",
    [
        "Sure! Here is the JSON you asked for:\n" + json.dumps(GOOD) + "\nAnything else?",
        "Here it is:\n```json\n" + json.dumps(GOOD) + "\n```\nThe {braces} are JSON.",
        "Two and two; the schema wants {answer, why}.\n</think>\n\n" + json.dumps(GOOD),
    ],
    ids=["prose-around", "fence-in-prose", "orphan-think-end"],
)
async def test_json_amid_prose_a_fence_or_an_orphan_think_end_is_used(srv, provider, reply):
    srv.script([Reply.text(reply)])
    assert await ask(provider) == Answer(**GOOD)
    assert len(srv.chat_requests) == 1  # accepted as it came, no re-ask


async def test_json_whose_text_holds_fences_and_think_tags_is_taken_whole(srv, provider):
    good = {"answer": 4, "why": "```python\nprint(2 + 2)\n``` then </think> {x}"}
    srv.script([Reply.json(good)])
    assert await ask(provider) == Answer(**good)


async def test_prose_around_json_that_fails_the_schema_is_still_re_asked(srv, provider):
    srv.script([Reply.text(f"Sure: {json.dumps({**GOOD, 'extra': 1})} ok"), Reply.json(GOOD)])
    assert await ask(provider) == Answer(**GOOD)
    assert len(srv.chat_requests) == 2
    errors = json.loads(srv.chat_requests[1].body["messages"][-1]["content"])
    assert any("extra" in e for e in errors["validation_errors"])


@pytest.mark.parametrize("content_type", ["text/plain", "text/html; charset=utf-8", None])
async def test_a_completion_served_as_another_content_type_is_read(
    recorder, new_provider, content_type
):
    with ModelServer(completion_content_type=content_type) as srv:
        provider = new_provider(fast_settings(srv.base_url), recorder)
        srv.script([GOOD])
        assert await ask(provider) == Answer(**GOOD)
        assert len(srv.chat_requests) == 1  # read as it came, not retried as malformed
    assert recorder.calls[-1].outcome == "ok"


async def test_a_completion_served_as_text_that_is_not_json_is_malformed(recorder, new_provider):
    with ModelServer(completion_content_type="text/plain") as srv:
        provider = new_provider(fast_settings(srv.base_url, max_retries=1), recorder)
        srv.script([Reply.malformed(), Reply.malformed()])
        with pytest.raises(ModelFailure) as info:
            await ask(provider)
    assert info.value.kind == "malformed"


async def test_content_given_as_text_parts_is_joined(srv, provider):
    text = json.dumps(GOOD)
    srv.script([Reply.in_parts([text[:9], text[9:20], text[20:]])])
    assert await ask(provider) == Answer(**GOOD)
    assert len(srv.chat_requests) == 1


async def test_an_endpoint_without_json_schema_gets_json_object_and_it_is_remembered(
    recorder, new_provider
):
    with ModelServer(reject_json_schema=True) as srv:
        provider = new_provider(fast_settings(srv.base_url), recorder)
        srv.script([GOOD, GOOD])
        assert await ask(provider) == Answer(**GOOD)
        formats = [r.body["response_format"]["type"] for r in srv.chat_requests]
        assert formats == ["json_schema", "json_object"]
        assert provider.structured_mode == "json_object"
        assert await ask(provider) == Answer(**GOOD)
        formats = [r.body["response_format"]["type"] for r in srv.chat_requests]
        assert formats == ["json_schema", "json_object", "json_object"]
        # in plain JSON mode the schema still travels, as data
        payload = json.loads(srv.chat_requests[-1].body["messages"][1]["content"])
        assert payload["output_schema"]["required"] == ["answer", "why"]


async def test_an_endpoint_refusing_any_response_format_gets_none_and_it_is_remembered(
    recorder, new_provider
):
    with ModelServer(reject_response_format=True) as srv:
        provider = new_provider(fast_settings(srv.base_url), recorder)
        srv.script([GOOD, GOOD])
        assert await ask(provider) == Answer(**GOOD)
        formats = [(r.body.get("response_format") or {}).get("type") for r in srv.chat_requests]
        assert formats == ["json_schema", "json_object", None]
        assert provider.structured_mode == "none"
        assert await ask(provider) == Answer(**GOOD)
        assert len(srv.chat_requests) == 4 and "response_format" not in srv.chat_requests[-1].body
        # with no response format the schema travels as data, and JSON is asked for
        payload = json.loads(srv.chat_requests[-1].body["messages"][1]["content"])
        assert payload["output_schema"]["required"] == ["answer", "why"]
        assert payload["answer_format"] == "json"
    assert [c.outcome for c in recorder.calls] == ["ok", "ok"]


async def test_an_endpoint_refusing_max_tokens_gets_max_completion_tokens_remembered(
    recorder, new_provider
):
    with ModelServer(reject_max_tokens=True) as srv:
        provider = new_provider(fast_settings(srv.base_url), recorder)
        srv.script([GOOD, GOOD])
        assert await ask(provider) == Answer(**GOOD)
        assert await ask(provider) == Answer(**GOOD)
        bounds = [
            [k for k in ("max_tokens", "max_completion_tokens") if k in r.body]
            for r in srv.chat_requests
        ]
    # refused once, then the answer-length bound under the name the endpoint takes, every time
    assert bounds == [["max_tokens"], ["max_completion_tokens"], ["max_completion_tokens"]]
    assert {r.body.get("max_completion_tokens") for r in srv.chat_requests[1:]} == {1500}


async def test_a_400_not_about_the_format_keeps_json_schema(srv, provider):
    srv.always(Reply.error(400, "context length exceeded"))
    with pytest.raises(ModelFailure) as info:
        await ask(provider)
    assert info.value.kind == "unavailable"
    assert provider.structured_mode == "json_schema"
    assert len(srv.chat_requests) == 3  # json_schema, json_object, no response_format


async def test_the_worst_case_stays_within_the_documented_bound(recorder, new_provider):
    with ModelServer(reject_response_format=True, reject_max_tokens=True) as srv:
        provider = new_provider(fast_settings(srv.base_url), recorder)
        srv.script([Reply.error(500), Reply.reset(), {"wrong": 1}, {"wrong": 2}, {"wrong": 3}])
        with pytest.raises(ModelFailure) as info:
            await ask(provider)
        assert info.value.kind == "schema"
        assert len(srv.chat_requests) == max_requests_per_call(2) == 8


FAULTS = st.sampled_from(
    [
        Reply.error(500),
        Reply.error(429, retry_after="0"),
        Reply.reset(),
        Reply.malformed(),
        Reply.refusal(),
        Reply.length(),
        Reply.error(400),
        Reply.json({"nope": 1}),
        Reply.json({**GOOD, "x": 1}),
        Reply.text("not json"),
        Reply.json(GOOD),
    ]
)


@pytest.fixture(scope="module")
def shared_srv():
    with ModelServer() as server:
        yield server


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    script=st.lists(FAULTS, max_size=8),
    retries=st.integers(0, 3),
    no_json_schema=st.booleans(),
    no_format=st.booleans(),
    no_max_tokens=st.booleans(),
)
async def test_any_script_ends_in_a_result_or_a_typed_failure_within_the_bound(
    shared_srv, script, retries, no_json_schema, no_format, no_max_tokens
):
    srv = shared_srv
    srv.clear()
    srv.reject_json_schema = no_json_schema
    srv.reject_response_format = no_format
    srv.reject_max_tokens = no_max_tokens
    provider = OpenAIProvider(fast_settings(srv.base_url, max_retries=retries))
    srv.script(script)
    try:
        assert await ask(provider) == Answer(**GOOD)
    except ModelFailure as failure:
        assert failure.kind in FAILURE_KINDS
    finally:
        await provider.aclose()
    assert len(srv.chat_requests) <= max_requests_per_call(retries)


async def test_debug_prompts_records_the_prompt(srv, recorder, new_provider):
    provider = new_provider(fast_settings(srv.base_url, debug_prompts=True), recorder)
    srv.script([GOOD])
    await ask(provider)
    prompt = json.loads(recorder.calls[0].prompt)
    assert prompt[0]["content"] == load_skill("tutor")


async def test_a_failing_recorder_does_not_break_the_call(srv, caplog, new_provider):
    class Broken:
        def record(self, call):
            raise OSError("disk full")

    provider = new_provider(fast_settings(srv.base_url), Broken())
    srv.script([GOOD])
    assert await ask(provider) == Answer(**GOOD)
    assert "could not record" in caplog.text


def test_the_provider_works_from_several_event_loops_and_threads(srv):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    recorder = MemoryRecorder()
    provider = OpenAIProvider(fast_settings(srv.base_url, timeout=5), recorder)
    srv.always(GOOD)

    async def one_call() -> Answer:
        try:
            return await ask(provider)
        finally:
            await provider.aclose()

    assert asyncio.run(one_call()) == Answer(**GOOD)
    assert asyncio.run(one_call()) == Answer(**GOOD)

    async def three_calls() -> list[Answer]:
        try:
            return [await ask(provider) for _ in range(3)]
        finally:
            await provider.aclose()

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: asyncio.run(three_calls()), range(4)))
    assert results == [[Answer(**GOOD)] * 3] * 4
    assert [c.outcome for c in recorder.calls] == ["ok"] * 14
