"""CONTRACT.md's "Models" section, held to the code: the failures the breaker counts, the
request bound for an endpoint that never answers validly, and the notice the learner reads."""

from __future__ import annotations

from pathlib import Path

from test_model_format import MAX_REQUESTS

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


GATES = " ".join(CONTRACT.split("## Gates", 1)[1].split("## Block codes", 1)[0].split())


def test_the_floor_rule_is_the_contract_s():
    """The rule as written, and the code that keeps it: a model PASS on a claim the
    deterministic verifier cannot support is UNVERIFIED; a model's ISSUES stand; a
    model-written question is UNVERIFIED whatever the audit says."""
    from tutor.gates import floor, samples
    from tutor.gates.envelopes import QuizQuestion
    from tutor.gates.offline_verifier import verify
    from tutor.gates.verdicts import ClaimVerdict, FactCheckVerdict, QuizAuditVerdict

    assert "The program's checks are the floor" in GATES
    assert "add doubt, never remove it" in GATES and '`written_by` "model"' in GATES
    env = samples.fact_envelope()
    model = FactCheckVerdict(
        claims=[
            ClaimVerdict(id="c1", verdict="PASS"),
            ClaimVerdict(id="c2", verdict="ISSUES", explanation="no"),
            ClaimVerdict(id="c3", verdict="PASS"),
        ]
    )
    held = floor.floor(env, model, verify(env))
    assert isinstance(held, FactCheckVerdict)
    assert [c.verdict for c in held.claims] == ["UNVERIFIED", "ISSUES", "PASS"]
    from tutor.engine.gatekeeper import Gatekeeper

    q = QuizQuestion(id="q1", type="free_recall", question="Why does the loss grow?")
    quiz = Gatekeeper.ask_envelope([q], "probe", "step size", "")
    ids = [q.id for q in quiz.questions_json]
    passed = QuizAuditVerdict(verdict="PASS")
    assert floor.floor(quiz, passed, verify(quiz), model_written=ids).verdict == "UNVERIFIED"
    assert floor.floor(quiz, passed, verify(quiz)).verdict == "PASS"
