"""Model settings (environment over settings.toml over defaults) and the provider choice."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tutor.errors import TutorError
from tutor.llm import make_provider
from tutor.llm.offline_provider import OfflineProvider
from tutor.llm.openai_provider import OpenAIProvider
from tutor.llm.settings import ModelSettings, load_settings, settings_file

KEY = "sk-settings-test-0123456789"


pytestmark = pytest.mark.usefixtures("isolated_model_env")


def write_settings(text: str) -> None:
    settings_file().write_text(text, encoding="utf-8")


def test_defaults_are_offline_with_no_key_and_no_endpoint():
    settings = load_settings()
    assert settings.offline and settings.base_url is None and settings.api_key is None
    assert settings.api_key_env == "OPENAI_API_KEY" and settings.debug_prompts is False
    assert isinstance(make_provider(settings), OfflineProvider)
    assert isinstance(make_provider(), OfflineProvider)


def test_environment_settings_are_read(monkeypatch):
    monkeypatch.setenv("TUTOR_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TUTOR_MODEL", "llama3")
    monkeypatch.setenv("TUTOR_TIMEOUT", "7.5")
    monkeypatch.setenv("TUTOR_MAX_RETRIES", "4")
    monkeypatch.setenv("TUTOR_DEBUG_PROMPTS", "true")
    settings = load_settings()
    assert (
        settings.base_url,
        settings.model,
        settings.timeout,
        settings.max_retries,
        settings.debug_prompts,
    ) == ("http://127.0.0.1:9/v1", "llama3", 7.5, 4, True)
    assert not settings.offline  # an endpoint without a key (Ollama) is a model
    assert isinstance(make_provider(settings), OpenAIProvider)


def test_a_key_alone_selects_the_openai_provider(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings = load_settings()
    assert not settings.offline and settings.api_key.get_secret_value() == KEY


def test_the_key_variable_can_be_renamed(monkeypatch):
    monkeypatch.setenv("TUTOR_API_KEY_ENV", "MY_LLM_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "not-this-one")
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    assert load_settings().api_key.get_secret_value() == KEY


def test_the_settings_file_is_read_and_the_environment_wins(monkeypatch):
    write_settings(
        '[model]\nbase_url = "http://localhost:11434/v1"\nmodel = "qwen"\n'
        "timeout = 12\n[other]\nx = 1\n"
    )
    settings = load_settings()
    assert (settings.base_url, settings.model, settings.timeout) == (
        "http://localhost:11434/v1",
        "qwen",
        12,
    )
    monkeypatch.setenv("TUTOR_MODEL", "mistral")
    assert load_settings().model == "mistral"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[model]\ntimeout = -1\n", "timeout"),
        ("[model]\nmodle = 'typo'\n", "modle"),
        ("[model]\napi_key = 'sk-in-a-file'\n", "does not belong in a file"),
        ("[model\n", "cannot read"),
        ("model = 3\n", "must be a table"),
    ],
)
def test_bad_settings_are_a_learner_facing_error(text, words):
    write_settings(text)
    with pytest.raises(TutorError) as info:
        load_settings()
    assert words in str(info.value)
    assert "sk-in-a-file" not in str(info.value)


def test_bad_environment_values_are_a_learner_facing_error(monkeypatch):
    monkeypatch.setenv("TUTOR_MAX_RETRIES", "many")
    with pytest.raises(TutorError, match="max_retries"):
        load_settings()


def test_the_key_never_appears_in_dumps_or_reprs(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings = load_settings()
    for text in (
        repr(settings),
        str(settings),
        settings.model_dump_json(),
        str(settings.model_dump()),
        str(settings.public_view()),
        repr(settings.api_key),
    ):
        assert KEY not in text
    assert settings.public_view()["api_key"] == "present"
    assert ModelSettings.model_validate(settings.model_dump()).api_key.get_secret_value() == KEY


def test_importing_the_model_layer_does_not_import_openai():
    code = (
        "import sys, tutor.llm, tutor.llm.openai_provider, tutor.llm.offline_provider, "
        "tutor.commands.doctor; print('openai' in sys.modules, 'httpx2' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "False"]


def test_openai_base_url_and_model_are_used_when_nothing_else_sets_them(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_MODEL", "qwen2.5")
    settings = load_settings()
    assert (settings.base_url, settings.model) == ("http://127.0.0.1:9/v1", "qwen2.5")
    assert not settings.offline  # an endpoint without a key (Ollama) is a model
    assert settings.public_view()["base_url"] == "http://127.0.0.1:9/v1"


def test_tutor_variables_and_the_settings_file_win_over_openais(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai-var.example/v1")
    monkeypatch.setenv("OPENAI_MODEL", "openai-var-model")
    write_settings('[model]\nbase_url = "http://file.example/v1"\nmodel = "file-model"\n')
    settings = load_settings()
    assert (settings.base_url, settings.model) == ("http://file.example/v1", "file-model")
    write_settings("[model]\ntimeout = 12\n")
    monkeypatch.setenv("TUTOR_BASE_URL", "http://tutor-var.example/v1")
    monkeypatch.setenv("TUTOR_MODEL", "tutor-var-model")
    settings = load_settings()
    assert (settings.base_url, settings.model) == ("http://tutor-var.example/v1", "tutor-var-model")
    # arguments count as set too (a verifier's settings are the model's, dumped and reloaded)
    assert load_settings(base_url=None).base_url is None


def test_an_empty_openai_model_leaves_the_default(monkeypatch):
    monkeypatch.setenv("OPENAI_MODEL", " ")
    assert load_settings().model == ModelSettings.model_fields["model"].default


async def test_a_lesson_provider_reaches_the_server_named_by_openai_base_url(monkeypatch, srv):
    """The usual way to point OpenAI clients elsewhere: OPENAI_BASE_URL, OPENAI_API_KEY and
    OPENAI_MODEL, nothing of the tutor's own. The answer comes from that server."""
    from pydantic import BaseModel

    class Ready(BaseModel):
        ready: bool

    srv.script([{"ready": True}])
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_MODEL", "loopback-model")
    provider = make_provider()
    assert isinstance(provider, OpenAIProvider)
    try:
        answer = await provider.structured(
            skill="doctor", data={"check": "ready"}, schema=Ready, purpose="test"
        )
    finally:
        await provider.aclose()
    assert answer.ready is True
    (request,) = srv.chat_requests
    assert request.body["model"] == "loopback-model"
    assert request.headers["authorization"] == f"Bearer {KEY}"
