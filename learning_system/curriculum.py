"""Loading a curriculum: `phases/NN-slug/NN-slug/` lesson folders, each with `docs/en.md` (the
lesson text) and `quiz.json` (its quiz bank), plus an optional `glossary/terms.md`.

`load_curriculum` never raises on malformed content: whatever it cannot read becomes a `Problem`
naming the file (and quiz item), and the lesson stays listed. It raises `CurriculumError` only
when the path is not a curriculum at all. Files are read through `curriculum_files`: nothing
outside the curriculum root (a link out is refused with a warning), nothing past a size cap."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Container
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr

from learning_system.curriculum_doc import Link, Section, parse_lesson_doc, section_block
from learning_system.curriculum_files import (
    MAX_DOC_BYTES,
    MAX_GLOSSARY_BYTES,
    MAX_QUIZ_BYTES,
    OUTSIDE,
    outside_target,
    read_regular,
)
from learning_system.curriculum_glossary import parse_glossary
from learning_system.curriculum_quiz import QuizItem, parse_quiz_bank
from learning_system.curriculum_refs import (
    format_lesson_id,
    id_slug,
    parse_lesson_ref,
    parse_prerequisites,
)
from learning_system.errors import LearningSystemError

__all__ = [
    "Curriculum",
    "CurriculumError",
    "Lesson",
    "LessonNotFound",
    "Link",
    "Phase",
    "Problem",
    "QuizItem",
    "Section",
    "load_curriculum",
    "parse_lesson_ref",
]

BUILTIN_COURSE = Path(__file__).resolve().parent / "courses" / "builtin"
BUILTIN_NAME = "built-in course"
DOC_FILE = Path("docs") / "en.md"
QUIZ_FILE = "quiz.json"
GLOSSARY_FILE = Path("glossary") / "terms.md"


class CurriculumError(LearningSystemError):
    """The path is not a curriculum (or a lesson reference names nothing in it)."""

    title = "Curriculum problem"


class LessonNotFound(CurriculumError, LookupError):
    """No lesson matches a reference; the message lists close matches."""


class Problem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    severity: Literal["warning", "error"]
    file: str  # relative to the curriculum root, `/`-separated
    item: str | None = None
    message: str

    def __str__(self) -> str:
        item = f" [{self.item}]" if self.item else ""
        return f"{self.severity}: {self.file}{item}: {self.message}"


class Lesson(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    phase: int
    number: int
    slug: str
    path: Path
    title: str
    motto: str = ""
    type: str = ""
    languages: list[str]
    prerequisites_text: str = ""
    prerequisites: list[str]
    time_minutes: int | None
    objectives: list[str]
    sections: list[Section]
    further_reading: list[Link]
    quiz: list[QuizItem]
    doc_path: Path | None
    quiz_path: Path | None

    def section_text(self, title: str) -> str | None:
        """The markdown of the first section with this title (case-insensitive), including its
        subsections with their headings; None when the lesson has no such section."""
        return section_block(self.sections, title)


class Phase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int
    slug: str
    title: str
    lessons: list[Lesson]


class Curriculum(BaseModel):
    model_config = ConfigDict(extra="forbid")

    root: Path
    name: str
    phases: list[Phase]
    glossary: dict[str, str]
    problems: list[Problem]

    _by_key: dict[tuple[int, int], Lesson] | None = PrivateAttr(default=None)
    # set when only some lessons were read (`load_curriculum(path, only=...)`): its lesson
    # folders, each phase listed when first asked about. A lesson asked for by id, or as the
    # next one, is read then; anything else reads the rest, all at once
    _folders: LessonFolders | None = PrivateAttr(default=None)

    @property
    def partial(self) -> bool:
        return self._folders is not None

    def complete(self) -> None:
        """Read every lesson (a no-op when the curriculum was read whole)."""
        if not self.partial:
            return
        full = load_curriculum(self.root)
        self.phases, self.problems = full.phases, full.problems
        self._by_key, self._folders = None, None

    def _read(self, pair: tuple[int, int]) -> Lesson | None:
        """Of a partial curriculum: the lesson in folder `pair`, read now if it was not (with
        the lessons its prerequisites name); None when there is no such folder."""
        folders = self._folders
        if folders is None or pair not in folders:
            return None
        loaded = {(x.phase, x.number): x for x in self.lessons}
        if pair not in loaded:
            _read_with_prerequisites(self.root, folders, [pair], loaded, self.problems)
            self.phases = _phases_of(self.root, folders, loaded)
            self._by_key = None
        return loaded[pair]

    def listed(self, phase: int | None = None) -> list[tuple[int, int]]:
        """(phase, number) of every lesson folder (of `phase` only, when given), in curriculum
        order, without reading one."""
        if self._folders is not None:
            return self._folders.pairs(phase)
        return [(x.phase, x.number) for x in self.lessons if phase in (None, x.phase)]

    def phase_lessons(self, phase: int) -> list[Lesson]:
        """Every lesson of a phase, in order — read now, of a partial curriculum, so the answer
        never depends on which lessons happened to be read before."""
        if self._folders is not None:
            for pair in self._folders.pairs(phase):
                self._read(pair)
        return [lesson for lesson in self.lessons if lesson.phase == phase]

    @property
    def lessons(self) -> list[Lesson]:
        return [lesson for phase in self.phases for lesson in phase.lessons]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    def lesson(self, ref: str | Path) -> Lesson:
        """The lesson named by an id (`P1 L08`, `p1l8`, …), its folder path (absolute, or
        relative to the current directory or to the root), or its slug (`08-optimization`)."""
        text = str(ref).strip()
        found = self._find(text) if text else []
        pair = parse_lesson_ref(text)
        if not found and self._folders is not None and pair is not None and pair in self._folders:
            read = self._read(pair)
            found = [read] if read is not None else []
        if not found and self.partial:
            self.complete()
            found = self._find(text) if text else []
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            names = ", ".join(
                f"{lesson.id} ({lesson.path.relative_to(self.root).as_posix()})" for lesson in found
            )
            raise LessonNotFound(
                f"'{text}' matches several lessons: {names}; use a lesson id "
                "such as 'P1 L08' instead"
            )
        raise LessonNotFound(self._not_found_message(text))

    def next_lesson(self, after_id: str | None) -> Lesson | None:
        """The lesson after `after_id` in curriculum order (the first one for None); None after
        the last lesson. A partial curriculum reads just that lesson (and its prerequisites),
        found from the folder listing."""
        if self._folders is not None:
            if after_id is None:
                first = self._folders.after(None)
                return self._read(first) if first else None
            current = self.lesson(after_id)
            if self._folders is not None:  # `after_id` was an id: the rest is still unread
                upcoming = self._folders.after((current.phase, current.number))
                return self._read(upcoming) if upcoming else None
        lessons = self.lessons
        if after_id is None:
            return lessons[0] if lessons else None
        current = self.lesson(after_id)
        position = next(i for i, lesson in enumerate(lessons) if lesson is current)
        return lessons[position + 1] if position + 1 < len(lessons) else None

    def _find(self, text: str) -> list[Lesson]:
        pair = parse_lesson_ref(text)
        if pair is not None:
            if self._by_key is None:
                self._by_key = {}
                for lesson in self.lessons:
                    self._by_key.setdefault((lesson.phase, lesson.number), lesson)
            hit = self._by_key.get(pair)
            return [hit] if hit else []
        by_path = self._find_by_path(text)
        if by_path:
            return [by_path]
        folded = text.casefold().strip("/")
        for key in (
            lambda lesson: lesson.slug.casefold(),
            lambda lesson: f"{lesson.path.parent.name}/{lesson.slug}".casefold(),
            lambda lesson: _strip_number(lesson.slug).casefold(),
            lambda lesson: lesson.title.casefold(),
        ):
            hits = [lesson for lesson in self.lessons if key(lesson) == folded]
            if hits:
                return hits
        return []

    def _find_by_path(self, text: str) -> Lesson | None:
        try:
            given = Path(text).expanduser()
            candidates = (
                [given]
                if given.is_absolute()
                else [Path.cwd() / given, self.root / given, self.root / "phases" / given]
            )
            for candidate in candidates:
                if not candidate.exists():
                    continue
                resolved = candidate.resolve()
                for lesson in self.lessons:
                    folder = lesson.path.resolve()
                    if resolved == folder or folder in resolved.parents:
                        return lesson
        except (OSError, ValueError, RuntimeError):
            return None
        return None

    def _not_found_message(self, text: str) -> str:
        lessons = self.lessons
        if not lessons:
            return f"the curriculum '{self.name}' has no lessons"
        names: dict[str, Lesson] = {}
        for lesson in lessons:
            for key in (
                lesson.id.casefold(),
                id_slug(lesson.phase, lesson.number),
                lesson.slug.casefold(),
                lesson.title.casefold(),
            ):
                names.setdefault(key, lesson)
        pair = parse_lesson_ref(text)
        if pair is not None:
            in_phase = [lesson for lesson in lessons if lesson.phase == pair[0]]
            hint = (
                f"phase {pair[0]} has {in_phase[0].id} to {in_phase[-1].id}"
                if in_phase
                else f"lessons run from {lessons[0].id} to {lessons[-1].id}"
            )
        else:
            close = difflib.get_close_matches(text.casefold(), list(names), n=8, cutoff=0.6)
            suggestions: list[str] = []
            for key in close:
                label = f"{names[key].id} {names[key].title}"
                if label not in suggestions:
                    suggestions.append(label)
            hint = (
                f"close matches: {'; '.join(suggestions[:5])}"
                if suggestions
                else f"lessons run from {lessons[0].id} to {lessons[-1].id}"
            )
        return (
            f"no lesson '{text}' in '{self.name}' ({hint}). Name a lesson by its id "
            "('P1 L08'), its folder or its slug."
        )


def load_curriculum(path: Path | str, only: list[str] | None = None) -> Curriculum:
    """Read a curriculum folder. Raises CurriculumError only when `path` is not a curriculum.

    With `only` (lesson ids such as `P1 L08`), just those lessons and the lessons their
    prerequisites name are read; the folder tree is listed but no other lesson's files are
    opened; `only=[]` reads no lesson yet. The curriculum is then `partial`: a lesson asked for
    by id, or as the next one, is read when asked for; asking it anything else (a lesson by
    path or slug, the list of lessons through `complete()`) reads the rest. A reference in
    `only` that is not an id (a path, a slug) reads everything."""
    if only is not None:
        partial = _load_partial(Path(path), only)
        if partial is not None:
            return partial
    root = _curriculum_root(Path(path))
    problems: list[Problem] = []
    phases: list[Phase] = []
    for number, folder in _numbered_folders(root / "phases", root, problems, "phase"):
        lessons = [
            _load_lesson(root, lesson_folder, number, lesson_number, problems)
            for lesson_number, lesson_folder in _numbered_folders(folder, root, problems, "lesson")
        ]
        phases.append(
            Phase(
                number=number, slug=folder.name, title=_phase_title(folder, root), lessons=lessons
            )
        )
    all_lessons = [lesson for phase in phases for lesson in phase.lessons]
    _resolve_prerequisites(root, all_lessons, problems)
    if not all_lessons:
        problems.append(
            Problem(
                severity="error",
                file="phases",
                message="no lessons found: "
                "expected lesson folders such as phases/01-basics/01-first-lesson",
            )
        )
    return Curriculum(
        root=root,
        name=_curriculum_name(root),
        phases=phases,
        glossary=_load_glossary(root, problems),
        problems=problems,
    )


def _load_partial(path: Path, only: list[str]) -> Curriculum | None:
    root = _curriculum_root(path)
    problems: list[Problem] = []
    folders = LessonFolders(root, problems)
    wanted = [p for p in map(parse_lesson_ref, only) if p is not None and p in folders]
    if len(wanted) != len(only):
        return None  # not plain ids of lessons here: the whole read gives the right message
    if folders.after(None) is None:
        return None  # no lessons at all: the whole read says so
    loaded: dict[tuple[int, int], Lesson] = {}
    _read_with_prerequisites(root, folders, wanted, loaded, problems)
    curriculum = Curriculum(
        root=root,
        name=_curriculum_name(root),
        phases=_phases_of(root, folders, loaded),
        glossary=_load_glossary(root, problems),
        problems=problems,
    )
    folders.problems = curriculum.problems  # a copy: later listings warn into it
    curriculum._folders = folders
    return curriculum


class LessonFolders:
    """Of a partial curriculum: its lesson folders by (phase, number), in curriculum order. The
    phases are listed at once; a phase's lesson folders when one of them is first asked about,
    so finding the next lesson lists one or two phases, not every one."""

    def __init__(self, root: Path, problems: list[Problem]) -> None:
        self.root = root
        self.problems = problems
        self.phases = dict(_numbered_folders(root / "phases", root, problems, "phase"))
        self._lessons: dict[int, dict[int, Path]] = {}

    def lessons_of(self, phase: int) -> dict[int, Path]:
        """The lesson folders of `phase` by number, in order (none for a phase not there)."""
        if phase not in self._lessons:
            folder = self.phases.get(phase)
            listed = _numbered_folders(folder, self.root, self.problems, "lesson") if folder else []
            self._lessons[phase] = dict(listed)
        return self._lessons[phase]

    def __contains__(self, pair: object) -> bool:
        if not isinstance(pair, tuple) or len(pair) != 2:
            return False
        return pair[1] in self.lessons_of(pair[0])

    def pairs(self, phase: int | None = None) -> list[tuple[int, int]]:
        phases = list(self.phases) if phase is None else [phase]
        return [(p, n) for p in phases for n in self.lessons_of(p)]

    def after(self, pair: tuple[int, int] | None) -> tuple[int, int] | None:
        """The lesson folder after `pair` (the first one for None), listing no phase past it."""
        phases = list(self.phases)
        start = 0 if pair is None else phases.index(pair[0])
        for phase in phases[start:]:
            numbers = list(self.lessons_of(phase))
            if pair is not None and phase == pair[0]:
                numbers = numbers[numbers.index(pair[1]) + 1 :]
            if numbers:
                return phase, numbers[0]
        return None


def _read_with_prerequisites(
    root: Path,
    folders: LessonFolders,
    wanted: list[tuple[int, int]],
    loaded: dict[tuple[int, int], Lesson],
    problems: list[Problem],
) -> None:
    """Read the lessons `wanted` and those their prerequisites name into `loaded` (skipping
    what is there already), resolving the prerequisites of what was read against `folders`."""
    fresh: list[Lesson] = []

    def read(pair: tuple[int, int]) -> Lesson:
        if pair not in loaded:
            folder = folders.lessons_of(pair[0])[pair[1]]
            loaded[pair] = _load_lesson(root, folder, pair[0], pair[1], problems)
            fresh.append(loaded[pair])
        return loaded[pair]

    for pair in wanted:
        lesson = read(pair)
        for pre in parse_prerequisites(lesson.prerequisites_text, lesson.phase):
            if pre in folders:
                read(pre)
    _resolve_prerequisites(root, fresh, problems, folders)


def _phases_of(
    root: Path,
    folders: LessonFolders,
    loaded: dict[tuple[int, int], Lesson],
) -> list[Phase]:
    """The phases of the lessons read so far, in curriculum order."""
    phases = []
    for phase_number in sorted({pair[0] for pair in loaded}):
        folder = folders.phases[phase_number]
        phases.append(
            Phase(
                number=phase_number,
                slug=folder.name,
                title=_phase_title(folder, root),
                lessons=[loaded[k] for k in sorted(loaded) if k[0] == phase_number],
            )
        )
    return phases


def _curriculum_root(path: Path) -> Path:
    try:
        root = path.expanduser().resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise CurriculumError(f"cannot read the path '{path}': {exc}") from None
    if not root.exists():
        raise CurriculumError(
            f"'{path}' does not exist; give the folder of a curriculum "
            "checkout (the one that holds `phases/`)"
        )
    if not root.is_dir():
        raise CurriculumError(
            f"'{path}' is a file; give the folder of a curriculum checkout "
            "(the one that holds `phases/`)"
        )
    if (root / "phases").is_dir():
        return root
    if root.name == "phases" and any(child.is_dir() for child in _children(root)):
        return root.parent
    inside = [child.name for child in _children(root) if (child / "phases").is_dir()]
    hint = f"; did you mean {root / inside[0]}?" if inside else ""
    raise CurriculumError(f"'{path}' is not a curriculum: it has no `phases/` folder{hint}")


def _children(folder: Path) -> list[Path]:
    """The sub-folders, sorted."""
    return [folder / name for name, _ in _scan(folder)]


def _scan(folder: Path) -> list[tuple[str, bool]]:
    """The sub-folders' names, sorted, each with whether it is a symlink; from one directory
    scan (no stat per entry where the file system says what each entry is)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(
                (entry.name, entry.is_symlink())
                for entry in entries
                if not entry.name.startswith((".", "_")) and entry.is_dir()
            )
    except OSError:
        return []


_NUMBERED = re.compile(r"^(\d{1,4})(?:[-_ .]|$)")


def _numbered_folders(
    folder: Path, root: Path, problems: list[Problem], kind: str
) -> list[tuple[int, Path]]:
    """Child folders in order with their numbers (`08-optimization` -> 8). Lesson folders
    without a number are kept when they hold a lesson, numbered after the last one, with a
    warning; a repeated number is moved past the last one too, so ids stay unique."""
    numbered: list[tuple[int, Path]] = []
    unnumbered: list[Path] = []
    for name, link in _scan(folder):
        child = folder / name
        # `folder` is inside the root, so only a link can lead out (and resolving every
        # entry's path would cost a stat per path component, for every lesson listed)
        target = outside_target(child, root) if link else None
        if target is not None:
            problems.append(
                Problem(
                    severity="warning",
                    file=_rel(child, root),
                    message=f"{kind} folder {OUTSIDE} (to {target}); left out",
                )
            )
            continue
        match = _NUMBERED.match(child.name)
        if match:
            numbered.append((int(match.group(1)), child))
        elif _holds_lesson(child) or (
            kind == "phase" and any(map(_holds_lesson, _children(child)))
        ):
            unnumbered.append(child)
    numbered.sort(key=lambda pair: (pair[0], pair[1].name))
    result: list[tuple[int, Path]] = []
    used: set[int] = set()
    late: list[Path] = []
    for number, child in numbered:
        if number in used:
            late.append(child)
        else:
            used.add(number)
            result.append((number, child))
    next_free = max(used, default=0) + 1
    for child in late + unnumbered:
        reason = f"repeats the number of another {kind}" if child in late else "has no number"
        problems.append(
            Problem(
                severity="warning",
                file=_rel(child, root),
                message=f"{kind} folder {reason}; numbered {next_free}",
            )
        )
        result.append((next_free, child))
        next_free += 1
    return result


def _holds_lesson(folder: Path) -> bool:
    return (folder / DOC_FILE).is_file() or (folder / QUIZ_FILE).is_file()


def _load_lesson(
    root: Path, folder: Path, phase: int, number: int, problems: list[Problem]
) -> Lesson:
    lesson_id = format_lesson_id(phase, number)
    doc_path = folder / DOC_FILE
    text = _read_text(doc_path, root, problems) if doc_path.is_file() else None
    if text is None:
        if not doc_path.is_file():
            problems.append(
                Problem(
                    severity="warning",
                    file=_rel(doc_path, root),
                    message=(
                        "missing lesson document; the lesson is listed with a title from its folder"
                    ),
                )
            )
    doc = parse_lesson_doc(text or "")
    if text is not None and not doc.title:
        problems.append(
            Problem(
                severity="warning",
                file=_rel(folder / DOC_FILE, root),
                message="no `# Title` line; title taken from the folder name",
            )
        )
    problems.extend(
        Problem(
            severity="warning",
            file=_rel(doc_path, root),
            message=f"Further Reading link {url[:80]!r} is not a web address (http or https); "
            "it is not read",
        )
        for url in doc.unreadable_links
    )
    quiz_path = folder / QUIZ_FILE
    quiz: list[QuizItem] = []
    quiz_text = (
        _read_text(quiz_path, root, problems, MAX_QUIZ_BYTES, truncate=False)
        if quiz_path.is_file()
        else None
    )
    if quiz_text is None:
        if not quiz_path.is_file():
            problems.append(
                Problem(
                    severity="warning",
                    file=_rel(quiz_path, root),
                    message="missing quiz bank; the lesson has no quiz items",
                )
            )
    else:
        quiz, notes = parse_quiz_bank(quiz_text, id_slug(phase, number))
        problems.extend(
            Problem(
                severity="warning", file=_rel(folder / QUIZ_FILE, root), item=item, message=message
            )
            for item, message in notes
        )
    return Lesson(
        id=lesson_id,
        phase=phase,
        number=number,
        slug=folder.name,
        path=folder,
        title=doc.title or _title_from_slug(folder.name),
        motto=doc.motto,
        type=doc.type,
        languages=doc.languages,
        prerequisites_text=doc.prerequisites_text,
        prerequisites=[],
        time_minutes=doc.time_minutes,
        objectives=doc.objectives,
        sections=doc.sections,
        further_reading=doc.further_reading,
        quiz=quiz,
        doc_path=None if text is None else doc_path,
        quiz_path=None if quiz_text is None else quiz_path,
    )


def _read_text(
    path: Path,
    root: Path,
    problems: list[Problem],
    limit: int = MAX_DOC_BYTES,
    *,
    truncate: bool = True,
) -> str | None:
    """The file's text; undecodable bytes are replaced (with a warning). None if unreadable.
    Only a regular file is read (a FIFO or device never blocks the load); past `limit` bytes
    the rest is left out (`truncate`) or the file is not read at all, with a warning."""
    data = read_regular(path, limit + 1, root)
    if isinstance(data, str):
        problems.append(
            Problem(
                severity="warning", file=_rel(path, root), message=f"cannot read the file: {data}"
            )
        )
        return None
    if len(data) > limit:
        if not truncate:
            problems.append(
                Problem(
                    severity="warning",
                    file=_rel(path, root),
                    message=(f"larger than the {limit // 1024} KiB limit; not read"),
                )
            )
            return None
        problems.append(
            Problem(
                severity="warning",
                file=_rel(path, root),
                message=(
                    f"larger than the {limit // 1024} KiB limit; "
                    f"only the first {limit // 1024} KiB were read"
                ),
            )
        )
        data = data[:limit]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(
            Problem(
                severity="warning",
                file=_rel(path, root),
                message=(
                    f"not valid UTF-8 text (first bad byte at offset {exc.start}; binary?); "
                    "unreadable bytes replaced"
                ),
            )
        )
        return data.decode("utf-8", errors="replace")
    if "\x00" in text:
        problems.append(
            Problem(
                severity="warning",
                file=_rel(path, root),
                message="contains NUL bytes; the file looks binary",
            )
        )
    return text


def _resolve_prerequisites(
    root: Path,
    lessons: list[Lesson],
    problems: list[Problem],
    known: Container[tuple[int, int]] | None = None,
) -> None:
    if known is None:
        known = {(lesson.phase, lesson.number) for lesson in lessons}
    for lesson in lessons:
        resolved: list[str] = []
        missing: list[str] = []
        for pair in parse_prerequisites(lesson.prerequisites_text, lesson.phase):
            if pair == (lesson.phase, lesson.number):
                continue
            (resolved if pair in known else missing).append(format_lesson_id(*pair))
        lesson.prerequisites = resolved
        if missing and lesson.doc_path is not None:
            problems.append(
                Problem(
                    severity="warning",
                    file=_rel(lesson.doc_path, root),
                    message=(f"prerequisites name {', '.join(missing)}, not in this curriculum"),
                )
            )


def _load_glossary(root: Path, problems: list[Problem]) -> dict[str, str]:
    path = root / GLOSSARY_FILE
    if not path.is_file():
        return {}
    text = _read_text(path, root, problems, MAX_GLOSSARY_BYTES)
    glossary = parse_glossary(text) if text else {}
    if text and text.strip() and not glossary:
        problems.append(
            Problem(
                severity="warning", file=_rel(path, root), message="no glossary terms recognised"
            )
        )
    return glossary


def _curriculum_name(root: Path) -> str:
    heading = _first_heading(root / "README.md", root)
    if heading:
        return heading
    return BUILTIN_NAME if root == BUILTIN_COURSE else root.name


def _phase_title(folder: Path, root: Path) -> str:
    return _first_heading(folder / "README.md", root) or _title_from_slug(folder.name)


def _first_heading(path: Path, root: Path) -> str:
    data = read_regular(path, 8192, root)
    if isinstance(data, str):
        return ""
    head = data.decode("utf-8", errors="replace")
    for line in head.splitlines():
        if line.startswith("# "):
            return line[2:].strip().strip("#").strip()
    return ""


def _strip_number(slug: str) -> str:
    return _NUMBERED.sub("", slug, count=1) or slug


def _title_from_slug(slug: str) -> str:
    words = re.split(r"[-_ ]+", _strip_number(slug))
    return " ".join(word[:1].upper() + word[1:] for word in words if word) or slug


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def lesson_document(lesson: Lesson) -> str | None:
    """The lesson document's text, read again under the loader's rules: inside the curriculum
    (a lesson folder is always `<root>/phases/<phase>/<lesson>`), at most MAX_DOC_BYTES (the
    rest left out); None when it cannot be read."""
    if lesson.doc_path is None:
        return None
    return _read_text(lesson.doc_path, lesson.path.parents[2], [])
