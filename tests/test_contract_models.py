"""CONTRACT.md's "Models" section, held to the code: the failures the breaker counts, the
request bound for an endpoint that never answers validly, and the notice the learner reads."""

from __future__ import annotations

from pathlib import Path

from tests.test_model_format import MAX_REQUESTS
from tutor.llm import breaker
from tutor.llm.openai_provider import MAX_REASKS
from tutor.llm.settings import load_settings

CONTRACT = (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8")
SECTION = " ".join(CONTRACT.split("## Models", 1)[1].split("## Scout and digests", 1)[0].split())


def test_invalid_answers_are_breaker_failures_as_the_contract_says():
    assert breaker.FORMAT_FAILURES == {"schema", "refusal"}
    assert breaker.FORMAT_FAILURES <= breaker.ENDPOINT_FAILURES
    assert "length" not in breaker.ENDPOINT_FAILURES and "not a `length` cut-off" in SECTION
    assert "`schema`, `refusal`" in SECTION


def test_the_request_bound_and_the_notice_are_the_contract_s():
    settings = load_settings()
    assert (settings.breaker_failures, settings.max_retries, MAX_REASKS) == (3, 2, 2)
    assert f"at most {MAX_REQUESTS} requests" in SECTION
    assert " ".join(breaker.FORMAT_NOTICE.split()) in SECTION
