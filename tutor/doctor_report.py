"""The doctor's report: the settings in effect (the key only as present/absent), whether the
model endpoint answers and lists the model, the store's health, and the curriculum in use.
Shown by `tutor doctor` and by the app's Doctor command; imports nothing heavy until asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CURRICULUM_SETTING = "curriculum"  # the store setting `tutor init` writes (tutor.learner)


def check_settings() -> tuple[dict[str, Any], Any]:
    from tutor.errors import TutorError
    from tutor.llm.settings import load_settings, settings_file

    path = settings_file()
    info: dict[str, Any] = {"file": str(path), "file_exists": path.is_file()}
    try:
        settings = load_settings()
    except TutorError as exc:
        return {**info, "ok": False, "error": str(exc)}, None
    return {**info, "ok": True, **settings.public_view()}, settings


def check_store() -> tuple[dict[str, Any], str | None]:
    """The store's health, and the curriculum `tutor init` recorded in it (if any)."""
    from tutor.config import store_path

    path = store_path()
    info: dict[str, Any] = {"path": str(path)}
    try:
        from learning_system.store import Store, StoreError
    except ImportError:
        return {**info, "ok": True, "status": "unavailable", "message": "store not available"}, None
    if not path.exists() and not path.is_symlink():  # a dangling or looping link is not absent
        return {
            **info,
            "ok": True,
            "status": "absent",
            "message": "not created yet; it is created on first use",
        }, None
    try:
        store = Store(path)
    except StoreError as exc:  # damaged, read-only, newer, not a store: report, never a traceback
        return {**info, "ok": False, "status": "error", "message": str(exc)}, None
    try:
        health = store.health()
        chosen = store.get_setting(CURRICULUM_SETTING)
    except StoreError as exc:
        return {**info, "ok": False, "status": "damaged", "message": str(exc)}, None
    finally:
        store.close()
    ok = bool(health.get("ok", True))
    version = health.get("schema_version")
    return {
        **info,
        "ok": ok,
        "status": "ok" if ok else "damaged",
        "schema_version": version,
        "message": f"opens, schema v{version}" + ("" if ok else "; integrity check failed"),
    }, chosen


def check_curriculum(chosen: str | None) -> dict[str, Any]:
    """The curriculum in effect: the one `tutor init` chose (kept in the store, or in
    learner.json in the tutor home), else the built-in course."""
    from tutor.config import builtin_course_path, tutor_home

    source = "store"
    if chosen is None:
        learner = tutor_home() / "learner.json"
        if learner.is_file():
            source = "learner.json"
            try:
                value = json.loads(learner.read_text(encoding="utf-8")).get("curriculum")
            except (OSError, ValueError, AttributeError):
                return {
                    "ok": False,
                    "status": "error",
                    "path": str(learner),
                    "message": f"{learner} is not readable JSON",
                }
            chosen = str(value) if value else None
    if chosen is None or Path(chosen) == builtin_course_path():
        path = builtin_course_path()
        return {
            "ok": True,
            "status": "builtin",
            "path": str(path),
            "message": f"built-in course ({path})",
        }
    exists = Path(chosen).expanduser().exists()
    return {
        "ok": exists,
        "status": "ok" if exists else "missing",
        "path": chosen,
        "source": source,
        "message": chosen if exists else f"{chosen} does not exist; run `tutor init`",
    }


def check_endpoint(settings: Any, model_env: str = "TUTOR_MODEL") -> dict[str, Any]:
    """Is the endpoint there and the model listed (else `model_env` names the setting to
    change), and does one tiny structured completion come back in its schema?"""
    from tutor.llm.health import check_model

    model = check_model(settings, model_env)
    if (
        settings is None
        or settings.offline
        or model["status"] in ("unreachable", "rejected", "error", "unknown")
    ):
        return model
    from tutor.llm.health import check_completion

    completion = check_completion(settings)
    model = {**model, "completion": completion, "ok": model["ok"] and completion["ok"]}
    model["message"] += f"; {completion['message']}"
    return model


def check_verifier(settings: Any) -> dict[str, Any]:
    """The model the gate verifiers run on: a separate one (TUTOR_VERIFIER_*, [verifier]),
    checked like the drafting model, or the drafting model itself (not independent)."""
    from tutor.errors import TutorError
    from tutor.llm.settings import load_verifier_settings

    if settings is None:
        return {"ok": True, "status": "unknown", "message": "settings are invalid"}
    if settings.offline:
        return {
            "ok": True,
            "status": "offline",
            "independent": None,
            "message": "offline: the deterministic verifiers decide",
        }
    try:
        verifier = load_verifier_settings(settings)
    except TutorError as exc:
        return {"ok": False, "status": "invalid", "message": str(exc)}
    if verifier is settings:
        return {
            "ok": True,
            "status": "same",
            "independent": False,
            "model": settings.model,
            "message": f"the drafting model {settings.model} verifies its own drafts (not "
            "independent; set TUTOR_VERIFIER_MODEL or [verifier] for a separate one)",
        }
    checked = check_endpoint(verifier, "TUTOR_VERIFIER_MODEL")
    return {
        **checked,
        "independent": True,
        "model": verifier.model,
        "base_url": verifier.base_url,
        "api_key": "present" if verifier.has_key else "absent",
        "message": f"{verifier.model} at {verifier.base_url or '(default)'}: " + checked["message"],
    }


def gather() -> dict[str, Any]:
    settings_info, settings = check_settings()
    store_info, chosen = check_store()
    report: dict[str, Any] = {
        "settings": settings_info,
        "model": check_endpoint(settings),
        "verifier": check_verifier(settings),
        "store": store_info,
        "curriculum": check_curriculum(chosen),
    }
    report["ok"] = all(part["ok"] for part in report.values())
    return report


def render(report: dict[str, Any]) -> str:
    from tutor.llm.health import DEFAULT_BASE_URL

    s = report["settings"]
    if s["ok"]:
        # the URL in effect: OpenAI's own when a key is set and no endpoint is
        base_url = s["base_url"] or ("(none)" if s["offline"] else f"{DEFAULT_BASE_URL} (default)")
        settings_line = (
            f"base_url={base_url} model={s['model']} "
            f"key ({s['api_key_env']}): {s['api_key']} timeout={s['timeout']:g}s "
            f"retries={s['max_retries']} debug_prompts={'on' if s['debug_prompts'] else 'off'}"
        )
    else:
        settings_line = f"INVALID: {s['error']}"
    file_state = "present" if s["file_exists"] else "absent"
    lines = [
        f"settings    {settings_line}",
        f"            file {s['file']} ({file_state})",
        f"model       {report['model']['message']}",
        f"verifier    {report['verifier']['message']}",
        f"store       {report['store']['path']}: {report['store']['message']}",
        f"curriculum  {report['curriculum']['message']}",
        "all good" if report["ok"] else "needs attention: see the lines above",
    ]
    return "\n".join(lines)
