"""Knowledge packs, layer 3: built against the loopback server with its deterministic pack
model — ready, review_required, failed, stale, the race with an edit, and no store transaction
open during a model call (issue 24)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.config import builtin_course_path
from tutor.dossier.build import BuildOptions, build_pack, build_packs
from tutor.dossier.status import lesson_pack, usable_pack
from tutor.dossier.units import LessonSource, lesson_source
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer, Reply
from tutor.testing.pack_model import PackModel

pytestmark = pytest.mark.usefixtures("isolated_model_env")
LESSON = "P1 L02"


@pytest.fixture
def course(tmp_path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(builtin_course_path(), root)
    return root


def source_of(course: Path, lesson_id: str = LESSON) -> tuple[LessonSource, str]:
    curriculum = load_curriculum(course)
    lesson = curriculum.lesson(lesson_id)
    return lesson_source(lesson, curriculum), lesson.title


def build(store, srv, course, **options):
    source, title = source_of(course)
    settings = fast_settings(srv.base_url, timeout=5)
    return asyncio.run(build_pack(store, source, title, settings, BuildOptions(**options)))


def test_a_lesson_pack_reaches_ready_with_two_calls_at_temperature_0_and_a_cap(store, course):
    with ModelServer() as srv:
        model = PackModel()
        srv.always(model)
        result = build(store, srv, course, max_tokens=1234)
        bodies = [r.body for r in srv.chat_requests]
    assert result.state == "ready" and result.problems == [] and result.error is None
    assert model.tasks == ["pack_extract", "pack_review"]
    assert all(b["temperature"] == 0 and b["max_tokens"] == 1234 for b in bodies)
    assert all(b["response_format"]["type"] == "json_schema" for b in bodies)
    source, _ = source_of(course)
    pack = usable_pack(store, source)
    assert pack is not None and pack.lesson_id == LESSON and pack.state == "ready"
    assert result.tokens_in > 0 and result.tokens_out > 0
    row = store.packs.of_lesson(source.curriculum, LESSON)[0]
    assert (row["tokens_in"], row["tokens_out"]) == (result.tokens_in, result.tokens_out)
    purposes = [c["purpose"] for c in store.model_calls.all()]
    assert purposes == ["pack_extract", "pack_review"]


def test_an_uncovered_unit_or_evidence_at_no_atom_is_review_required_naming_it(store, course):
    with ModelServer() as srv:
        srv.always(PackModel(uncovered={"u2"}, evidence_to="a999"))
        result = build(store, srv, course)
    assert result.state == "review_required"
    assert any(p.startswith("gap: unit u2 (") for p in result.problems)
    assert "atom e1 proves a999, which is no atom of this pack" in result.problems
    source, _ = source_of(course)
    state = lesson_pack(store, source)
    assert state.state == "review_required" and state.problems == result.problems
    assert usable_pack(store, source) is None  # the lesson teaches from its digest


class Lying(PackModel):
    """Prefixes an invented sentence to every fact, and approves its own review."""

    def extract(self, units):
        atoms = super().extract(units)
        for a in atoms:
            if a["kind"] == "invariant":
                a["text"] = f"The technique is mandatory under ISO standard 99812. {a['text']}"
                a["correction"] = "\x1b]0;pwned-title\x07IMPORTANT SYSTEM NOTE"
        return atoms


def test_a_sentence_found_in_none_of_its_units_is_review_required_and_escapes_go(store, course):
    with ModelServer() as srv:
        srv.always(Lying())
        result = build(store, srv, course)
    assert result.state == "review_required"
    invented = [p for p in result.problems if "ISO standard 99812" in p]
    assert invented and all("in none of its units" in p for p in invented)
    source, _ = source_of(course)
    assert usable_pack(store, source) is None  # taught from the digest
    stored = store.packs.of_lesson(source.curriculum, LESSON)[0]["pack"]
    assert "\\u001b" not in stored and "\\u0007" not in stored and "IMPORTANT SYSTEM" in stored


def test_editing_the_source_makes_the_pack_stale_and_unusable_but_kept(store, course):
    with ModelServer() as srv:
        srv.always(PackModel())
        assert build(store, srv, course).state == "ready"
    source, _ = source_of(course)
    doc = source.files[0]
    doc.write_text(doc.read_text(encoding="utf-8") + "\nA new paragraph.\n", encoding="utf-8")
    assert lesson_pack(store, source).state == "stale"
    assert usable_pack(store, source) is None
    assert len(store.packs.of_lesson(source.curriculum, LESSON)) == 1  # kept for audit


def test_a_build_started_before_an_edit_and_finishing_after_it_does_not_publish(store, course):
    source, _ = source_of(course)
    doc = source.files[0]

    def edit_during_review(body):
        if "pack_review" in body["messages"][1]["content"]:
            doc.write_text(doc.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")

    with ModelServer() as srv:
        srv.always(PackModel(during=edit_during_review))
        result = build(store, srv, course)
    assert result.state == "stale"
    rows = store.packs.of_lesson(source.curriculum, LESSON)
    assert [r["state"] for r in rows] == ["stale"]
    assert usable_pack(store, source) is None
    # a build of the edited source publishes, and the late one stays stale
    with ModelServer() as srv:
        srv.always(PackModel())
        assert build(store, srv, course).state == "ready"
    assert usable_pack(store, source) is not None


def test_a_newer_build_makes_the_older_pack_stale(store, course):
    source, _ = source_of(course)
    with ModelServer() as srv:
        srv.always(PackModel())
        build(store, srv, course)
        doc = source.files[0]
        doc.write_text(doc.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
        build(store, srv, course)
    states = [r["state"] for r in store.packs.of_lesson(source.curriculum, LESSON)]
    assert states == ["ready", "stale"]


def test_a_failed_build_is_recorded_and_keeps_the_last_good_pack(store, course):
    source, _ = source_of(course)
    with ModelServer() as srv:
        srv.always(PackModel())
        build(store, srv, course)
        srv.always(Reply.error(500))
        result = build(store, srv, course)
    assert result.state == "failed" and result.error and "server_error" in result.error
    assert usable_pack(store, source) is not None
    assert [r["state"] for r in store.packs.of_lesson(source.curriculum, LESSON)] == [
        "failed",
        "ready",
    ]


def test_a_lesson_past_its_timeout_fails_without_hanging(store, course):
    with ModelServer() as srv:
        srv.always(Reply.hang(3))
        result = build(store, srv, course, timeout=0.3)
    assert result.state == "failed" and result.error.startswith("timeout")


def test_no_store_transaction_is_open_during_a_model_call(tmp_path, course):
    path = tmp_path / "tutor.db"
    seen: list[bool] = []

    def try_to_write(body):
        # a transaction held across this call would outlast the wait (the reply waits for this
        # check); another lesson's short write, at the same moment, ends within it
        other = sqlite3.connect(path, timeout=1.0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            seen.append(True)
        except sqlite3.OperationalError:
            seen.append(False)
        finally:
            other.close()

    with Store(path) as store, ModelServer() as srv:
        srv.always(PackModel(during=try_to_write))
        sources = [source_of(course, f"P1 L0{n}") for n in (1, 2, 3)]
        settings = fast_settings(srv.base_url, timeout=5)
        results = asyncio.run(build_packs(store, sources, settings))
    assert [r.state for r in results] == ["ready"] * 3
    assert seen == [True] * 6


def test_at_most_two_lessons_are_built_at_once(store, course):
    active: list[int] = [0]
    peak: list[int] = [0]

    def count(body):
        task = json.loads(body["messages"][1]["content"])["task"]
        if task == "pack_extract":
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        else:
            active[0] -= 1

    with ModelServer(latency=0.05) as srv:
        srv.always(PackModel(during=count))
        sources = [source_of(course, f"P1 L0{n}") for n in (1, 2, 3, 4)]
        asyncio.run(build_packs(store, sources, fast_settings(srv.base_url, timeout=5)))
    assert peak[0] == 2
