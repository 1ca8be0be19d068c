"""A scripted learner runs a whole built-in lesson against the loopback model server: the model
drafts the teaching steps and verifies every gate; a verifier that fails never becomes a pass."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.config import builtin_course_path
from tutor.engine.drafter import Drafter
from tutor.engine.session import Session
from tutor.engine.turns import Action, Prompt
from tutor.gates.floor import MODEL_WRITTEN
from tutor.llm import make_provider
from tutor.llm.recorder import StoreRecorder
from tutor.llm.settings import load_settings
from tutor.llm.skills import load_skill
from tutor.testing.model_server import ModelServer, Reply

LESSON = "P1 L02"
SKILLS = ("tutor", "grader", "GATE:fact_check", "GATE:quiz_audit", "GATE:grade_audit")


def skill_of(body: dict) -> str:
    system = body["messages"][0]["content"]
    return next((name for name in SKILLS if load_skill(name) == system), "unknown")


def request_payload(body: dict) -> dict[str, Any]:
    return json.loads(body["messages"][1]["content"])


def draft_reply(payload: dict[str, Any]) -> Reply:
    claim = f"The model restates {payload['data']['step']} for this learner."
    return Reply.json(
        {"content": f"Model draft.\n\n{claim} Then an example follows.", "claims": [claim]}
    )


def valid_reply(body: dict) -> Reply:
    """A well-behaved model: drafts whose content holds their claims, and PASS verdicts."""
    skill = skill_of(body)
    payload = request_payload(body)
    if skill == "tutor" and payload["task"] == "teach":
        return draft_reply(payload)
    if skill == "tutor" and payload["task"] == "rewrite":
        # a rewrite the program refuses (four same options): the item stays free recall
        return Reply.json({"question": "Which?", "options": ["same"] * 4, "correct_index": 0})
    if skill == "GATE:fact_check":
        return Reply.json(
            {
                "claims": [
                    {"id": c["id"], "verdict": "PASS", "explanation": "the excerpt says so"}
                    for c in payload["data"]["claims"]
                ]
            }
        )
    if skill == "GATE:quiz_audit":
        return Reply.json({"verdict": "PASS", "issues": []})
    if skill == "GATE:grade_audit":
        return Reply.json({"verdict": "PASS", "explanation": "the grade fits the rubric"})
    return Reply.error(500, f"this test model does not serve {skill} {payload['task']}")


def broken_verifier() -> Callable[[dict], Reply]:
    """Drafts as above; every verify request gets malformed JSON or a 500, in turn."""
    faults = itertools.cycle([Reply.malformed(), Reply.error(500)])

    def reply(body: dict) -> Reply:
        if skill_of(body).startswith("GATE:"):
            return next(faults)
        return valid_reply(body)

    return reply


def answer(prompt: Prompt) -> Action:
    """A learner who knows the material and is sure of it."""
    if prompt.kind == "read":
        return Action(kind="next")
    if prompt.kind == "choice":
        return Action(kind="answer", value=str(prompt.item.correct_index), confidence="sure")
    if prompt.kind == "numeric":
        return Action(kind="answer", value=f"{prompt.item.answer:g}", confidence="sure")
    if prompt.kind == "text":
        return Action(
            kind="text", text="my own words", confidence="sure" if prompt.needs_confidence else None
        )
    if prompt.kind == "yes_no":
        return Action(kind="yes_no", value="y")
    if prompt.kind == "error_type":
        return Action(kind="error_type", value="3", text="I rushed it")
    raise AssertionError(prompt.kind)


def run_lesson(store: Store, base_url: str, limit: int = 400) -> tuple[Session, list[Prompt]]:
    settings = load_settings(
        base_url=base_url, model="loopback-model", timeout=5, max_retries=0, backoff_base=0
    )
    provider = make_provider(settings, StoreRecorder(store))
    course = load_curriculum(builtin_course_path())
    session = Session.start(
        store,
        course,
        course.lesson(LESSON),
        provider=provider,
        drafter=Drafter(provider),
        offline=True,
    )
    seen: list[Prompt] = []
    try:
        for _ in range(limit):
            seen.append(session.prompt)
            if session.done:
                break
            session.act(answer(session.prompt))
    finally:
        session.close()
    return session, seen


def teach_prompts(seen: list[Prompt]) -> list[Prompt]:
    return [p for p in seen if p.stage == "teach"]


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "home"))
    with Store(tmp_path / "tutor.db") as s:
        yield s


def test_whole_lesson_with_model_drafts_and_model_verdicts(store):
    with ModelServer(default=valid_reply) as srv:
        session, seen = run_lesson(store, srv.base_url)
        requests = srv.chat_requests
    assert session.done
    teach = teach_prompts(seen)
    assert teach
    for p in teach:
        assert p.banner is None, p.banner
        assert p.content.startswith("Model draft."), p.content[:80]
        assert not p.content.startswith("[source: ")
        receipts = store.receipts.of_message(p.message_id)
        assert receipts, p.message_id
        assert {r["payload"]["verifier"] for r in receipts} == {"model"}
        # the model passed every sentence of its draft; those the program's checks cannot
        # find in the sources stay UNVERIFIED (issue 22: the program's checks are the floor)
        (r,) = receipts
        claims = [c["id"] for c in r["payload"]["envelope"]["claims"]]
        assert r["payload"]["checks"]["model"] == claims
        floored = [c for c in claims if c not in r["payload"]["checks"]["offline"]]
        assert floored and p.unverified == floored and r["outcome"] == "UNVERIFIED"
        # and the screen says which sentences they are
        texts = {c["id"]: c["claim"] for c in r["payload"]["envelope"]["claims"]}
        assert p.unverified_claims == [texts[c] for c in floored]
        assert any("the verifier model passed" in f for f in p.flags)
    drafts = [request_payload(r.body)["data"] for r in requests if skill_of(r.body) == "tutor"]
    drafts = [d for d in drafts if d.get("task") == "teach_step"]
    # each draft is asked for this learner: the probe's verdicts and the step's place
    assert sorted(d["position"] for d in drafts) == [f"step {n} of {len(teach)}" for n in
                                               range(1, len(teach) + 1)]  # fmt: skip
    assert all(d["verdicts"] and set(d["verdicts"].values()) <= {"solid", "unstable", "unknown"}
               for d in drafts)  # fmt: skip
    skills = [skill_of(r.body) for r in requests]
    assert skills.count("tutor") >= len(teach)
    assert skills.count("GATE:fact_check") >= len(teach)
    assert "GATE:quiz_audit" in skills


def test_a_verifier_that_fails_falls_back_to_the_offline_verdict_never_a_model_pass(store):
    with ModelServer(default=broken_verifier()) as srv:
        session, seen = run_lesson(store, srv.base_url)
        requests = srv.chat_requests
    assert session.done
    assert any(skill_of(r.body).startswith("GATE:") for r in requests)
    teach = teach_prompts(seen)
    assert teach
    for p in teach:
        receipts = store.receipts.of_message(p.message_id)
        if p.banner is not None:  # withheld: nothing of it was shown
            assert p.content == ""
            continue
        # no model checked the model's draft, so the step is the lesson's own text
        assert p.content.startswith("[source: "), p.content[:80]
        assert receipts
        # what passed, the deterministic verifier passed (the model never ran to say so)
        assert all(
            r["payload"]["verifier"] == "offline" for r in receipts if r["outcome"] == "PASS"
        )


FAIR_ITEM = {
    "question": "Which label does the reference give?",
    "options": ["lemon orchard grove", "quiet harbour town", "amberly meadows", "silver brook"],
    "correct_index": 2,
}


def rewriting_reply(body: dict) -> Reply:
    """A model that also rewrites failed bank items and grades free recall."""
    data = request_payload(body)["data"]
    task = data.get("task")
    if skill_of(body) == "tutor" and task in ("rewrite_item", "isomorphic_item"):
        return Reply.json(FAIR_ITEM)
    if skill_of(body) == "tutor" and task == "rewrite_items":
        return Reply.json({"items": [{"id": i["id"], **FAIR_ITEM} for i in data["items"]]})
    if skill_of(body) == "grader" and task == "grade_free_recall":
        return Reply.json({"passed": True, "explanation": "it says what the reference says"})
    return valid_reply(body)


def test_failed_bank_items_are_rewritten_and_free_recall_is_graded_by_the_model(store, corpus_root):
    with ModelServer(default=rewriting_reply) as srv:
        settings = load_settings(
            base_url=srv.base_url, model="loopback-model", timeout=5, max_retries=0, backoff_base=0
        )
        provider = make_provider(settings, StoreRecorder(store))
        course = load_curriculum(corpus_root)
        session = Session.start(
            store,
            course,
            course.lesson("P1 L08"),
            provider=provider,
            drafter=Drafter(provider),
            offline=True,
        )
        seen: list[Prompt] = []
        try:
            while not session.done and len(seen) < 400:
                seen.append(session.prompt)
                session.act(answer(session.prompt))
        finally:
            session.close()
        audits = [r for r in srv.chat_requests if skill_of(r.body) == "GATE:quiz_audit"]
        # the item text without its per-call marker
        rewrites = [
            item["untrusted_item"].split(">", 1)[1]
            for r in srv.chat_requests
            if request_payload(r.body)["data"].get("task") == "rewrite_items"
            for item in request_payload(r.body)["data"]["items"]
        ]
    # no request is sent twice for the same work (a re-probe does not rebuild the pool), and a
    # pool's failed items are rewritten together, not one request each
    assert rewrites and len(rewrites) == len(set(rewrites))
    calls = [
        r
        for r in srv.chat_requests
        if request_payload(r.body)["data"].get("task") == "rewrite_items"
    ]
    assert len(calls) < len(rewrites)
    assert session.done
    asked = [p for p in seen if p.stage == "probe" and p.item is not None]
    rewritten = [p for p in asked if p.item.note.startswith("rewritten by the model")]
    assert rewritten, "the corpus bank items that fail the rules come back as model MCQs"
    assert all(p.kind == "choice" and p.item.options for p in rewritten)
    assert not any("Did your answer match the reference?" in p.content for p in seen), (
        "with a model, free recall is graded by the model (then gated), not self-graded"
    )
    # each question is audited once even though audits are prepared in the background
    envelopes = [json.dumps(request_payload(r.body)["data"], sort_keys=True) for r in audits]
    assert len(envelopes) == len(set(envelopes))


def test_a_model_misbehaving_in_every_way_never_breaks_a_lesson(store, corpus_root):
    faults = itertools.cycle(
        [
            Reply.malformed(),
            Reply.error(500),
            Reply.refusal(),
            Reply.length(),
            Reply.json({"unexpected": 1}),
            Reply.text("not json"),
            None,
        ]
    )

    def chaos(body: dict) -> Reply:
        fault = next(faults)
        return rewriting_reply(body) if fault is None else fault

    course = load_curriculum(corpus_root)
    with ModelServer(default=chaos) as srv:
        settings = load_settings(
            base_url=srv.base_url, model="m", timeout=2, max_retries=0, backoff_base=0
        )
        provider = make_provider(settings, StoreRecorder(store))
        for ref in ("P1 L08", "P3 L05"):
            session = Session.start(
                store,
                course,
                course.lesson(ref),
                provider=provider,
                drafter=Drafter(provider),
                offline=True,
            )
            try:
                for _ in range(500):
                    if session.done:
                        break
                    session.act(answer(session.prompt))
            finally:
                session.close()
            assert session.done, ref
    # the faults came in several kinds; an endpoint that mostly answers invalidly trips the
    # breaker (issue 22, part 3), so every call may have failed — and the lesson still ran
    kinds = {row["error_kind"] for row in store.model_calls.all() if row["outcome"] == "failed"}
    assert len(kinds) > 1, kinds


def disputing_audit(body: dict) -> Reply:
    """The quiz audit disputes every bank MCQ and passes the model's rewrite of it (of each
    question of a batch)."""
    if skill_of(body) == "GATE:quiz_audit":
        issues = [
            {
                "id": question["id"],
                "severity": "high",
                "problem": "two options are both defensible",
                "suggested_fix": "sharpen",
            }
            for question in request_payload(body)["data"]["questions_json"]
            if question["type"] == "mcq" and "label" not in json.dumps(question)
        ]
        if issues:
            return Reply.json({"verdict": "ISSUES", "issues": issues})
    return rewriting_reply(body)


def test_a_disputed_choice_item_is_rewritten_from_the_audits_problems_and_audited_again(store):
    with ModelServer(default=disputing_audit) as srv:
        session, seen = run_lesson(store, srv.base_url)
        fixes = [
            request_payload(r.body)["data"]
            for r in srv.chat_requests
            if "untrusted_problems" in request_payload(r.body)["data"]
        ]
    assert session.done
    assert fixes and all("defensible" in f["untrusted_problems"] for f in fixes)
    assert all(f["task"] == "rewrite_item" and f["untrusted_options"] for f in fixes)
    choices = [p for p in seen if p.kind == "choice" and p.stage in ("probe", "quiz")]
    # items the bank could not make fair come back as the model's rewrites of them; every
    # other choice was disputed, and none is shown as it was: each is the audited rewrite
    failed = "rewritten by the model from a bank item that failed the quiz rules"
    choices = [p for p in choices if p.item.note != failed]
    assert choices
    for p in choices:
        assert p.item.note == "rewritten by the model where the quiz audit found problems"
        (receipt,) = store.receipts.of_message(p.message_id)
        assert receipt["payload"]["cycles"] == 1 and receipt["payload"]["verifier"] == "model"
        # the audit passed the rewrite, but its key is the model's: UNVERIFIED all the same
        assert receipt["outcome"] == "UNVERIFIED" and p.item.written_by == "model"
        assert receipt["payload"]["checks"] == {"offline": [], "model": [p.item.id]}
        assert p.unverified == [p.item.id] and MODEL_WRITTEN in p.flags


def written_attempts(store: Store, session: Session) -> list[dict[str, Any]]:
    from learning_system import ledger

    return [
        a
        for a in ledger.attempts(store, session_id=session.id)
        if a["kind"] in ("probe", "quiz") and " " in (a["answer"] or "")  # not a number
    ]


@pytest.mark.parametrize("writes", ["off-topic", "reference"])
def test_a_model_that_passes_every_grade_never_turns_a_non_answer_right(store, writes):
    """The grader model says "passed" to everything. An off-topic text is wrong before any
    grader sees it (no grade request is sent); a real answer still goes to the model."""
    off_topic = (
        "My grandmother grows tomatoes on her balcony every summer and trades the surplus with "
        "neighbours for fresh bread."
    )

    def act(prompt: Prompt) -> Action:
        if prompt.kind == "text" and prompt.item is not None:
            text = off_topic if writes == "off-topic" else prompt.item.reference
            return Action(kind="text", text=text, confidence="sure")
        return answer(prompt)

    with ModelServer(default=rewriting_reply) as srv:
        settings = load_settings(
            base_url=srv.base_url, model="loopback-model", timeout=5, max_retries=0, backoff_base=0
        )
        provider = make_provider(settings, StoreRecorder(store))
        course = load_curriculum(builtin_course_path())
        session = Session.start(
            store, course, course.lesson(LESSON), provider=provider, drafter=Drafter(provider)
        )
        try:
            while not session.done:
                session.act(act(session.prompt))
        finally:
            session.close()
        graded = [
            r
            for r in srv.chat_requests
            if request_payload(r.body)["data"].get("task") == "grade_free_recall"
        ]
    written = written_attempts(store, session)
    assert written, "the lesson asked for written answers"
    if writes == "off-topic":
        assert not graded
        assert {a["outcome"] for a in written} == {"wrong"}
    else:
        assert graded
        assert {a["outcome"] for a in written} == {"correct"}


def test_a_draft_that_ignores_its_length_is_not_taught(store):
    """A reply that runs on (a server ignoring max_tokens) is no teaching step: the learner
    gets the lesson's own section, not 2,000 repeated sentences."""

    def long_drafts(body: dict) -> Reply:
        payload = request_payload(body)
        if skill_of(body) == "tutor" and payload["task"] == "teach":
            claim = "The model restates this step for this learner."
            return Reply.json({"content": " ".join([claim] * 2000), "claims": [claim]})
        return valid_reply(body)

    with ModelServer(default=long_drafts) as srv:
        session, seen = run_lesson(store, srv.base_url)
    teach = teach_prompts(seen)
    assert session.done and teach
    assert all(p.content.startswith("[source: ") for p in teach if p.banner is None)
    assert max(len(p.content) for p in teach) < 20_000
