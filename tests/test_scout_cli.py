"""`tutor scout` as a learner runs it (subprocesses), and the Scout over the whole real corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_tiny_curriculum

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.scout import Digest, prepare_sync
from tutor.testing.page_server import Page, PageServer

REPO = Path(__file__).resolve().parents[1]


def tutor(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TUTOR_", "OPENAI_"))}
    env["TUTOR_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def without_time(text: str) -> dict:
    data = json.loads(text)
    data.pop("created_at")
    return data


def test_offline_json_twice_is_identical_but_for_its_time(tmp_path, corpus_root):
    args = ("scout", "P1 L08", "--curriculum", str(corpus_root), "--offline", "--json")
    first, second = tutor(tmp_path / "home", *args), tutor(tmp_path / "home", *args)
    elsewhere = tutor(tmp_path / "other-home", *args)
    assert first.returncode == second.returncode == elsewhere.returncode == 0, first.stderr
    assert without_time(first.stdout) == without_time(second.stdout)
    assert without_time(first.stdout) == without_time(elsewhere.stdout)
    assert json.loads(first.stdout)["created_at"] != json.loads(second.stdout)["created_at"]
    digest = Digest.model_validate_json(first.stdout)
    assert digest.prereqs and all(p.keywords for p in digest.prereqs)
    lesson = load_curriculum(corpus_root).lesson("P1 L08")
    externals = {s.url: s for s in digest.sources if s.kind == "external"}
    assert set(externals) == {link.url for link in lesson.further_reading}
    assert all(s.status == "unreachable" and s.reason == "offline" for s in externals.values())
    assert digest.lang_recommendation == "Python"
    assert sum("unreachable" in line for line in first.stderr.splitlines()) == len(externals)


def test_a_bad_lesson_or_curriculum_is_one_line_not_a_traceback(tmp_path, corpus_root):
    missing = tutor(tmp_path, "scout", "P9 L99", "--curriculum", str(corpus_root), "--offline")
    nowhere = tutor(tmp_path, "scout", "P1 L01", "--curriculum", str(tmp_path / "nope"))
    for result in (missing, nowhere):
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.startswith("tutor: ")
    assert "P9 L99" in missing.stderr


def test_the_summary_shows_sources_and_progress_as_plain_text(tmp_path):
    with PageServer() as srv:
        url = srv.route(
            "/p",
            Page.html(
                "<html><body><article><p>\x1b[31mThe median\x1b[0m of a sample is its middle value "
                "once sorted, [bold]which[/bold] makes it robust to a few extreme values.</p>"
                "</article></body></html>"
            ),
        )
        root = write_tiny_curriculum(
            tmp_path / "course", [("Medians", url), ("Gone", srv.url("/gone"))]
        )
        result = tutor(tmp_path / "home", "scout", "P1 L02", "--curriculum", str(root))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "P1 L02 · Averages and Spread" in out
    assert "new" in out and "Medians" in out and "HTTP 404 Not Found" in out
    assert "[bold]which[/bold]" in out and "\x1b" not in out
    assert "Counting Things" in out and "Exercises in: Python" in out
    assert any(line.startswith("scout: fetching") for line in result.stderr.splitlines())
    assert any(line.startswith("scout: unreachable") for line in result.stderr.splitlines())


@pytest.fixture(scope="module")
def corpus(corpus_root):
    return load_curriculum(corpus_root)


def test_every_corpus_lesson_gets_a_digest_with_prereqs_and_an_outline(corpus, tmp_path):
    with Store(tmp_path / "tutor.db") as store:
        for lesson in corpus.lessons:
            digest = prepare_sync(lesson, corpus, store, offline=True)
            if lesson.prerequisites or lesson.objectives:
                assert digest.prereqs, lesson.id
            for prereq in digest.prereqs:
                assert prereq.concept and prereq.why and prereq.keywords, lesson.id
                assert all(k == k.lower() and k.strip() for k in prereq.keywords), lesson.id
            titles = {item.title.lower() for item in digest.outline}
            assert "further reading" not in titles and "learning objectives" not in titles
            assert digest.outline and digest.sources[0].kind == "primary", lesson.id
            assert len(digest.sources) == 1 + len(lesson.further_reading)
            assert digest.sources[0].excerpt and digest.synthesis.startswith(lesson.title)
            assert store.digests.latest(lesson.id)["id"] == digest.id
