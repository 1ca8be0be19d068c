"""Work prepared ahead is the work the learner then meets: the audit of every probe and quiz
question is in hand when the question is asked, and teaching steps are drafted two ahead.
A drafter that does its background work at once (in order) makes this deterministic."""

from __future__ import annotations

import json
from concurrent.futures import Future

from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_model import answer, skill_of, store, valid_reply  # noqa: F401

from learning_system.curriculum import load_curriculum
from tutor.config import builtin_course_path
from tutor.engine import probe_budget
from tutor.engine.drafter import Drafter
from tutor.engine.edge_search import EdgeSearch, ahead
from tutor.engine.gatekeeper import Gatekeeper
from tutor.engine.prefetch import STEPS_AHEAD
from tutor.engine.session import Session
from tutor.llm import make_provider
from tutor.llm.settings import load_settings
from tutor.testing.model_server import ModelServer, Reply


class AtOnceDrafter(Drafter):
    """Background work done the moment it is asked for, in the asking thread."""

    def prefetch(self, key, work):
        with self._lock:
            if key in self._futures:
                return
            future: Future = Future()
            self._futures[key] = future
        future.set_result(work())


@settings(max_examples=300, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 8), min_size=1, max_size=3),
    known=st.lists(st.booleans(), min_size=1, max_size=14),
)
def test_the_question_asked_next_is_always_among_those_prepared(sizes, known):
    searches = [EdgeSearch(n) for n in sizes]
    queues = [[(g, j) for j in range(n)] for g, n in enumerate(sizes)]
    for k in known:
        g = probe_budget.pick(searches)
        if g is None:
            break
        i = searches[g].next_index()
        assert i is not None
        prepared = ahead(searches, queues, g, asked=i)
        searches[g].record(i, k)
        after = probe_budget.pick(searches)  # the group and item the probe asks next
        if after is not None:
            following = queues[after][searches[after].next_index()]
            assert following in prepared, (g, i, k, following, prepared)


LESSON = "P1 L02"


def grading_reply(body: dict) -> Reply:
    """A well-behaved model that also grades free recall: the probe asks free-recall items,
    and three failed grades in a row would open the breaker, so nothing more is prepared."""
    if skill_of(body) == "grader":
        return Reply.json({"passed": True, "explanation": "it says what the reference says"})
    return valid_reply(body)


def provider_for(srv: ModelServer):
    return make_provider(
        load_settings(base_url=srv.base_url, model="loopback-model", timeout=5, max_retries=0)
    )


def start(store, srv: ModelServer) -> Session:  # noqa: F811
    course = load_curriculum(builtin_course_path())
    provider = provider_for(srv)
    return Session.start(
        store, course, course.lesson(LESSON), provider=provider,
        drafter=AtOnceDrafter(provider), offline=True,
    )  # fmt: skip


def walk(session: Session, look=lambda session: session) -> Session:
    """Answer every screen to the end; `look(session)` sees each prompt first and returns the
    session to go on with (another one, after a resume)."""
    try:
        for _ in range(400):
            if session.done:
                break
            session = look(session)
            session.act(answer(session.prompt))
    finally:
        session.close()
    assert session.done
    return session


def test_every_probe_and_quiz_question_finds_its_audit_ready(store, monkeypatch):  # noqa: F811
    ready: list[tuple[str, bool]] = []
    real_ask = Gatekeeper.ask

    def ask(self, message_id, content, questions, purpose, concept, excerpt, cycles=0, **kw):
        key = self.ask_envelope(questions, purpose, concept, excerpt).model_dump_json()
        q = questions[0]
        # bank questions and the strands' explain items (not the screens made from answers)
        if purpose in ("probe", "end-of-lesson quiz") and (
            q.type != "free_recall" or q.id.endswith("-explain")
        ):
            ready.append((q.id, key in self._verdicts))
        return real_ask(
            self, message_id, content, questions, purpose, concept, excerpt, cycles, **kw
        )

    monkeypatch.setattr(Gatekeeper, "ask", ask)
    with ModelServer(default=grading_reply) as srv:
        walk(start(store, srv))
        audits = [r for r in srv.chat_requests if skill_of(r.body) == "GATE:quiz_audit"]
    assert len(ready) >= 5, ready
    assert [q for q, ok in ready if not ok] == []
    # prepared ahead, but bounded: at most the two possible next questions per question asked
    assert len(audits) <= 3 * len(ready) + 5, (len(audits), len(ready))


def test_checkpoint_questions_and_the_explain_back_find_their_audit_ready(store, monkeypatch):  # noqa: F811
    """Issue 22: a checkpoint's question and the Feynman explain-back are audited while the
    step before them is read, so the learner does not wait on the model at them."""
    ready: list[tuple[str, bool]] = []
    real_ask = Gatekeeper.ask

    def ask(self, message_id, content, questions, purpose, concept, excerpt, cycles=0, **kw):
        key = self.ask_envelope(questions, purpose, concept, excerpt).model_dump_json()
        q = questions[0]
        asked_first = q.type != "free_recall" or q.id.endswith("-recall")
        if purpose == "checkpoint" and (asked_first or q.question.startswith("Explain")):
            ready.append((q.question[:40], key in self._verdicts))
        return real_ask(
            self, message_id, content, questions, purpose, concept, excerpt, cycles, **kw
        )

    monkeypatch.setattr(Gatekeeper, "ask", ask)
    with ModelServer(default=grading_reply) as srv:
        walk(start(store, srv))
    assert any(q.startswith("Explain") for q, _ in ready), ready
    assert len(ready) >= 2, ready
    assert [q for q, ok in ready if not ok] == []


def test_teaching_steps_are_drafted_two_ahead(store):  # noqa: F811
    drafted_when_shown: list[tuple[int, int, int]] = []
    with ModelServer(default=grading_reply) as srv:

        def look(session: Session) -> Session:
            prompt = session.prompt
            if prompt.stage == "teach" and prompt.position.startswith("step "):
                shown, total = (int(x) for x in prompt.position.split()[1].split("/"))
                drafts = sum(
                    skill_of(r.body) == "tutor" and "teach_step" in r.body["messages"][1]["content"]
                    for r in srv.chat_requests
                )
                drafted_when_shown.append((shown, total, drafts))
            return session

        walk(start(store, srv), look)
    assert drafted_when_shown, "no teaching step was shown"
    assert STEPS_AHEAD == 2
    for shown, total, drafts in drafted_when_shown:
        assert drafts == min(shown + STEPS_AHEAD, total), (shown, drafts, total)


def audited(body: dict) -> set[str]:
    """The ids of the questions a quiz_audit request audits."""
    data = json.loads(body["messages"][1]["content"])["data"]
    return {q["id"] for q in data["questions_json"]}


def test_resuming_sends_nothing_the_session_already_had(store):  # noqa: F811
    """Quit mid-probe and at a teaching step, resume: replaying to the same screen reuses the
    model's drafts (memos) and verdicts (receipts) instead of asking for them again."""
    course = load_curriculum(builtin_course_path())
    stops = {"probe": False, "teach": False}
    asked: set[str] = set()
    with ModelServer(default=grading_reply) as srv:

        def look(session: Session) -> Session:
            prompt = session.prompt
            if (
                prompt.stage in stops
                and not stops[prompt.stage]
                and (prompt.stage == "teach" or "question 2" in prompt.position)
            ):
                stops[prompt.stage] = True
                session.pause()
                session.close()
                before = len(srv.chat_requests)
                again = provider_for(srv)
                session = Session.resume(store, course, store.sessions.get(session.id),
                                         provider=again, drafter=AtOnceDrafter(again))  # fmt: skip
                assert session.prompt.message_id == prompt.message_id
                # at most the audits of the two questions that may follow this one, which
                # were prepared but never asked, so they have no receipt to reuse
                sent = [(skill_of(r.body), audited(r.body)) for r in srv.chat_requests[before:]]
                assert len(sent) <= 2, sent
                assert all(s == "GATE:quiz_audit" and not q & asked for s, q in sent), sent
            if prompt.item is not None:
                asked.add(prompt.item.id)
            return session

        walk(start(store, srv), look)
    assert all(stops.values()), stops
