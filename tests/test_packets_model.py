"""llm_expanded with a model (a loopback server speaking the chat-completions API): the model's
prose is kept only through fact_check, and a claim no verifier could check is UNVERIFIED."""

from __future__ import annotations

import asyncio

from packet_course import write_packet_course

from learning_system.curriculum import load_curriculum
from learning_system.packets.exporters import render_markdown
from tutor.engine.study_packets import compile_packet
from tutor.llm.openai_provider import OpenAIProvider
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import Reply

DRAFT = {
    "content": "A frequency table records how often each distinct value turns up in a column.",
    "claims": ["A frequency table records how often each distinct value turns up in a column."],
}


def test_model_prose_is_fact_checked_and_marked_unverified_when_no_verifier_ran(
    srv, recorder, store, tmp_path, isolated_model_env
):
    course = load_curriculum(write_packet_course(tmp_path / "course"))
    srv.script([Reply.json(DRAFT)])  # the draft; every later call (the verifier too) fails
    srv.default = Reply.error(400, "rejected")
    provider = OpenAIProvider(fast_settings(srv.base_url), recorder)
    try:
        result = compile_packet(
            {"topic": "P1 L01", "goal": "Count", "generation_option": "llm_expanded"},
            course,
            store,
            expand=True,
            provider=provider,
        )
    finally:
        asyncio.run(provider.aclose())
    generated = result.packet.body.generated_sections
    by_origin = {g.origin: g for g in generated}
    model = by_origin["model"]
    assert model.content == DRAFT["content"] and model.claims == DRAFT["claims"]
    assert model.unverified == DRAFT["claims"]  # paraphrase, and the model verifier failed
    assert model.receipt_id.startswith("rcpt-")
    # later sections got no draft from the model (500s) and fell back to the source's sentences
    assert all(g.origin == "compiled" for g in generated if g is not model)
    assert "(UNVERIFIED)" in render_markdown(result.packet)  # and the export says so
