"""Issue 14, break 10: background model work finishes (or is cancelled) before the store closes,
so pausing during a prefetch keeps that call's record. Real loopback model server, real store."""

from __future__ import annotations

import json
import threading

from learning_system.store import Store
from tutor.engine.drafter import Drafter
from tutor.llm import make_provider
from tutor.llm.recorder import StoreRecorder
from tutor.llm.settings import load_settings
from tutor.testing.model_server import ModelServer, Reply


def test_closing_during_a_prefetch_keeps_the_model_call_record(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "home"))
    arrived, release = threading.Event(), threading.Event()

    def held_draft(body: dict) -> Reply:
        arrived.set()
        release.wait(30)
        claim = "The mean adds the values and divides by their count."
        return Reply.json({"content": claim, "claims": [claim]})

    with ModelServer(default=held_draft) as srv:
        store = Store(tmp_path / "tutor.db")
        settings = load_settings(
            base_url=srv.base_url, model="loopback-model", timeout=30, max_retries=0, backoff_base=0
        )
        drafter = Drafter(make_provider(settings, StoreRecorder(store)))
        compiled = {"excerpt": "The mean adds the values.", "sources": ["docs/en.md"]}
        drafter.prefetch("step-1", lambda: drafter.draft({"title": "Mean"}, compiled))
        drafter.prefetch("step-2", lambda: drafter.draft({"title": "Median"}, compiled))
        assert arrived.wait(30), "the prefetch reached the model"
        closing = threading.Thread(target=drafter.close)  # the learner paused
        closing.start()
        release.set()
        closing.join(30)
        assert not closing.is_alive()
        store.close()
        requests = len(srv.chat_requests)
    with Store(tmp_path / "tutor.db") as store:
        calls = store.model_calls.all()
    assert [c["purpose"] for c in calls] == ["teach"] * requests
    assert requests >= 1 and all(c["outcome"] == "ok" for c in calls), json.dumps(calls)[:500]
