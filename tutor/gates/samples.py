"""Well-formed example turns with their receipts and digest: a reference for the engine, and the
material of the gate tests and benchmark. Each `sample_*` returns (turn, receipts, digest) that
check_turn emits."""

from __future__ import annotations

from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import (
    Claim,
    FactCheckEnvelope,
    GradeAuditEnvelope,
    ProposedGrade,
    QuizAuditEnvelope,
    QuizQuestion,
    ReviewEnvelope,
)
from tutor.gates.offline_verifier import verify
from tutor.gates.receipts import Receipt, make_receipt
from tutor.gates.turns import Turn

PRIMARY = "phases/01-basics/03-step-size/docs/en.md"
EXTERNAL = "https://example.org/notes/step-size"

PRIMARY_TEXT = (
    "# Step size\n\nEach update moves the parameters against the gradient. The step size "
    "scales that move: a small step size makes slow but steady progress, while a large one can "
    "overshoot the minimum and make the loss grow.\n\nA common first choice is 0.01, tuned by "
    "watching the loss curve."
)
EXTERNAL_TEXT = (
    "Schedules change the step size during training. Warm-up starts small and grows for a few "
    "hundred updates; decay shrinks it later so that the parameters settle."
)

DIGEST = GateDigest(sources={PRIMARY: PRIMARY_TEXT, EXTERNAL: EXTERNAL_TEXT})

CLAIMS = [
    Claim(id="c1", claim="The step size scales each move against the gradient."),
    Claim(id="c2", claim="A large step size can overshoot the minimum and make the loss grow."),
    Claim(id="c3", claim="Warm-up starts small and grows for a few hundred updates"),
]
TEACHING = (
    "[Step 2/5 · Step size]\n\n"
    "The step size scales each move against the gradient. "
    "A large step size can overshoot the minimum and make the loss grow. "
    "Warm-up starts small and grows for a few hundred updates."
)
REFERENCE = (
    "The step size scales that move: a small step size makes slow but steady progress, while a "
    "large one can overshoot the minimum and make the loss grow.\n\n"
    "Warm-up starts small and grows for a few hundred updates"
)

QUESTIONS = [
    QuizQuestion(
        id="q1",
        type="mcq",
        question="What happens when updates move too far past the lowest point?",
        options=[
            "The loss can rise again",
            "The gradient turns to zero",
            "The weights stop changing",
            "The data gets reshuffled",
        ],
        correct_index=0,
        target_bloom="understand",
    ),
    QuizQuestion(
        id="q2",
        type="mcq",
        question="Which schedule starts small and grows for a few hundred updates?",
        options=["Cosine decay", "Step decay", "Warm-up", "Constant"],
        correct_index=2,
        target_bloom="remember",
    ),
    QuizQuestion(
        id="q3",
        type="mcq",
        question="Why shrink the step size late in training?",
        options=[
            "To speed up each epoch",
            "To let parameters settle",
            "To enlarge the batches",
            "To reset the optimiser",
        ],
        correct_index=1,
        target_bloom="understand",
    ),
]

# A flawed item: its key is the single, notably longest option (MCQ code M04).
LONG_KEY_QUESTION = QuizQuestion(
    id="q-long",
    type="mcq",
    question="Which one lowers the step size late in training?",
    options=["Warm-up", "Constant", "Decay that shrinks it gradually over epochs", "Restarts"],
    correct_index=2,
)


def render_questions(questions: list[QuizQuestion]) -> str:
    lines = []
    for n, q in enumerate(questions, 1):
        lines.append(f"{n}. {q.question}")
        lines.extend(f"   {chr(ord('a') + i)}) {o}" for i, o in enumerate(q.options))
    return "\n".join(lines)


def fact_envelope(rendered: str = TEACHING) -> FactCheckEnvelope:
    return FactCheckEnvelope(
        claims=CLAIMS,
        rendered_content=rendered,
        source_urls=[PRIMARY, EXTERNAL],
        reference_excerpt=REFERENCE,
        context="Phase 1 · Lesson 3 · step 2/5",
    )


def quiz_envelope() -> QuizAuditEnvelope:
    return QuizAuditEnvelope(
        questions_json=QUESTIONS,
        purpose="checkpoint",
        concept="step size",
        bloom_levels=["remember", "understand"],
        source_excerpt=REFERENCE,
    )


def sample_teach(message_id: str = "m-teach") -> tuple[Turn, list[Receipt], GateDigest]:
    env = fact_envelope()
    receipt = make_receipt(message_id, env, verify(env), cycles=0, verifier="offline")
    turn = Turn(message_id=message_id, kind="teach", content=TEACHING, claims=CLAIMS)
    return turn, [receipt], DIGEST


def sample_ask(message_id: str = "m-ask") -> tuple[Turn, list[Receipt], GateDigest]:
    env = quiz_envelope()
    receipt = make_receipt(message_id, env, verify(env), cycles=0, verifier="offline")
    content = "Checkpoint: pick one answer each.\n\n" + render_questions(QUESTIONS)
    turn = Turn(message_id=message_id, kind="ask", content=content, questions=QUESTIONS)
    return turn, [receipt], DIGEST


def sample_teach_and_ask(message_id: str = "m-both") -> tuple[Turn, list[Receipt], GateDigest]:
    content = TEACHING + "\n\n" + render_questions(QUESTIONS)
    fact = fact_envelope(rendered=content)
    quiz = quiz_envelope()
    receipts = [
        make_receipt(message_id, fact, verify(fact), cycles=0, verifier="offline"),
        make_receipt(message_id, quiz, verify(quiz), cycles=0, verifier="offline"),
    ]
    turn = Turn(
        message_id=message_id,
        kind="teach_and_ask",
        content=content,
        claims=CLAIMS,
        questions=QUESTIONS,
    )
    return turn, receipts, DIGEST


def sample_grade(message_id: str = "m-grade") -> tuple[Turn, list[Receipt], GateDigest]:
    item = QUESTIONS[1]
    env = GradeAuditEnvelope(
        item=item,
        learner_answer="c",
        proposed_grade=ProposedGrade(passed=True, rubric_hits=["key"]),
        rubric=["picks the keyed option"],
        reference_excerpt="Warm-up starts small and grows for a few hundred updates",
    )
    receipt = make_receipt(message_id, env, verify(env), cycles=0, verifier="offline")
    turn = Turn(message_id=message_id, kind="grade", content="Right: warm-up.", questions=[item])
    return turn, [receipt], DIGEST


def sample_records(message_id: str = "m-records") -> tuple[Turn, list[Receipt], GateDigest]:
    env = ReviewEnvelope(
        batch_id="lesson-p1-l03",
        writes=[
            {"kind": "concept", "id": "step-size", "type": "concept", "status": "developing"},
            {"kind": "attempt", "id": "a1", "item": "q2", "outcome": "pass"},
        ],
    )
    receipt = make_receipt(message_id, env, verify(env), cycles=0, verifier="offline")
    turn = Turn(message_id=message_id, kind="records", content="Saved 1 concept, 1 attempt.")
    return turn, [receipt], DIGEST


SAMPLES = {
    "teach": sample_teach,
    "ask": sample_ask,
    "teach_and_ask": sample_teach_and_ask,
    "grade": sample_grade,
    "records": sample_records,
}
