"""Model settings: environment (`TUTOR_*`) over the `[model]` section of `settings.toml` in the
learner's home, over the OpenAI clients' own `OPENAI_BASE_URL` and `OPENAI_MODEL`, over defaults.
The API key itself is only ever read from the environment variable named by `api_key_env`; it is
held as a private SecretStr and never appears in a dump or repr."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, PrivateAttr, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from tutor.config import tutor_home
from tutor.errors import TutorError

SETTINGS_FILE_NAME = "settings.toml"
SETTINGS_SECTION = "model"
# the variables OpenAI's own clients read, used when neither TUTOR_* nor settings.toml sets a value
OPENAI_FALLBACKS = {"base_url": "OPENAI_BASE_URL", "model": "OPENAI_MODEL"}


def settings_file() -> Path:
    return tutor_home() / SETTINGS_FILE_NAME


def _read_section(path: Path, name: str = SETTINGS_SECTION) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TutorError(f"cannot read {path}: {exc}; fix or remove the file") from None
    section = data.get(name, {})
    if not isinstance(section, dict):
        raise TutorError(f"{path}: [{name}] must be a table")
    if "api_key" in section:
        raise TutorError(
            f"{path}: an API key does not belong in a file; remove `api_key` and put the key "
            "in the environment variable named by `api_key_env` (default OPENAI_API_KEY)"
        )
    return section


class _SettingsFileSource(PydanticBaseSettingsSource):
    """The `[model]` table of settings.toml, passed through whole so unknown keys are rejected."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return _read_section(settings_file())


class ModelSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TUTOR_", extra="forbid", validate_default=True)

    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint URL")
    model: str = Field(default="gpt-4o-mini", min_length=1)
    api_key_env: str = Field(default="OPENAI_API_KEY", min_length=1, pattern=r"^[A-Za-z_]\w*$")
    timeout: float = Field(default=30.0, gt=0, le=600, description="seconds per request")
    max_retries: int = Field(default=2, ge=0, le=8, description="retries per logical call")
    backoff_base: float = Field(default=0.5, ge=0, le=30, description="first backoff, seconds")
    backoff_max: float = Field(default=8.0, ge=0, le=120, description="largest backoff, seconds")
    retry_after_max: float = Field(
        default=20.0, ge=0, le=600, description="longest Retry-After honoured; longer fails fast"
    )
    debug_prompts: bool = Field(default=False, description="record full prompts with each call")
    max_tokens: int = Field(
        default=1500,
        ge=16,
        le=32_768,
        description="the most tokens one answer may take (sent every request)",
    )
    temperature: float | None = Field(
        default=None,
        ge=0,
        le=2,
        description="sampling temperature sent with structured requests (unset: the endpoint's)",
    )
    breaker_failures: int = Field(
        default=3,
        ge=1,
        le=20,
        description="consecutive failed calls after which the session goes offline",
    )
    wait_max: float = Field(
        default=10.0,
        ge=0,
        le=600,
        description="seconds a learner may wait on the model at one screen before the lesson "
        "goes on offline (0: no limit)",
    )

    _api_key: SecretStr | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _openai_fallbacks(cls, data: Any) -> Any:
        """`base_url` from OPENAI_BASE_URL and `model` from OPENAI_MODEL when no other source
        (arguments, TUTOR_*, settings.toml) gave them: what pointing an OpenAI client at
        another server usually takes."""
        if not isinstance(data, dict):
            return data
        found = {
            name: value
            for name, var in OPENAI_FALLBACKS.items()
            if name not in data and (value := os.environ.get(var, "").strip())
        }
        return {**data, **found} if found else data

    def model_post_init(self, context: Any, /) -> None:
        value = os.environ.get(self.api_key_env, "").strip()
        self._api_key = SecretStr(value) if value else None

    @property
    def api_key(self) -> SecretStr | None:
        return self._api_key

    @property
    def has_key(self) -> bool:
        return self._api_key is not None

    @property
    def offline(self) -> bool:
        """No endpoint and no key: the embedded offline provider is used."""
        return not self.base_url and self._api_key is None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _SettingsFileSource(settings_cls))

    def public_view(self) -> dict[str, Any]:
        """What `tutor doctor` shows: every setting, and the key only as present/absent."""
        view = self.model_dump(mode="json")
        view["api_key"] = "present" if self.has_key else "absent"
        view["offline"] = self.offline
        return view


def load_settings(**overrides: Any) -> ModelSettings:
    """Settings in effect; a learner-facing error (never a traceback) when they are invalid."""
    try:
        return ModelSettings(**overrides)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}"
            for err in exc.errors()
        )
        raise TutorError(
            f"model settings are invalid ({problems}); check the TUTOR_* environment variables "
            f"and the [{SETTINGS_SECTION}] section of {settings_file()}"
        ) from None


VERIFIER_SECTION = "verifier"


class _VerifierFileSource(PydanticBaseSettingsSource):
    """The `[verifier]` table of settings.toml."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return _read_section(settings_file(), VERIFIER_SECTION)


class VerifierSettings(BaseSettings):
    """A separate model for the gate verifiers: `TUTOR_VERIFIER_MODEL`, `TUTOR_VERIFIER_BASE_URL`
    (and `TUTOR_VERIFIER_API_KEY_ENV`), or the `[verifier]` section. Unset fields follow the
    drafting model's settings."""

    model_config = SettingsConfigDict(env_prefix="TUTOR_VERIFIER_", extra="forbid")

    model: str | None = Field(default=None, min_length=1)
    base_url: str | None = None
    api_key_env: str | None = Field(default=None, min_length=1, pattern=r"^[A-Za-z_]\w*$")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _VerifierFileSource(settings_cls))


def load_verifier_settings(model: ModelSettings) -> ModelSettings:
    """The settings the gate verifiers run with: the `[verifier]` values over the model's."""
    try:
        v = VerifierSettings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'verifier'}: {err['msg']}"
            for err in exc.errors()
        )
        raise TutorError(
            f"verifier settings are invalid ({problems}); check the TUTOR_VERIFIER_* "
            f"environment variables and the [{VERIFIER_SECTION}] section of {settings_file()}"
        ) from None
    overrides = {
        k: val
        for k, val in (("model", v.model), ("base_url", v.base_url), ("api_key_env", v.api_key_env))
        if val is not None
    }
    if not overrides:
        return model
    values = {**model.model_dump(), **overrides}
    return load_settings(**values)


def same_model(a: ModelSettings, b: ModelSettings) -> bool:
    """True when the verifier is the drafting model itself (not independent). Judged by the
    model's name, whatever endpoint serves it: the same model on two servers checks its own
    kind of text."""

    def name(s: ModelSettings) -> str:
        return (s.model or "").strip().lower().removesuffix(":latest")

    return name(a) == name(b)
