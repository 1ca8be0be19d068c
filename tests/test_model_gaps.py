"""Whole lessons against two OpenAI-compatible endpoints — the project's loopback server
(tutor.testing.model_server) and a second, minimal one written here independently of it — for
the gaps an independent mock once found: unlisted sentences, a verifier that rejects
everything, a failing or hanging endpoint, and receipts that name the verifier that ran."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.config import builtin_course_path
from tutor.engine.drafter import Drafter
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.session import Session
from tutor.engine.turns import Action, Prompt
from tutor.engine.verifiers import NOT_INDEPENDENT
from tutor.gates import samples
from tutor.gates.checker import Emit
from tutor.llm import make_provider
from tutor.llm.recorder import StoreRecorder
from tutor.llm.settings import load_settings
from tutor.llm.skills import load_skill
from tutor.testing.model_server import ModelServer, Reply

LESSON = "P1 L02"
FALSE = "Cosine similarity can exceed 1 for long vectors."
BREAKER_NOTICE = "The model stopped answering"

pytestmark = pytest.mark.usefixtures("isolated_model_env")

# -- what the model does, said once for both servers --------------------------------------------
# A behaviour maps a request body to ("json", obj) | ("text", assistant text) |
# ("refusal", text) | ("status", code) | ("hang", seconds) | ("slow", (obj, seconds): the answer
# dripped over that long) | ("429", Retry-After seconds).
Behaviour = Callable[[dict], tuple[str, Any]]
SKILLS = {
    load_skill(n): n
    for n in ("tutor", "grader", "GATE:fact_check", "GATE:quiz_audit", "GATE:grade_audit")
}


def unmark(text: str) -> str:
    """The text inside its request's tags (`<marker>…</marker>`), else the text."""
    inside = re.fullmatch(r"<(\w+)>(.*)</\1>", text, re.DOTALL)
    return inside.group(2) if inside else text


def parts(body: dict) -> tuple[str, str, dict]:
    """(skill, data.task or the purpose, data) of a chat request."""
    skill = SKILLS.get(body["messages"][0]["content"], "unknown")
    payload = json.loads(body["messages"][1]["content"])
    data = payload["data"]
    return skill, data.get("task") or payload["task"], data


def drafting(
    draft: Callable[[str], str],
    verdict: Callable[[str], str],
    revise: Callable[[str], str] | None = None,
) -> Behaviour:
    """Drafts every step with `draft(step)`; every fact_check claim gets `verdict(claim)`;
    quiz and grade audits PASS unless `verdict("")` says otherwise."""

    def behave(body: dict) -> tuple[str, Any]:
        skill, task, data = parts(body)
        if skill == "tutor" and task == "teach_step":
            return "json", {"content": draft(data["step"]), "claims": []}
        unusable = {"question": "Unusable?", "options": ["a"], "correct_index": 0}
        if skill == "tutor" and task in ("rewrite_item", "isomorphic_item"):
            return "json", unusable
        if skill == "tutor" and task == "rewrite_items":
            return "json", {"items": [{"id": i["id"], **unusable} for i in data["items"]]}
        if skill == "grader":
            return "json", {"passed": True, "explanation": "it says what the reference says"}
        if skill == "tutor" and task == "revise_step":
            text = revise(data["step"]) if revise else unmark(data["untrusted_draft"])
            return "json", {"content": text}
        if skill == "GATE:fact_check":
            out = []
            for c in data["claims"]:
                word = verdict(unmark(c["claim"]))
                out.append(
                    {"id": c["id"], "verdict": word, "explanation": "checked against the excerpt"}
                )
            return "json", {"claims": out}
        if skill in ("GATE:quiz_audit", "GATE:grade_audit"):
            word = verdict("")
            if word == "ISSUES" and skill == "GATE:quiz_audit":
                ids = [q["id"] for q in data["questions_json"]]
                return "json", {
                    "verdict": "ISSUES",
                    "issues": [
                        {"id": i, "severity": "high", "problem": "two options are defensible"}
                        for i in ids
                    ],
                }
            if skill == "GATE:quiz_audit":  # a quiz verdict has no explanation field
                return "json", {"verdict": word, "issues": []}
            return "json", {"verdict": word, "explanation": "audited"}
        return "status", 500

    return behave


# -- the two servers ---------------------------------------------------------------------------
@dataclass
class Endpoint:
    base_url: str
    bodies: Callable[[], list[dict]]


def _replies(behave: Behaviour) -> Callable[[dict], Reply]:
    """A behaviour as the project's loopback server answers it."""

    def reply(body: dict) -> Reply:
        kind, value = behave(body)
        if kind == "json":
            return Reply.json(value)
        if kind == "text":
            return Reply.text(value)
        if kind == "refusal":
            return Reply.refusal(value)
        if kind == "hang":
            return Reply.hang(value)
        if kind == "slow":
            return Reply.json(value[0], delay=value[1])
        if kind == "429":
            return Reply.rate_limited(retry_after=value)
        return Reply.error(value)

    return reply


def _project_server(behave: Behaviour) -> Iterator[Endpoint]:
    with ModelServer(default=_replies(behave)) as srv:
        yield Endpoint(srv.base_url, lambda: [r.body for r in srv.chat_requests])


@dataclass
class _Mini:
    """A deliberately small chat-completions endpoint, sharing no code with ModelServer."""

    behave: Behaviour
    bodies: list[dict] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _mini_server(behave: Behaviour) -> Iterator[Endpoint]:
    state = _Mini(behave)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            return None

        def _send(self, status: int, obj: Any, retry_after: float | None = None) -> None:
            raw = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            if retry_after is not None:
                self.send_header("Retry-After", f"{retry_after:g}")
            self.end_headers()
            self.wfile.write(raw)

        def _drip(self, body: dict, obj: Any, seconds: float) -> None:
            """A valid answer, its bytes spread over `seconds` (until the server stops)."""
            message = {"role": "assistant", "content": json.dumps(obj)}
            raw = json.dumps(
                {"id": "mini-1", "object": "chat.completion", "created": 0,
                 "model": body["model"], "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                 "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
            ).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            pieces = [raw[i : i + 4] for i in range(0, len(raw), 4)]
            try:
                for piece in pieces:
                    if state.stop.wait(seconds / len(pieces)):
                        break
                    self.wfile.write(piece)
                    self.wfile.flush()
            except OSError:  # the client gave up on it: what a slow endpoint sees
                self.close_connection = True

        def do_GET(self) -> None:
            self._send(200, {"object": "list", "data": [{"id": "mini", "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.bodies.append(body)
            kind, value = state.behave(body)
            if kind == "hang":
                state.stop.wait(value)
                self.close_connection = True
                return
            if kind == "status":
                self._send(value, {"error": {"message": "mini says no", "type": "server_error"}})
                return
            if kind == "429":
                self._send(429, {"error": {"message": "slow down", "type": "rate_limit"}}, value)
                return
            if kind == "slow":
                self._drip(body, *value)
                return
            message: dict[str, Any] = {"role": "assistant", "content": json.dumps(value)}
            if kind == "text":
                message["content"] = value
            elif kind == "refusal":
                message.update(content=None, refusal=value)
            self._send(
                200,
                {
                    "id": "mini-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                },
            )

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:

        def bodies() -> list[dict]:
            with state.lock:
                return list(state.bodies)

        yield Endpoint(f"http://127.0.0.1:{httpd.server_address[1]}/v1", bodies)
    finally:
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()


SERVERS = {"project": _project_server, "mini": _mini_server}


@pytest.fixture(params=sorted(SERVERS))
def endpoint(request):
    """Call with a behaviour; yields the running endpoint (both servers in turn)."""
    made: list[Iterator[Endpoint]] = []

    def start(behave: Behaviour) -> Endpoint:
        gen = SERVERS[request.param](behave)
        made.append(gen)
        return next(gen)

    yield start
    for gen in made:
        gen.close()


# -- a scripted learner ------------------------------------------------------------------------
def answer(prompt: Prompt) -> Action:
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
    return Action(kind="error_type", value="3", text="I rushed it")


def run(
    store: Store,
    base_url: str,
    *,
    course=None,
    lesson: str = LESSON,
    retries: int = 0,
    timeout: float = 5.0,
    wait_max: float = 0,
) -> tuple[Session, list[Prompt]]:
    settings = load_settings(
        base_url=base_url,
        model="loopback-model",
        timeout=timeout,
        wait_max=wait_max,
        max_retries=retries,
        backoff_base=0.001,
        backoff_max=0.002,
    )
    provider = make_provider(settings, StoreRecorder(store))
    course = course or load_curriculum(builtin_course_path())
    session = Session.start(
        store,
        course,
        course.lesson(lesson),
        provider=provider,
        drafter=Drafter(provider),
        offline=True,
    )
    seen: list[Prompt] = []
    try:
        for _ in range(400):
            seen.append(session.prompt)
            if session.done:
                break
            session.act(answer(session.prompt))
    finally:
        session.close()
    return session, seen


def taught(seen: list[Prompt]) -> list[Prompt]:
    return [p for p in seen if p.stage == "teach" and p.banner is None]


def fact_claims(bodies: list[dict]) -> list[str]:
    return [
        unmark(c["claim"])
        for b in bodies
        if parts(b)[0] == "GATE:fact_check"
        for c in parts(b)[2]["claims"]
    ]


# -- the gaps --------------------------------------------------------------------------------------
def test_an_unlisted_false_sentence_is_checked_and_never_shown(store, endpoint):
    """The drafter lists no claims at all; the program extracts every sentence, the verifier
    disputes the false one, the revision keeps it, so the step falls back to its own text."""
    behave = drafting(
        lambda step: f"The model restates {step} for this learner. {FALSE}",
        lambda claim: "ISSUES" if "exceed 1" in claim else "PASS",
    )
    server = endpoint(behave)
    session, seen = run(store, server.base_url)
    assert session.done
    assert FALSE in fact_claims(server.bodies()), "the unlisted sentence went to fact_check"
    shown = taught(seen)
    assert shown and all(FALSE not in p.content for p in seen)
    assert all(p.content.startswith("[source: ") for p in shown)


def test_a_verifier_that_always_says_issues_gets_two_revisions_then_the_lessons_text(
    store, endpoint
):
    revisions = iter(range(1, 1000))
    behave = drafting(
        lambda step: f"The model explains {step} in its own way here.",
        lambda claim: "ISSUES",
        revise=lambda step: f"Revision {next(revisions)} of {step} is here now.",
    )
    server = endpoint(behave)
    session, seen = run(store, server.base_url)
    bodies = server.bodies()
    shown = taught(seen)
    assert session.done and shown
    drafts = [b for b in bodies if parts(b)[1] == "teach_step"]
    revise = [b for b in bodies if parts(b)[1] == "revise_step"]
    assert len(revise) == 2 * len(drafts), "at most 2 revision cycles per step"
    for p in shown:
        assert p.content.startswith("[source: ")  # the lesson's own gated text
        (fallback,) = store.receipts.of_message(p.message_id)
        assert fallback["payload"]["verifier"] == "offline"
        (drafted,) = store.receipts.of_message(p.message_id.removesuffix(":source"))
        assert drafted["payload"]["cycles"] == 2 and drafted["outcome"] == "ISSUES"
    # it taught from the lesson's text, but every question was withheld: not done (issue 22)
    assert store.sessions.latest()["status"] == "incomplete"
    # a disputed choice item asked again as free recall: that retry is a cycle, and recorded
    retries = [
        r for r in store.receipts.of_session(session.id) if r["message_id"].endswith(":recall")
    ]
    assert retries and {r["payload"]["cycles"] for r in retries} == {1}


def empty_course(root: Path) -> Path:
    """A lesson with no prose to teach from and a bank of four fair items."""
    lesson = root / "phases" / "01-basics" / "01-bare"
    (lesson / "docs").mkdir(parents=True)
    (lesson / "docs" / "en.md").write_text(
        "# Bare Lesson\n\n> Short.\n\n**Type:** Learn\n", encoding="utf-8"
    )
    options = ["a red fox", "a tan cat", "a grey owl", "a blue jay"]
    bank = [
        {
            "id": f"q{n}",
            "stage": "pre",
            "question": f"Which animal is number {n}?",
            "options": options,
            "correct": n % 4,
            "explanation": "by the list",
        }
        for n in range(4)
    ]
    (lesson / "quiz.json").write_text(json.dumps({"questions": bank}), encoding="utf-8")
    return root


def test_a_lesson_where_nothing_is_taught_or_asked_is_not_recorded_done(store, endpoint, tmp_path):
    server = endpoint(drafting(lambda step: "unused", lambda claim: "ISSUES"))
    course = load_curriculum(empty_course(tmp_path / "course"))
    session, seen = run(store, server.base_url, course=course, lesson="P1 L01")
    assert session.done
    assert not [p for p in seen if p.item is not None], "every question was withheld"
    assert any(p.banner for p in seen)
    assert "not recorded as done" in seen[-1].content
    assert seen[-1].position == "ended, not done"  # its header does not say "done" either
    assert store.sessions.latest()["status"] == "incomplete"
    assert store.sessions.latest(status="done") is None  # the next lesson is not queued
    assert not any("Verdict for" in p.content for p in seen)  # no verdict from zero answers


def test_skipping_every_step_when_no_question_can_be_asked_is_not_done_and_says_why(
    store, endpoint, monkeypatch
):
    server = endpoint(drafting(lambda step: f"The model explains {step}.", lambda c: "ISSUES"))
    monkeypatch.setattr(
        sys.modules[__name__],
        "answer",
        lambda p, plain=answer: (
            Action(kind="skip") if p.stage == "teach" and not p.banner else plain(p)
        ),
    )
    session, seen = run(store, server.base_url)
    assert session.done and not [p for p in seen if p.item is not None]
    assert "you skipped its steps" in seen[-1].content
    assert store.sessions.latest()["status"] == "incomplete"


def test_500s_trip_the_breaker_bounded_and_the_learner_is_told_once(store, endpoint):
    server = endpoint(lambda body: ("status", 500))
    session, seen = run(store, server.base_url, retries=2)
    assert session.done and taught(seen)
    told = [p for p in seen if any(f.startswith(BREAKER_NOTICE) for f in p.flags)]
    assert len(told) == 1
    # a few failed calls (with their retries, and what was in flight) and then none: not the
    # ~40 calls × 3 attempts a lesson would make without the breaker
    assert len(server.bodies()) <= 30
    verifiers = {
        r["payload"]["verifier"]
        for r in store.rows("SELECT payload FROM receipts")
        for r in [{"payload": json.loads(r["payload"])}]
    }
    assert verifiers == {"offline"}  # what ran is what the receipts say


def test_a_hang_trips_the_breaker_at_once(store, endpoint):
    server = endpoint(lambda body: ("hang", 30))
    session, seen = run(store, server.base_url, retries=2, timeout=0.3)
    assert session.done and taught(seen)
    assert sum(any(f.startswith(BREAKER_NOTICE) for f in p.flags) for p in seen) == 1
    # only what was in flight when the first request timed out (a batch of audits sent
    # together, and the drafter's work): no retries, nothing sent after
    assert len(server.bodies()) <= 16


def test_a_learner_kept_waiting_takes_the_lesson_offline_before_any_request_times_out(
    store, endpoint
):
    """Requests hang, the request timeout is long (20 s): once the learner has waited
    `wait_max` at one screen, the breaker opens, what is in flight is cancelled, and the lesson
    goes on offline; the notice says why."""
    server = endpoint(lambda body: ("hang", 60))
    session, seen = run(store, server.base_url, retries=2, timeout=20, wait_max=0.5)
    assert session.done and taught(seen)
    told = [f for p in seen for f in p.flags if f.startswith(BREAKER_NOTICE)]
    assert len(told) == 1 and "while you waited 0.5 s at one screen" in told[0], told
    assert "TUTOR_WAIT_MAX sets that wait" in told[0]  # a slow model's learner can give it more
    assert "within the timeout" not in told[0]  # no request ran into its own timeout
    assert len(server.bodies()) <= 16  # what was in flight; nothing sent after


def test_receipts_name_the_verifier_and_its_independence(store, endpoint, monkeypatch):
    behave = drafting(
        lambda step: f"The model restates {step} for this learner.", lambda claim: "PASS"
    )
    drafting_server = endpoint(behave)
    session, seen = run(store, drafting_server.base_url)
    shown = taught(seen)
    assert session.done and shown
    for p in shown:
        (r,) = store.receipts.of_message(p.message_id)
        assert r["payload"]["verifier"] == "model"
        assert r["payload"]["verifier_model"] == "loopback-model"
        assert r["payload"]["independent"] is False
        assert NOT_INDEPENDENT in p.flags
    # the same lesson with a separate verifier model on its own endpoint
    judge = endpoint(behave)
    monkeypatch.setenv("TUTOR_VERIFIER_BASE_URL", judge.base_url)
    monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge")
    before = len(drafting_server.bodies())
    session, seen = run(store, drafting_server.base_url)
    shown = taught(seen)
    assert shown and all(NOT_INDEPENDENT not in p.flags for p in shown)
    for p in shown:
        (r,) = store.receipts.of_message(p.message_id)
        assert (r["payload"]["verifier_model"], r["payload"]["independent"]) == ("judge", True)
    assert {parts(b)[0] for b in judge.bodies()} >= {"GATE:fact_check"}
    # the drafting model drafts (and grades free recall); it verifies nothing any more
    assert not any(parts(b)[0].startswith("GATE:") for b in drafting_server.bodies()[before:])


def test_a_failing_verifier_means_no_model_draft_is_shown_and_the_learner_is_told_which(
    store, endpoint, monkeypatch
):
    """The drafting endpoint is healthy, the separate verifier's answers 500: no model draft is
    shown unchecked (each step is the lesson's own text), drafting stops once the verifier is
    known down, and the one notice names the verifier model."""
    drafts = drafting(lambda step: f"Model draft. The model restates {step}.", lambda c: "PASS")
    drafter = endpoint(drafts)
    judge = endpoint(lambda body: ("status", 500))
    monkeypatch.setenv("TUTOR_VERIFIER_BASE_URL", judge.base_url)
    monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge")
    session, seen = run(store, drafter.base_url, retries=1)
    shown = taught(seen)
    assert session.done and shown
    for p in shown:
        assert p.content.startswith("[source: "), p.content[:80]
        assert "Model draft" not in p.content
    told = [f for p in seen for f in p.flags if "stopped answering" in f]
    assert len(told) == 1 and told[0].startswith("The verifier model stopped answering")
    teach_drafts = [b for b in drafter.bodies() if parts(b)[1] == "teach_step"]
    assert len(teach_drafts) <= 2  # asked for only until the verifier was known down


async def test_verification_works_inside_a_running_event_loop(store, endpoint):
    """Gatekeeper.prewarm used asyncio.run, which fails in a thread that runs a loop — and the
    failure was turned into UNVERIFIED. Now the verifier runs there too."""
    server = endpoint(drafting(lambda step: "unused", lambda claim: "PASS"))
    asyncio.get_running_loop()  # this test runs inside a loop
    settings = load_settings(
        base_url=server.base_url, model="loopback-model", timeout=5, max_retries=0
    )
    gate = Gatekeeper(store, samples.DIGEST, make_provider(settings))
    turn, _, _ = samples.sample_teach()
    env = samples.fact_envelope()
    out = gate.teach("m-loop", turn.content, env.source_urls, env.reference_excerpt)
    # the model passed all three; the program's checks support only the verbatim one (c3)
    assert isinstance(out, Emit) and out.unverified == ["c1", "c2"]
    (r,) = store.receipts.of_message("m-loop")
    assert (r["payload"]["verifier"], r["outcome"]) == ("model", "UNVERIFIED")
    assert r["payload"]["checks"] == {"offline": ["c3"], "model": ["c1", "c2", "c3"]}


def test_a_verifier_that_withholds_every_question_leaves_the_lesson_not_taught(store, endpoint):
    """Teaching falls back to the lesson's own text, but no question reaches the learner: the
    lesson is not done, and the last screen says what happened and what to do."""
    server = endpoint(drafting(lambda step: f"The model explains {step}.", lambda c: "ISSUES"))
    session, seen = run(store, server.base_url)
    assert session.done and taught(seen)
    assert not [p for p in seen if p.item is not None]
    assert "withheld every question" in seen[-1].content
    assert "tutor doctor" in seen[-1].content
    assert store.sessions.latest()["status"] == "incomplete"
    assert store.sessions.latest(status="done") is None


def excerpt_sentence(data: dict) -> str:
    """A sentence the step's own excerpt says, word for word (the offline checks support it)."""
    text = unmark(data["untrusted_excerpts"]) if isinstance(data["untrusted_excerpts"], str) else ""
    for line in text.splitlines():
        line = line.strip()
        if line.endswith(".") and len(line.split()) >= 4 and not line.startswith(("#", "[", ">")):
            return line.split(". ")[0].rstrip(".") + "."
    return ""


@pytest.mark.parametrize("separate", [False, True], ids=["own-verifier", "named-verifier"])
def test_a_verifier_that_passes_everything_cannot_unmark_what_the_offline_checks_mark(
    store, endpoint, monkeypatch, separate
):
    """Issue 22, part 2: the drafts carry a false sentence; the verifier model passes every
    claim. Every screen that shows the false sentence marks it UNVERIFIED (with the flag that
    says why), the receipt records that the model passed it and the program's checks did not,
    and a sentence the excerpt says word for word is not marked."""
    healthy = drafting(lambda step: "unused", lambda claim: "PASS")

    def behave(body: dict) -> tuple[str, Any]:
        skill, task, data = parts(body)
        if skill == "tutor" and task == "teach_step":
            return "json", {"content": f"{excerpt_sentence(data)} {FALSE}".strip(), "claims": []}
        return healthy(body)

    server = endpoint(behave)
    if separate:
        judge = endpoint(behave)
        monkeypatch.setenv("TUTOR_VERIFIER_BASE_URL", judge.base_url)
        monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge")
    session, seen = run(store, server.base_url)
    assert session.done
    shown = [p for p in taught(seen) if FALSE in p.content]
    assert shown, "the model's drafts were shown (the verifier passed them)"
    supported_seen = 0
    for p in shown:
        (r,) = store.receipts.of_message(p.message_id)
        payload = r["payload"]
        assert payload["verifier"] == "model"
        assert payload["verifier_model"] == ("judge" if separate else "loopback-model")
        by_text = {c["claim"]: c["id"] for c in payload["envelope"]["claims"]}
        false_id = by_text[FALSE]
        assert false_id in p.unverified, p.unverified
        assert false_id in payload["checks"]["model"]
        assert false_id not in payload["checks"]["offline"]
        assert r["outcome"] == "UNVERIFIED"
        assert any("the verifier model passed" in f for f in p.flags), p.flags
        others = [i for t, i in by_text.items() if t != FALSE]
        for i in others:  # the sentence the excerpt says verbatim: both checks pass it
            if i in payload["checks"]["offline"]:
                supported_seen += 1
                assert i not in p.unverified
    assert supported_seen, "a verbatim sentence was shown unmarked on some screen"


def test_a_draft_the_program_finds_verbatim_in_its_sources_is_shown(store, endpoint):
    """Found by an outside tester with his own server: a draft whose every sentence is in the
    step's excerpt word for word is settled by the program (no verifier call, receipt verifier
    `offline`), and it was then thrown away as "unchecked" for the lesson's own text, while a
    draft the verifier model had to pass was shown. A draft the program checked in full is
    shown; the verifier is not asked about it."""
    plain = drafting(lambda step: "unused", lambda claim: "PASS")

    def behave(body: dict) -> tuple[str, Any]:
        skill, task, data = parts(body)
        if skill == "tutor" and task == "teach_step":
            excerpt = unmark(data["untrusted_excerpts"])
            prose = [p for p in excerpt.split("\n\n") if p[:1].isalpha() and ". " in p]
            return "json", {"content": prose[0].split(". ")[0] + ".", "claims": []}
        return plain(body)

    server = endpoint(behave)
    session, seen = run(store, server.base_url)
    shown = taught(seen)
    drafted = [p for p in shown if not p.content.startswith("[source: ")]
    assert session.done and drafted, [p.content[:60] for p in shown]
    for p in drafted:
        (r,) = store.receipts.of_message(p.message_id)
        assert (r["payload"]["verifier"], r["outcome"]) == ("offline", "PASS")
    assert "GATE:fact_check" not in {parts(b)[0] for b in server.bodies()}


def test_a_verifier_its_endpoint_says_is_the_drafting_model_is_not_independent(store, monkeypatch):
    """Found with an outside server: a local server answering with whichever model it has
    loaded ("llama3.1:8b") served both the drafting model and the separately named verifier,
    and every receipt said `independent: True`. The names the answers give count too."""
    from tutor.testing.model_server import ModelServer

    behave = drafting(
        lambda step: f"The model restates {step} for this learner.", lambda claim: "PASS"
    )
    with (
        ModelServer(default=_replies(behave), served="llama3.1:8b") as drafter,
        ModelServer(default=_replies(behave), served="llama3.1:8b", models=["judge"]) as judge,
    ):
        monkeypatch.setenv("TUTOR_VERIFIER_BASE_URL", judge.base_url)
        monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge")
        session, seen = run(store, drafter.base_url)
    shown = taught(seen)
    assert session.done and shown
    payloads = [r["payload"] for p in shown for r in store.receipts.of_message(p.message_id)]
    checked = [r for r in payloads if r["verifier"] == "model"]
    assert checked and all(r.get("independent") is False for r in checked), [
        (r["verifier"], r.get("verifier_model"), r.get("independent")) for r in payloads
    ]
