"""Knowledge packs in a lesson (issue 24, part 5, the hook): with a ready pack a step is drafted
from the pack's selection and fact-checked against the source units; with none, or a stale
one, or after a failed build, the lesson teaches from its digest as before."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest
from test_engine_api import scripted
from test_model_gaps import drafting, parts, run, taught, unmark

from learning_system.curriculum import load_curriculum
from tutor.config import builtin_course_path
from tutor.dossier.build import build_pack
from tutor.dossier.selection import LABELS
from tutor.dossier.units import lesson_source, split_units
from tutor.engine.drafter import Drafter
from tutor.engine.session import Session
from tutor.engine.turns import Action
from tutor.llm import make_provider
from tutor.llm.recorder import StoreRecorder
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply
from tutor.testing.pack_model import PackModel

pytestmark = pytest.mark.usefixtures("isolated_model_env")
LESSON = "P1 L02"
EVIDENCE = "Explain in your own words what"  # PackModel's evidence atoms
PASSING = drafting(lambda step: f"The model explains {step} plainly here.", lambda c: "PASS")


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(builtin_course_path(), root)
    return load_curriculum(root)


def build(store, course, answer, lesson: str = LESSON) -> str:
    lesson = course.lesson(lesson)
    source = lesson_source(lesson, course)
    with ModelServer() as srv:
        srv.always(answer)
        settings = fast_settings(srv.base_url, timeout=5)
        return asyncio.run(build_pack(store, source, lesson.title, settings)).state


def loopback_provider(store, base_url: str):
    return make_provider(fast_settings(base_url, timeout=5), StoreRecorder(store))


def passing(body: dict) -> Reply:
    kind, value = PASSING(body)
    return Reply.json(value) if kind == "json" else Reply.error(500)


def model_session(store, course, base_url: str) -> Session:
    """The lesson opened with the loopback model at `base_url` drafting and verifying."""
    provider = loopback_provider(store, base_url)
    return Session.start(
        store,
        course,
        course.lesson(LESSON),
        provider=provider,
        drafter=Drafter(provider),
        offline=True,
    )


def take(session: Session, act) -> list:
    """The lesson to its end, answered by `act`; the prompts seen. The session is closed."""
    seen = []
    try:
        for _ in range(400):
            seen.append(session.prompt)
            if session.done:
                break
            session.act(act(session.prompt))
    finally:
        session.close()
    return seen


def lesson_bodies(store, course) -> tuple[list[dict], list]:
    with ModelServer() as srv:
        srv.always(passing)
        session, seen = run(store, srv.base_url, course=course)
        bodies = [r.body for r in srv.chat_requests]
    assert session.done
    return bodies, seen


FACT = LABELS["invariant"] + ": "  # how the selection labels an invariant in its excerpt


def step_excerpts(bodies: list[dict]) -> list[str]:
    return [
        unmark(parts(b)[2]["untrusted_excerpts"])
        for b in bodies
        if parts(b)[0] == "tutor" and parts(b)[1] == "teach_step"
    ]


def fact_checks(bodies: list[dict]) -> list[str]:
    return [b["messages"][1]["content"] for b in bodies if parts(b)[0] == "GATE:fact_check"]


def test_with_a_ready_pack_steps_are_drafted_from_its_selection(store, course):
    assert build(store, course, PackModel()) == "ready"
    bodies, seen = lesson_bodies(store, course)
    excerpts = step_excerpts(bodies)
    assert excerpts and any(e.startswith(FACT) for e in excerpts)
    checks = fact_checks(bodies)
    assert checks and not any(FACT in c for c in checks)  # units, not atoms
    assert taught(seen)
    assert any(p.stage == "checkpoint" and EVIDENCE in p.content for p in seen)


@pytest.mark.parametrize("how", ["review_required", "stale", "failed"])
def test_without_a_usable_pack_the_lesson_teaches_from_its_digest(store, course, how):
    if how == "review_required":
        assert build(store, course, PackModel(uncovered={"u2"})) == "review_required"
    elif how == "failed":
        assert build(store, course, Reply.error(500)) == "failed"
    else:
        assert build(store, course, PackModel()) == "ready"
        doc = course.lesson(LESSON).doc_path
        doc.write_text(doc.read_text(encoding="utf-8") + "\nAn edit.\n", encoding="utf-8")
    bodies, seen = lesson_bodies(store, course)
    excerpts = step_excerpts(bodies)
    assert excerpts and not any(FACT in e for e in excerpts)
    assert taught(seen)
    assert not any(EVIDENCE in p.content for p in seen)


def test_a_resumed_session_does_not_use_a_pack_that_changed_since_it_started(store, course):
    from tutor.engine.session import Session

    assert build(store, course, PackModel()) == "ready"
    session = Session.start(store, course, course.lesson(LESSON))
    first = session.context.pack
    assert first is not None
    session.close()
    assert build(store, course, PackModel(evidence_to="au3")) == "ready"  # another pack
    row = store.sessions.get(session.id)
    resumed = Session.resume(store, course, row)
    assert resumed.context.pack is None
    resumed.close()
    fresh = Session.start(store, course, course.lesson(LESSON))
    assert fresh.context.pack is not None and fresh.context.pack.sha256 != first.sha256
    fresh.close()


# -- selection by the learner's recent error types and the probe's gaps -------------------------
def learner(wrong: bool, error_type: str):
    """Answers the probe wrong (or right) and attributes each mistake to `error_type` (1-4)."""

    def act(prompt):
        if prompt.kind == "error_type":
            return Action(kind="error_type", value=error_type, text="as it happened")
        return scripted(prompt, wrong=wrong and prompt.stage == "probe")

    return act


def excerpts_of_a_lesson(store, course, act) -> list[str]:
    with ModelServer() as srv:
        srv.always(passing)
        take(model_session(store, course, srv.base_url), act)
        return step_excerpts([r.body for r in srv.chat_requests])


def errors_in(excerpts: list[str]) -> int:
    return max(e.count(LABELS["error"] + ": ") for e in excerpts)


def test_recent_deviation_errors_bring_more_of_the_steps_common_errors(store, course):
    assert build(store, course, PackModel(errors=3)) == "ready"
    right = excerpts_of_a_lesson(store, course, learner(wrong=False, error_type="2"))
    assert errors_in(right) == 1
    slipped = excerpts_of_a_lesson(store, course, learner(wrong=True, error_type="2"))
    assert errors_in(slipped) == 3


def test_a_prerequisite_the_probe_found_a_gap_in_adds_its_invariants(store, course):
    assert build(store, course, PackModel()) == "ready"
    assert build(store, course, PackModel(), lesson="P1 L01") == "ready"
    prereq = lesson_source(course.lesson("P1 L01"), course)
    first_fact = FACT + next(
        u.text.strip().splitlines()[0] for u in split_units(prereq) if not u.text.startswith("`")
    )
    solid = excerpts_of_a_lesson(store, course, learner(wrong=False, error_type="4"))
    assert solid and not any(first_fact in e for e in solid)
    gap = excerpts_of_a_lesson(store, course, learner(wrong=True, error_type="4"))
    assert any(first_fact in e for e in gap)


def failing_evidence(body: dict) -> Reply:
    """PASSING, except that an answer to a pack's evidence checkpoint is graded wrong."""
    skill, _, data = parts(body)
    if skill == "grader" and EVIDENCE in unmark(str(data.get("question", ""))):
        return Reply.json({"passed": False, "explanation": "it misses the point"})
    return passing(body)


def test_a_resumed_lesson_selects_as_it_did_and_redrafts_no_step(store, course):
    """The error types a step's selection follows are those at the first step, kept in the
    log: a slip at a later checkpoint changes no step's selection, then or on resume."""
    assert build(store, course, PackModel(errors=3)) == "ready"
    act = learner(wrong=False, error_type="2")
    with ModelServer() as srv:
        srv.always(failing_evidence)
        session = model_session(store, course, srv.base_url)
        slipped = False
        while not (slipped and session.prompt.stage == "teach" and session.prompt.kind == "read"):
            slipped = slipped or session.prompt.kind == "error_type"
            session.act(act(session.prompt))
        shown = session.prompt.content
        session.pause()
        session.close()
        drafted = step_excerpts([r.body for r in srv.chat_requests])
        provider = loopback_provider(store, srv.base_url)
        resumed = Session.resume(
            store,
            course,
            store.sessions.get(session.id),
            provider=provider,
            drafter=Drafter(provider),
        )
        resumed.close()
        assert resumed.prompt.content == shown
        excerpts = step_excerpts([r.body for r in srv.chat_requests])
    assert errors_in(drafted) == 1  # no slip before the first step
    assert excerpts == drafted  # the replay found its drafts: the same selections


INVENTED = "Most experts agree it uses a secret 17-step calibration known as the Orlov cycle."


def invent_in_the_stored_pack(store) -> None:
    """Prefix INVENTED to every invariant of the stored packs, kept `ready`: a pack stored
    before the program checked its sentences against the sources."""
    rows = store.conn.execute("SELECT id, pack FROM knowledge_packs").fetchall()
    for row_id, raw in rows:
        pack = json.loads(raw)
        for atom in pack["atoms"]:
            if atom["kind"] == "invariant":
                atom["text"] = f"{INVENTED} {atom['text']}"
        store.conn.execute(
            "UPDATE knowledge_packs SET pack = ? WHERE id = ?", (json.dumps(pack), row_id)
        )
    store.conn.commit()


def test_a_checkpoint_grade_names_the_reference_sentences_not_found_in_the_sources(store, course):
    assert build(store, course, PackModel()) == "ready"
    invent_in_the_stored_pack(store)
    _, seen = lesson_bodies(store, course)
    grades = [p for p in seen if p.stage == "results" and f"Reference: {INVENTED}" in p.content]
    assert grades
    for p in grades:
        assert p.unverified and any(INVENTED.rstrip(".") in c for c in p.unverified_claims)
        assert EVIDENCE in p.content  # the checkpoint asking the pack's evidence


def test_a_checkpoint_grade_from_a_grounded_pack_marks_no_reference_sentence(store, course):
    assert build(store, course, PackModel()) == "ready"
    _, seen = lesson_bodies(store, course)
    grades = [p for p in seen if p.stage == "results" and EVIDENCE in p.content]
    assert grades and not any(p.unverified_claims for p in grades)
