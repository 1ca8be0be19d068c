"""`tutor doctor`: settings in effect, the endpoint and its model, the store, the curriculum."""

from __future__ import annotations

import argparse
import json
import socket

import pytest

from learning_system.store import SCHEMA_VERSION, Store
from tutor.cli import main
from tutor.commands import doctor
from tutor.config import builtin_course_path, store_path, tutor_home
from tutor.llm.health import OFFLINE_MESSAGE
from tutor.testing.model_server import ModelServer, Reply

READY = Reply.json({"ready": True})

pytestmark = pytest.mark.usefixtures("isolated_model_env")


def run_doctor(capsys, *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    doctor.add_parser(parser.add_subparsers(dest="command"), "doctor")
    code = doctor.run(parser.parse_args(["doctor", *argv]))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out


def report(capsys) -> tuple[int, dict]:
    code, out = run_doctor(capsys, "--json")
    return code, json.loads(out)


def test_with_nothing_configured_doctor_says_it_runs_offline(capsys):
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 0
    assert OFFLINE_MESSAGE in out
    assert "key (OPENAI_API_KEY): absent" in out
    assert "not created yet" in out
    assert f"built-in course ({builtin_course_path()})" in out
    assert not store_path().exists()  # looking does not create the store


def test_json_report_shape_offline(capsys):
    code, data = report(capsys)
    assert code == 0 and data["ok"] is True
    assert data["settings"]["offline"] is True and data["settings"]["api_key"] == "absent"
    assert data["model"]["status"] == "offline"
    assert data["store"]["status"] == "absent"
    assert data["curriculum"]["status"] == "builtin"


def test_a_reachable_endpoint_listing_the_model(capsys, monkeypatch):
    with ModelServer(
        models=["loopback-model", "other"], require_key="sk-doctor-key", default=READY
    ) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "loopback-model")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-doctor-key")
        code, data = report(capsys)
        assert code == 0
        assert data["model"]["status"] == "ok" and data["model"]["model_listed"] is True
        assert data["model"]["models_count"] == 2
        assert data["settings"]["api_key"] == "present"
        assert [r.path for r in srv.requests] == ["/v1/models", "/v1/chat/completions"]
        (completion,) = srv.chat_requests
        # a lesson's token bound: a reasoning model thinks before its tiny answer
        assert completion.body["max_tokens"] == 1500 and data["model"]["completion"]["ok"]
        assert data["verifier"]["status"] == "same" and data["verifier"]["independent"] is False
        code, out = run_doctor(capsys)
        assert "model loopback-model is listed" in out and "sk-doctor-key" not in out


def test_a_model_the_endpoint_does_not_list_needs_attention(capsys, monkeypatch):
    with ModelServer(models=["llama3:latest"], default=READY) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "llama3")
        assert report(capsys)[0] == 0  # Ollama's ":latest" tag counts
        monkeypatch.setenv("TUTOR_MODEL", "gpt-9")
        code, data = report(capsys)
        assert code == 1 and data["model"]["status"] == "model_not_listed"


def test_a_refused_key_is_reported(capsys, monkeypatch):
    with ModelServer(require_key="right") as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "wrong")
        code, data = report(capsys)
        assert code == 1 and data["model"]["status"] == "rejected"
        assert "OPENAI_API_KEY" in data["model"]["message"]


def test_an_unreachable_endpoint_is_reported(capsys, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound but not listening: connections are refused
        monkeypatch.setenv("TUTOR_BASE_URL", f"http://127.0.0.1:{port}/v1")
        monkeypatch.setenv("TUTOR_TIMEOUT", "1")
        code, data = report(capsys)
    assert code == 1 and data["model"]["status"] == "unreachable"


def test_store_health_and_schema_version(capsys):
    Store(store_path()).close()
    code, data = report(capsys)
    assert code == 0
    assert data["store"]["status"] == "ok"
    assert data["store"]["schema_version"] == SCHEMA_VERSION
    assert data["store"]["path"] == str(store_path())


def test_a_damaged_store_is_reported_not_raised(capsys):
    store_path().write_bytes(b"this is not sqlite" * 100)
    code, data = report(capsys)
    assert code == 1 and data["store"]["status"] == "error"


def test_the_learners_curriculum_is_reported(capsys, tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (tutor_home() / "learner.json").write_text(json.dumps({"curriculum": str(course)}))
    code, data = report(capsys)
    assert code == 0 and data["curriculum"]["path"] == str(course)
    (tutor_home() / "learner.json").write_text(json.dumps({"curriculum": str(tmp_path / "gone")}))
    code, data = report(capsys)
    assert code == 1 and data["curriculum"]["status"] == "missing"


def test_the_curriculum_chosen_with_init_is_reported(capsys, tmp_path):
    from tutor.learner import CURRICULUM_KEY

    course = tmp_path / "chosen"
    course.mkdir()
    with Store(store_path()) as store:
        store.set_setting(CURRICULUM_KEY, str(course))
    code, data = report(capsys)
    assert code == 0 and data["curriculum"]["path"] == str(course)
    assert data["curriculum"]["source"] == "store"


def test_invalid_settings_are_reported_without_a_traceback(capsys):
    (tutor_home() / "settings.toml").write_text("[model]\ntimeout = 'soon'\n")
    code, out = run_doctor(capsys)
    assert code == 1 and "INVALID" in out and "timeout" in out


def test_doctor_reports_a_model_that_does_not_follow_the_schema(capsys, monkeypatch):
    with ModelServer(default=Reply.text("Sure! I am ready.")) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "loopback-model")
        code, data = report(capsys)
        assert code == 1
        assert data["model"]["completion"]["follows_schema"] is False
        assert data["model"]["completion"]["status"] == "schema"
        # one completion, its re-asks, and no retries: doctor stays quick
        assert len(srv.chat_requests) == 3


def test_doctor_shows_a_separate_verifier_and_checks_it(capsys, monkeypatch):
    with (
        ModelServer(default=READY) as drafting,
        ModelServer(models=["judge"], default=READY) as judging,
    ):
        monkeypatch.setenv("TUTOR_BASE_URL", drafting.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "loopback-model")
        monkeypatch.setenv("TUTOR_VERIFIER_BASE_URL", judging.base_url)
        monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge")
        code, data = report(capsys)
        assert code == 0, data
        assert data["verifier"]["independent"] is True and data["verifier"]["model"] == "judge"
        assert data["verifier"]["completion"]["ok"] is True
        assert [r.path for r in judging.requests] == ["/v1/models", "/v1/chat/completions"]
        code, out = run_doctor(capsys)
        assert "verifier    judge at " + judging.base_url in out


def test_doctor_blames_the_endpoint_for_a_reply_that_is_no_chat_completion(capsys, monkeypatch):
    with ModelServer(default=Reply.malformed()) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "loopback-model")
        code, data = report(capsys)
    completion = data["model"]["completion"]
    assert code == 1 and completion["status"] == "malformed"
    assert completion["follows_schema"] is None  # unknown: the model's answer never arrived
    assert "endpoint" in completion["message"] and "schema" not in completion["message"]


def test_an_endpoint_without_a_models_route_is_used_not_taken_for_unreachable(
    capsys, monkeypatch, tmp_path
):
    from learning_system.store import Store
    from tutor.engine.runner import model_provider

    with ModelServer(default=Reply.json({"ready": True}), list_models=False) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "loopback-model")
        code, data = report(capsys)
        told: list[str] = []
        with Store(tmp_path / "t.db") as store:
            provider = model_provider(store, progress=told.append)
    assert data["model"]["status"] == "no_listing" and data["model"]["completion"]["ok"]
    assert code == 0
    assert provider is not None and not any("offline" in t for t in told), told


def test_doctor_uses_and_shows_the_endpoint_named_by_openai_base_url(capsys, monkeypatch):
    with ModelServer(require_key="sk-openai-vars", default=READY) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-vars")
        monkeypatch.setenv("OPENAI_MODEL", "loopback-model")
        code, data = report(capsys)
        assert code == 0, data
        assert data["settings"]["base_url"] == srv.base_url
        assert data["model"]["status"] == "ok" and data["model"]["completion"]["ok"]
        assert [r.path for r in srv.requests] == ["/v1/models", "/v1/chat/completions"]
        code, out = run_doctor(capsys)
        assert f"base_url={srv.base_url} model=loopback-model" in out


def test_doctor_shows_openais_own_url_when_only_a_key_is_set(monkeypatch):
    """Rendered from the settings alone: checking the endpoint would reach the internet."""
    from tutor.doctor_report import check_settings, render
    from tutor.llm.health import DEFAULT_BASE_URL

    monkeypatch.setenv("OPENAI_API_KEY", "sk-no-endpoint")
    settings, _ = check_settings()
    part = {"ok": True, "message": "-", "path": "-"}
    report = {"settings": settings, **dict.fromkeys(("model", "verifier", "store"), part)}
    out = render({**report, "curriculum": part, "ok": True})
    assert f"base_url={DEFAULT_BASE_URL} (default)" in out


def test_a_base_url_missing_v1_gets_the_hint_to_add_it(capsys, monkeypatch, tmp_path):
    from tutor.engine.runner import model_provider

    with ModelServer(only_v1=True, default=READY) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.root_url + "/")
        code, data = report(capsys)
        hint = f"the endpoint answers under /v1: set base_url to {srv.root_url}/v1"
        assert code == 1 and hint in data["model"]["message"], data["model"]
        assert [r.path for r in srv.requests] == ["/models", "/v1/models"]  # no completion
        code, out = run_doctor(capsys)
        assert hint in out
        told: list[str] = []  # a lesson says the same, once, and runs offline
        with Store(tmp_path / "t.db") as store:
            assert model_provider(store, progress=told.append) is None
        assert any(hint in t for t in told), told


def test_a_base_url_with_v1_on_a_root_server_gets_the_hint_to_drop_it(capsys, monkeypatch):
    """Found with an outside server serving its API at the root: a base URL ending in /v1 got
    no hint (the opposite case had one)."""
    with ModelServer(only_root=True, default=READY) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        code, data = report(capsys)
        hint = f"the endpoint answers without /v1: set base_url to {srv.root_url}"
    assert code == 1 and hint in data["model"]["message"], data["model"]


def test_no_v1_hint_when_the_v1_path_does_not_answer_either(capsys, monkeypatch):
    with ModelServer(list_models=False, default=READY) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.root_url)
        code, data = report(capsys)
    assert data["model"]["status"] == "no_listing" and "/v1" not in data["model"]["message"]
    assert [r.path for r in srv.requests][:2] == ["/models", "/v1/models"]


def test_a_slow_model_and_an_unlisted_verifier_are_told_as_a_lesson_meets_them(capsys, monkeypatch):
    """Found with an outside server: a model answering in 5.5 s, which lessons used with
    TUTOR_TIMEOUT=60, failed doctor's 5 s check; an unlisted verifier model was told to change
    TUTOR_MODEL. The completion check waits a lesson's timeout, and the hint names the
    verifier's own setting."""
    with (
        ModelServer(default=Reply.json({"ready": True}, delay=5.5)) as drafting,
        ModelServer(models=["judge"], default=READY) as judging,
    ):
        monkeypatch.setenv("TUTOR_BASE_URL", drafting.base_url)
        monkeypatch.setenv("TUTOR_MODEL", "loopback-model")
        monkeypatch.setenv("TUTOR_TIMEOUT", "30")
        monkeypatch.setenv("TUTOR_VERIFIER_BASE_URL", judging.base_url)
        monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge-2")
        code, data = report(capsys)
        assert data["model"]["completion"]["ok"] is True, data["model"]
        assert data["verifier"]["status"] == "model_not_listed"
        assert "set TUTOR_VERIFIER_MODEL to one it lists" in data["verifier"]["message"]


def test_an_endpoint_that_streams_unasked_is_read(capsys, monkeypatch):
    """Found with an outside server: an endpoint answering every request as a stream of
    server-sent events, though none was asked for, was "malformed" and the lesson went
    offline. Its events are read as the completion they make up."""
    with ModelServer(always_stream=True, default=READY) as srv:
        monkeypatch.setenv("TUTOR_BASE_URL", srv.base_url)
        code, data = report(capsys)
    assert data["model"]["completion"]["ok"] is True, data["model"]
