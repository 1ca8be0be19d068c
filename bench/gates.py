"""Full gate checks per second against bare pydantic validation of the same envelopes, measured
in the same run.

    python bench/gates.py [--turns N] [--rounds R]

Builds N distinct, realistic turns (teach, ask, teach_and_ask, grade, records) with their
receipts, as the engine would (envelope -> offline verifier -> receipt), and serialises them as
the store keeps them. Then, per round (best of R rounds, interleaved):

- validation: `parse_envelope` of every envelope of every turn (the baseline);
- full check: `Turn` and `Receipt` validation of the stored JSON plus `check_turn`, with the
  MCQ audit memo as the engine leaves it (each item was pre-checked when its envelope was
  verified) — and once more with that memo cleared ("cold"), so every item is audited again.

Targets: at least 10,000 full checks per second, and no more than 3x the validation time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tutor.gates import mcq  # noqa: E402
from tutor.gates.checker import Emit, check_turn  # noqa: E402
from tutor.gates.envelopes import (  # noqa: E402
    Claim,
    GradeAuditEnvelope,
    ProposedGrade,
    QuizQuestion,
    ReviewEnvelope,
    parse_envelope,
)
from tutor.gates.offline_verifier import verify  # noqa: E402
from tutor.gates.receipts import Receipt, make_receipt  # noqa: E402
from tutor.gates.samples import (  # noqa: E402
    CLAIMS,
    DIGEST,
    QUESTIONS,
    TEACHING,
    fact_envelope,
    quiz_envelope,
    render_questions,
)
from tutor.gates.turns import Turn  # noqa: E402

TARGET_PER_SECOND = 10_000
TARGET_RATIO = 3.0
KINDS = ["teach", "teach", "ask", "teach_and_ask", "grade", "teach", "ask", "records"]


def _questions(n: int) -> list[QuizQuestion]:
    return [
        q.model_copy(update={"id": f"{q.id}-{n}", "question": f"{q.question} (set {n})"})
        for q in QUESTIONS
    ]


def _teaching(n: int) -> tuple[str, list[Claim]]:
    extra = Claim(id="c4", claim=f"Checkpoint {n} revisits the step size after each epoch.")
    return f"{TEACHING} {extra.claim}", [*CLAIMS, extra]


def build(n: int) -> tuple[dict, list[dict]]:
    """One turn and its receipts, as JSON-ready dicts (what the store keeps)."""
    kind = KINDS[n % len(KINDS)]
    mid = f"m-{n}"
    receipts: list[Receipt] = []
    claims: list[Claim] = []
    questions: list[QuizQuestion] = []
    if kind in ("teach", "teach_and_ask"):
        content, claims = _teaching(n)
        if kind == "teach_and_ask":
            questions = _questions(n)
            content = f"{content}\n\n{render_questions(questions)}"
        env = fact_envelope(rendered=content).model_copy(update={"claims": claims})
        receipts.append(make_receipt(mid, env, verify(env), 0, "offline"))
    if kind in ("ask", "teach_and_ask"):
        questions = questions or _questions(n)
        if kind == "ask":
            content = "Checkpoint: pick one answer each.\n\n" + render_questions(questions)
        env = quiz_envelope().model_copy(update={"questions_json": questions})
        receipts.append(make_receipt(mid, env, verify(env), 0, "offline"))
    if kind == "grade":
        item = _questions(n)[1]
        questions = [item]
        env = GradeAuditEnvelope(
            item=item,
            learner_answer="c",
            proposed_grade=ProposedGrade(passed=True),
            reference_excerpt="Warm-up starts small",
        )
        receipts.append(make_receipt(mid, env, verify(env), 0, "offline"))
        content = "Right: warm-up."
    if kind == "records":
        env = ReviewEnvelope(
            batch_id=f"b-{n}",
            writes=[
                {"kind": "concept", "id": f"k{n}", "status": "developing"},
                {"kind": "attempt", "id": f"a{n}", "outcome": "pass"},
            ],
        )
        receipts.append(make_receipt(mid, env, verify(env), 0, "offline"))
        content = "Saved 1 concept, 1 attempt."
    turn = Turn(message_id=mid, kind=kind, content=content, claims=claims, questions=questions)
    out = check_turn(turn, receipts, DIGEST)
    assert isinstance(out, Emit), out
    return turn.model_dump(mode="json"), [r.model_dump(mode="json") for r in receipts]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()

    cases = [build(n) for n in range(args.turns)]
    envelopes = [r["envelope"] for _, receipts in cases for r in receipts]

    def validate() -> None:
        for data in envelopes:
            parse_envelope(data)

    def validate_inputs() -> None:
        for turn, receipts in cases:
            Turn.model_validate(turn)
            for r in receipts:
                Receipt.model_validate(r)

    def full() -> None:
        for turn, receipts in cases:
            out = check_turn(
                Turn.model_validate(turn), [Receipt.model_validate(r) for r in receipts], DIGEST
            )
            if not isinstance(out, Emit):
                raise SystemExit(f"unexpected block: {out}")

    def full_cold() -> None:
        mcq._audit_item_memo.cache_clear()
        full()

    in_memory = [
        (Turn.model_validate(t), [Receipt.model_validate(r) for r in rs]) for t, rs in cases
    ]

    def check_only() -> None:
        for turn, receipts in in_memory:
            check_turn(turn, receipts, DIGEST)

    def rewarm() -> None:  # as the engine leaves it: every item pre-checked by the verifier
        for _, receipts in cases:
            for r in receipts:
                verify(parse_envelope(r["envelope"]))

    check_only()
    runs = {
        "validate": validate,
        "inputs": validate_inputs,
        "full": full,
        "check": check_only,
        "cold": full_cold,
    }
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(args.rounds):
        for name, fn in runs.items():
            best[name] = min(best[name], timed(fn))
            if name == "cold":
                rewarm()

    n = len(cases)
    us = {name: t / n * 1e6 for name, t in best.items()}
    print(
        f"turns: {n} ({len(envelopes)} envelopes; {', '.join(sorted(set(KINDS)))}), "
        f"best of {args.rounds} rounds"
    )
    print(
        f"  bare envelope validation      {us['validate']:7.1f} us/turn  "
        f"{n / best['validate']:>9,.0f}/s"
    )
    print(
        f"  turn + receipt validation     {us['inputs']:7.1f} us/turn  "
        f"{n / best['inputs']:>9,.0f}/s"
    )
    print(
        f"  check_turn alone (in memory)  {us['check']:7.1f} us/turn  {n / best['check']:>9,.0f}/s"
    )
    print(f"  full check                    {us['full']:7.1f} us/turn  {n / best['full']:>9,.0f}/s")
    print(f"  full check, cold MCQ memo     {us['cold']:7.1f} us/turn  {n / best['cold']:>9,.0f}/s")
    per_second = n / best["full"]
    ratio = best["full"] / best["validate"]
    print(f"ratio full check / bare envelope validation:    {ratio:.2f}x")
    print(f"ratio full check / turn + receipt validation:   {best['full'] / best['inputs']:.2f}x")
    print(
        f"ratio (envelope validation + check_turn) / envelope validation: "
        f"{(best['validate'] + best['check']) / best['validate']:.2f}x"
    )
    inputs_ratio = best["full"] / best["inputs"]
    print(
        f"target >= {TARGET_PER_SECOND:,} full checks/s: "
        f"{'met' if per_second >= TARGET_PER_SECOND else 'NOT met'}; "
        f"target <= {TARGET_RATIO:.0f}x validation alone of what is checked (turn + receipts, "
        f"envelopes inside): {'met' if inputs_ratio <= TARGET_RATIO else 'NOT met'}; "
        f"against the bare envelopes only: {'met' if ratio <= TARGET_RATIO else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
