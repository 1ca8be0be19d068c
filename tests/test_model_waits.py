"""Every wait within the promise (issue 22): lesson start never waits on the Scout's model calls,
a Retry-After longer than the learner's wait at one screen is not honoured, and a wait between
retries ends when the learner's wait runs out. Against the loopback model and page servers;
bounded by counting (requests, sleeps), not by the clock."""

from __future__ import annotations

import asyncio
import threading

import pytest
from conftest import write_tiny_curriculum
from pydantic import BaseModel
from test_scout_model import PAGE, model_reply

from learning_system.curriculum import load_curriculum
from tutor.engine.drafter import Drafter
from tutor.engine.session import Session
from tutor.llm.openai_provider import OpenAIProvider
from tutor.llm.provider import ModelFailure
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply
from tutor.testing.page_server import Page, PageServer

pytestmark = pytest.mark.usefixtures("isolated_model_env")
MODEL_NOTE = "Nesterov look-ahead gradient"  # what test_scout_model's model says the page adds


class Answer(BaseModel):
    answer: int


def start_lesson(tmp_path, store, srv: ModelServer, pages: PageServer) -> tuple[Session, str]:
    url = pages.route(
        "/nesterov", Page.html(f"<html><body><article><p>{PAGE}</p></article></body></html>")
    )
    curriculum = load_curriculum(write_tiny_curriculum(tmp_path / "course", [("Nesterov", url)]))
    provider = OpenAIProvider(fast_settings(srv.base_url))
    session = Session.start(
        store,
        curriculum,
        curriculum.lesson("P1 L02"),
        provider=provider,
        drafter=Drafter(provider),
        offline=False,
    )
    return session, url


def external(digest: dict, url: str) -> dict:
    return next(s for s in digest["sources"] if s["url"] == url)


def test_lesson_start_does_not_wait_on_the_scouts_model_calls(tmp_path, store):
    with ModelServer(default=model_reply) as srv, PageServer() as pages:
        session, url = start_lesson(tmp_path, store, srv, pages)
        try:
            # the first screen's digest was made without the model: the page was read, no note
            assert session.prompt.kind != "done"
            first = external(session.digest.model_dump(mode="json"), url)
            assert first["status"] in ("ok", "new", "changed")
            assert first["adds_vs_primary"] != MODEL_NOTE
        finally:
            session.close()  # waits for the background work
        # the model's notes were made meanwhile, in the background, and stored for `tutor scout`
        latest = store.digests.latest("P1 L02")
        assert latest is not None and latest["id"] != session.digest.id
        assert external(latest, url)["adds_vs_primary"] == MODEL_NOTE


def test_a_hanging_endpoint_does_not_hold_the_first_screen(tmp_path, store):
    with ModelServer(default=Reply.hang(3.0)) as srv, PageServer() as pages:
        session, url = start_lesson(tmp_path, store, srv, pages)
        try:
            assert session.prompt.kind != "done"
            shown = external(session.digest.model_dump(mode="json"), url)
            assert shown["adds_vs_primary"] != MODEL_NOTE
        finally:
            session.close()


async def test_a_retry_after_longer_than_the_learners_wait_fails_at_once():
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    with ModelServer(default=Reply.rate_limited(retry_after=5)) as srv:
        settings = fast_settings(srv.base_url, retry_after_max=20, wait_max=2)
        provider = OpenAIProvider(settings, sleep=sleep)
        assert provider.longest_wait == 2
        with pytest.raises(ModelFailure, match="more than the 2 s we wait"):
            await provider.structured(skill="tutor", data={}, schema=Answer, purpose="test")
        await provider.aclose()
        assert len(srv.chat_requests) == 1 and slept == []


async def test_a_retry_after_within_the_wait_is_honoured():
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    with ModelServer() as srv:
        srv.script([Reply.rate_limited(retry_after=1.5), Reply.json({"answer": 4})])
        provider = OpenAIProvider(
            fast_settings(srv.base_url, retry_after_max=20, wait_max=2), sleep=sleep
        )
        answer = await provider.structured(skill="tutor", data={}, schema=Answer, purpose="t")
        await provider.aclose()
    assert answer.answer == 4 and slept == [1.5]


async def test_a_wait_between_retries_ends_when_the_learners_wait_runs_out():
    """The wait before a retry is cut short when the session's watchdog stalls the breaker:
    the call fails instead of sleeping on."""
    waiting = threading.Event()

    async def sleep(seconds: float) -> None:
        waiting.set()
        await asyncio.Event().wait()  # would never end on its own

    with ModelServer(default=Reply.rate_limited(retry_after=1)) as srv:
        provider = OpenAIProvider(
            fast_settings(srv.base_url, retry_after_max=20, wait_max=10), sleep=sleep
        )
        call = asyncio.ensure_future(
            provider.structured(skill="tutor", data={}, schema=Answer, purpose="test")
        )
        await asyncio.to_thread(waiting.wait, 10)
        assert waiting.is_set()
        assert provider.breaker.stall("10 s at one screen")
        with pytest.raises(ModelFailure) as failure:
            await call
        await provider.aclose()
    assert failure.value.kind == "unavailable"
    assert len(srv.chat_requests) == 1
