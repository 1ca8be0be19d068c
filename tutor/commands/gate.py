"""`tutor gate check ENVELOPE.json [--digest DIGEST.json] [--json]`: validate one gate envelope,
run the deterministic verifier on it, and run the gate checker on the turn it describes.
Exit 0 when the turn would be shown (possibly with UNVERIFIED marks or low flags), 1 when it
would be blocked or has issues, 2 when the input is invalid."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tutor.output import dumps


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="check a gate envelope with the local gate checker",
        description="Check gate envelopes with the deterministic verifier and gate checker.",
    )
    actions = p.add_subparsers(dest="gate_action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="validate ENVELOPE.json, verify it offline and run the gate checker",
        description="Validate a fact_check, quiz_audit, grade_audit or review envelope, run the "
        "deterministic verifier and the gate checker. Exit 0 pass, 1 blocked or issues, "
        "2 invalid input.",
    )
    check.add_argument("envelope", type=Path, metavar="ENVELOPE.json")
    check.add_argument(
        "--digest",
        type=Path,
        metavar="DIGEST.json",
        help="ground the envelope's sources and reference excerpt in this digest",
    )
    check.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return p


def _read_json(path: Path, what: str) -> Any:
    from tutor.inputs import read_json_file

    return read_json_file(path, what)


GATES = "fact_check, quiz_audit, grade_audit, review"


def describe_validation_error(exc: Exception, limit: int = 5) -> str:
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    parts = []
    for e in errors()[:limit]:
        loc = ".".join(str(x) for x in e.get("loc", ())) or "(top)"
        if e.get("type") in ("union_tag_not_found", "union_tag_invalid"):
            parts.append(f"{loc}: `gate` must be one of {GATES}")  # which envelope it is
            continue
        parts.append(f"{loc}: {e.get('msg', 'invalid')}")
    return "; ".join(parts)


def check(envelope_data: Any, digest_data: Any | None) -> dict[str, Any]:
    """The report `tutor gate check` prints. Raises TutorError on invalid input."""
    from pydantic import ValidationError

    from tutor.errors import TutorError
    from tutor.gates.checker import Emit, evaluate
    from tutor.gates.digest_view import digest_from_data
    from tutor.gates.envelopes import (
        FactCheckEnvelope,
        GradeAuditEnvelope,
        QuizAuditEnvelope,
        parse_envelope,
    )
    from tutor.gates.offline_verifier import verify
    from tutor.gates.receipts import make_receipt
    from tutor.gates.samples import render_questions
    from tutor.gates.turns import Turn
    from tutor.gates.verdicts import FactCheckVerdict, QuizAuditVerdict

    try:
        envelope = parse_envelope(envelope_data)
    except ValidationError as exc:
        raise TutorError(f"invalid envelope: {describe_validation_error(exc)}") from None
    digest = None
    if digest_data is not None:
        try:
            digest = digest_from_data(digest_data)
        except (ValueError, ValidationError) as exc:
            raise TutorError(f"invalid digest: {describe_validation_error(exc)}") from None

    verdict = verify(envelope)
    message_id = "gate-check"
    receipt = make_receipt(message_id, envelope, verdict, cycles=0, verifier="offline")
    if isinstance(envelope, FactCheckEnvelope):
        turn = Turn(message_id=message_id, kind="teach", content=envelope.rendered_content)
    elif isinstance(envelope, QuizAuditEnvelope):
        turn = Turn(
            message_id=message_id,
            kind="ask",
            content=render_questions(envelope.questions_json),
            questions=envelope.questions_json,
        )
    elif isinstance(envelope, GradeAuditEnvelope):
        turn = Turn(
            message_id=message_id, kind="grade", content="(grade)", questions=[envelope.item]
        )
    else:
        turn = Turn(message_id=message_id, kind="records", content="(records)")
    outcome = evaluate(turn, [receipt], digest, require_digest=False)

    issues: list[dict[str, Any]] = []
    if isinstance(verdict, QuizAuditVerdict):
        issues = [i.model_dump() for i in verdict.issues]
    claims: list[dict[str, Any]] = []
    if isinstance(verdict, FactCheckVerdict):
        claims = [c.model_dump() for c in verdict.claims]
    codes = sorted({i["code"] for i in issues if i.get("code")})
    report: dict[str, Any] = {
        "gate": envelope.gate,
        "verdict": verdict.verdict,
        "outcome": "emit" if isinstance(outcome, Emit) else "block",
        "code": None if isinstance(outcome, Emit) else outcome.code,
        "codes": codes,
        "reason": "" if isinstance(outcome, Emit) else outcome.reason,
        "unverified": outcome.unverified if isinstance(outcome, Emit) else [],
        "flags": outcome.flags if isinstance(outcome, Emit) else [],
        "issues": issues,
        "claims": claims,
        "explanation": getattr(verdict, "explanation", ""),
        "digest_checked": digest is not None,
    }
    if not isinstance(outcome, Emit):
        report["codes"] = [outcome.code, *(c for c in codes if c != outcome.code)]
    return report


def run(args: argparse.Namespace) -> int:
    from tutor.errors import TutorError

    try:
        envelope_data = _read_json(args.envelope, "envelope")
        digest_data = _read_json(args.digest, "digest") if args.digest else None
        report = check(envelope_data, digest_data)
    except TutorError as exc:
        if args.json:  # a reader of stdout gets JSON either way; the refusal goes to stderr
            from tutor.output import one_line

            print(dumps({"error": one_line(str(exc))}, indent=2))
        raise
    passed = report["outcome"] == "emit" and report["verdict"] != "ISSUES"
    if args.json:
        print(dumps(report, indent=2))
        return 0 if passed else 1
    print(f"gate: {report['gate']}  verdict: {report['verdict']}")
    for claim in report["claims"]:
        print(f"  claim {claim['id']}: {claim['verdict']} — {claim['explanation']}")
    for issue in report["issues"]:
        print(f"  {issue['id']}: {issue['code']} {issue['severity']} — {issue['problem']}")
    if report["explanation"]:
        print(f"  {report['explanation']}")
    if report["outcome"] == "emit":
        marks = ", ".join(report["unverified"])
        print("result: pass" + (f" (UNVERIFIED: {marks})" if marks else ""))
        for flag in report["flags"]:
            print(f"  flag: {flag}")
    else:
        print(f"result: blocked, code {report['code']} — {report['reason']}")
    if not report["digest_checked"]:
        print("note: no --digest given; sources and reference excerpt were not grounded")
    return 0 if passed else 1
