"""Contained curricula (issue 23, part 4), each with a hostile curriculum: symlinks out of the
root, a 1 MiB line of brackets, a 10,000-item bank, a 20 MB document for `tutor packet`, and raw
HTML and script links through views and every exporter, checked with a CommonMark renderer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from markdown_it import MarkdownIt
from plain_driver import Learner

from learning_system.curriculum import load_curriculum
from learning_system.curriculum_quiz import MAX_QUIZ_ITEMS
from learning_system.views import md_document, render_knowledge_page
from tutor.testing import hostile
from tutor.testing.course_maker import write_course

SECRET = "OUTSIDE-SECRET-7731"
SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")


def tutor(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TUTOR_HOME": str(home)}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


# symlinks out of the curriculum ------------------------------------------------------------


def _linked_out_course(tmp_path: Path) -> Path:
    root = write_course(tmp_path / "course", phases=1, lessons=3)
    outside = tmp_path / "outside"
    (outside / "docs").mkdir(parents=True)
    (outside / "docs" / "en.md").write_text(f"# Outside\n\n{SECRET} is taught here.\n")
    (outside / "quiz.json").write_text(json.dumps([{"question": SECRET}]))
    (outside / "terms.md").write_text(f"**{SECRET}** — a term from outside.\n")
    lessons = sorted(p for p in (root / "phases").glob("*/*") if p.is_dir())
    (lessons[0] / "docs" / "en.md").unlink()
    (lessons[0] / "docs" / "en.md").symlink_to(outside / "docs" / "en.md")
    (lessons[1] / "quiz.json").unlink()
    (lessons[1] / "quiz.json").symlink_to(outside / "quiz.json")
    (lessons[0].parent / "04-outside").symlink_to(outside, target_is_directory=True)
    (root / "glossary").mkdir()
    (root / "glossary" / "terms.md").symlink_to(outside / "terms.md")
    return root


def test_links_out_of_the_curriculum_are_refused_and_listed(tmp_path):
    root = _linked_out_course(tmp_path)
    curriculum = load_curriculum(root)
    assert [lesson.number for lesson in curriculum.lessons] == [1, 2, 3]  # the folder left out
    first, second = curriculum.lessons[:2]
    assert first.doc_path is None and SECRET not in first.model_dump_json()
    assert second.quiz == [] and second.quiz_path is None
    assert curriculum.glossary == {}
    refused = {p.file for p in curriculum.warnings if "links outside the curriculum" in p.message}
    assert refused == {
        f"{first.path.relative_to(root).as_posix()}/docs/en.md",
        f"{second.path.relative_to(root).as_posix()}/quiz.json",
        f"{first.path.parent.relative_to(root).as_posix()}/04-outside",
        "glossary/terms.md",
    }
    done = tutor(tmp_path / "home", "curriculum", "check", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("links outside the curriculum") == 4, done.stdout


def test_an_outside_file_is_never_taught_or_stored(tmp_path):
    root = _linked_out_course(tmp_path)
    home = tmp_path / "home"
    learner = Learner(home, "continue", "--plain", "--curriculum", str(root), "--offline")
    seen = learner.read_prompt()
    learner.send("")
    seen += learner.read_prompt()
    learner.send("/p")
    seen += learner.finish()
    assert "Prior" in seen and SECRET not in seen
    stored = b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())
    assert stored and SECRET.encode() not in stored


def test_a_link_swapped_to_outside_after_the_check_is_not_read(tmp_path, monkeypatch):
    from learning_system import curriculum_files

    root = tmp_path / "root"
    root.mkdir()
    (root / "inside.md").write_text("inside")
    (tmp_path / "outside.md").write_text(SECRET)
    link = root / "doc.md"
    link.symlink_to(root / "inside.md")
    real_open = os.open

    def swap_then_open(path, flags, *args):
        link.unlink()
        link.symlink_to(tmp_path / "outside.md")
        return real_open(path, flags, *args)

    monkeypatch.setattr(curriculum_files.os, "open", swap_then_open)
    got = curriculum_files.read_regular(link, 100, root)
    assert got == "changed while it was opened; not read"


# sizes: a 1 MiB line, a 10,000-item bank, a 20 MB document -------------------------------


def test_a_lesson_with_a_1_mib_bracket_line_reaches_its_first_question(tmp_path):
    """Quadratic before (a 100k line took 40 s); linear now, so the 1 MiB line is quick."""
    from tutor.scout.normalise import excerpt, plain_inline

    for line in ("[" * 500_000 + "]" * 500_000, "[x](" * 250_000, "**x " * 250_000):
        assert len(plain_inline(line)) <= len(line)
        assert excerpt(f"{line}\n\n{line}")
    root, lesson = hostile.bracket_line_course(tmp_path / "course")
    reaches_its_first_question(tmp_path / "home", root, lesson)


def test_a_10000_item_bank_is_cut_to_the_limit_and_starts(tmp_path):
    root, lesson = hostile.big_bank_course(tmp_path / "course")
    curriculum = load_curriculum(root, only=[lesson])
    bank = curriculum.lesson(lesson).quiz
    assert len(bank) == MAX_QUIZ_ITEMS and bank[-1].id == f"bulk-{MAX_QUIZ_ITEMS - 1}"
    assert any(
        f"10000 questions, more than the limit of {MAX_QUIZ_ITEMS}" in p.message
        for p in curriculum.warnings
    )
    reaches_its_first_question(tmp_path / "home", root, lesson)
    items = tutor(tmp_path / "home", "items", lesson, "--curriculum", str(root))
    assert items.returncode == 0, items.stderr
    assert f"{MAX_QUIZ_ITEMS} items:" in items.stdout


def test_repair_work_grows_linearly_with_the_bank(tmp_path, monkeypatch):
    """The repairs a lesson start does are bounded by the bank's item cap: a bank five times
    the cap costs the same number as one at the cap (before, every item was repaired against
    a pool that grew with the bank)."""
    from tutor.engine import items as items_module
    from tutor.engine import repair

    calls = []
    real = repair.repairs
    monkeypatch.setattr(repair, "repairs", lambda *a, **k: calls.append(1) or real(*a, **k))
    counts = []
    for size in (MAX_QUIZ_ITEMS, 5 * MAX_QUIZ_ITEMS):
        root, lesson_id = hostile.big_bank_course(tmp_path / f"c{size}", size)
        curriculum = load_curriculum(root)
        calls.clear()
        items_module.phase_forms(curriculum, curriculum.lesson(lesson_id))
        counts.append(len(calls))
    assert counts[0] == counts[1] > 0


def test_tutor_packet_caps_a_20_mb_document(tmp_path):
    root = write_course(tmp_path / "course", phases=1, lessons=2)
    doc = sorted((root / "phases").glob("*/*"))[0] / "docs" / "en.md"
    paragraph = "The gear turns the shaft so the output stays even. " * 20 + "\n\n"
    doc.write_text(doc.read_text() + "\n## Bulk\n\n" + paragraph * (20_000_000 // len(paragraph)))
    assert doc.stat().st_size > 19_000_000
    out = tmp_path / "out"
    done = tutor(
        tmp_path / "home",
        "packet",
        "--curriculum",
        str(root),
        "--topic",
        "P1 L01",
        "--goal",
        "read it",
        "--mode",
        "anthology",
        "--export",
        "markdown,bundle,html,notebook",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert "en.md: larger than the 1024 KiB limit; only the first 1024 KiB were read" in done.stderr
    written = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert written < 8 * 1024 * 1024, written  # was 22.7 MB for 20 MB in


# raw HTML and script links ------------------------------------------------------------------


def _commonmark() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": True})
    parser.validateLink = lambda url: True  # what any CommonMark renderer would link
    return parser


def assert_inert_markdown(text: str) -> None:
    html = _commonmark().render(text)
    found = _Tags()
    found.feed(html)
    assert found.tags <= {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "code",
        "pre",
        "em",
        "strong",
        "a",
        "img",  # a markdown image; its src is checked below
        "blockquote",
        "hr",
        "br",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    }, (found.tags, html)
    assert not found.bad, (found.bad, html)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.bad: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            if name.startswith("on"):
                self.bad.append((tag, name, value))
            target = "".join((value or "").split()).lower()
            if name in ("href", "src", "action") and target.startswith(SCRIPT_SCHEMES):
                self.bad.append((tag, name, value))


TRICKY = [
    hostile.HOSTILE_MARKDOWN,
    "``<img src=x onerror=alert(1)>`",  # a run of two that nothing closes
    "\\`<img src=x onerror=alert(1)>`",  # an escaped backtick
    "a `b\nc` <img src=x onerror=alert(1)> `d`",  # a code span across lines
    "- a `b\n- c <img src=x onerror=alert(1)> `",  # list items end a span
    "[m]:\n  javascript:alert(1)\n\n[x][m]",  # the target on the next line
    "[x](JaVaScRiPt:alert(1)) <JAVASCRIPT:alert(1)> [y](&#106;avascript:alert(1))",
    "<!-- a comment --> <?php x ?> <![CDATA[ x ]]>",
]


def test_md_document_leaves_nothing_a_commonmark_renderer_would_run():
    for text in TRICKY:
        assert_inert_markdown(md_document(text))
        assert_inert_markdown(render_knowledge_page({"markdown": text}))  # type: ignore[arg-type]


def test_md_document_keeps_a_normal_lesson_as_written(corpus_root):
    doc = sorted(corpus_root.glob("phases/*/*/docs/en.md"))[0].read_text(encoding="utf-8")
    kept = md_document(doc, top=1)
    assert "```" in kept and kept.count("`") == doc.count("`")


def test_views_and_every_exporter_of_a_hostile_lesson_are_inert(tmp_path):
    root, lesson = hostile.hostile_markdown_course(tmp_path / "course")
    out = tmp_path / "out"
    done = tutor(
        tmp_path / "home",
        "packet",
        "--curriculum",
        str(root),
        "--topic",
        lesson,
        "--goal",
        "read <img src=x onerror=alert(1)> [x](javascript:alert(1))",
        "--mode",
        "anthology",
        "--export",
        "markdown,bundle,html,notebook",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    checked = set()
    for path in out.rglob("*"):
        if path.suffix == ".md":
            assert_inert_markdown(path.read_text(encoding="utf-8"))
        elif path.suffix == ".ipynb":
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
                if cell["cell_type"] == "markdown":
                    assert_inert_markdown("".join(cell["source"]))
        elif path.suffix == ".html":
            found = _Tags()
            found.feed(path.read_text(encoding="utf-8"))
            assert not found.bad and not found.tags & {"script", "iframe"}, found.bad
        else:
            continue
        checked.add(path.suffix)
    assert checked == {".md", ".ipynb", ".html"}
    assert "onerror" in next(out.rglob("*.md")).read_text(encoding="utf-8")  # shown as text
    views = tutor(tmp_path / "home", "views", "--out", str(tmp_path / "views"))
    assert views.returncode == 0, views.stderr
    for page in (tmp_path / "views").rglob("*.md"):
        assert_inert_markdown(page.read_text(encoding="utf-8"))


def test_the_contract_states_the_containment_rules_and_caps():
    contract = (Path(__file__).resolve().parent.parent / "CONTRACT.md").read_text()
    flat = " ".join(contract.split())
    assert f"a bank's first {MAX_QUIZ_ITEMS} questions are used" in flat
    assert "nothing outside the curriculum root is read" in flat
    assert "`tutor packet` — reads through the same contained reader under the caps" in flat
    assert "(the scheme's colon becomes `：`)" in flat


def test_knowledge_pages_of_a_hostile_lesson_taken_to_its_end_are_inert(tmp_path):
    """The Clerk's page for a lesson whose text and bank carry raw HTML and script links, as
    `tutor views` writes it after the lesson, rendered by CommonMark: the text, shown, inert."""
    root, lesson = hostile.hostile_markdown_course(tmp_path / "course")
    home = tmp_path / "home"
    learner = Learner(
        home, "continue", "--plain", "--offline", "--curriculum", str(root), "--lesson", lesson
    )
    for _ in range(80):
        shown = learner.read_prompt(timeout=120)
        if "Lesson complete" in shown or learner.proc.poll() is not None:
            break
        learner.send("x" if "answer" in shown.rstrip()[-60:] else "")
    learner.finish()
    assert "Lesson complete" in learner.transcript
    views = tutor(home, "views", "--out", str(tmp_path / "views"))
    assert views.returncode == 0, views.stderr
    pages = list((tmp_path / "views" / "knowledge").glob("*.md"))
    assert pages and any("onerror" in page.read_text(encoding="utf-8") for page in pages)
    for page in (tmp_path / "views").rglob("*.md"):
        assert_inert_markdown(page.read_text(encoding="utf-8"))


def reaches_its_first_question(home, root, lesson: str) -> None:
    """`tutor continue --plain` on the lesson gets past the prior to a question, then pauses."""
    learner = Learner(
        home, "continue", "--plain", "--offline", "--curriculum", str(root), "--lesson", lesson
    )
    assert "Prior" in learner.read_prompt(timeout=120)
    learner.send("")
    assert "answer" in learner.read_prompt(timeout=120)
    learner.send("/p")
    learner.finish()
