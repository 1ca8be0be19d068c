"""The curriculum loader against the real corpus, a corrupted copy of it, and random input."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learning_system.curriculum import (
    CurriculumError,
    LessonNotFound,
    QuizItem,
    load_curriculum,
    parse_lesson_ref,
)
from learning_system.curriculum_doc import parse_lesson_doc, parse_time_minutes
from learning_system.curriculum_glossary import parse_glossary
from learning_system.curriculum_quiz import MAX_OPTIONS, MIN_OPTIONS, parse_quiz_bank
from learning_system.curriculum_refs import parse_prerequisites
from tutor.config import builtin_course_path

REPO = Path(__file__).resolve().parents[1]
P1 = "phases/01-math-foundations"
OPTIMIZATION = f"{P1}/08-optimization"


@pytest.fixture(scope="module")
def corpus(corpus_root: Path):
    return load_curriculum(corpus_root)


def raw_bank(path: Path) -> list[dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["questions"] if isinstance(data, dict) else data


def run_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tutor.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


# --- the real corpus ---------------------------------------------------------------------------


def test_corpus_has_every_phase_lesson_and_quiz_item(corpus, corpus_root: Path):
    docs = sorted(corpus_root.glob("phases/*/*/docs/en.md"))
    banks = sorted(corpus_root.glob("phases/*/*/quiz.json"))
    assert len(corpus.phases) == len({d.parents[2] for d in docs}) == 4
    assert len(corpus.lessons) == len(docs) == 65
    raw_total = sum(len(raw_bank(bank)) for bank in banks)
    assert sum(len(lesson.quiz) for lesson in corpus.lessons) == raw_total
    assert corpus.errors == []
    assert corpus.warnings == []
    assert [lesson.id for lesson in corpus.lessons] == sorted(
        (lesson.id for lesson in corpus.lessons),
        key=lambda i: tuple(map(int, re.findall(r"\d+", i))),
    )


def test_every_quiz_item_is_read_as_written(corpus):
    for lesson in corpus.lessons:
        raw = raw_bank(lesson.quiz_path)
        assert len(lesson.quiz) == len(raw), lesson.id
        prefix = f"p{lesson.phase}l{lesson.number:02d}"
        for index, (item, source) in enumerate(zip(lesson.quiz, raw, strict=True)):
            assert item.index == index
            assert item.id == source.get("id", f"{prefix}-q{index + 1:02d}")
            assert item.question == source["question"].strip()
            assert item.options == [option.strip() for option in source["options"]]
            assert item.correct == source["correct"]
            assert item.stage == source["stage"]
            assert item.explanation == source["explanation"].strip()
    with_ids = [item for lesson in corpus.lessons for item in lesson.quiz if "-q" not in item.id]
    assert with_ids, "the corpus has banks whose items carry their own id"


def test_optimization_lesson_header_objectives_and_reading(corpus, corpus_root: Path):
    lesson = corpus.lesson("P1 L08")
    raw = (corpus_root / OPTIMIZATION / "docs" / "en.md").read_text(encoding="utf-8")
    lines = raw.splitlines()
    assert lesson.id == "P1 L08" and (lesson.phase, lesson.number) == (1, 8)
    assert lesson.slug == "08-optimization"
    assert lesson.path == corpus_root / OPTIMIZATION
    assert lesson.title == lines[0].removeprefix("# ")
    assert lesson.motto == next(line for line in lines if line.startswith("> "))[2:]
    assert lesson.type == "Build"
    assert lesson.languages == ["Python"]
    assert lesson.time_minutes == 75
    assert lesson.prerequisites_text.startswith("Phase 1, Lessons 04-05")
    assert lesson.prerequisites == ["P1 L04", "P1 L05"]

    block = raw.split("## Learning Objectives", 1)[1].split("\n## ", 1)[0]
    expected = [line[2:].strip() for line in block.splitlines() if line.startswith("- ")]
    assert len(expected) >= 3 and lesson.objectives == expected

    reading = raw.split("## Further Reading", 1)[1]
    urls = re.findall(r"\]\((https?://[^)\s]+)\)", reading)
    assert len(urls) >= 3
    assert [link.url for link in lesson.further_reading] == urls
    assert all(link.title and "](" not in link.title for link in lesson.further_reading)


def test_sections_keep_levels_and_order(corpus):
    lesson = corpus.lesson("P1 L08")
    titles = [section.title for section in lesson.sections]
    assert titles[0] == "Learning Objectives"
    assert titles.index("The Problem") < titles.index("The Concept") < titles.index("Build It")
    assert {section.level for section in lesson.sections} == {2, 3}
    concept = titles.index("The Concept")
    assert lesson.sections[concept + 1].level == 3
    build = lesson.section_text("build it")
    assert build is not None and "### Step 1" in build
    assert lesson.sections[titles.index("Build It")].text in build
    assert lesson.section_text("No Such Section") is None


def test_reading_links_written_without_markdown_link_syntax(corpus):
    # P3 lessons cite `Author, "Title" (https://…) -- why`; entries without a URL are left out
    links = [
        link for lesson in corpus.lessons if lesson.phase == 3 for link in lesson.further_reading
    ]
    assert links and all(link.url.startswith("http") for link in links)
    assert all("(http" not in link.title and " -- " not in link.title for link in links)


def test_glossary_has_every_term(corpus, corpus_root: Path):
    raw = (corpus_root / "glossary" / "terms.md").read_text(encoding="utf-8")
    terms = [line[4:].strip() for line in raw.splitlines() if line.startswith("### ")]
    assert len(terms) > 50
    assert sorted(corpus.glossary) == sorted(set(terms))
    assert all(definition.strip() for definition in corpus.glossary.values())
    assert not any(d.startswith("**") for d in corpus.glossary.values())


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "## A\n\n### Alpha\n- **What people say:** x\n- **What it actually means:** first\n",
            {"Alpha": "first"},
        ),
        (
            "### Beta\nA plain definition\nover two lines.\n\nMore.\n",
            {"Beta": "A plain definition over two lines."},
        ),
        ("- **Gamma**: third\n**Delta:** fourth\n", {"Gamma": "third", "Delta": "fourth"}),
        ("| Term | Meaning |\n|---|---|\n| Eps | fifth |\n", {"Eps": "fifth"}),
        ("", {}),
    ],
)
def test_glossary_shapes(text: str, expected: dict[str, str]):
    assert parse_glossary(text) == expected


# --- finding lessons ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ref",
    [
        "P1 L08",
        "P1 L8",
        "P1.L08",
        "p1l8",
        "p1-l8",
        "Phase 1 Lesson 8",
        "08-optimization",
        OPTIMIZATION,
        "01-math-foundations/08-optimization",
        f"{OPTIMIZATION}/docs/en.md",
    ],
)
def test_lesson_accepts_every_ref_form(corpus, ref: str):
    assert corpus.lesson(ref).id == "P1 L08"


def test_lesson_accepts_absolute_and_cwd_relative_paths(corpus, corpus_root: Path, monkeypatch):
    assert corpus.lesson(str(corpus_root / OPTIMIZATION)).id == "P1 L08"
    assert corpus.lesson(corpus_root / OPTIMIZATION / "quiz.json").id == "P1 L08"
    monkeypatch.chdir(corpus_root.parent)
    assert corpus.lesson(f"{corpus_root.name}/{OPTIMIZATION}").id == "P1 L08"


@pytest.mark.parametrize(
    "ref,expected",
    [
        ("P1 L08", (1, 8)),
        ("P1 L8", (1, 8)),
        ("P1.L08", (1, 8)),
        ("p1l8", (1, 8)),
        ("p1-l8", (1, 8)),
        (" P0 L12 ", (0, 12)),
        ("Phase 2, Lesson 3", (2, 3)),
        ("P1", None),
        ("L08", None),
        ("08-optimization", None),
        ("", None),
        ("P1 L08 x", None),
    ],
)
def test_parse_lesson_ref(ref: str, expected):
    assert parse_lesson_ref(ref) == expected


def test_unknown_lesson_lists_close_matches(corpus):
    with pytest.raises(LessonNotFound) as caught:
        corpus.lesson("optimisation")
    assert "P1 L08" in str(caught.value)
    with pytest.raises(LessonNotFound) as caught:
        corpus.lesson("P9 L99")
    assert "P0 L01" in str(caught.value) and "P3 L13" in str(caught.value)
    with pytest.raises(LessonNotFound) as caught:
        corpus.lesson("P1 L40")
    assert "P1 L01" in str(caught.value) and "P1 L22" in str(caught.value)
    with pytest.raises(CurriculumError):
        corpus.lesson("")


def test_next_lesson_walks_in_order(corpus):
    assert corpus.next_lesson(None).id == "P0 L01"
    assert corpus.next_lesson("P0 L12").id == "P1 L01"
    assert corpus.next_lesson("p1l8").id == "P1 L09"
    assert corpus.next_lesson(corpus.lessons[-1].id) is None


@pytest.mark.parametrize(
    "text,own_phase,expected",
    [
        ("None", 1, []),
        ("Phase 0", 1, []),
        ("Lesson 03", 1, [(1, 3)]),
        ("Phase 0 Lesson 2", 1, [(0, 2)]),
        ("Phase 1, Lessons 04-05 (Derivatives, Gradients)", 1, [(1, 4), (1, 5)]),
        ("Phase 0, Lessons 01 and 03", 0, [(0, 1), (0, 3)]),
        ("Lesson 1 (Dev Environment), basic PyTorch familiarity", 0, [(0, 1)]),
        ("Lesson 03.04 (Activation Functions), Lesson 03.07 (Regularization)", 3, [(3, 4), (3, 7)]),
        ("Phase 01 (Math Foundations), Lesson 03.01 (The Perceptron)", 3, [(3, 1)]),
        ("Phase 1 (Lessons 08 Optimization, 14 Norms and Distances)", 2, [(1, 8), (1, 14)]),
        ("Phase 1 (Linear Algebra, Calculus), Phase 2 Lesson 1", 2, [(2, 1)]),
        ("All of Phase 03 (Lessons 01-03)", 3, [(3, 1), (3, 2), (3, 3)]),
        (
            "Phase 1, Lessons 01 (Intuition), 02 (Vectors, Matrices & Ops), 06 (Probability)",
            1,
            [(1, 1), (1, 2), (1, 6)],
        ),
        ("Phase 2, Lessons 01-02, 08 (feature engineering), 02", 2, [(2, 1), (2, 2), (2, 8)]),
        ("P1 L08 and p2l3", 3, [(1, 8), (2, 3)]),
    ],
)
def test_prerequisite_lines(text: str, own_phase: int, expected):
    assert parse_prerequisites(text, own_phase) == expected


@pytest.mark.parametrize(
    "text,minutes",
    [
        ("~75 minutes", 75),
        ("90 min", 90),
        ("1.5 hours", 90),
        ("1h 30m", 90),
        ("60-90 minutes", 90),
        ("~45", 45),
        ("", None),
        ("a while", None),
    ],
)
def test_time_minutes(text: str, minutes):
    assert parse_time_minutes(text) == minutes


def test_headings_inside_code_fences_are_not_sections():
    doc = parse_lesson_doc(
        "# T\n\n> m\n\n## A\n\n```bash\n## not a section\n# nor this\n```\n### B\ntext\n"
    )
    assert [(s.title, s.level) for s in doc.sections] == [("A", 2), ("B", 3)]
    assert "## not a section" in doc.sections[0].text


# --- a corrupted copy --------------------------------------------------------------------------


def corrupted_copy(corpus_root: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Copy six lessons of phase 1 and damage five of them; returns (root, what -> rel path)."""
    root = tmp_path / "broken"
    source = corpus_root / P1
    for folder in sorted(source.iterdir())[:6]:
        shutil.copytree(folder, root / P1 / folder.name)
    lessons = sorted((root / P1).iterdir())
    rel = {
        name: folder.relative_to(root).as_posix()
        for name, folder in zip(
            ["truncated", "no_doc", "binary", "empty_quiz", "two_options", "bad_items"],
            lessons,
            strict=True,
        )
    }
    quiz = root / rel["truncated"] / "quiz.json"
    quiz.write_bytes(quiz.read_bytes()[: len(quiz.read_bytes()) // 2])
    (root / rel["no_doc"] / "docs" / "en.md").unlink()
    noise = random.Random(7).randbytes(3000)
    (root / rel["binary"] / "docs" / "en.md").write_bytes(b"\xff\xfe\x00" + noise)
    (root / rel["empty_quiz"] / "quiz.json").write_text("[]", encoding="utf-8")
    bank = raw_bank(root / rel["two_options"] / "quiz.json")
    bank[1]["options"] = bank[1]["options"][:2]  # 3 to 8 are read
    bank[1]["correct"] = 0
    (root / rel["two_options"] / "quiz.json").write_text(json.dumps(bank), encoding="utf-8")
    bank = raw_bank(root / rel["bad_items"] / "quiz.json")
    bank[0]["correct"] = 4
    del bank[2]["question"]
    bank[3] = "not an item"
    (root / rel["bad_items"] / "quiz.json").write_text(
        json.dumps({"questions": bank}), encoding="utf-8"
    )
    return root, rel


def test_corrupted_copy_loads_with_warnings_naming_files(corpus_root: Path, tmp_path: Path):
    root, rel = corrupted_copy(corpus_root, tmp_path)
    curriculum = load_curriculum(root)
    assert curriculum.errors == []
    assert len(curriculum.lessons) == 6, "a damaged lesson is never dropped"
    by_file: dict[str, list] = {}
    for problem in curriculum.warnings:
        by_file.setdefault(problem.file, []).append(problem)
    assert f"{rel['truncated']}/quiz.json" in by_file
    assert f"{rel['no_doc']}/docs/en.md" in by_file
    assert f"{rel['binary']}/docs/en.md" in by_file
    assert f"{rel['empty_quiz']}/quiz.json" in by_file
    assert [p.item for p in by_file[f"{rel['two_options']}/quiz.json"]] == ["p1l05-q02"]
    assert "2 options" in by_file[f"{rel['two_options']}/quiz.json"][0].message
    assert sorted(p.item for p in by_file[f"{rel['bad_items']}/quiz.json"]) == [
        "p1l06-q01",
        "p1l06-q03",
        "p1l06-q04",
    ]
    assert len(by_file) == 6, by_file

    lessons = {lesson.slug: lesson for lesson in curriculum.lessons}
    no_doc = lessons[Path(rel["no_doc"]).name]
    assert no_doc.doc_path is None and no_doc.title and no_doc.sections == []
    assert no_doc.quiz, "its quiz is still read"
    assert lessons[Path(rel["truncated"]).name].quiz == []
    assert lessons[Path(rel["empty_quiz"]).name].quiz == []
    three = lessons[Path(rel["two_options"]).name].quiz
    assert [item.index for item in three] == [0, 2, 3, 4]
    assert [item.id for item in three] == ["p1l05-q01", "p1l05-q03", "p1l05-q04", "p1l05-q05"]
    assert all(len(item.options) == 4 for lesson in curriculum.lessons for item in lesson.quiz)


def test_check_command_on_corrupted_copy(corpus_root: Path, tmp_path: Path):
    root, rel = corrupted_copy(corpus_root, tmp_path)
    result = run_cli("curriculum", "check", str(root))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "lessons: 6" in result.stdout and "errors: 0" in result.stdout
    for folder in rel.values():
        assert folder in result.stdout

    result = run_cli("curriculum", "check", str(root), "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert {"path", "name", "phases", "lessons", "quiz_items", "warnings", "errors"} <= set(report)
    assert (report["phases"], report["lessons"], report["errors"]) == (1, 6, [])
    assert len(report["warnings"]) == len(load_curriculum(root).warnings)
    assert {w["file"] for w in report["warnings"]} >= {f"{rel['no_doc']}/docs/en.md"}


def test_check_command_on_corpus(corpus_root: Path, corpus):
    result = run_cli("curriculum", "check", str(corpus_root), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["phases"], report["lessons"]) == (4, 65)
    assert report["quiz_items"] == sum(len(lesson.quiz) for lesson in corpus.lessons)
    assert report["warnings"] == [] and report["errors"] == []


def test_not_a_curriculum_exits_2(tmp_path: Path):
    for target in (tmp_path, tmp_path / "missing", REPO / "pyproject.toml"):
        result = run_cli("curriculum", "check", str(target))
        assert result.returncode == 2, (target, result.stdout, result.stderr)
        assert result.stderr.startswith("tutor: ") and "Traceback" not in result.stderr
        with pytest.raises(CurriculumError):
            load_curriculum(target)


def test_curriculum_without_lessons_is_an_error(tmp_path: Path):
    (tmp_path / "phases" / "01-empty").mkdir(parents=True)
    curriculum = load_curriculum(tmp_path)
    assert curriculum.lessons == [] and curriculum.errors
    assert curriculum.next_lesson(None) is None
    result = run_cli("curriculum", "check", str(tmp_path), "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["errors"]


def test_unnumbered_and_repeated_lesson_folders_are_kept_with_unique_ids(tmp_path: Path):
    phase = tmp_path / "phases" / "01-basics"
    for name in ("01-first", "01-again", "extra"):
        (phase / name / "docs").mkdir(parents=True)
        (phase / name / "docs" / "en.md").write_text(f"# {name}\n", encoding="utf-8")
    (phase / "assets").mkdir()
    curriculum = load_curriculum(tmp_path)
    assert [(lesson.id, lesson.slug) for lesson in curriculum.lessons] == [
        ("P1 L01", "01-again"),
        ("P1 L02", "01-first"),
        ("P1 L03", "extra"),
    ]
    warned = {p.file for p in curriculum.warnings if "numbered" in p.message}
    assert warned == {"phases/01-basics/01-first", "phases/01-basics/extra"}
    assert curriculum.phases[0].title == "Basics"


def test_phases_folder_itself_is_accepted(corpus_root: Path):
    assert len(load_curriculum(corpus_root / "phases").lessons) == 65


# --- the built-in course -----------------------------------------------------------------------


def test_builtin_course_loads_clean():
    curriculum = load_curriculum(builtin_course_path())
    assert curriculum.problems == [], [str(p) for p in curriculum.problems]
    assert curriculum.lessons and all(lesson.quiz for lesson in curriculum.lessons)
    assert curriculum.name
    first = curriculum.next_lesson(None)
    assert curriculum.lesson(first.id) is first


# --- random input never raises -----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)
item_like = st.fixed_dictionaries(
    {},
    optional={
        "id": json_values,
        "stage": st.sampled_from(["pre", "check", "post", "x"]) | json_values,
        "question": st.text(max_size=30) | json_values,
        "options": st.lists(st.text(max_size=10), max_size=10) | json_values,
        "correct": st.integers(-2, 6) | json_values,
        "explanation": json_values,
        "type": st.sampled_from(["mcq", "numeric", "essay"]),
        "answer": json_values,
        "tolerance": json_values,
        "bloom": json_values,
    },
)
banks = st.lists(item_like | json_values, max_size=6).flatmap(
    lambda items: st.sampled_from([items, {"questions": items}])
)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=400))
def test_random_text_never_breaks_the_parsers(text: str):
    doc = parse_lesson_doc(text)
    _ = (doc.objectives, doc.further_reading, doc.languages, doc.time_minutes)
    items, notes = parse_quiz_bank(text, "p1l01")
    assert all(isinstance(item, QuizItem) for item in items)
    parse_prerequisites(text, 1)
    parse_lesson_ref(text)


@settings(max_examples=150, deadline=None)
@given(bank=banks)
def test_random_quiz_banks_yield_only_askable_items(bank):
    items, _ = parse_quiz_bank(json.dumps(bank), "p1l01")
    for item in items:
        if item.type == "mcq" or item.options:
            assert MIN_OPTIONS <= len(item.options) <= MAX_OPTIONS
            assert 0 <= item.correct < len(item.options)
        assert item.question and item.stage in ("pre", "check", "post")
    assert len({item.id for item in items}) == len(items)


@settings(max_examples=100, deadline=None)
@given(ref=st.text(max_size=60))
def test_any_lesson_ref_finds_a_lesson_or_says_why(corpus, ref: str):
    try:
        assert corpus.lesson(ref) in corpus.lessons
    except LessonNotFound as exc:
        assert str(exc)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    doc=st.text(max_size=300) | st.binary(max_size=300),
    quiz=st.text(max_size=300) | st.binary(max_size=300) | banks.map(json.dumps),
)
def test_random_files_never_break_loading(doc, quiz):
    with tempfile.TemporaryDirectory() as tmp:
        lesson = Path(tmp) / "phases" / "01-x" / "01-y"
        (lesson / "docs").mkdir(parents=True)
        for path, content in ((lesson / "docs" / "en.md", doc), (lesson / "quiz.json", quiz)):
            if isinstance(content, str):
                path.write_text(content, encoding="utf-8", errors="surrogatepass")
            else:
                path.write_bytes(content)
        curriculum = load_curriculum(tmp)
        assert [lesson.id for lesson in curriculum.lessons] == ["P1 L01"]
        assert curriculum.errors == []
        assert curriculum.lesson("p1l1").title


def test_only_the_lessons_asked_for_and_their_prerequisites_are_read(tmp_path):
    from conftest import write_tiny_curriculum

    root = write_tiny_curriculum(tmp_path / "c", [])
    broken = root / "phases" / "01-basics" / "03-broken"
    (broken / "docs").mkdir(parents=True)
    (broken / "docs" / "en.md").write_text("# Broken\n\n**Prerequisites:** None\n")
    (broken / "quiz.json").write_text("{ not json")
    part = load_curriculum(root, only=["P1 L02"])
    assert part.partial and [lesson.id for lesson in part.lessons] == ["P1 L01", "P1 L02"]
    assert part.lesson("P1 L02").prerequisites == ["P1 L01"]
    assert not [p for p in part.problems if "03-broken" in p.file]  # never opened
    full = load_curriculum(root)
    assert part.lesson("P1 L02") == full.lesson("P1 L02")
    assert part.next_lesson("P1 L02").id == "P1 L03"  # read when needed, and only that one
    assert part.partial and [lesson.id for lesson in part.lessons] == ["P1 L01", "P1 L02", "P1 L03"]
    assert part.next_lesson("P1 L03") is None
    part.complete()  # anything else reads the rest
    assert not part.partial and [p.file for p in part.problems] == [p.file for p in full.problems]
    assert load_curriculum(root, only=["02-averages"]).partial is False  # not an id: read whole


def test_the_next_lesson_is_found_from_the_folder_listing_without_reading_the_others(tmp_path):
    from conftest import write_tiny_curriculum

    root = write_tiny_curriculum(tmp_path / "c", [])
    second = root / "phases" / "02-more" / "01-after"
    (second / "docs").mkdir(parents=True)
    (second / "docs" / "en.md").write_text("# After\n\n**Prerequisites:** Phase 1, Lesson 02\n")
    (second / "quiz.json").write_text("[]")
    full = load_curriculum(root)
    outline = load_curriculum(root, only=[])
    assert outline.partial and outline.lessons == [] and outline.name == full.name
    ids = [lesson.id for lesson in full.lessons]
    assert outline.next_lesson(None) == full.lessons[0]
    for before, after in zip(ids, [*ids[1:], None], strict=True):
        found = outline.next_lesson(before)
        assert (found.id if found else None) == after
        assert found is None or found == full.lesson(after)
    # what was read: the lessons walked through, and the prerequisite P2 L01 names
    assert outline.lesson("P2 L01").prerequisites == ["P1 L02"]
    reread = load_curriculum(root, only=[])
    assert reread.next_lesson("P1 L01").id == "P1 L02"
    assert [lesson.id for lesson in reread.lessons] == ["P1 L01", "P1 L02"]  # P2 L01 unread


def test_finding_the_next_lesson_lists_no_phase_past_it(tmp_path):
    """The next lesson is found from the listing of its own phase (and the following one when
    its phase ends): a later phase's folders are not listed, so the work does not grow with the
    curriculum. Listing a phase is seen by its warning (a lesson folder with no number)."""
    from conftest import write_tiny_curriculum

    root = write_tiny_curriculum(tmp_path / "c", [])
    for phase in ("02-more", "03-last"):
        lesson = root / "phases" / phase / "01-only"
        (lesson / "docs").mkdir(parents=True)
        (lesson / "docs" / "en.md").write_text("# Only\n\n**Prerequisites:** None\n")
        (lesson / "quiz.json").write_text("[]")
        stray = root / "phases" / phase / "extra"
        (stray / "docs").mkdir(parents=True)
        (stray / "docs" / "en.md").write_text("# Extra\n\n**Prerequisites:** None\n")

    def listed_phases(curriculum) -> set[str]:
        return {p.file.split("/")[1] for p in curriculum.problems if "has no number" in p.message}

    outline = load_curriculum(root, only=[])
    assert outline.next_lesson("P1 L01").id == "P1 L02" and listed_phases(outline) == set()
    assert outline.listed(1) == [(1, 1), (1, 2)]
    assert outline.next_lesson("P1 L02").id == "P2 L01"
    assert listed_phases(outline) == {"02-more"}  # phase 3 not listed
    assert outline.next_lesson("P2 L01").id == "P2 L02"  # the unnumbered folder, numbered after
    assert outline.listed() == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]
    assert listed_phases(outline) == {"02-more", "03-last"}
    full = load_curriculum(root)
    assert [(x.phase, x.number) for x in full.lessons] == outline.listed()


def test_an_unnumbered_lesson_folder_is_numbered_after_the_others_with_a_warning(tmp_path):
    lesson = tmp_path / "c" / "phases" / "01-p" / "01-real" / "docs"
    lesson.mkdir(parents=True)
    (lesson / "en.md").write_text("# Real\n\nA lesson.\n", encoding="utf-8")
    (tmp_path / "c" / "phases" / "01-p" / "2a-extra").mkdir()
    (tmp_path / "c" / "phases" / "01-p" / "2a-extra" / "quiz.json").write_text("[]")
    curriculum = load_curriculum(tmp_path / "c")
    assert [x.title for x in curriculum.lessons] == ["Real", "2a Extra"]
    messages = {p.file: p.message for p in curriculum.problems}
    assert messages["phases/01-p/2a-extra"] == "lesson folder has no number; numbered 2"


def test_a_further_reading_link_that_is_no_web_address_is_a_warning(tmp_path: Path):
    """`file://` and relative links cannot be fetched: they are left out of the lesson's
    references, as before, and now `curriculum check` names each one (they were dropped
    without a word)."""
    lesson = tmp_path / "phases" / "01-basics" / "01-first"
    (lesson / "docs").mkdir(parents=True)
    (lesson / "docs" / "en.md").write_text(
        "# First\n\n## The Concept\n\nSome text.\n\n## Further Reading\n\n"
        "- [Web](https://example.org/a)\n- [Local](file:///etc/hosts)\n- [Notes](../notes.md)\n",
        encoding="utf-8",
    )
    curriculum = load_curriculum(tmp_path)
    assert [link.url for link in curriculum.lessons[0].further_reading] == ["https://example.org/a"]
    said = [w.message for w in curriculum.warnings if "Further Reading" in w.message]
    assert len(said) == 2 and "'file:///etc/hosts'" in said[0] and "'../notes.md'" in said[1]
