"""Is the configured model endpoint there? Asked by `tutor doctor` and before a lesson starts,
so an unreachable model means "running offline", not a wait on every call."""

from __future__ import annotations

from typing import Any

OFFLINE_MESSAGE = "offline: no model configured — running on the embedded offline provider"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
PROBE_TIMEOUT = 5.0


def _listed(model: str, ids: list[str]) -> bool:
    return model in ids or f"{model}:latest" in ids


def _moved(base: str, headers: dict[str, str], timeout: float) -> str | None:
    """A hint when `base` 404s but the same server answers with /v1 added (most serve the
    OpenAI API only under /v1) or, for a base URL ending in /v1, taken away (some serve it at
    the root): a base URL off by /v1 fails every call."""
    import httpx2

    other = base.removesuffix("/v1") if base.endswith("/v1") else f"{base}/v1"
    try:
        response = httpx2.get(f"{other}/models", headers=headers, timeout=timeout)
    except httpx2.HTTPError:
        return None
    if response.status_code != 200:
        return None
    where = "without /v1" if base.endswith("/v1") else "under /v1"
    return (
        f"GET {base}/models answered HTTP 404, but the endpoint answers {where}: "
        f"set base_url to {other}"
    )


def check_model(settings: Any, model_env: str = "TUTOR_MODEL") -> dict[str, Any]:
    """Is the endpoint there, does it take the key, and does it list the model (else
    `model_env` names the setting to change)? Each request waits PROBE_TIMEOUT at most: this
    runs before a lesson starts."""
    if settings is None:
        return {"ok": False, "status": "unknown", "message": "settings are invalid"}
    if settings.offline:
        return {"ok": True, "status": "offline", "message": OFFLINE_MESSAGE}
    import httpx2

    base = (settings.base_url or DEFAULT_BASE_URL).rstrip("/")
    headers = {}
    if settings.api_key is not None:
        headers["Authorization"] = f"Bearer {settings.api_key.get_secret_value()}"
    info: dict[str, Any] = {"base_url": base, "model": settings.model}
    try:
        response = httpx2.get(
            f"{base}/models", headers=headers, timeout=min(settings.timeout, PROBE_TIMEOUT)
        )
    except httpx2.HTTPError as exc:
        return {
            **info,
            "ok": False,
            "status": "unreachable",
            "message": f"unreachable: {type(exc).__name__} at {base}/models",
        }
    if response.status_code in (401, 403):
        return {
            **info,
            "ok": False,
            "status": "rejected",
            "message": f"the endpoint refused the key (HTTP {response.status_code}); "
            f"check {settings.api_key_env}",
        }
    unlisted = {
        **info,
        "ok": True,
        "status": "no_listing",
        "message": f"reachable; it lists no models (GET {base}/models: %s), so the model is "
        "tried as configured",
    }
    if response.status_code == 404:
        hint = _moved(base, headers, min(settings.timeout, PROBE_TIMEOUT))
        if hint is not None:
            return {**info, "ok": False, "status": "error", "message": hint}
    if response.status_code in (404, 405, 501):  # answers, but keeps no /models route
        return {**unlisted, "message": unlisted["message"] % f"HTTP {response.status_code}"}
    if response.status_code != 200:
        return {
            **info,
            "ok": False,
            "status": "error",
            "message": f"GET {base}/models answered HTTP {response.status_code}",
        }
    try:
        ids = [str(m["id"]) for m in response.json().get("data", [])]
    except (ValueError, KeyError, TypeError, AttributeError):
        return {**unlisted, "message": unlisted["message"] % "not a model list"}
    listed = _listed(settings.model, ids)
    message = (
        f"reachable; model {settings.model} is listed"
        if listed
        else f"reachable, but model {settings.model} is not among its {len(ids)} models; "
        f"set {model_env} to one it lists"
    )
    return {
        **info,
        "ok": listed,
        "status": "ok" if listed else "model_not_listed",
        "model_listed": listed,
        "models_count": len(ids),
        "message": message,
    }


def check_completion(settings: Any) -> dict[str, Any]:
    """One tiny structured completion (skill `doctor`, answer `{"ready": true}`, no retries)
    with a lesson's token bound and timeout (a reasoning model thinks first, a local one may be
    slow): does the model answer, and follow the schema?"""
    from pydantic import BaseModel, ConfigDict

    from tutor import aio
    from tutor.llm.openai_provider import OpenAIProvider
    from tutor.llm.provider import ModelFailure

    class Ready(BaseModel):
        model_config = ConfigDict(extra="forbid")

        ready: bool

    quick = settings.model_copy(update={"max_retries": 0})
    provider = OpenAIProvider(quick)

    try:
        answer = aio.run(
            provider.structured(
                skill="doctor", data={"check": "ready"}, schema=Ready, purpose="doctor"
            ),
            provider,
        )
    except ModelFailure as failure:
        strays = failure.kind in ("schema", "length", "refusal")
        what = {
            "schema": "the model does not follow the answer schema",
            "length": "the model does not follow the answer schema",
            "refusal": "the model does not follow the answer schema",
            "malformed": "the endpoint's reply is not a chat completion (the endpoint, not "
            "the model's answer)",
        }.get(failure.kind, "the model did not answer")
        return {
            "ok": False,
            "status": failure.kind,
            "follows_schema": False if strays else None,
            "message": f"a tiny structured completion failed: {what} "
            f"({failure.kind}: {failure.detail[:120]})",
        }
    if not answer.ready:
        return {
            "ok": False,
            "status": "schema",
            "follows_schema": True,
            "message": "the model answered in the schema but not as asked (ready: false)",
        }
    return {
        "ok": True,
        "status": "ok",
        "follows_schema": True,
        "message": "a tiny structured completion came back in the schema",
    }
