"""The API key is used to authenticate and for nothing else: it never reaches the store, the
recorded calls (even with debug prompts on), the logs, error messages or doctor's report."""

from __future__ import annotations

import json
import logging
import uuid

from learning_system.store import Store
from tutor.commands import doctor
from tutor.config import store_path, tutor_home
from tutor.gates import samples
from tutor.llm import make_provider
from tutor.llm.provider import ModelFailure
from tutor.llm.recorder import StoreRecorder
from tutor.llm.settings import load_settings
from tutor.testing.fixtures import isolate_model_env
from tutor.testing.model_server import ModelServer, Reply


def test_the_key_never_leaves_the_authorization_header(monkeypatch, tmp_path, caplog, capsys):
    isolate_model_env(monkeypatch, tmp_path / "home")
    key = f"sk-sentinel-{uuid.uuid4().hex}"
    caplog.set_level(logging.DEBUG)
    with ModelServer(require_key=key) as srv:
        for name, value in {
            "OPENAI_API_KEY": key,
            "TUTOR_BASE_URL": srv.base_url,
            "TUTOR_MODEL": "loopback-model",
            "TUTOR_TIMEOUT": "0.5",
            "TUTOR_BACKOFF_BASE": "0.001",
            "TUTOR_BACKOFF_MAX": "0.002",
            "TUTOR_DEBUG_PROMPTS": "true",
        }.items():
            monkeypatch.setenv(name, value)
        store = Store(store_path())
        provider = make_provider(load_settings(), StoreRecorder(store))

        async def session() -> list[str]:
            seen: list[str] = []
            srv.script(
                [
                    {
                        "claims": [
                            {
                                "id": c.id,
                                "verdict": "PASS",
                                "explanation": "quoted",
                                "corrected_claim": None,
                            }
                            for c in samples.CLAIMS
                        ]
                    },
                    Reply.error(500, f"upstream said {key}"),
                    Reply.error(500),
                    Reply.error(500),
                    Reply.error(401, f"Incorrect API key provided: {key}"),
                    Reply.text("a streamed answer"),
                ]
            )
            passed = await provider.verify(samples.fact_envelope())
            failed = await provider.verify(samples.fact_envelope())
            seen += [passed.model_dump_json(), failed.model_dump_json()]
            try:
                await provider.structured(skill="tutor", data={}, schema=type(passed), purpose="x")
            except ModelFailure as failure:
                assert failure.kind == "unavailable" and "[redacted]" in str(failure)
                seen.append(str(failure))
            seen += [
                chunk
                async for chunk in provider.stream_text(
                    skill="tutor", data={"untrusted_answer": "my answer"}, purpose="teach"
                )
            ]
            await provider.aclose()
            return seen

        import asyncio

        errors = asyncio.run(session())
        assert all(r.headers.get("authorization") == f"Bearer {key}" for r in srv.requests)
        assert len(srv.chat_requests) == 6
        srv.always(Reply.json({"ready": True}))  # doctor's tiny structured completion
        assert doctor.run(type("Args", (), {"json": False})()) == 0
        assert doctor.run(type("Args", (), {"json": True})()) == 0
        calls = store.model_calls.all()
        store.close()

    assert len(calls) == 4 and all(c["prompt"] for c in calls)  # debug prompts were recorded
    assert {c["outcome"] for c in calls} == {"ok", "failed"}
    out, err = capsys.readouterr()
    assert "present" in out
    texts = {
        "results": "\n".join(errors),
        "calls": json.dumps(calls),
        "logs": caplog.text,
        "stdout": out,
        "stderr": err,
    }
    for what, text in texts.items():
        assert key not in text, f"the key leaked into {what}"
    files = [p for p in tutor_home().rglob("*") if p.is_file()]
    assert any(p.name.startswith("tutor.db") for p in files)
    for path in files:
        assert key.encode() not in path.read_bytes(), f"the key leaked into {path.name}"
