"""Distractors from a ready pack's `error` atoms (issue 24, part 5): with a model and a ready
pack, the choice items the model writes are sent the lesson's common errors and may take their
wrong options from them; such an item is audited (quiz_audit) like any other before it is
asked. Without a ready pack nothing is sent."""

from __future__ import annotations

import pytest
from test_dossier_teaching import (
    build,
    course,  # noqa: F401 (a fixture)
    model_session,
    passing,
    take,
)
from test_engine_api import scripted
from test_model_gaps import parts, unmark

from tutor.testing.model_server import ModelServer, Reply
from tutor.testing.pack_model import PackModel

pytestmark = pytest.mark.usefixtures("isolated_model_env")


def with_error_distractors(body: dict) -> Reply:
    """PASSING, except that a rewrite takes three wrong options from the common errors sent."""
    _, task, data = parts(body)
    errors = [unmark(e["error"]) for e in data.get("untrusted_common_errors", [])]
    if task in ("rewrite_item", "rewrite_items") and len(errors) >= 3:
        key = errors[0].replace("Common error", "Careful rule")  # alike: no answer-free tell
        item = {"question": "Which holds?", "options": [key, *errors[:3]], "correct_index": 0}
        if task == "rewrite_item":
            return Reply.json(item)
        return Reply.json({"items": [{**item, "id": i["id"]} for i in data["items"]]})
    return passing(body)


def take_the_lesson(store, course) -> tuple[list[dict], list]:  # noqa: F811 (the fixture)
    with ModelServer(default=with_error_distractors) as srv:
        seen = take(model_session(store, course, srv.base_url), scripted)
        return [r.body for r in srv.chat_requests], seen


def rewrites(bodies: list[dict]) -> list[dict]:
    """What each rewrite request (one item, or several together) was sent."""
    return [
        parts(b)[2] for b in bodies if parts(b)[2].get("task") in ("rewrite_item", "rewrite_items")
    ]


def test_with_a_ready_pack_rewrites_take_distractors_from_its_errors_and_are_audited(
    store,
    course,  # noqa: F811
):
    assert build(store, course, PackModel(errors=3)) == "ready"
    bodies, seen = take_the_lesson(store, course)
    sent = rewrites(bodies)
    assert sent and all(len(r["untrusted_common_errors"]) >= 3 for r in sent)
    error = "Common error 1 about "
    audits = [b for b in bodies if parts(b)[0] == "GATE:quiz_audit"]
    assert any(error in b["messages"][1]["content"] for b in audits)  # audited like any item
    asked = [p for p in seen if p.kind == "choice" and any(error in o for o in p.item.options)]
    assert asked and all(p.banner is None for p in asked)


def test_without_a_ready_pack_no_errors_are_sent(store, course):  # noqa: F811
    assert build(store, course, PackModel(errors=3, uncovered={"u2"})) == "review_required"
    bodies, seen = take_the_lesson(store, course)
    sent = rewrites(bodies)
    assert sent and not any("untrusted_common_errors" in r for r in sent)
    assert not any(p.kind == "choice" and "Common error" in " ".join(p.item.options) for p in seen)
