"""`tutor views` writes each ready knowledge pack as Markdown (issue 24, part 6): a projection of
the store, deterministic, never read back, and inert to whatever text the model wrote."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest
from test_views import HOSTILE, files_of, structure, tokens

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from learning_system.views import render_views, write_views
from tutor.cli import main
from tutor.config import builtin_course_path
from tutor.dossier.build import build_pack
from tutor.dossier.units import lesson_source
from tutor.testing.fixtures import fast_settings
from tutor.testing.model_server import ModelServer
from tutor.testing.pack_model import PackModel

pytestmark = pytest.mark.usefixtures("isolated_model_env")


def saying(store: Store, text: str) -> None:
    """Every atom of the stored packs says `text` (and the errors have it as their symptom):
    a pack stored before the program stripped escapes and checked every sentence against the
    source, which the views must still make inert."""
    for row_id, raw in store.conn.execute("SELECT id, pack FROM knowledge_packs").fetchall():
        pack = json.loads(raw)
        for a in pack["atoms"]:
            a["text"] = f"{text} {a['id']}"
            if a["kind"] == "error":
                a["symptom"] = text
        store.conn.execute(
            "UPDATE knowledge_packs SET pack = ? WHERE id = ?", (json.dumps(pack), row_id)
        )
    store.conn.commit()


def build(store: Store, root, model: PackModel, lesson_id: str = "P1 L02") -> str:
    curriculum = load_curriculum(root)
    lesson = curriculum.lesson(lesson_id)
    with ModelServer(default=model) as srv:
        settings = fast_settings(srv.base_url, timeout=5)
        return asyncio.run(
            build_pack(store, lesson_source(lesson, curriculum), lesson.title, settings)
        ).state


@pytest.fixture
def root(tmp_path):
    shutil.copytree(builtin_course_path(), tmp_path / "course")
    return tmp_path / "course"


def packs(files: dict) -> dict:
    return {k: v for k, v in files.items() if k.startswith("packs/")}


def test_each_ready_pack_is_a_page_and_a_pack_needing_review_is_not(store, root, tmp_path):
    assert build(store, root, PackModel(errors=2)) == "ready"
    assert build(store, root, PackModel(uncovered={"u2"}), "P1 L01") == "review_required"
    written = packs(files_of_views(store, tmp_path / "views"))
    assert len(written) == 1
    page = next(iter(written.values())).decode()
    assert page.startswith("# Knowledge pack: P1 L02\n")
    for heading in ("## Must-know facts", "## Common errors", "## What a learner must show"):
        assert heading in page
    assert "  - Symptom: answer 1 looks right at first sight" in page
    assert "| u1 | phases/" in page  # the units, with their files and lines
    assert "never read back" in page


def files_of_views(store: Store, out) -> dict:
    write_views(store, out)
    return files_of(out)


def test_pack_pages_are_regenerated_not_read_back_and_go_when_the_pack_does(store, root, tmp_path):
    assert build(store, root, PackModel()) == "ready"
    out = tmp_path / "views"
    first = files_of_views(store, out)
    (name,) = packs(first)
    (out / name).write_text("edited by hand\n", encoding="utf-8")
    assert files_of_views(store, out) == first  # overwritten, byte for byte
    store.conn.execute("UPDATE knowledge_packs SET state = 'stale'")
    store.conn.commit()
    assert packs(files_of_views(store, out)) == {}  # no ready pack: no page


def test_model_text_in_a_pack_page_is_inert(tmp_path, root):
    views = {}
    for name, text in (("plain", "plain"), ("hostile", HOSTILE)):
        with Store(tmp_path / f"{name}.db") as store:
            assert build(store, root, PackModel(errors=1)) == "ready"
            saying(store, text)
            views[name] = packs(render_views(store))
    (page,) = views["hostile"].values()
    (plain,) = views["plain"].values()
    assert "\x1b" not in page and "\x9b" not in page and "\u202e" not in page
    assert not [t for t in tokens(page) if t.type.startswith("html")]
    assert structure(page) == structure(plain)


def test_tutor_views_writes_the_pack_pages(tmp_path, root, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("TUTOR_HOME", str(home))
    with Store(home / "tutor.db") as store:
        assert build(store, root, PackModel()) == "ready"
    assert main(["views", "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "/packs/" in printed and (tmp_path / "out" / "packs").is_dir()
