"""Markdown views: generated from the store, deterministic, and inert to hostile text."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from markdown_it import MarkdownIt

from learning_system import ledger
from learning_system.store import Store
from learning_system.views import (
    ViewsError,
    knowledge_file_name,
    md_code,
    md_document,
    md_inline,
    md_text,
    render_views,
    strip_terminal,
    write_views,
)
from tutor.clerk.ingest import ingest
from tutor.cli import main

LATER = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)
VIEW_FILES = [
    "README.md",
    "active-concepts.md",
    "learning-records.md",
    "mistakes.md",
    "session-notes.md",
]
HOSTILE = (
    "# Injected heading\n"
    "```\n"
    "<script>alert(1)</script>\n"
    "\x1b[31mred\x1b[0m \x1b]0;owned title\x07 \x9b2J | a | b |\n"
    "|---|---|\n"
    "- [click](javascript:alert(1)) ![img](http://x/y.png)\n"
    "<img src=x onerror=alert(1)> &amp; **bold** _em_ \u202eevil\n"
    "1. listed\n"
    "> quoted\n"
    "    indented code\n"
    "===\n"
    "~~~~ and ````` fences\n"
)


def files_of(out) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


def tokens(text: str) -> list:
    md = MarkdownIt("commonmark").enable("table")
    flat = []
    for t in md.parse(text):
        flat.append(t)
        flat.extend(t.children or [])
    return flat


def structure(text: str) -> list[str]:
    """The markdown structure of a file: its token types, text runs and line breaks aside."""
    return [
        f"{t.type}:{t.tag}" for t in tokens(text) if t.type not in ("text", "softbreak", "inline")
    ]


@pytest.fixture
def ingested(lesson_outcome):
    store, pending = lesson_outcome
    assert ingest(store, pending, now=LATER).status == "accepted"
    return store, pending


def test_views_show_every_record(ingested, tmp_path):
    store, _ = ingested
    out = tmp_path / "views"
    paths = write_views(store, out)
    names = [p.relative_to(out).as_posix() for p in paths]
    assert names == sorted(
        [
            *VIEW_FILES,
            "knowledge/p1l01-dot-product.md",
            "knowledge/p1l01-notation.md",
            "knowledge/p1l01-vector-norm.md",
        ]
    )

    concepts = (out / "active-concepts.md").read_text()
    dot = ledger.concept_row(store, "p1l01-dot-product")
    assert f"| held | {dot['mastery']:.2f} | {dot['next_review'][:10]} | concept |" in concepts
    assert "| developing | 0.00 | 2025-03-06 | procedure | Python | P1 L01 |" in concepts
    assert "Mastery (0.00–0.80) is advisory" in concepts
    assert concepts.index("Computing a vector norm") < concepts.index("Dot product")

    mistakes = (out / "mistakes.md").read_text()
    assert "Error type: application" in mistakes
    assert "Your attribution: I squared the sum instead of summing squares" in mistakes
    assert "open · next review 2025-03-04 · early retest" in mistakes
    assert "What is the L2 norm of (3, 4)?" in mistakes

    records = (out / "learning-records.md").read_text()
    assert "## P1 L01 — Vectors and dot products" in records
    assert "Probe verdict: dot products: solid, norms: unknown" in records
    assert "Answers: 4 · mistakes: 1" in records
    assert "https://example.org/norms" in records

    page = (out / "knowledge" / "p1l01-vector-norm.md").read_text()
    assert page.startswith("# Computing a vector norm\n")
    assert "The L2 norm is the square root of the sum of squares." in page
    assert "## Sources" in page and "- https://example.org/norms" in page

    notes = (out / "session-notes.md").read_text()
    assert "## session s1" in notes and "- norms: unknown" in notes
    assert "{" not in notes and '"' not in notes  # prose and tables, not JSON


def test_a_second_run_changes_no_byte_and_touches_no_file(ingested, tmp_path):
    store, pending = ingested
    out = tmp_path / "views"
    write_views(store, out)
    before = files_of(out)
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.md")}
    ingest(store, pending, now=LATER)  # the same outcome again: nothing new to show
    write_views(store, out)
    assert files_of(out) == before
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.md")} == stamps


def test_views_are_regenerated_not_edited(ingested, tmp_path):
    store, _ = ingested
    out = tmp_path / "views"
    write_views(store, out)
    (out / "mistakes.md").write_text("edited by hand")
    (out / "knowledge" / "gone.md").write_text("a page of a concept no longer in the store")
    write_views(store, out)
    assert (out / "mistakes.md").read_text().startswith("# Mistakes")
    assert not (out / "knowledge" / "gone.md").exists()


def test_views_refuse_a_folder_they_did_not_write(ingested, tmp_path):
    store, _ = ingested
    other = tmp_path / "documents"
    other.mkdir()
    (other / "thesis.md").write_text("mine")
    with pytest.raises(ViewsError, match="not written by `tutor views`"):
        write_views(store, other)
    assert [p.name for p in other.iterdir()] == ["thesis.md"]


def test_an_empty_store_renders_plain_placeholders(tmp_path):
    with Store(tmp_path / "tutor.db") as store:
        files = render_views(store)
    assert sorted(files) == VIEW_FILES
    assert "No concepts yet" in files["active-concepts.md"]
    assert "No mistakes recorded." in files["mistakes.md"]


def _views_with(store, pending, text, out):
    ledger.attribute_mistake(store, "m1", "structural", text)
    store.sessions.add_note("s1:hostile", "s1", "answer", {"text": text})
    steps = [
        pending.taught[0].model_copy(update={"content": text, "title": text}),
        pending.taught[1],
    ]
    changed = pending.model_copy(
        update={
            "taught": steps,
            "plan": [text],
            "glossary": {"norm": text},
            "lesson_title": text,
        }
    )
    assert ingest(store, changed, now=LATER).status == "accepted"
    write_views(store, out)
    return {rel: data.decode("utf-8") for rel, data in files_of(out).items()}


def test_hostile_text_is_inert_in_every_view(lesson_outcome, tmp_path):
    """The same records with hostile text instead of a plain word have the same markdown
    structure: the hostile text added no heading, list, link, HTML, table, quote or fence."""
    store, pending = lesson_outcome
    store.conn.execute(f"VACUUM INTO '{tmp_path / 'plain.db'}'")
    hostile = _views_with(store, pending, HOSTILE, tmp_path / "hostile")
    with Store(tmp_path / "plain.db") as plain_store:
        plain = _views_with(plain_store, pending, "plain", tmp_path / "plain")
    assert sorted(hostile) == sorted(plain)
    for rel, text in hostile.items():
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text, rel
        assert "\u202e" not in text, rel
        if rel.startswith("knowledge/"):
            continue  # taught text keeps its markdown: checked below
        assert structure(text) == structure(plain[rel]), rel
    page = hostile["knowledge/p1l01-vector-norm.md"]
    found = tokens(page)
    assert not [t for t in found if t.type.startswith("html")]  # no raw HTML at all
    assert all(
        not (t.attrs.get("href") or "").startswith("javascript")
        for t in found
        if t.type == "link_open"
    )
    # the hostile text opened a fence: its HTML is shown as code, and the fence is closed
    assert any("<script>alert(1)</script>" in t.content for t in found if t.type == "fence")
    assert "owned title" not in page and "2J" not in page and "red" in page  # sequences gone
    # the taught text sits under the page's headings and cannot swallow what follows it
    levels = [t.tag for t in found if t.type == "heading_open"]
    assert levels[0] == "h1" and "h3" in levels and levels[-1] == "h2"
    assert page.rstrip().endswith("- https://example.org/norms")
    assert structure(page)[-6:] == structure(plain["knowledge/p1l01-vector-norm.md"])[-6:]


def test_knowledge_pages_keep_the_lessons_markdown_and_code():
    taught = (
        "# The dot product\n\nMultiply **pairwise**, then add: `a < b` stays.\n\n"
        "- one\n- two\n\n```python\ndef dot(a, b):\n    return sum(x * y for x, y in "
        "zip(a, b))\n```\n\n    if a < b and c & d:\n        pass\n"
    )
    page = md_document(taught)
    assert page.startswith("### The dot product\n")
    assert "Multiply **pairwise**" in page and "`a < b`" in page and "- one\n- two" in page
    assert "def dot(a, b):\n    return sum(" in page  # indentation kept
    assert "    if a < b and c & d:\n        pass" in page
    kinds = structure(page)
    assert "fence:code" in kinds and "code_block:code" in kinds and "bullet_list_open:ul" in kinds
    assert md_document("```\nnever closed") == "```\nnever closed\n```"


def test_markdown_helpers():
    assert strip_terminal("a\x1b[1;31mb\x1b[0m\r\nc\x00\x7f") == "ab\nc"
    assert md_inline("a\n# b | c") == "a \\# b \\| c"
    assert md_text("# h\n- x\n12. y") == "\\# h\n\\- x\n12\\. y"
    assert md_code("x ```` y").startswith("`````\n")
    assert knowledge_file_name("p1l01-dot") == "p1l01-dot.md"
    odd = knowledge_file_name("../etc/passwd")
    assert "/" not in odd and not odd.startswith(".") and odd != knowledge_file_name("etc/passwd")


# the commands -----------------------------------------------------------------------------
@pytest.fixture
def home(monkeypatch, tmp_path):
    from tutor.testing.fixtures import isolate_model_env

    isolate_model_env(monkeypatch, tmp_path / "home")
    return tmp_path / "home"


def _seed(home, lesson_outcome):
    store, pending = lesson_outcome
    home.mkdir(parents=True, exist_ok=True)
    store.conn.execute(f"VACUUM INTO '{home / 'tutor.db'}'")


def test_tutor_ingest_on_a_fresh_home_says_no_lesson_is_finished(home, capsys):
    assert main(["ingest"]) == 0
    out = capsys.readouterr().out
    assert "no lesson is finished" in out and "already in your records" not in out


def test_tutor_ingest_then_views(home, lesson_outcome, capsys):
    _seed(home, lesson_outcome)
    assert main(["ingest"]) == 0
    assert "P1 L01: accepted, 9 records written (ingest:s1)" in capsys.readouterr().out
    assert main(["ingest", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["ingest"]) == 0
    assert "every finished lesson is already in your records" in capsys.readouterr().out

    assert main(["views"]) == 0
    printed = capsys.readouterr().out.split()
    assert str(home / "views" / "active-concepts.md") in printed
    assert "Dot product" in (home / "views" / "active-concepts.md").read_text()
    out = home.parent / "elsewhere"
    assert main(["views", "--out", str(out)]) == 0
    assert len(capsys.readouterr().out.split()) == 8 and (out / "mistakes.md").is_file()


def test_tutor_ingest_shows_rejections_with_reasons(home, lesson_outcome, capsys):
    store, pending = lesson_outcome
    c0 = pending.concepts[0].model_copy(update={"evidence": []})
    store.execute("DELETE FROM ingests")
    bad = pending.model_copy(update={"concepts": [c0, *pending.concepts[1:]]})
    store.ingests.save(bad.id, bad.session_id, bad.lesson_id, bad.model_dump(mode="json"))
    _seed(home, lesson_outcome)
    assert main(["ingest", "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["status"] == "rejected"
    assert "marked held without evidence attempts" in result["reasons"][0]
    assert main(["ingest"]) == 0
    text = capsys.readouterr().out
    assert "P1 L01: rejected, kept waiting until fixed (ingest:s1)" in text
    assert "  - concept p1l01-dot-product is marked held without evidence attempts" in text


def test_tutor_views_refuses_a_foreign_folder_without_a_traceback(home, tmp_path, capsys):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep")
    assert main(["views", "--out", str(foreign)]) == 2
    assert "choose an empty or new folder" in capsys.readouterr().err
