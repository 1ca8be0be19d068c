"""The loopback model server itself: routes, scripting, recording, latency."""

from __future__ import annotations

import json

import httpx2
import pytest
from pydantic import BaseModel

from tutor.llm.openai_provider import OpenAIProvider
from tutor.llm.provider import ModelFailure
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply

pytestmark = pytest.mark.usefixtures("isolated_model_env")


class _X(BaseModel):
    x: int


def chat(srv: ModelServer, **body) -> httpx2.Response:
    return httpx2.post(
        f"{srv.base_url}/chat/completions", json={"model": "m", "messages": [], **body}, timeout=5
    )


def test_models_are_listed_and_unknown_routes_are_404():
    with ModelServer(models=["a", "b"]) as srv:
        listing = httpx2.get(f"{srv.base_url}/models", timeout=5).json()
        assert [m["id"] for m in listing["data"]] == ["a", "b"]
        assert httpx2.get(f"{srv.base_url}/nothing", timeout=5).status_code == 404
        assert [r.path for r in srv.requests] == ["/v1/models", "/v1/nothing"]


def test_script_items_are_served_in_order_then_the_default_or_500():
    with ModelServer() as srv:
        srv.script(["plain text", {"a": 1}, lambda body: Reply.text(body["model"])])
        contents = [chat(srv).json()["choices"][0]["message"]["content"] for _ in range(3)]
        assert contents == ["plain text", json.dumps({"a": 1}), "m"]
        assert chat(srv).status_code == 500  # script exhausted
        srv.always("again")
        assert chat(srv).json()["choices"][0]["message"]["content"] == "again"
        assert srv.remaining == 0
        assert len(srv.chat_requests) == 5 and srv.chat_requests[0].body["model"] == "m"


def test_a_stream_is_server_sent_events_ending_in_done():
    with ModelServer() as srv:
        srv.script([Reply.text("one two", chunks=["one ", "two"])])
        lines = [ln for ln in chat(srv, stream=True).text.splitlines() if ln]
        assert lines[-1] == "data: [DONE]"
        events = [json.loads(ln.removeprefix("data: ")) for ln in lines[:-1]]
        pieces = [e["choices"][0]["delta"].get("content") for e in events]
        assert pieces == ["", "one ", "two", None]
        assert events[-1]["choices"][0]["finish_reason"] == "stop"


def test_rate_limits_carry_retry_after():
    with ModelServer() as srv:
        srv.script([Reply.rate_limited(2)])
        response = chat(srv)
        assert response.status_code == 429 and response.headers["retry-after"] == "2"


async def test_latency_past_the_timeout_is_a_timeout():
    with ModelServer(latency=1.5) as srv:
        srv.always({"x": 1})
        provider = OpenAIProvider(fast_settings(srv.base_url, max_retries=0))
        with pytest.raises(ModelFailure) as info:
            await provider.structured(skill="tutor", data={}, schema=_X, purpose="t")
        await provider.aclose()
        assert info.value.kind == "timeout"


def test_quirks_another_content_type_and_content_in_text_parts():
    with ModelServer(completion_content_type=None) as srv:
        srv.script([Reply.in_parts(['{"x": ', "1}"])])
        response = chat(srv)
        assert "content-type" not in response.headers
        content = json.loads(response.content)["choices"][0]["message"]["content"]
        assert content == [{"type": "text", "text": '{"x": '}, {"type": "text", "text": "1}"}]
    with ModelServer(completion_content_type="text/plain") as srv:
        srv.script(["hello"])
        assert chat(srv).headers["content-type"] == "text/plain"
