"""Prepared questions audited together (issue 22: a third of the tokens): one quiz_audit request
for several questions, each question still getting its own verdict and receipt — against both
loopback endpoints of tests/test_model_gaps.py."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_model_gaps import endpoint, parts

from tutor.engine.gatekeeper import Gatekeeper
from tutor.gates import samples
from tutor.gates.checker import Block, Emit
from tutor.llm import make_provider
from tutor.llm.openai_provider import max_requests_per_call
from tutor.llm.settings import load_settings

pytestmark = pytest.mark.usefixtures("isolated_model_env")
__all__ = ["endpoint"]  # the fixture: both loopback servers in turn


def gatekeeper(store, base_url: str) -> Gatekeeper:
    settings = load_settings(base_url=base_url, model="loopback-model", timeout=5, max_retries=0)
    return Gatekeeper(store, samples.DIGEST, make_provider(settings))


def audits(bodies: list[dict]) -> list[list[str]]:
    """The question ids of each quiz_audit request, in order."""
    return [
        [q["id"] for q in parts(b)[2]["questions_json"]]
        for b in bodies
        if parts(b)[0] == "GATE:quiz_audit"
    ]


def auditor(reply: dict) -> Any:
    def behave(body: dict) -> tuple[str, Any]:
        return ("json", reply) if parts(body)[0] == "GATE:quiz_audit" else ("status", 500)

    return behave


def asked(gate: Gatekeeper, n: int) -> Emit | Block:
    """Question n of the samples asked as a probe question (its audit as prepared ahead)."""
    q = samples.QUESTIONS[n]
    content = samples.render_questions([q])
    return gate.ask(f"m-{q.id}", content, [q], "probe", "step size", samples.REFERENCE)


def prepare(gate: Gatekeeper) -> None:
    gate.prewarm(
        [gate.ask_envelope([q], "probe", "step size", samples.REFERENCE) for q in samples.QUESTIONS]
    )


def test_prepared_questions_go_in_one_request_and_each_gets_its_own_verdict(store, endpoint):
    """The verifier finds a problem with q2 only: q2 is withheld, q1 and q3 are shown as
    passed by the model, each with a receipt of its own one-question envelope."""
    issue = {"id": "q2", "severity": "high", "problem": "two options are defensible"}
    server = endpoint(auditor({"verdict": "ISSUES", "issues": [issue]}))
    gate = gatekeeper(store, server.base_url)
    prepare(gate)
    assert audits(server.bodies()) == [["q1", "q2", "q3"]]
    outcomes = [asked(gate, n) for n in range(3)]
    assert len(server.bodies()) == 1, "the questions were audited again when asked"
    assert isinstance(outcomes[1], Block)
    for n in (0, 2):
        assert isinstance(outcomes[n], Emit) and not outcomes[n].unverified
        (receipt,) = store.receipts.of_message(f"m-q{n + 1}")
        assert (receipt["payload"]["verifier"], receipt["outcome"]) == ("model", "PASS")
        assert [q["id"] for q in receipt["payload"]["envelope"]["questions_json"]] == [f"q{n + 1}"]


@pytest.mark.parametrize(
    "reply",
    [
        {"verdict": "UNVERIFIED", "issues": []},
        {"verdict": "ISSUES", "issues": [{"id": "q9", "severity": "high", "problem": "x"}]},
        {"verdict": "ISSUES", "issues": [{"id": "q2", "severity": "low", "problem": "style"}]},
    ],
    ids=["unverified", "names-no-question", "only-a-low-note"],
)
def test_a_question_the_batch_reply_does_not_clearly_pass_is_treated_as_if_audited_alone(
    store,
    tmp_path,
    endpoint,
    reply,
):
    """No question is passed by a batch reply that does not pass it clearly: each question's
    outcome is the one a single audit with the same reply gives, and none is PASS."""
    from learning_system.store import Store

    server = endpoint(auditor(reply))
    gate = gatekeeper(store, server.base_url)
    prepare(gate)
    assert len(audits(server.bodies())) == 1
    with Store(tmp_path / "alone.db") as alone_store:
        alone = gatekeeper(alone_store, server.base_url)
        for n in range(3):
            batched, single = asked(gate, n), asked(alone, n)
            assert type(batched) is type(single)
            if isinstance(batched, Emit) and isinstance(single, Emit):
                assert batched.unverified == single.unverified
            (receipt,) = store.receipts.of_message(f"m-q{n + 1}")
            assert receipt["outcome"] != "PASS"
    assert len(audits(server.bodies())) == 4  # the batch, then each question alone


def test_a_batch_the_model_cannot_answer_is_one_failure_and_offline_verdicts(store, endpoint):
    """A reply that never fits the schema: one call (its bounded re-asks), and every question
    of the batch falls back to the offline checks — never a pass."""
    server = endpoint(auditor({"verdict": "MAYBE"}))
    gate = gatekeeper(store, server.base_url)
    prepare(gate)
    sent = len(server.bodies())
    assert 1 <= sent <= max_requests_per_call(0)
    for n in range(3):
        asked(gate, n)
        (receipt,) = store.receipts.of_message(f"m-q{n + 1}")
        assert receipt["payload"]["verifier"] == "offline"
        assert receipt["outcome"] != "PASS"
    assert len(server.bodies()) == sent


class CancelledVerifier:
    """A verifier whose every call is cancelled under it, as what is in flight is when the
    breaker opens (seen in the app against an always-429 endpoint)."""

    offline = False
    model = "cancelled"

    async def structured(self, **kwargs: Any) -> Any:
        raise asyncio.CancelledError


def test_a_cancelled_verification_leaves_no_question_waiting_for_it(store):
    """The batch's cancellation is each question's verifier error: the deterministic verdict,
    logged, never a pass — and a question asked later finds it instead of waiting for ever."""
    gate = Gatekeeper(store, samples.DIGEST, CancelledVerifier())
    prepare(gate)
    for n in range(3):
        asked(gate, n)
        (receipt,) = store.receipts.of_message(f"m-q{n + 1}")
        assert receipt["payload"]["verifier"] == "offline" and receipt["outcome"] != "PASS"
