"""The Scout with a model configured (the real OpenAI-compatible provider against a loopback
model server): fetched text reaches the model only delimited, and what the model
writes is kept only where the sources support it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import write_tiny_curriculum

from learning_system.curriculum import load_curriculum
from tutor.llm.offline_provider import OfflineProvider
from tutor.llm.openai_provider import OpenAIProvider
from tutor.llm.recorder import MemoryRecorder
from tutor.scout import prepare
from tutor.scout.fetch import FetchLimits
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply
from tutor.testing.page_server import Page, PageServer

LIMITS = FetchLimits(connect_timeout=1.0, read_timeout=1.0, deadline=1.0)
PAGE = (
    "Nesterov momentum evaluates the gradient at the look-ahead position, which corrects "
    "the velocity before it overshoots a narrow valley."
)
INVENTED = "Quantum chromodynamics explains why gluons stay confined inside hadrons."
# kept only as far as the program's checks support it (issue 22): here, the source's own words
SYNTHESIS = PAGE


pytestmark = pytest.mark.usefixtures("isolated_model_env")


@pytest.fixture
def pages():
    with PageServer() as server:
        yield server


def unmark(text: str) -> str:
    """The text inside its request's tags (`<marker>…</marker>`)."""
    return re.fullmatch(r"<(\w+)>(.*)</\1>", text, re.DOTALL).group(2)


def model_reply(body: dict) -> dict:
    payload = json.loads(body["messages"][-1]["content"])
    if payload["task"] == "verify:fact_check":  # the synthesis's fact check: all supported
        return {"claims": [{"id": c["id"], "verdict": "PASS"} for c in payload["data"]["claims"]]}
    if payload["task"] == "summarise_source":
        text = unmark(payload["data"]["untrusted_text"])
        first = text.split("\n\n")[0] if PAGE not in text else PAGE
        return {
            "takeaways": [first, INVENTED],
            "adds_vs_primary": "nothing new"
            if "Averages" in text
            else "Nesterov look-ahead gradient",
        }
    return {"synthesis": SYNTHESIS}


def setup(tmp_path: Path, pages: PageServer):
    url = pages.route(
        "/nesterov", Page.html(f"<html><body><article><p>{PAGE}</p></article></body></html>")
    )
    curriculum = load_curriculum(write_tiny_curriculum(tmp_path / "course", [("Nesterov", url)]))
    return curriculum, curriculum.lesson("P1 L02"), url


async def test_model_notes_are_checked_against_the_sources(tmp_path, pages, store):
    curriculum, lesson, url = setup(tmp_path, pages)
    with ModelServer(default=model_reply) as model:
        recorder = MemoryRecorder()
        provider = OpenAIProvider(fast_settings(model.base_url), recorder)
        digest = await prepare(lesson, curriculum, store, provider=provider, limits=LIMITS)
        await provider.aclose()  # its connections belong to this test's loop
        requests = [json.loads(r.body["messages"][-1]["content"]) for r in model.chat_requests]
    external = next(s for s in digest.sources if s.url == url)
    assert external.takeaways == [PAGE]
    assert external.adds_vs_primary == "Nesterov look-ahead gradient"
    assert any("dropped a model takeaway" in w and url in w for w in digest.warnings)
    assert INVENTED not in digest.model_dump_json()
    assert digest.synthesis == SYNTHESIS
    assert digest.sources[0].adds_vs_primary == ""
    # the synthesis is found verbatim in the sources: its fact check needs no model call
    assert {r["task"] for r in requests} == {"summarise_source", "synthesise_digest"}
    assert len(recorder.calls) == len(requests) == 3
    for request in requests:
        marker = request["marker"]
        for key, value in request["data"].items():
            if key.startswith("untrusted_"):
                assert value.startswith(f"<{marker}>")
                assert value.endswith(f"</{marker}>")
    summarise = next(
        r for r in requests if r["task"] == "summarise_source" and r["data"]["source"]["url"] == url
    )
    sent = json.dumps(summarise, ensure_ascii=False)
    marker = summarise["marker"]
    assert sent.count(PAGE) == sent.count(f"<{marker}>{PAGE}")  # only delimited
    assert summarise["data"]["source"]["title"] == "Nesterov"


async def test_a_failing_model_falls_back_to_derived_notes_with_a_warning(tmp_path, pages, store):
    curriculum, lesson, url = setup(tmp_path, pages)
    with ModelServer(default=Reply.error(500)) as model:
        provider = OpenAIProvider(fast_settings(model.base_url, max_retries=0))
        digest = await prepare(lesson, curriculum, store, provider=provider, limits=LIMITS)
        await provider.aclose()  # its connections belong to this test's loop
    external = next(s for s in digest.sources if s.url == url)
    assert external.takeaways == [PAGE]  # the page's own lead sentence
    assert any("could not summarise" in w and url in w for w in digest.warnings)
    assert any("could not write the synthesis" in w for w in digest.warnings)
    assert digest.synthesis.startswith("Averages and Spread: ")


async def test_an_ungrounded_synthesis_is_replaced_by_the_derived_one(tmp_path, pages, store):
    curriculum, lesson, _ = setup(tmp_path, pages)

    def reply(body: dict) -> dict:
        answer = model_reply(body)
        return {"synthesis": INVENTED} if "synthesis" in answer else answer

    with ModelServer(default=reply) as model:
        provider = OpenAIProvider(fast_settings(model.base_url))
        digest = await prepare(lesson, curriculum, store, provider=provider, limits=LIMITS)
        await provider.aclose()  # its connections belong to this test's loop
    assert INVENTED not in digest.synthesis
    assert any("dropped the model's synthesis" in w for w in digest.warnings)


async def test_no_model_is_asked_offline_or_without_one(tmp_path, pages, store):
    curriculum, lesson, _ = setup(tmp_path, pages)
    with ModelServer(default=model_reply) as model:
        provider = OpenAIProvider(fast_settings(model.base_url))
        await prepare(lesson, curriculum, store, provider=provider, offline=True, limits=LIMITS)
        await prepare(lesson, curriculum, store, provider=OfflineProvider(), limits=LIMITS)
        await provider.aclose()
        assert model.chat_requests == []


async def test_a_synthesis_the_fact_check_disputes_is_not_printed(tmp_path, pages, store):
    """Sharing words with the sources is not enough: the synthesis goes through fact_check, and
    a sentence the verifier disputes is dropped (here the only one, so it is derived)."""
    curriculum, lesson, _ = setup(tmp_path, pages)
    wrong = "Averages and spread: the dot product of two vectors is a vector, like the mean."

    def reply(body: dict) -> dict:
        payload = json.loads(body["messages"][-1]["content"])
        if payload["task"] == "verify:fact_check":
            return {
                "claims": [
                    {"id": c["id"], "verdict": "ISSUES", "explanation": "a dot product is a scalar"}
                    for c in payload["data"]["claims"]
                ]
            }
        answer = model_reply(body)
        return {"synthesis": wrong} if "synthesis" in answer else answer

    with ModelServer(default=reply) as model:
        provider = OpenAIProvider(fast_settings(model.base_url))
        try:
            digest = await prepare(lesson, curriculum, store, provider=provider, limits=LIMITS)
        finally:
            await provider.aclose()  # its connections belong to this test's loop
    assert "dot product" not in digest.synthesis
    assert any("the fact check did not pass them" in w for w in digest.warnings)


async def test_a_verifier_that_passes_everything_cannot_get_a_false_synthesis_printed(
    tmp_path, pages, store
):
    """The program's checks are the floor (issue 22): the verifier model passes every sentence,
    but the false one — sharing its words with the source — is not found in the sources' text,
    so it is dropped with a warning; the sentence the source says is kept."""
    curriculum, lesson, _ = setup(tmp_path, pages)
    false = (
        "Nesterov momentum evaluates the gradient at the current position, which never "
        "corrects the velocity before a narrow valley."
    )

    def reply(body: dict) -> dict:
        answer = model_reply(body)  # its fact check passes every claim
        return {"synthesis": f"{PAGE} {false}"} if "synthesis" in answer else answer

    with ModelServer(default=reply) as model:
        provider = OpenAIProvider(fast_settings(model.base_url))
        digest = await prepare(lesson, curriculum, store, provider=provider, limits=LIMITS)
        await provider.aclose()
        verified = [
            r
            for r in model.chat_requests
            if "verify:fact_check" in r.body["messages"][-1]["content"]
        ]
    assert verified, "the synthesis went to the verifier model, which passed it"
    assert digest.synthesis == PAGE
    assert "never corrects" not in digest.model_dump_json()
    assert any("dropped 1 of 2 sentences" in w for w in digest.warnings), digest.warnings
