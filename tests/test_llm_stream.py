"""Streamed text from the provider against the loopback server, broken streams included."""

from __future__ import annotations

import pytest

from tutor.llm.openai_provider import OpenAIProvider
from tutor.llm.provider import ModelFailure
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply

TEXT = "A gradient points uphill; descent steps the other way."


pytestmark = pytest.mark.usefixtures("isolated_model_env")


async def collect(provider) -> tuple[list[str], ModelFailure | None]:
    chunks: list[str] = []
    try:
        async for chunk in provider.stream_text(skill="tutor", data={"step": 1}, purpose="teach"):
            chunks.append(chunk)
    except ModelFailure as failure:
        return chunks, failure
    return chunks, None


async def test_a_stream_yields_the_text_in_chunks_and_records_usage(srv, provider, recorder):
    srv.script([Reply.text(TEXT)])
    chunks, failure = await collect(provider)
    assert failure is None
    assert "".join(chunks) == TEXT and len(chunks) > 1
    (request,) = srv.chat_requests
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}
    assert "response_format" not in request.body
    (call,) = recorder.calls
    assert (call.outcome, call.purpose) == ("ok", "teach")
    assert call.tokens_out > 0 and call.tokens_in > 0


async def test_a_stream_cut_off_mid_way_is_a_connection_failure(srv, provider, recorder):
    srv.script([Reply.truncated(TEXT, keep=3)])
    chunks, failure = await collect(provider)
    assert failure is not None and failure.kind == "connection"
    assert chunks == ["A ", "gradient ", "points "]
    assert len(srv.chat_requests) == 1  # never retried once text was shown
    assert recorder.calls[0].error_kind == "connection"


async def test_a_stream_that_ends_without_finishing_is_a_failure_too(srv, provider):
    srv.script([Reply.truncated(TEXT, keep=2, clean=True)])
    chunks, failure = await collect(provider)
    assert failure is not None and failure.kind == "connection"
    assert len(chunks) == 2


async def test_a_stream_that_stalls_times_out(srv, provider):
    srv.script([Reply.truncated(TEXT, keep=1, stall=5)])
    chunks, failure = await collect(provider)
    assert failure is not None and failure.kind == "timeout"
    assert chunks == ["A "]


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        pytest.param(Reply.error(500), "server_error", id="500"),
        pytest.param(Reply.rate_limited(0.01), "rate_limited", id="429"),
        pytest.param(Reply.reset(), "connection", id="reset"),
    ],
)
async def test_faults_before_the_first_chunk_are_retried_within_the_bound(
    srv, provider, fault, kind
):
    srv.always(fault)
    chunks, failure = await collect(provider)
    assert chunks == [] and failure is not None and failure.kind == kind
    assert len(srv.chat_requests) == provider.settings.max_retries + 1


async def test_a_fault_then_a_good_stream_succeeds(srv, provider):
    srv.script([Reply.error(502), Reply.text(TEXT)])
    chunks, failure = await collect(provider)
    assert failure is None and "".join(chunks) == TEXT
    assert len(srv.chat_requests) == 2


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        pytest.param(Reply.refusal("No."), "refusal", id="refusal"),
        pytest.param(Reply.length("cut off here"), "length", id="length"),
        pytest.param(Reply.malformed(b'{"choices": [ {"delta"'), "malformed", id="malformed-event"),
        pytest.param(Reply.malformed(b'{"choices": 7}'), "malformed", id="event-wrong-shape"),
        pytest.param(Reply.malformed(b'"just a string"'), "malformed", id="event-not-an-object"),
        pytest.param(Reply.error(401), "unavailable", id="401"),
    ],
)
async def test_stream_refusals_cutoffs_and_bad_events_are_typed(
    srv, provider, recorder, reply, kind
):
    srv.always(reply)
    chunks, failure = await collect(provider)
    assert failure is not None and failure.kind == kind
    assert len(srv.chat_requests) == 1
    assert recorder.calls[-1].error_kind == kind


async def test_an_endpoint_without_stream_options_is_streamed_without_them(recorder):
    with ModelServer(reject_stream_options=True) as srv:
        provider = OpenAIProvider(fast_settings(srv.base_url), recorder)
        srv.always(Reply.text(TEXT))
        assert "".join((await collect(provider))[0]) == TEXT
        assert "".join((await collect(provider))[0]) == TEXT
        assert ["stream_options" in r.body for r in srv.chat_requests] == [True, False, False]
        assert recorder.calls[-1].tokens_out > 0  # estimated when the endpoint reports none
        await provider.aclose()


async def test_a_reader_that_stops_early_leaves_no_error_and_a_record(srv, provider, recorder):
    srv.script([Reply.text(TEXT)])
    stream = provider.stream_text(skill="tutor", data={}, purpose="teach")
    async for _chunk in stream:
        break
    await stream.aclose()
    (call,) = recorder.calls
    assert (call.outcome, call.error_kind) == ("failed", "cancelled")


async def test_a_stream_to_an_endpoint_refusing_max_tokens_sends_max_completion_tokens(
    recorder,
):
    with ModelServer(reject_max_tokens=True) as srv:
        provider = OpenAIProvider(fast_settings(srv.base_url), recorder)
        srv.script([Reply.text(TEXT)])
        chunks, failure = await collect(provider)
        sent = [r.body for r in srv.chat_requests]
        await provider.aclose()
    assert failure is None and "".join(chunks) == TEXT
    assert ["max_tokens" in b for b in sent] == [True, False]
    assert sent[-1]["max_completion_tokens"] > 0
