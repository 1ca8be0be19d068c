"""Property: thousands of random and mutated envelopes, receipts and turns give only pydantic
ValidationErrors or verdicts / Emit / Block — never any other exception."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tutor.gates.checker import Block, Emit, check_turn
from tutor.gates.envelopes import GATES, QuizQuestion, parse_envelope
from tutor.gates.mcq import audit_all, mechanical_verdict
from tutor.gates.offline_verifier import verify
from tutor.gates.receipts import Receipt, make_receipt
from tutor.gates.samples import DIGEST, SAMPLES
from tutor.gates.turns import Turn
from tutor.gates.verdicts import VERDICT_FOR_GATE

SETTINGS = settings(
    max_examples=1200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-5, max_value=10)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(
        [
            "",
            " ",
            "c1",
            "q1",
            "PASS",
            "ISSUES",
            "UNVERIFIED",
            "mcq",
            "high",
            "fact_check",
            "quiz_audit",
            "grade_audit",
            "review",
            "teach",
            "ask",
            "probe",
            "checkpoint",
            "m",
            "Warm-up",
            "a",
            "c",
            "1b, 2c",
        ]
    )
    | st.text(max_size=30)
)
scalar_text = st.sampled_from(["", " ", "\n\n", "…", "1a, 2b", "NOT", "x"]) | st.text(max_size=5)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)

KIND_FOR_GATE = {
    "fact_check": "teach",
    "quiz_audit": "ask",
    "grade_audit": "grade",
    "review": "records",
}
BASE = {kind: make() for kind, make in ((k, lambda f=f: f("m")) for k, f in SAMPLES.items())}


def mutate(data: st.DataObject, value: Any, depth: int = 0) -> Any:
    """One random change somewhere inside a JSON-like value."""
    if isinstance(value, dict) and value and depth < 6:
        key = data.draw(st.sampled_from(sorted(value, key=str)))
        action = data.draw(st.sampled_from(["recurse"] * 5 + ["delete", "replace", "add"]))
        out = dict(value)
        if action == "recurse":
            out[key] = mutate(data, value[key], depth + 1)
        elif action == "delete":
            del out[key]
        elif action == "replace":
            out[key] = data.draw(json_values)
        else:
            out[data.draw(st.text(min_size=1, max_size=10))] = data.draw(json_values)
        return out
    if isinstance(value, list) and value and depth < 6:
        i = data.draw(st.integers(0, len(value) - 1))
        action = data.draw(st.sampled_from(["recurse"] * 4 + ["delete", "duplicate", "swap"]))
        out = list(value)
        if action == "recurse":
            out[i] = mutate(data, value[i], depth + 1)
        elif action == "delete":
            del out[i]
        elif action == "duplicate":
            out.insert(i, copy.deepcopy(value[i]))
        else:
            j = data.draw(st.integers(0, len(value) - 1))
            out[i], out[j] = out[j], out[i]
        return out
    keep_type = data.draw(st.integers(0, 3)) > 0
    if keep_type and isinstance(value, bool):
        return not value
    if keep_type and isinstance(value, int):
        return value + data.draw(st.integers(-2, 2))
    if keep_type and isinstance(value, str):
        cut = data.draw(st.integers(0, len(value)))
        end = data.draw(st.integers(cut, len(value)))
        return value[:cut] + data.draw(scalar_text) + value[end:]
    return data.draw(json_values)


def assert_outcome(out: object) -> None:
    assert isinstance(out, (Emit, Block)), out
    event(f"{type(out).__name__} {getattr(out, 'code', '')}")
    if isinstance(out, Block):
        assert out.banner.endswith(f"(code {out.code})")


@settings(SETTINGS, max_examples=500)
@given(
    data=st.data(),
    gate=st.sampled_from(GATES),
    fields=st.dictionaries(
        st.sampled_from(
            [
                "claims",
                "rendered_content",
                "source_urls",
                "source_url",
                "source_file",
                "reference_excerpt",
                "context",
                "questions_json",
                "purpose",
                "concept",
                "bloom_levels",
                "source_excerpt",
                "item",
                "learner_answer",
                "proposed_grade",
                "rubric",
                "batch_id",
                "writes",
                "other",
            ]
        ),
        json_values,
        max_size=8,
    ),
)
def test_random_envelopes(data, gate, fields):
    try:
        env = parse_envelope({"gate": gate, **fields})
    except ValidationError:
        return
    verdict = verify(env)
    assert isinstance(verdict, VERDICT_FOR_GATE[env.gate])
    try:
        receipt = make_receipt("m", env, verdict, data.draw(st.integers(0, 2)), "offline")
        turn = Turn(
            message_id="m", kind=KIND_FOR_GATE[env.gate], content=data.draw(st.text(max_size=40))
        )
    except ValidationError:
        return
    assert_outcome(check_turn(turn, [receipt], DIGEST))


@SETTINGS
@given(data=st.data(), kind=st.sampled_from(sorted(BASE)))
def test_mutated_receipts_and_turns(data, kind):
    turn, receipts, digest = BASE[kind]
    turn_data = turn.model_dump(mode="json")
    receipt_data = [r.model_dump(mode="json") for r in receipts]
    target = data.draw(st.sampled_from(["turn", "receipt", "both", "envelope"]))
    if target in ("turn", "both"):
        turn_data = mutate(data, turn_data)
    if target in ("receipt", "both"):
        receipt_data = mutate(data, receipt_data)
    try:
        new_turn = Turn.model_validate(turn_data)
        if target == "envelope":
            # re-made, so the receipt id matches and deeper rules are reached
            new_receipts = []
            for r in receipt_data:
                env = parse_envelope(mutate(data, r["envelope"]))
                cycles = data.draw(st.integers(0, 2))
                verifier = data.draw(st.sampled_from(["offline", "model", "none"]))
                new_receipts.append(make_receipt("m", env, verify(env), cycles, verifier))
        else:
            new_receipts = [Receipt.model_validate(r) for r in receipt_data]
    except ValidationError:
        event("ValidationError")
        return
    assert_outcome(check_turn(new_turn, new_receipts, digest))


@settings(SETTINGS, max_examples=800)
@given(data=st.data())
def test_mutated_questions_audit(data):
    turn, _, _ = BASE["ask"]
    questions = mutate(data, [q.model_dump(mode="json") for q in turn.questions])
    if not isinstance(questions, list):
        return
    try:
        qs = [QuizQuestion.model_validate(q) for q in questions]
    except ValidationError:
        return
    issues = audit_all(qs)
    verdict = mechanical_verdict(qs)
    assert (verdict.verdict == "ISSUES") == any(i.severity != "low" for i in issues)
