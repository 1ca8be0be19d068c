"""Envelopes, verdicts, receipts, digests and the offline verifier."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tutor.gates.digest_view import GateDigest, digest_from_data
from tutor.gates.envelopes import (
    FactCheckEnvelope,
    GradeAuditEnvelope,
    QuizAuditEnvelope,
    ReviewEnvelope,
    parse_envelope,
    parse_envelope_json,
)
from tutor.gates.offline_verifier import answer_index, expected_grade, unverified, verify
from tutor.gates.receipts import Receipt, make_receipt, receipt_id_ok
from tutor.gates.samples import QUESTIONS, fact_envelope, quiz_envelope, sample_records
from tutor.gates.text import excerpt_parts, normalise
from tutor.gates.verdicts import (
    ClaimVerdict,
    FactCheckVerdict,
    GradeAuditVerdict,
    QuizAuditVerdict,
    QuizIssue,
    ReviewVerdict,
)


def test_parse_envelope_picks_the_model_by_gate():
    for env in [fact_envelope(), quiz_envelope(), sample_records()[1][0].envelope]:
        data = env.model_dump(mode="json")
        assert parse_envelope(data) == env
        assert parse_envelope_json(env.model_dump_json()) == env
    assert isinstance(parse_envelope(fact_envelope().model_dump()), FactCheckEnvelope)
    assert isinstance(parse_envelope(quiz_envelope().model_dump()), QuizAuditEnvelope)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d | {"surprise": 1},
        lambda d: d | {"gate": "fact-check"},
        lambda d: {k: v for k, v in d.items() if k != "gate"},
        lambda d: d | {"claims": []},
        lambda d: d | {"claims": [{"id": "c1", "claim": "x"}, {"id": "c1", "claim": "y"}]},
        lambda d: d | {"claims": [{"id": "c1", "claim": "x", "extra": True}]},
        lambda d: d | {"source_urls": "not a list"},
    ],
)
def test_invalid_envelopes_are_rejected(mutate):
    with pytest.raises(ValidationError):
        parse_envelope(mutate(fact_envelope().model_dump()))


def test_quiz_audit_never_sees_learner_answers():
    data = quiz_envelope().model_dump() | {"learner_answer": "b"}
    with pytest.raises(ValidationError):
        parse_envelope(data)
    with pytest.raises(ValidationError):
        parse_envelope(quiz_envelope().model_dump() | {"purpose": "homework"})


def test_legacy_sources_are_normalised():
    env = FactCheckEnvelope(
        claims=[{"id": "c", "claim": "x"}],
        rendered_content="x",
        source_url="https://a.example",
        source_file="docs/en.md",
        source_urls=["https://a.example"],
        reference_excerpt="x",
    )
    assert env.sources == ["https://a.example", "docs/en.md"]


def test_verdict_validators():
    with pytest.raises(ValidationError):
        ClaimVerdict(id="c", verdict="PASS", corrected_claim="other")
    with pytest.raises(ValidationError):
        ClaimVerdict(id="c", verdict="ISSUES", corrected_claim="  ")
    assert ClaimVerdict(id="c", verdict="ISSUES", corrected_claim="fixed").corrected_claim
    with pytest.raises(ValidationError):
        QuizAuditVerdict(verdict="PASS", issues=[QuizIssue(id="q", severity="high", problem="p")])
    with pytest.raises(ValidationError):
        QuizAuditVerdict(verdict="ISSUES")
    with pytest.raises(ValidationError):
        ReviewVerdict(verdict="PASS", rejected=["w1"])
    assert FactCheckVerdict(claims=[]).verdict == "UNVERIFIED"


def test_receipt_id_is_deterministic_and_binds_content():
    env = fact_envelope()
    a = make_receipt("m1", env, verify(env), 0, "offline")
    b = make_receipt("m1", fact_envelope(), verify(fact_envelope()), 0, "offline")
    assert a.receipt_id == b.receipt_id and a.receipt_id.startswith("rcpt-")
    assert make_receipt("m2", env, verify(env), 0, "offline").receipt_id != a.receipt_id
    assert make_receipt("m1", env, verify(env), 1, "offline").receipt_id != a.receipt_id
    again = Receipt.model_validate(a.model_dump(mode="json"))
    assert again == a and receipt_id_ok(again)
    assert not receipt_id_ok(again.model_copy(update={"message_id": "m9"}))


def test_receipt_review_writes_hash_regardless_of_key_order():
    one = ReviewEnvelope(
        batch_id="b", writes=[{"kind": "concept", "id": "x", "n": {"b": 1, "a": 2}}]
    )
    two = ReviewEnvelope(
        batch_id="b", writes=[{"n": {"a": 2, "b": 1}, "id": "x", "kind": "concept"}]
    )
    ra = make_receipt("m", one, verify(one), 0, "offline")
    rb = make_receipt("m", two, verify(two), 0, "offline")
    assert ra.receipt_id == rb.receipt_id


def test_receipt_consistency_is_validated():
    env = fact_envelope()
    good = make_receipt("m", env, verify(env), 0, "offline").model_dump(mode="json")
    with pytest.raises(ValidationError):
        Receipt.model_validate(good | {"gate": "quiz_audit"})
    with pytest.raises(ValidationError):
        Receipt.model_validate(good | {"cycles": 3})
    with pytest.raises(ValidationError):
        Receipt.model_validate(good | {"unverified": []})  # c1, c2 are unverified
    with pytest.raises(ValidationError):
        Receipt.model_validate(good | {"verdict": {"verdict": "PASS", "issues": []}})
    with pytest.raises(ValidationError):
        make_receipt("m", env, QuizAuditVerdict(verdict="PASS"), 0, "offline")
    assert make_receipt("m", env, verify(env), 0, "offline").unverified == ["c1", "c2"]


def test_offline_fact_check_passes_only_verbatim_claims():
    verdict = verify(fact_envelope())
    assert [c.verdict for c in verdict.claims] == ["UNVERIFIED", "UNVERIFIED", "PASS"]


def test_offline_grading():
    q = QUESTIONS[1]  # key: index 2, "Warm-up"
    assert [answer_index(q, a) for a in ["c", "C)", "3", "warm-up", "idk", "e", "9", "hmm"]] == [
        2,
        2,
        2,
        2,
        -1,
        None,
        None,
        None,
    ]
    assert expected_grade(q, "c") is True and expected_grade(q, "a") is False
    assert expected_grade(q, "no idea at all") is None
    num = q.model_copy(update={"type": "numeric", "answer": 0.32, "tolerance": 0.005})
    assert expected_grade(num, "0.32") and expected_grade(num, "0.324")
    assert expected_grade(num, "0.33") is False
    env = GradeAuditEnvelope(item=q, learner_answer="b", proposed_grade={"passed": True})
    assert verify(env) == GradeAuditVerdict(verdict="ISSUES", explanation=verify(env).explanation)
    assert verify(env.model_copy(update={"learner_answer": "c"})).verdict == "PASS"


def test_offline_review_checks_writes():
    env = ReviewEnvelope(
        batch_id="b",
        writes=[{"kind": "concept", "id": "x"}, {"id": "y"}, {"kind": "concept", "id": "x"}],
    )
    verdict = verify(env)
    assert verdict.verdict == "ISSUES" and verdict.rejected == ["y", "x"]
    assert verify(ReviewEnvelope(batch_id="b", writes=[])).verdict == "PASS"


def test_unverified_verdicts_for_every_gate():
    for env in [fact_envelope(), quiz_envelope(), sample_records()[1][0].envelope]:
        v = unverified(env, "no model")
        words = {c.verdict for c in v.claims} if isinstance(v, FactCheckVerdict) else {v.verdict}
        assert words == {"UNVERIFIED"}


def test_digest_from_either_shape():
    d = digest_from_data({"sources": {"a": "text A"}})
    assert d == GateDigest(sources={"a": "text A"})
    d = digest_from_data(
        {
            "synthesis": "s",
            "sources": [
                {"url": "u", "excerpt": "ex", "takeaways": ["t1"], "status": "ok"},
                {"file": "docs/en.md", "excerpt": "primary"},
            ],
        }
    )
    assert d.sources == {"u": "ex\n\nt1", "docs/en.md": "primary"}
    assert d.normalised("u") == "ex t1" and d.normalised("missing") is None
    for bad in [[], {"sources": 3}, {"sources": [{"excerpt": "x"}]}, {"sources": ["x"]}]:
        with pytest.raises(ValueError):
            digest_from_data(bad)


def test_text_normalisation():
    assert normalise("  a\n\tb  ﬁ ") == "a b fi"
    assert excerpt_parts("one two\n\nthree … four...five ") == ["one two", "three", "four", "five"]
