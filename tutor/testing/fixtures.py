"""Helpers for tests and benches of the model layer (plain functions; no pytest import)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tutor.llm.settings import ModelSettings

MODEL_ENV_VARS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
)


def fast_settings(base_url: str, **overrides: Any) -> ModelSettings:
    """Settings for a loopback server: short timeout, tiny backoffs, two retries."""
    values: dict[str, Any] = {
        "base_url": base_url,
        "model": "loopback-model",
        "timeout": 0.5,
        "max_retries": 2,
        "backoff_base": 0.001,
        "backoff_max": 0.004,
        "retry_after_max": 0.5,
    }
    values.update(overrides)
    return ModelSettings(**values)


def isolate_model_env(monkeypatch: Any, home: Path) -> None:
    """A clean model environment: TUTOR_HOME at `home`, no TUTOR_* or OpenAI variables."""
    for name in list(os.environ):
        if (name.startswith("TUTOR_") or name in MODEL_ENV_VARS) and name != "TUTOR_HOME":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TUTOR_HOME", str(home))
