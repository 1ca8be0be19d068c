"""One assessment path (issue 21, part 1): what a lesson presents is a function of the
curriculum, the lesson and the session's seed — the same through a session (the app and the
line dialogue drive the same Session), `tutor items --session` and however much of the
curriculum is loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.engine import selection
from tutor.engine.session import Session
from tutor.engine.turns import Action
from tutor.testing.course_maker import write_course


@pytest.fixture(scope="module")
def course_path(tmp_path_factory):
    return write_course(tmp_path_factory.mktemp("course") / "workshop")


def shown(items) -> dict[str, list[str]]:
    return {p.id: [*p.options] for p in items if p.type == "mcq"}


def late_lesson(curriculum):
    return max(curriculum.lessons, key=lambda x: (len(x.prerequisites), x.phase, x.number))


def test_presented_items_do_not_depend_on_what_is_loaded(course_path):
    whole = load_curriculum(course_path)
    lesson = late_lesson(whole)
    partial = load_curriculum(course_path, only=[lesson.id])
    assert partial.partial and len(partial.lessons) < len(whole.lessons)
    for seed in (None, "s-seed-1"):
        for a, b in zip(
            selection.probe_batches(whole, lesson),
            selection.probe_batches(partial, partial.lesson(lesson.id)),
            strict=True,
        ):
            assert shown(selection.present_strand(a, seed, whole)) == shown(
                selection.present_strand(b, seed, partial)
            )
        assert shown(selection.present_quiz(lesson, seed, whole)) == shown(
            selection.present_quiz(partial.lesson(lesson.id), seed, partial)
        )


def test_a_session_and_tutor_items_session_show_the_same_options(course_path, tmp_path):
    """A session on the whole curriculum asks its probe; `tutor items --session` (which loads
    only the lesson and its prerequisites) lists each asked item with the same options in the
    same order, and the items answered first, in the order the session asked them."""
    home = tmp_path / "home"
    home.mkdir()
    curriculum = load_curriculum(course_path)
    lesson = late_lesson(curriculum)
    asked: dict[str, list[str]] = {}
    order: list[str] = []  # the items answered, in the order the session asked them
    with Store(home / "tutor.db") as store:
        session = Session.start(store, curriculum, lesson, offline=True)
        for _ in range(80):
            p = session.prompt
            if p.stage not in ("prior", "probe"):
                break
            if p.item is not None and p.needs_confidence and p.item.id not in order:
                order.append(p.item.id)
            if p.kind == "choice":
                asked[p.item.id] = [*p.item.options]
                action = Action(kind="answer", value="idk")
            elif p.kind == "numeric":
                action = Action(kind="answer", value="idk")
            elif p.kind == "text" and p.item is not None:
                # recalled: the search moves on to harder items, the choice ones among them
                action = Action(kind="text", text=p.item.reference, confidence="sure")
            elif p.kind == "text":
                action = Action(kind="text", value="idk")
            else:
                action = Action(kind="next")
            session.act(action)
        session.pause()
        session_id = session.id
    assert asked
    env = {**os.environ, "TUTOR_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "tutor.cli", "items", lesson.id, "--curriculum", str(course_path),
         "--session", session_id, "--json"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    listed = {i["id"]: i["options"] for i in json.loads(done.stdout)["items"] if i["options"]}
    for item_id, options in asked.items():
        assert listed.get(item_id) == options, item_id
    probe = [i for i in json.loads(done.stdout)["items"] if i["purpose"] == "probe"]
    answered = [i["id"] for i in probe if i["asked"]]
    assert answered == [i for i in order if i in {x["id"] for x in probe}] and len(answered) > 2
    assert [i["asked"] for i in probe[: len(answered)]] == list(range(1, len(answered) + 1))
    refused = subprocess.run(
        [sys.executable, "-m", "tutor.cli", "items", lesson.id, "--curriculum", str(course_path),
         "--session", "s-no-such-session"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2 and "no session s-no-such-session" in refused.stderr
