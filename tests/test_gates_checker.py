"""The gate checker: every block code has a failing case here, and every rule a passing one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tutor.gates.checker import Block, Emit, check_turn
from tutor.gates.codes import BLOCK_CODES
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import Claim, FactCheckEnvelope, QuizQuestion
from tutor.gates.offline_verifier import unverified, verify
from tutor.gates.receipts import Receipt, make_receipt, receipt_hash
from tutor.gates.samples import (
    CLAIMS,
    DIGEST,
    EXTERNAL,
    EXTERNAL_TEXT,
    LONG_KEY_QUESTION,
    PRIMARY,
    PRIMARY_TEXT,
    QUESTIONS,
    SAMPLES,
    TEACHING,
    fact_envelope,
    quiz_envelope,
    render_questions,
    sample_ask,
    sample_grade,
    sample_records,
    sample_teach,
    sample_teach_and_ask,
)
from tutor.gates.turns import Turn
from tutor.gates.verdicts import (
    ClaimVerdict,
    FactCheckVerdict,
    GradeAuditVerdict,
    QuizAuditVerdict,
    QuizIssue,
    ReviewVerdict,
)

Case = tuple[Turn, list[Receipt], GateDigest]


def receipt(mid: str, env, verdict=None, cycles: int = 0, verifier: str = "offline") -> Receipt:
    return make_receipt(mid, env, verdict if verdict is not None else verify(env), cycles, verifier)


def forged(mid: str, env, verdict, cycles: int, verifier: str = "model") -> Receipt:
    """A receipt built without validation (as a bug or a tampered store could), with an id that
    matches its content, so only the rule under test can catch it."""
    rid = receipt_hash(mid, env, verdict, cycles, verifier)
    return Receipt.model_construct(
        receipt_id=rid,
        message_id=mid,
        gate=env.gate,
        envelope=env,
        verdict=verdict,
        cycles=cycles,
        verifier=verifier,
        unverified=[],
    )


def teach_with(
    env: FactCheckEnvelope,
    verdict=None,
    cycles=0,
    content=TEACHING,
    claims=CLAIMS,
    verifier="offline",
) -> Case:
    turn = Turn(message_id="m", kind="teach", content=content, claims=claims)
    return turn, [receipt("m", env, verdict, cycles, verifier)], DIGEST


def ask_with(
    questions: list[QuizQuestion], verdict=None, cycles=0, content=None, verifier="offline"
) -> Case:
    env = quiz_envelope().model_copy(update={"questions_json": questions})
    text = content if content is not None else render_questions(questions)
    turn = Turn(message_id="m", kind="ask", content=text, questions=questions)
    return turn, [receipt("m", env, verdict, cycles, verifier)], DIGEST


def fact_verdict(**overrides: ClaimVerdict) -> FactCheckVerdict:
    claims = [overrides.get(c.id, ClaimVerdict(id=c.id, verdict="PASS")) for c in CLAIMS]
    return FactCheckVerdict(claims=claims)


def grade_case(
    answer: str,
    passed: bool,
    verdict=None,
    cycles=0,
    verifier="offline",
    item: QuizQuestion | None = None,
    questions=None,
) -> Case:
    turn, [r], digest = sample_grade("m")
    env = r.envelope.model_copy(
        update={
            "learner_answer": answer,
            "proposed_grade": r.envelope.proposed_grade.model_copy(update={"passed": passed}),
            **({"item": item} if item is not None else {}),
        }
    )
    qs = questions if questions is not None else [env.item]
    turn = Turn(message_id="m", kind="grade", content="Graded.", questions=qs)
    return turn, [receipt("m", env, verdict, cycles, verifier)], digest


def review_case(verdict, cycles) -> Case:
    turn, [r], digest = sample_records("m")
    return turn, [receipt("m", r.envelope, verdict, cycles, "model")], digest


LONG_KEY = LONG_KEY_QUESTION


class Boom(GateDigest):
    def grounds(self, sources: list[str], part: str) -> bool:
        raise RuntimeError("boom")


# code -> a case that must be blocked with exactly that code
FAILING: dict[str, Callable[[], Case]] = {
    "G01": lambda: ({"message_id": "m"}, [], DIGEST),  # type: ignore[dict-item]
    "G02": lambda: (sample_teach("m")[0], [], DIGEST),
    "G03": lambda: (
        sample_grade("m")[0],
        [*sample_grade("m")[1], *sample_teach("m")[1]],
        DIGEST,
    ),
    "G04": lambda: (sample_teach("m")[0], sample_teach("other")[1], DIGEST),
    "G05": lambda: (sample_teach("m")[0], sample_teach("m")[1] * 2, DIGEST),
    "G06": lambda: (
        sample_teach("m")[0],
        [sample_teach("m")[1][0].model_copy(update={"cycles": 1})],
        DIGEST,
    ),
    "G07": lambda: (
        sample_teach("m")[0],
        [forged("m", fact_envelope(), QuizAuditVerdict(verdict="PASS"), 0)],
        DIGEST,
    ),
    "G08": lambda: teach_with(fact_envelope(), verifier="none"),
    "G09": lambda: (
        sample_teach("m")[0],
        [forged("m", fact_envelope(), fact_verdict(), 3)],
        DIGEST,
    ),
    "G10": lambda: (
        Turn(message_id="m", kind="notice", content=TEACHING, claims=CLAIMS),
        [],
        DIGEST,
    ),
    "G99": lambda: (sample_teach("m")[0], sample_teach("m")[1], Boom(sources=dict(DIGEST.sources))),
    "F01": lambda: teach_with(
        fact_envelope().model_copy(
            update={"claims": [*CLAIMS, Claim(id="c4", claim="Momentum keeps a running average.")]}
        )
    ),
    "F02": lambda: teach_with(fact_envelope(), content=TEACHING + " One more sentence."),
    "F03": lambda: teach_with(
        fact_envelope().model_copy(
            update={"source_urls": [PRIMARY, "https://elsewhere.example/page"]}
        )
    ),
    "F04": lambda: teach_with(
        fact_envelope().model_copy(
            update={"reference_excerpt": "A large step size always converges faster."}
        )
    ),
    "F05": lambda: teach_with(fact_envelope().model_copy(update={"source_urls": []})),
    "F06": lambda: teach_with(
        fact_envelope(),
        FactCheckVerdict(claims=[ClaimVerdict(id="c1", verdict="PASS")]),
        verifier="model",
    ),
    "F07": lambda: teach_with(
        fact_envelope(), claims=[*CLAIMS, Claim(id="c9", claim="The step size scales each move.")]
    ),
    "F10": lambda: teach_with(
        fact_envelope(rendered=TEACHING + " Cosine similarity can exceed 1 for long vectors."),
        content=TEACHING + " Cosine similarity can exceed 1 for long vectors.",
    ),
    "F08": lambda: teach_with(
        fact_envelope(),
        fact_verdict(c2=ClaimVerdict(id="c2", verdict="ISSUES", explanation="too strong")),
        cycles=1,
        verifier="model",
    ),
    "F09": lambda: teach_with(
        fact_envelope(),
        fact_verdict(c2=ClaimVerdict(id="c2", verdict="ISSUES", explanation="too strong")),
        cycles=2,
        verifier="model",
    ),
    "Q01": lambda: ask_with([*QUESTIONS[:2], LONG_KEY]),
    "Q02": lambda: (
        Turn(
            message_id="m",
            kind="ask",
            content=render_questions(QUESTIONS[:2]),
            questions=QUESTIONS[:2],
        ),
        [receipt("m", quiz_envelope())],
        DIGEST,
    ),
    "Q03": lambda: ask_with(
        QUESTIONS, content=render_questions(QUESTIONS).replace("Warm-up", "Warmup")
    ),
    "Q04": lambda: ask_with(
        QUESTIONS,
        QuizAuditVerdict(
            verdict="ISSUES",
            issues=[QuizIssue(id="q1", severity="medium", problem="distractor b is implausible")],
        ),
        cycles=1,
        verifier="model",
    ),
    "Q05": lambda: ask_with(
        QUESTIONS,
        QuizAuditVerdict(
            verdict="ISSUES",
            issues=[QuizIssue(id="q1", severity="high", problem="two options are correct")],
        ),
        cycles=2,
        verifier="model",
    ),
    "Q06": lambda: (
        Turn(message_id="m", kind="ask", content="Ready for the checkpoint?"),
        [receipt("m", quiz_envelope())],
        DIGEST,
    ),
    "R01": lambda: grade_case("c", True, GradeAuditVerdict(verdict="ISSUES"), 0, "model"),
    "R02": lambda: grade_case("c", True, GradeAuditVerdict(verdict="ISSUES"), 2, "model"),
    "R03": lambda: grade_case("c", True, questions=[QUESTIONS[0]]),
    "R04": lambda: grade_case("a", True, GradeAuditVerdict(verdict="PASS"), 0, "model"),
    "V01": lambda: review_case(ReviewVerdict(verdict="ISSUES", rejected=["a1"]), 1),
    "V02": lambda: review_case(ReviewVerdict(verdict="ISSUES", rejected=["a1"]), 2),
}


def test_every_block_code_has_a_failing_case():
    assert set(FAILING) == set(BLOCK_CODES)


@pytest.mark.parametrize("code", sorted(FAILING))
def test_block_code(code):
    turn, receipts, digest = FAILING[code]()
    out = check_turn(turn, receipts, digest)
    assert isinstance(out, Block), out
    assert out.code == code, out.reason
    assert out.banner.startswith("Withheld: ") and out.banner.endswith(f"(code {code})")


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_well_formed_turns_are_emitted(kind):
    turn, receipts, digest = SAMPLES[kind]("m")
    out = check_turn(turn, receipts, digest)
    assert isinstance(out, Emit), out
    assert out.content == turn.content and out.message_id == "m"


def test_a_notice_needs_no_gate():
    out = check_turn(Turn(message_id="n", kind="notice", content="Paused at step 5/6."), [], DIGEST)
    assert out == Emit(message_id="n", content="Paused at step 5/6.")


def test_a_notice_with_a_receipt_is_the_wrong_gate():
    out = check_turn(
        Turn(message_id="m", kind="notice", content="Hi"), sample_teach("m")[1], DIGEST
    )
    assert isinstance(out, Block) and out.code == "G03"


def test_grade_turn_is_not_satisfied_by_fact_check():
    turn = sample_grade("m")[0]
    out = check_turn(turn, sample_teach("m")[1], DIGEST)
    assert isinstance(out, Block) and out.code == "G03"


def test_teach_and_ask_needs_both_gates():
    turn, receipts, digest = sample_teach_and_ask("m")
    assert isinstance(check_turn(turn, receipts, digest), Emit)
    out = check_turn(turn, receipts[:1], digest)
    assert isinstance(out, Block) and out.code == "G02"


def test_unverified_marks_come_through_and_are_never_a_pass():
    turn, receipts, digest = sample_teach("m")
    out = check_turn(turn, receipts, digest)
    assert isinstance(out, Emit) and out.unverified == ["c1", "c2"]  # c3 is verbatim
    env = fact_envelope()
    none = receipt("m", env, unverified(env, "no model configured"), verifier="none")
    out = check_turn(turn, [none], digest)
    assert isinstance(out, Emit) and out.unverified == ["c1", "c2", "c3"]


def test_unverified_quiz_and_grade_mark_their_ids():
    quiz = quiz_envelope()
    turn, _, digest = sample_ask("m")
    out = check_turn(turn, [receipt("m", quiz, unverified(quiz, "timeout"), 0, "model")], digest)
    assert isinstance(out, Emit) and out.unverified == ["q1", "q2", "q3"]
    recall = QuizQuestion(id="fr1", type="free_recall", question="Explain warm-up in your words.")
    turn, [r], digest = grade_case("It starts small.", True, item=recall)
    out = check_turn(turn, [r], digest)
    assert r.verdict.verdict == "UNVERIFIED"
    assert isinstance(out, Emit) and out.unverified == ["fr1"]


def test_claims_are_found_whitespace_normalised():
    spaced = TEACHING.replace("scales each move", "scales  each\n move")
    env = fact_envelope(rendered=spaced)
    out = check_turn(*teach_with(env, content=spaced))
    assert isinstance(out, Emit)


def test_applied_corrections_are_emitted():
    wrong = "A large step size can overshoot the minimum and make the loss grow."
    right = "A large step size can overshoot the minimum, so the loss can grow."
    verdict = fact_verdict(
        c2=ClaimVerdict(id="c2", verdict="ISSUES", explanation="hedge", corrected_claim=right)
    )
    corrected = TEACHING.replace(wrong, right)
    claims = [CLAIMS[0], Claim(id="c2", claim=right), CLAIMS[2]]
    out = check_turn(
        *teach_with(fact_envelope(), verdict, content=corrected, claims=claims, verifier="model")
    )
    assert isinstance(out, Emit), out
    out = check_turn(*teach_with(fact_envelope(), verdict, content=TEACHING, verifier="model"))
    assert isinstance(out, Block) and out.code == "F02"


def test_legacy_single_source_is_grounded():
    env = fact_envelope().model_copy(
        update={
            "source_urls": [],
            "source_file": PRIMARY,
            "reference_excerpt": "The step size scales that move",
        }
    )
    assert env.sources == [PRIMARY]
    assert isinstance(check_turn(*teach_with(env)), Emit)
    env = env.model_copy(
        update={"source_file": None, "source_url": EXTERNAL, "reference_excerpt": EXTERNAL_TEXT}
    )
    assert isinstance(check_turn(*teach_with(env)), Emit)


def test_excerpt_must_come_from_the_cited_sources_not_any_source():
    env = fact_envelope().model_copy(update={"source_urls": [PRIMARY]})
    out = check_turn(*teach_with(env))
    assert isinstance(out, Block) and out.code == "F04"  # its second part is the external's


def test_excerpt_parts_and_elisions_are_each_grounded():
    excerpt = PRIMARY_TEXT[2:40] + " … " + PRIMARY_TEXT[60:120] + "\n\n" + EXTERNAL_TEXT[:50]
    env = fact_envelope().model_copy(update={"reference_excerpt": excerpt})
    assert isinstance(check_turn(*teach_with(env)), Emit)


def test_low_severity_issues_are_shown_as_flags():
    verdict = QuizAuditVerdict(
        verdict="PASS",
        issues=[QuizIssue(id="q2", severity="low", problem="options differ in grammar", code=None)],
    )
    out = check_turn(*ask_with(QUESTIONS, verdict, verifier="model"))
    assert isinstance(out, Emit) and out.flags == ["q2: options differ in grammar"]
    numeric = QuizQuestion(
        id="n1", type="numeric", question="What is 2 + 2?", options=["4", "3", "5", "6"], answer=4.0
    )
    out = check_turn(*ask_with([numeric]))
    assert isinstance(out, Emit) and out.flags == ["n1: numeric options are not in order (M11)"]


def test_issues_after_two_cycles_are_withheld_with_a_banner():
    verdict = QuizAuditVerdict(
        verdict="ISSUES",
        issues=[QuizIssue(id="q1", severity="medium", problem="stem is ambiguous")],
    )
    out = check_turn(*ask_with(QUESTIONS, verdict, cycles=2, verifier="model"))
    assert isinstance(out, Block)
    assert out.banner == "Withheld: these questions did not pass the quiz audit (code Q05)"


def test_mechanical_block_names_the_mcq_codes():
    out = check_turn(*ask_with([*QUESTIONS[:2], LONG_KEY]))
    assert isinstance(out, Block) and out.code == "Q01" and out.details == ["M04"]
    leaky = "Reply like '1a, 2c, 3b'.\n\n" + render_questions(QUESTIONS)
    out = check_turn(*ask_with(QUESTIONS, content=leaky))
    assert isinstance(out, Block) and out.code == "Q01" and out.details == ["M14"]


def test_grades_agree_with_the_key():
    for answer, passed in [
        ("c", True),
        ("3", True),
        ("Warm-up", True),
        ("a", False),
        ("I don't know", False),
    ]:
        out = check_turn(*grade_case(answer, passed))
        assert isinstance(out, Emit), (answer, out)
    out = check_turn(
        *grade_case("I don't know", True, GradeAuditVerdict(verdict="PASS"), verifier="model")
    )
    assert isinstance(out, Block) and out.code == "R04"


def test_review_passes_and_rejects():
    assert isinstance(check_turn(*review_case(ReviewVerdict(verdict="PASS"), 0)), Emit)


def test_wrong_types_fail_closed():
    turn, receipts, _ = sample_teach("m")
    for bad in [
        (turn, receipts, None),
        (turn, [receipts[0].model_dump()], DIGEST),
        (turn, "receipts", DIGEST),
        (None, receipts, DIGEST),
    ]:
        out = check_turn(*bad)  # type: ignore[arg-type]
        assert isinstance(out, Block) and out.code == "G01"
    broken = Turn.model_construct(
        message_id="m", kind="teach", content=None, claims=[], questions=[]
    )
    out = check_turn(broken, receipts, DIGEST)
    assert isinstance(out, Block) and out.code == "G99"
