"""The request bounds of CONTRACT.md (issue 22): each piece of evidence once per gate request,
verbatim claims settled without a model, the drafter's excerpt cut where the contract says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutor.engine import drafter
from tutor.gates import samples
from tutor.gates.envelopes import Claim, FactCheckEnvelope
from tutor.llm import gate_data
from tutor.llm.openai_provider import OpenAIProvider
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer

CONTRACT = " ".join(
    (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8").split()
)
pytestmark = pytest.mark.usefixtures("isolated_model_env")


def test_the_contract_states_the_bounds_the_code_keeps():
    assert gate_data.EXCERPT_BUDGET == 800 and "within 800 characters" in CONTRACT
    assert drafter.DRAFT_EXCERPT_TOKENS == 280 and "about 280 tokens" in CONTRACT
    assert f"`{drafter.CONTINUED}`" in CONTRACT


def excerpt_of(n: int) -> str:
    return "\n\n".join(
        f"Paragraph {i} says the learning rate rate{i:03d} scales each step of descent."
        for i in range(n)
    )


def test_a_fact_check_sends_each_claim_and_excerpt_paragraph_once():
    excerpt = excerpt_of(30)
    claims = [Claim(id=f"c{i}", claim=f"The rate rate{i:03d} scales a step.") for i in (3, 7)]
    envelope = FactCheckEnvelope(
        claims=claims, rendered_content="draft", reference_excerpt=excerpt, context="rates"
    )
    data = gate_data.envelope_data(envelope)
    texts = [str(e["text"]) for e in data["excerpt"]]
    assert len(texts) == len(set(texts)) and sum(map(len, texts)) <= gate_data.EXCERPT_BUDGET
    assert any("rate003" in t for t in texts) and any("rate007" in t for t in texts)
    ids = {e["id"] for e in data["excerpt"]}
    assert all(set(c["see"]) <= ids and c["see"] for c in data["claims"])
    assert "draft" not in json.dumps(data)  # the draft is its claims: not sent again


async def test_a_fact_check_of_verbatim_claims_makes_no_model_call():
    envelope = samples.fact_envelope()
    verbatim = [c for c in envelope.claims if c.claim.rstrip(".") in envelope.reference_excerpt]
    assert verbatim, "the sample has a verbatim claim"
    only = envelope.model_copy(update={"claims": verbatim})
    with ModelServer() as srv:
        provider = OpenAIProvider(fast_settings(srv.base_url))
        verdict = await provider.verify(only)
        await provider.aclose()
    assert srv.chat_requests == []
    assert {c.verdict for c in verdict.claims} == {"PASS"}


@given(st.lists(st.sampled_from(["text line", "```", "", "code = 1"]), max_size=400))
def test_the_drafters_excerpt_is_never_cut_inside_a_code_block(lines):
    excerpt = "\n".join(lines)
    given_part, rest = drafter.split_excerpt(excerpt, 200)
    if rest:
        assert given_part.count("```") % 2 == 0
        assert drafter.estimated_tokens(given_part) <= 200
    assert given_part.replace("\n", "") + rest.replace("\n", "") == excerpt.replace("\n", "")
