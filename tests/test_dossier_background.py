"""Knowledge packs built after the Scout (issue 24, part 3): taking a lesson with a model builds
its pack in the background — no `tutor dossier build` — and the first screen never waits for
it; closing the session stops a build in flight; without a model nothing is built."""

from __future__ import annotations

import threading

import pytest
from conftest import write_tiny_curriculum
from test_engine_api import scripted

from learning_system.curriculum import load_curriculum
from tutor.dossier.report import BUILD_IT, BUILDING
from tutor.dossier.status import lesson_pack
from tutor.dossier.units import lesson_source
from tutor.engine.drafter import Drafter
from tutor.engine.session import Session
from tutor.llm.openai_provider import OpenAIProvider
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply
from tutor.testing.pack_model import PackModel, request_data

pytestmark = pytest.mark.usefixtures("isolated_model_env")
LESSON = "P1 L02"
WAIT = 60  # seconds a test waits for the build before it fails (never an assertion on speed)


class HeldPackModel(PackModel):
    """PackModel whose pack requests wait until `release` is set; `asked` is set at the first."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = threading.Event()
        self.release = threading.Event()
        self.during = self._hold

    def _hold(self, body: dict) -> None:
        if request_data(body)[0].startswith("pack_"):
            self.asked.set()
            assert self.release.wait(WAIT), "the test never released the pack model"


def start(tmp_path, store, srv: ModelServer, offline: bool = False) -> Session:
    curriculum = load_curriculum(write_tiny_curriculum(tmp_path / "course", []))
    provider = OpenAIProvider(fast_settings(srv.base_url, timeout=WAIT))
    return Session.start(
        store,
        curriculum,
        curriculum.lesson(LESSON),
        provider=provider,
        drafter=Drafter(provider),
        offline=offline,
    )


def state(store, session: Session) -> str:
    return lesson_pack(store, lesson_source(session.lesson, session.curriculum)).state


def test_taking_a_lesson_builds_its_pack_in_the_background_and_the_first_screen_does_not_wait(
    tmp_path, store
):
    model = HeldPackModel()
    with ModelServer(default=model) as srv:
        session = start(tmp_path, store, srv)
        try:
            assert session.pack_start.build is not None
            assert session.pack_start.lines == [f"knowledge pack: not built ({BUILDING})"]
            assert model.asked.wait(WAIT)  # the build is under way, its reply held back...
            assert session.prompt.kind != "done"  # ...and the first screen is already there
            assert state(store, session) == "none"
            model.release.set()
            assert session.pack_start.build.wait(WAIT)
            assert state(store, session) == "ready"
            assert session.context.pack is None  # the session keeps the pack it started with
        finally:
            model.release.set()
            session.close()
        fresh = Session.start(store, session.curriculum, session.lesson)
        try:
            assert fresh.context.pack is not None and fresh.context.pack.state == "ready"
        finally:
            fresh.close()
    assert model.tasks.count("pack_extract") == 1


def test_a_ready_pack_is_not_rebuilt_when_the_lesson_is_taken_again(tmp_path, store):
    model = PackModel()
    with ModelServer(default=model) as srv:
        for _ in range(2):
            session = start(tmp_path, store, srv)
            assert session.pack_start.build is not None and session.pack_start.build.wait(WAIT)
            session.close()
            assert state(store, session) == "ready"
    assert model.tasks.count("pack_extract") == 1


def test_closing_the_session_stops_a_build_in_flight_and_writes_nothing(tmp_path, store):
    model = HeldPackModel()
    with ModelServer(default=model) as srv:
        session = start(tmp_path, store, srv)
        assert model.asked.wait(WAIT)
        session.close()  # returns although the model has not answered
        assert session.pack_start.build is not None and session.pack_start.build.result is None
        model.release.set()
    source = lesson_source(session.lesson, session.curriculum)
    assert store.packs.of_lesson(source.curriculum, LESSON) == []


def test_no_build_without_a_model_or_with_the_scouts_model_work_off(tmp_path, store):
    curriculum = load_curriculum(write_tiny_curriculum(tmp_path / "course", []))
    session = Session.start(store, curriculum, curriculum.lesson(LESSON), offline=False)
    assert session.pack_start.build is None
    session.close()
    with ModelServer(default=PackModel()) as srv:
        offline = start(tmp_path / "again", store, srv, offline=True)
        assert offline.pack_start.build is None
        assert offline.pack_start.lines == [f"knowledge pack: not built ({BUILD_IT})"]
        offline.close()
        assert srv.chat_requests == [] or all(
            not request_data(r.body)[0].startswith("pack_") for r in srv.chat_requests
        )


def test_a_failed_background_build_leaves_the_lesson_going(tmp_path, store):
    with ModelServer(default=Reply.error(500)) as srv:
        session = start(tmp_path, store, srv)
        try:
            assert session.pack_start.build is not None and session.pack_start.build.wait(WAIT)
            assert state(store, session) == "failed"
            for _ in range(5):  # the lesson goes on from its digest
                before = session.prompt.message_id
                session.act(scripted(session.prompt))
                assert session.prompt.message_id != before
        finally:
            session.close()
