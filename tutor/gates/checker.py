"""The local gate checker (SPEC §5): a pure function of (turn, receipts, digest) that says whether
a turn may be shown. It is the real enforcement; model verdicts are evidence it reads.
Every rule has a code in codes.BLOCK_CODES; the first broken rule names the block."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from tutor.gates.claims import extract_claims
from tutor.gates.codes import BLOCK_CODES
from tutor.gates.digest_view import GateDigest
from tutor.gates.envelopes import (
    FactCheckEnvelope,
    GradeAuditEnvelope,
    QuizAuditEnvelope,
    ReviewEnvelope,
)
from tutor.gates.mcq import audit_all, blocking, has_key_example
from tutor.gates.offline_verifier import expected_grade, supported
from tutor.gates.receipts import MAX_CYCLES, Receipt, receipt_id_ok, unverified_ids
from tutor.gates.text import Text, excerpt_parts, normalise
from tutor.gates.turns import REQUIRED_GATES, Turn
from tutor.gates.verdicts import (
    VERDICT_FOR_GATE,
    FactCheckVerdict,
    GradeAuditVerdict,
    QuizAuditVerdict,
    ReviewVerdict,
)


class Emit(BaseModel):
    """Show `content`; mark the `unverified` claim/question ids as UNVERIFIED and show `flags`
    (low-severity findings that remain) beside it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    message_id: str
    content: str
    unverified: list[str] = []
    flags: list[str] = []


class Block(BaseModel):
    """Show `banner` instead of the turn. `reason` is for the maintainer; `details` holds the
    MCQ codes behind a Q01."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    message_id: str
    code: str
    reason: str
    banner: str
    details: list[str] = []


_BANNER = {
    "G": "this turn did not pass the gate checker",
    "F": "this teaching step could not be verified against its sources",
    "Q": "these questions did not pass the quiz audit",
    "R": "this grade could not be confirmed",
    "V": "these record updates did not pass review",
}


class _Blocked(Exception):
    def __init__(self, code: str, reason: str, details: list[str] | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.details = details or []


def banner(code: str) -> str:
    return f"Withheld: {_BANNER.get(code[:1], 'this turn could not be checked')} (code {code})"


def _block(message_id: str, code: str, reason: str, details: list[str] | None = None) -> Block:
    if code not in BLOCK_CODES:
        code, reason = "G99", f"unknown block code {code}: {reason}"
    return Block(
        message_id=message_id, code=code, reason=reason, banner=banner(code), details=details or []
    )


def check_turn(turn: Turn, receipts: Sequence[Receipt], digest: GateDigest) -> Emit | Block:
    """Emit the turn, or block it with a code. Never raises: anything unexpected blocks (G99)."""
    return evaluate(turn, receipts, digest, require_digest=True)


def evaluate(
    turn: Turn,
    receipts: Sequence[Receipt],
    digest: GateDigest | None,
    *,
    require_digest: bool = True,
) -> Emit | Block:
    """check_turn, and for `tutor gate check` without --digest only: digest None with
    require_digest=False skips the source-grounding rules (F03, F04)."""
    try:
        message_id = getattr(turn, "message_id", None)
    except Exception:
        message_id = None
    if not isinstance(message_id, str) or not message_id:
        message_id = "?"
    try:
        return _check(turn, receipts, digest, require_digest)
    except _Blocked as b:
        return _block(message_id, b.code, b.reason, b.details)
    except Exception as exc:  # fail closed on anything unexpected
        return _block(message_id, "G99", f"checker error: {type(exc).__name__}: {exc}")


def _check(
    turn: Turn, receipts: Sequence[Receipt], digest: GateDigest | None, require_digest: bool
) -> Emit:
    if not isinstance(turn, Turn):
        raise _Blocked("G01", f"the turn is a {type(turn).__name__}, not a Turn")
    digest_ok = isinstance(digest, GateDigest) or (digest is None and not require_digest)
    if not digest_ok:
        raise _Blocked("G01", "no valid GateDigest")
    if not isinstance(receipts, (list, tuple)):
        raise _Blocked("G01", "receipts must be a list or tuple of Receipt")
    for r in receipts:
        if not isinstance(r, Receipt):
            raise _Blocked("G01", f"a receipt is a {type(r).__name__}, not a Receipt")
    if turn.kind == "notice" and (turn.claims or turn.questions):
        raise _Blocked("G10", "a notice carries claims or questions")

    by_gate: dict[str, Receipt] = {}
    for r in receipts:
        _check_receipt(r, turn.message_id)
        by_gate[r.gate] = r
    if len(by_gate) != len(receipts):
        gates = [r.gate for r in receipts]
        twice = sorted({g for g in gates if gates.count(g) > 1})
        raise _Blocked("G05", f"more than one receipt for gate {', '.join(twice)}")
    required = REQUIRED_GATES[turn.kind]
    for gate in by_gate:
        if gate not in required:
            raise _Blocked("G03", f"a {turn.kind} turn does not take the {gate} gate")
    for gate in sorted(required):
        if gate not in by_gate:
            raise _Blocked("G02", f"a {turn.kind} turn needs a {gate} receipt")

    content = Text(turn.content)
    unverified: list[str] = []
    flags: list[str] = []
    if "fact_check" in by_gate:
        _check_fact(turn, by_gate["fact_check"], digest, content)
    if "quiz_audit" in by_gate:
        flags.extend(_check_quiz(turn, by_gate["quiz_audit"], content))
    if "grade_audit" in by_gate:
        _check_grade(turn, by_gate["grade_audit"])
    if "review" in by_gate:
        _check_review(by_gate["review"])
    for r in receipts:
        unverified.extend(unverified_ids(r.envelope, r.verdict))
    if "fact_check" in by_gate:  # the floor, whatever the receipt's verdict says
        unverified.extend(i for i in _unsupported(by_gate["fact_check"]) if i not in unverified)
    return Emit(
        message_id=turn.message_id, content=turn.content, unverified=unverified, flags=flags
    )


def _check_receipt(r: Receipt, message_id: str) -> None:
    if r.message_id != message_id:
        raise _Blocked("G04", f"receipt {r.receipt_id} is for message {r.message_id}")
    if r.gate != r.envelope.gate or type(r.verdict) is not VERDICT_FOR_GATE.get(r.gate):
        raise _Blocked("G07", f"receipt {r.receipt_id}: gate, envelope and verdict disagree")
    if not isinstance(r.cycles, int) or not 0 <= r.cycles <= MAX_CYCLES:
        raise _Blocked("G09", f"receipt {r.receipt_id} records {r.cycles} correction cycles")
    if not receipt_id_ok(r):
        raise _Blocked("G06", f"receipt {r.receipt_id} does not match its content")
    if r.verifier == "none":
        if isinstance(r.verdict, FactCheckVerdict):
            words = {c.verdict for c in r.verdict.claims}
        else:
            words = {r.verdict.verdict}
        if words - {"UNVERIFIED"}:
            raise _Blocked("G08", f"receipt {r.receipt_id}: no verifier ran, yet it has a verdict")


def _same(a: str, b: str) -> bool:
    return a == b or normalise(a) == normalise(b)


def _check_fact(turn: Turn, r: Receipt, digest: GateDigest | None, content: Text) -> None:
    env = r.envelope
    verdict = r.verdict
    if not isinstance(env, FactCheckEnvelope) or not isinstance(verdict, FactCheckVerdict):
        raise _Blocked("G07", f"receipt {r.receipt_id}: envelope and verdict disagree")
    sources = env.sources
    if not sources or not env.reference_excerpt.strip():
        raise _Blocked("F05", "the fact_check cites no source or has no reference excerpt")
    verdict_ids = [c.id for c in verdict.claims]
    claim_ids = {c.id for c in env.claims}
    if len(verdict_ids) != len(claim_ids) or set(verdict_ids) != claim_ids:
        raise _Blocked("F06", "the verdict does not cover each claim exactly once")
    rendered = Text(env.rendered_content)
    for c in env.claims:
        if not rendered.contains(c.claim):
            raise _Blocked("F01", f"claim {c.id} is not in rendered_content")
    corrected = {
        v.id: v.corrected_claim
        for v in verdict.claims
        if v.verdict == "ISSUES" and v.corrected_claim is not None
    }
    if turn.claims:
        checked = {c.id: c.claim for c in env.claims}
        for c in turn.claims:
            as_checked = c.id in checked and _same(c.claim, checked[c.id])
            as_corrected = c.id in corrected and _same(c.claim, corrected[c.id])
            if not (as_checked or as_corrected):
                raise _Blocked("F07", f"the turn teaches claim {c.id}, which was not checked")
    if digest is not None:
        for s in sources:
            if s not in digest.sources:
                raise _Blocked("F03", f"source {s} is not in the digest")
        for part in excerpt_parts(env.reference_excerpt):
            if not digest.grounds(sources, part):
                raise _Blocked(
                    "F04",
                    f"reference excerpt part {part[:60]!r} is not in the "
                    "digest text of the cited sources",
                )
    if corrected:
        text = rendered.norm
        for c in env.claims:
            if c.id in corrected:
                text = text.replace(normalise(c.claim), normalise(corrected[c.id]))
        same = text == content.norm
    else:
        same = env.rendered_content == content.raw or rendered.norm == content.norm
    if not same:
        raise _Blocked("F02", "rendered_content after corrections differs from the emitted content")
    _check_every_sentence(turn, env, corrected)
    open_ids = [v.id for v in verdict.claims if v.verdict == "ISSUES" and v.corrected_claim is None]
    if open_ids:
        if r.cycles < MAX_CYCLES:
            raise _Blocked(
                "F08",
                f"claims {', '.join(open_ids)} have issues: fix and re-check "
                f"(cycle {r.cycles} of {MAX_CYCLES})",
            )
        raise _Blocked(
            "F09", f"claims {', '.join(open_ids)} still have issues after {MAX_CYCLES} cycles"
        )


def _unsupported(r: Receipt) -> list[str]:
    """The program's checks are the floor: a claim shown as passed (or as corrected) that the
    deterministic verifier cannot support — not found in the reference excerpt — is shown
    UNVERIFIED, whatever verdict the receipt carries."""
    env, verdict = r.envelope, r.verdict
    if not isinstance(env, FactCheckEnvelope) or not isinstance(verdict, FactCheckVerdict):
        return []
    claims = {c.id: c.claim for c in env.claims}
    out = []
    for v in verdict.claims:
        shown = v.corrected_claim if v.verdict == "ISSUES" else claims.get(v.id)
        if v.verdict != "UNVERIFIED" and shown and not supported(shown, env.reference_excerpt):
            out.append(v.id)
    return out


def _bare(text: str) -> str:
    return normalise(text).rstrip(" .!;:")


def _check_every_sentence(turn: Turn, env: FactCheckEnvelope, corrected: dict[str, str]) -> None:
    """Claims are the program's: every sentence of the emitted content that asserts something
    (tutor.gates.claims) is one of the checked claims, as checked or as corrected. Question
    stems and options of a teach_and_ask turn are the quiz audit's."""
    shown = turn.content
    if turn.questions:
        asked = [q.question for q in turn.questions]
        asked += [o for q in turn.questions for o in q.options]
        for text in sorted((a for a in asked if a.strip()), key=len, reverse=True):
            shown = shown.replace(text, "\n\n")
    # one search per sentence: a sentence is covered when it is (part of) one checked claim
    checked = "\x00".join([*(c.claim for c in env.claims), *corrected.values()])
    blob = checked if checked.isascii() and " \n" not in checked else None
    norm_blob: str | None = None
    for sentence in extract_claims(shown):
        bare = sentence.rstrip(" .!;:")
        if blob is not None and bare in blob:
            continue
        if norm_blob is None:
            norm_blob = "\x00".join(
                _bare(c) for c in [*(c.claim for c in env.claims), *corrected.values()]
            )
        if _bare(sentence) in norm_blob:
            continue
        raise _Blocked("F10", f"the sentence {sentence[:60]!r} was not checked")


def _check_quiz(turn: Turn, r: Receipt, content: Text) -> list[str]:
    env = r.envelope
    verdict = r.verdict
    if not isinstance(env, QuizAuditEnvelope) or not isinstance(verdict, QuizAuditVerdict):
        raise _Blocked("G07", f"receipt {r.receipt_id}: envelope and verdict disagree")
    if not turn.questions:
        raise _Blocked("Q06", f"a {turn.kind} turn has no questions")
    if turn.questions != env.questions_json:
        raise _Blocked("Q02", "the questions asked are not the audited questions")
    mechanical = blocking(audit_all(turn.questions))
    if mechanical:
        codes = sorted({i.code or "" for i in mechanical})
        shown = "; ".join(f"{i.id}: {i.code}" for i in mechanical[:6])
        raise _Blocked("Q01", f"mechanical checks failed: {shown}", codes)
    if has_key_example(turn.content):
        raise _Blocked(
            "Q01", "the instructions show an example answer that may encode keys", ["M14"]
        )
    for q in turn.questions:
        if not content.contains(q.question):
            raise _Blocked("Q03", f"question {q.id} is not shown as audited")
        for option in q.options:
            if not content.contains(option):
                raise _Blocked("Q03", f"an option of question {q.id} is not shown as audited")
    serious = blocking(verdict.issues)
    if serious:
        shown = "; ".join(f"{i.id}: {i.problem}" for i in serious[:6])
        if r.cycles < MAX_CYCLES:
            raise _Blocked(
                "Q04", f"audit issues, fix and re-audit (cycle {r.cycles} of {MAX_CYCLES}): {shown}"
            )
        raise _Blocked("Q05", f"audit issues remain after {MAX_CYCLES} cycles: {shown}")
    return [f"{i.id}: {i.problem}" + (f" ({i.code})" if i.code else "") for i in verdict.issues]


def _check_grade(turn: Turn, r: Receipt) -> None:
    env = r.envelope
    verdict = r.verdict
    if not isinstance(env, GradeAuditEnvelope) or not isinstance(verdict, GradeAuditVerdict):
        raise _Blocked("G07", f"receipt {r.receipt_id}: envelope and verdict disagree")
    if turn.questions and turn.questions != [env.item]:
        raise _Blocked("R03", "the graded item is not the audited item")
    expected = expected_grade(env.item, env.learner_answer)
    if expected is not None and expected != env.proposed_grade.passed:
        raise _Blocked(
            "R04",
            f"the key says {'pass' if expected else 'fail'} for item "
            f"{env.item.id}, the grade says otherwise",
        )
    if verdict.verdict == "ISSUES":
        if r.cycles < MAX_CYCLES:
            raise _Blocked("R01", f"the audit disputes the grade: {verdict.explanation}")
        raise _Blocked("R02", f"the grade is still disputed after {MAX_CYCLES} cycles")


def _check_review(r: Receipt) -> None:
    env = r.envelope
    verdict = r.verdict
    if not isinstance(env, ReviewEnvelope) or not isinstance(verdict, ReviewVerdict):
        raise _Blocked("G07", f"receipt {r.receipt_id}: envelope and verdict disagree")
    if verdict.verdict == "ISSUES":
        rejected = ", ".join(verdict.rejected) or "(unnamed)"
        if r.cycles < MAX_CYCLES:
            raise _Blocked("V01", f"the review rejected writes {rejected}")
        raise _Blocked("V02", f"writes {rejected} still rejected after {MAX_CYCLES} cycles")
