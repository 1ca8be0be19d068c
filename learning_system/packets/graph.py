"""The curriculum graph a packet is compiled from.

Lessons are nodes (title, phase, sections with their line ranges, glossary terms as tags, code
blocks, Further Reading references, quiz items); `requires` edges run from a lesson to each
prerequisite its document names, `next` edges follow curriculum order, `pitfall` edges tie a
pitfall to its lesson. Pitfalls come from the learner's mistakes ledger (when a store is given),
from the lesson text's own warning sections and from quiz explanations.

The graph is read from the files themselves (line numbers are the file's, 1-based) and is
canonical: the same files and the same ledger give the same graph and the same `graph_hash`."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr

from learning_system.curriculum_doc import parse_links
from learning_system.curriculum_files import MAX_DOC_BYTES, MAX_QUIZ_BYTES, read_regular
from learning_system.curriculum_refs import (
    format_lesson_id,
    id_slug,
    parse_lesson_ref,
    parse_prerequisites,
)
from learning_system.packets.errors import LearningCapabilityError
from learning_system.packets.request import sha256_hex
from learning_system.terminal import strip_terminal as _strip_terminal

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson
    from learning_system.store import Store

SectionKind = Literal[
    "learning_goal",
    "motivation",
    "main_path",
    "implementation",
    "derivation",
    "self_check",
    "terms",
    "references",
    "pitfall",
    "other",
]
PitfallOrigin = Literal["ledger", "text", "quiz"]
TEACHING_KINDS: tuple[SectionKind, ...] = (
    "learning_goal",
    "main_path",
    "implementation",
    "self_check",
)
# code blocks whose info string names a diagram or plain text are not code
NOT_CODE = frozenset({"", "mermaid", "figure", "text", "txt", "plaintext", "plain", "ascii"})

# a subsection keeps these kinds of its own; any other takes its section's kind
_OWN_KINDS = frozenset({"derivation", "pitfall", "self_check", "references", "terms"})
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_PREREQ_LINE = re.compile(r"^\s*(?:[-*+]\s+)?\*\*\s*prereq", re.IGNORECASE)
_WARNING_LINE = re.compile(
    r"^\s*(?:>\s*)?\*\*\s*(warning|pitfall|gotcha|common mistake|caution|watch out)\s*:?\s*\*\*"
    r"\s*:?\s*(.*)$",
    re.IGNORECASE,
)
_KIND_RULES: tuple[tuple[SectionKind, re.Pattern[str]], ...] = (
    ("learning_goal", re.compile(r"^(learning )?objectives?$|^what you('| wi)ll learn|^goals?$")),
    ("references", re.compile(r"^(further reading|references|resources|further resources)$")),
    ("terms", re.compile(r"^key terms|^glossary|^terms$")),
    ("self_check", re.compile(r"exercise|self[- ]check|check your understanding|^quiz|practice")),
    ("pitfall", re.compile(r"mistake|pitfall|gotcha|\btraps?\b|\bbugs?\b|caveat|warning")),
    ("derivation", re.compile(r"deriv|\bproofs?\b|\bformulas?\b|\bequations?\b|theorem")),
    ("implementation", re.compile(r"^build|^building|^use it|^ship it|^step \d|implement")),
    ("motivation", re.compile(r"^the problem$|^(the )?motivation|^why\b")),
    ("main_path", re.compile(r"^the concept|^concepts?$|^how it works|^intuition|^overview")),
)


class SectionInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    level: int
    kind: SectionKind
    line_start: int
    line_end: int


class CodeLink(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    node_id: str
    language: str
    section: str
    line_start: int
    line_end: int
    text: str


class Reference(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    node_id: str
    title: str
    url: str
    line: int


class QuizInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    stage: str
    question: str
    options: list[str]
    correct: int
    explanation: str
    line: int | None


class GraphNode(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    lesson_id: str
    order: int
    title: str
    phase: int
    number: int
    slug: str
    type: str
    languages: list[str]
    objectives: list[str]
    folder: str
    doc_path: str | None
    quiz_path: str | None
    content_hash: str
    tags: list[str]
    sections: list[SectionInfo]
    code_links: list[CodeLink]
    references: list[Reference]
    quiz: list[QuizInfo]
    prerequisites_line: int | None


class GraphEdge(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    kind: Literal["requires", "next", "pitfall"]
    source: str
    target: str
    source_path: str
    line_start: int | None = None
    line_end: int | None = None


class PitfallSource(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source_path: str
    line_start: int | None = None
    line_end: int | None = None


class Pitfall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    node_id: str
    origin: PitfallOrigin
    symptom: str
    cause: str
    correction: str
    diagnostics: list[str]
    error_type: str | None = None
    status: str | None = None
    sources: list[PitfallSource]


class Dangling(BaseModel):
    """A reference the graph cannot follow: a prerequisite or a mistake naming no lesson here."""

    model_config = ConfigDict(extra="forbid")

    node_id: str | None
    ref: str
    source_path: str
    line: int | None
    message: str


class PhaseInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: int
    slug: str
    title: str


class CurriculumGraph(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    phases: list[PhaseInfo]
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    pitfalls: list[Pitfall]
    dangling: list[Dangling]

    _root: Path = PrivateAttr(default=Path("."))
    _lines: dict[str, list[str]] = PrivateAttr(default_factory=dict)
    _hash: str | None = PrivateAttr(default=None)
    _by_id: dict[str, GraphNode] | None = PrivateAttr(default=None)

    @property
    def root(self) -> Path:
        return self._root

    @property
    def graph_hash(self) -> str:
        """SHA-256 of the canonical graph (nodes with their content hashes, edges, pitfalls)."""
        if self._hash is None:
            self._hash = sha256_hex(self.model_dump(mode="json"))
        return self._hash

    def _index(self) -> dict[str, GraphNode]:
        if self._by_id is None:
            self._by_id = {node.id: node for node in self.nodes}
        return self._by_id

    def node(self, node_id: str) -> GraphNode:
        return self._index()[node_id]

    def has(self, node_id: str) -> bool:
        return node_id in self._index()

    def lines(self, node_id: str) -> list[str]:
        """The lesson document's lines (terminal escapes stripped), as read for this graph."""
        return self._lines.get(node_id, [])

    def text(self, node_id: str, line_start: int, line_end: int) -> str:
        return "\n".join(self.lines(node_id)[line_start - 1 : line_end]).strip("\n")


# building -------------------------------------------------------------------------------------
# anything strip_terminal would change: escapes, controls, CR, bidirectional overrides, the BOM
_UNCLEAN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufeff]")


def strip_terminal(text: str) -> str:
    """learning_system.terminal.strip_terminal, skipped for the common text it would not change."""
    return _strip_terminal(text) if _UNCLEAN.search(text) else text


def build_graph(curriculum: Curriculum, store: Store | None = None) -> CurriculumGraph:
    """The graph of a loaded curriculum, with the learner's mistakes as pitfalls when a store is
    given. Never raises on content."""
    root = Path(curriculum.root)
    lessons = curriculum.lessons
    terms = _Terms(list(curriculum.glossary))
    nodes: list[GraphNode] = []
    all_lines: dict[str, list[str]] = {}
    pitfalls: list[Pitfall] = []
    dangling: list[Dangling] = []
    for order, lesson in enumerate(lessons):
        node, lines, node_pitfalls = _node(root, lesson, order, terms)
        nodes.append(node)
        all_lines[node.id] = lines
        pitfalls += node_pitfalls
    known = {(n.phase, n.number): n for n in nodes}
    edges: list[GraphEdge] = []
    for lesson, node in zip(lessons, nodes, strict=True):
        where = node.doc_path or node.folder
        for pair in parse_prerequisites(lesson.prerequisites_text, lesson.phase):
            if pair == (lesson.phase, lesson.number):
                continue
            target = known.get(pair)
            if target is None:
                dangling.append(
                    Dangling(
                        node_id=node.id,
                        ref=format_lesson_id(*pair),
                        source_path=where,
                        line=node.prerequisites_line,
                        message=f"{node.lesson_id} names prerequisite {format_lesson_id(*pair)}, "
                        "which is not in this curriculum",
                    )
                )
                continue
            edge_id = f"requires:{node.id}->{target.id}"
            if any(e.id == edge_id for e in edges):
                continue
            edges.append(
                GraphEdge(
                    id=edge_id,
                    kind="requires",
                    source=node.id,
                    target=target.id,
                    source_path=where,
                    line_start=node.prerequisites_line,
                    line_end=node.prerequisites_line,
                )
            )
    for before, after in zip(nodes, nodes[1:], strict=False):
        edges.append(
            GraphEdge(
                id=f"next:{before.id}->{after.id}",
                kind="next",
                source=before.id,
                target=after.id,
                source_path=after.folder,
            )
        )
    if store is not None:
        ledger, lost = _ledger_pitfalls(store, root, nodes)
        pitfalls = ledger + pitfalls
        dangling += lost
    pitfalls.sort(key=lambda p: (_order_of(nodes, p.node_id), _ORIGIN_RANK[p.origin], p.id))
    for pitfall in pitfalls:
        first = pitfall.sources[0]
        edges.append(
            GraphEdge(
                id=f"pitfall:{pitfall.id}->{pitfall.node_id}",
                kind="pitfall",
                source=pitfall.id,
                target=pitfall.node_id,
                source_path=first.source_path,
                line_start=first.line_start,
                line_end=first.line_end,
            )
        )
    graph = CurriculumGraph(
        name=strip_terminal(curriculum.name),
        phases=[
            PhaseInfo(number=p.number, slug=p.slug, title=strip_terminal(p.title))
            for p in curriculum.phases
        ],
        nodes=nodes,
        edges=edges,
        pitfalls=pitfalls,
        dangling=dangling,
    )
    graph._root = root
    graph._lines = all_lines
    return graph


_ORIGIN_RANK = {"ledger": 0, "text": 1, "quiz": 2}


def _order_of(nodes: list[GraphNode], node_id: str) -> int:
    for node in nodes:
        if node.id == node_id:
            return node.order
    return len(nodes)


def _rel(path: Path | None, root: Path) -> str | None:
    if path is None:
        return None
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        try:
            return Path(path).resolve().relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            return Path(path).name


def _read(path: Path | None, root: Path, limit: int) -> bytes:
    """At most `limit` bytes of a curriculum file, read under the loader's containment rules
    (which already warned about a file cut, refused or unreadable)."""
    if path is None:
        return b""
    data = read_regular(path, limit, root)
    return b"" if isinstance(data, str) else data


_TOKEN = re.compile(r"[a-z0-9]+")


class _Terms:
    """Glossary terms found in a text as whole words (case and punctuation aside)."""

    def __init__(self, terms: list[str]) -> None:
        self.by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for term in sorted({t.strip() for t in terms if t.strip()}):
            key = tuple(_TOKEN.findall(term.lower()))
            if key and len("".join(key)) > 1:
                self.by_first.setdefault(key[0], []).append((key, term.lower()))

    def find(self, text: str) -> list[str]:
        tokens = _TOKEN.findall(text.lower())
        joined = f" {' '.join(tokens)} "
        found: set[str] = set()
        for first in set(tokens).intersection(self.by_first):
            for key, term in self.by_first[first]:
                if len(key) == 1 or f" {' '.join(key)} " in joined:
                    found.add(term)
        return sorted(found)


def _node(
    root: Path, lesson: Lesson, order: int, terms: _Terms
) -> tuple[GraphNode, list[str], list[Pitfall]]:
    node_id = id_slug(lesson.phase, lesson.number)
    doc_bytes = _read(lesson.doc_path, root, MAX_DOC_BYTES)
    quiz_bytes = _read(lesson.quiz_path, root, MAX_QUIZ_BYTES)
    content_hash = hashlib.sha256(doc_bytes + b"\0" + quiz_bytes).hexdigest()
    text = strip_terminal(doc_bytes.decode("utf-8-sig", errors="replace"))
    lines = text.split("\n")
    doc_path = _rel(lesson.doc_path, root)
    folder = _rel(lesson.path, root) or lesson.slug
    scan = _scan(lines, node_id)
    tags = terms.find(text)
    quiz_path = _rel(lesson.quiz_path, root)
    quiz = _quiz(lesson, quiz_bytes)
    node = GraphNode(
        id=node_id,
        lesson_id=lesson.id,
        order=order,
        title=strip_terminal(lesson.title),
        phase=lesson.phase,
        number=lesson.number,
        slug=lesson.slug,
        type=lesson.type,
        languages=list(lesson.languages),
        objectives=[strip_terminal(o) for o in lesson.objectives],
        folder=folder,
        doc_path=doc_path,
        quiz_path=quiz_path,
        content_hash=content_hash,
        tags=tags,
        sections=scan["sections"],
        code_links=scan["code"],
        references=[
            Reference(id=f"{node_id}:ref:{n + 1}", node_id=node_id, title=t, url=u, line=line)
            for n, (t, u, line) in enumerate(scan["links"])
        ],
        quiz=quiz,
        prerequisites_line=scan["prereq_line"],
    )
    pitfalls = _text_pitfalls(node, lines, scan["warnings"]) + _quiz_pitfalls(node)
    return node, lines, pitfalls


def classify(title: str) -> SectionKind:
    norm = " ".join(title.replace("’", "'").lower().split()).strip(" :")
    for kind, pattern in _KIND_RULES:
        if pattern.search(norm):
            return kind
    return "other"


def _scan(lines: list[str], node_id: str) -> dict[str, Any]:
    """Sections (##/### headings, as the curriculum loader splits them) with line ranges, code
    blocks, Further Reading links, warning lines and the prerequisites header line."""
    start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                start = i + 1
                break
    heads: list[tuple[int, int, str]] = []  # (0-based line, level, title)
    code: list[tuple[int, int, str]] = []  # (open line, close line, language)
    warnings: list[tuple[int, str, str]] = []
    prereq_line: int | None = None
    fence = ""
    fence_open = 0
    fence_lang = ""
    for i in range(start, len(lines)):
        line = lines[i]
        if fence:
            if line.lstrip().startswith(fence) and not line.strip().strip(fence[0]):
                code.append((fence_open, i, fence_lang))
                fence = ""
            continue
        first = line.lstrip(" ")[:1]  # cheap tests first: most lines are prose
        opened = _FENCE.match(line) if first in ("`", "~") else None
        if opened:
            fence = opened.group(1)[0] * len(opened.group(1))
            fence_open, fence_lang = i, opened.group(2).lower()
            continue
        heading = _HEADING.match(line) if first == "#" else None
        if heading:
            level = len(heading.group(1))
            title = _CLOSING_HASHES.sub("", heading.group(2) or "").strip()
            if level in (2, 3) and title:
                heads.append((i, level, title))
            continue
        if "**" not in line:
            continue
        if not heads and prereq_line is None and _PREREQ_LINE.match(line):
            prereq_line = i + 1
        warned = _WARNING_LINE.match(line)
        if warned and warned.group(2).strip():
            warnings.append((i + 1, warned.group(1).strip(), warned.group(2).strip()))
    if fence:  # an unclosed fence runs to the end of the file
        code.append((fence_open, len(lines) - 1, fence_lang))
    sections: list[SectionInfo] = []
    parent_kind: SectionKind = "other"
    for n, (i, level, title) in enumerate(heads):
        end = heads[n + 1][0] - 1 if n + 1 < len(heads) else len(lines) - 1
        while end > i and not lines[end].strip():
            end -= 1
        kind = classify(title)
        if level == 2:
            parent_kind = kind
        elif kind not in _OWN_KINDS:  # a subsection belongs to its section's kind
            kind = parent_kind
        sections.append(
            SectionInfo(
                title=strip_terminal(title),
                level=level,
                kind=kind,
                line_start=i + 1,
                line_end=end + 1,
            )
        )
    code_links: list[CodeLink] = []
    for open_line, close_line, language in code:
        if language in NOT_CODE:
            continue
        inside = _section_at(sections, open_line + 1)
        code_links.append(
            CodeLink(
                id=f"{node_id}:code:{len(code_links) + 1}",
                node_id=node_id,
                language=language,
                section=inside.title if inside else "",
                line_start=open_line + 1,
                line_end=close_line + 1,
                text="\n".join(lines[open_line + 1 : close_line]),
            )
        )
    links: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for section in sections:
        if section.kind != "references":
            continue
        for number in range(section.line_start + 1, section.line_end + 1):
            for link in parse_links(lines[number - 1]):
                if link.url not in seen:
                    seen.add(link.url)
                    links.append((strip_terminal(link.title), link.url, number))
        break
    return {
        "sections": sections,
        "code": code_links,
        "links": links,
        "warnings": warnings,
        "prereq_line": prereq_line,
    }


def _section_at(sections: list[SectionInfo], line: int) -> SectionInfo | None:
    found = None
    for section in sections:
        if section.line_start <= line <= section.line_end:
            found = section
    return found


def _first_paragraph(lines: list[str], start: int, end: int, limit: int = 700) -> str:
    """The first prose paragraph of lines[start-1 : end] (1-based, inclusive), headings, fences
    and list markers aside."""
    paragraph: list[str] = []
    fence = False
    for line in lines[start - 1 : end]:
        stripped = line.strip()
        if _FENCE.match(line):
            fence = not fence
            continue
        if fence or stripped.startswith("#"):
            continue
        if not stripped:
            if paragraph:
                break
            continue
        paragraph.append(stripped.lstrip("-*+> ").strip())
    text = " ".join(p for p in paragraph if p)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _list_items(lines: list[str], start: int, end: int, limit: int = 8) -> list[str]:
    items: list[str] = []
    for line in lines[start - 1 : end]:
        match = re.match(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$", line)
        if match and match.group(1).strip():
            items.append(match.group(1).strip())
        if len(items) >= limit:
            break
    return items


def _text_pitfalls(
    node: GraphNode, lines: list[str], warnings: list[tuple[int, str, str]]
) -> list[Pitfall]:
    out: list[Pitfall] = []
    where = node.doc_path or node.folder
    for section in node.sections:
        if section.kind != "pitfall":
            continue
        body_start = section.line_start + 1
        correction = _first_paragraph(lines, body_start, section.line_end)
        subs = [
            s
            for s in node.sections
            if s.level > section.level
            and s.kind == "pitfall"
            and section.line_end < s.line_start <= _block_end(node, section)
        ]
        if subs and not correction:
            continue  # a heading over its own pitfalls: each subsection is one
        out.append(
            Pitfall(
                id=f"{node.id}:text:{section.line_start}",
                node_id=node.id,
                origin="text",
                symptom=section.title,
                cause="",
                correction=correction,
                diagnostics=_list_items(lines, body_start, section.line_end),
                sources=[
                    PitfallSource(
                        source_path=where, line_start=section.line_start, line_end=section.line_end
                    )
                ],
            )
        )
    for line, label, text in warnings:
        out.append(
            Pitfall(
                id=f"{node.id}:text:{line}",
                node_id=node.id,
                origin="text",
                symptom=label,
                cause="",
                correction=text,
                diagnostics=[],
                sources=[PitfallSource(source_path=where, line_start=line, line_end=line)],
            )
        )
    return out


def _block_end(node: GraphNode, section: SectionInfo) -> int:
    """The last line of a section together with its subsections."""
    end = section.line_end
    for other in node.sections:
        if other.line_start > section.line_start:
            if other.level <= section.level:
                break
            end = other.line_end
    return end


def _quiz(lesson: Lesson, quiz_bytes: bytes) -> list[QuizInfo]:
    raw = quiz_bytes.decode("utf-8-sig", errors="replace")
    out: list[QuizInfo] = []
    cursor = 0
    for item in lesson.quiz:
        line = None
        for needle in (
            json.dumps(item.question, ensure_ascii=False)[1:-1],
            json.dumps(item.question)[1:-1],
        ):
            found = raw.find(needle, cursor)
            if found >= 0:
                line = raw.count("\n", 0, found) + 1
                cursor = found
                break
        out.append(
            QuizInfo(
                id=item.id,
                stage=item.stage,
                question=strip_terminal(item.question),
                options=[strip_terminal(o) for o in item.options],
                correct=item.correct,
                explanation=strip_terminal(item.explanation),
                line=line,
            )
        )
    return out


def _quiz_pitfalls(node: GraphNode) -> list[Pitfall]:
    where = node.quiz_path or node.folder
    return [
        Pitfall(
            id=f"{node.id}:quiz:{q.id}",
            node_id=node.id,
            origin="quiz",
            symptom=q.question,
            cause="",
            correction=q.explanation,
            diagnostics=[f"quiz item {q.id}"],
            sources=[PitfallSource(source_path=where, line_start=q.line, line_end=q.line)],
        )
        for q in node.quiz
        if q.explanation
    ]


def _ledger_pitfalls(
    store: Store, root: Path, nodes: list[GraphNode]
) -> tuple[list[Pitfall], list[Dangling]]:
    """The learner's mistakes on this curriculum's lessons. A mistake made in a session on
    another curriculum is left out; one whose session is unknown is kept."""
    rows = store.mistakes.with_curriculum()
    by_lesson = {n.lesson_id: n for n in nodes}
    by_pair = {(n.phase, n.number): n for n in nodes}
    here = {str(root), str(root.resolve())}
    pitfalls: list[Pitfall] = []
    lost: list[Dangling] = []
    for row in rows:
        if row["curriculum"] and row["curriculum"] not in here:
            continue
        lesson_id = row["lesson_id"] or ""
        pair = parse_lesson_ref(lesson_id)
        node = by_lesson.get(lesson_id) or (by_pair.get(pair) if pair else None)
        source = f"ledger:mistakes/{row['id']}"
        if node is None:
            lost.append(
                Dangling(
                    node_id=None,
                    ref=lesson_id or "(no lesson)",
                    source_path=source,
                    line=None,
                    message=f"mistake {row['id']} names lesson "
                    f"'{lesson_id}', which is not in this curriculum",
                )
            )
            continue
        try:
            item = json.loads(row["item"]) if row["item"] else {}
        except ValueError:
            item = {}
        item = item if isinstance(item, dict) else {}
        question = item.get("question") if isinstance(item.get("question"), str) else ""
        quiz = next((q for q in node.quiz if row["item_id"] and q.id == row["item_id"]), None)
        correction = ""
        sources = [PitfallSource(source_path=source)]
        if quiz is not None:
            question = question or quiz.question
            correction = quiz.explanation
            sources.append(
                PitfallSource(
                    source_path=node.quiz_path or node.folder,
                    line_start=quiz.line,
                    line_end=quiz.line,
                )
            )
        for key in ("explanation", "reference"):
            if not correction and isinstance(item.get(key), str):
                correction = item[key]
        diagnostics = [
            f"error type: {row['error_type'] or 'not given'}",
            f"status: {row['status']}",
        ]
        if row["retest_early"]:
            diagnostics.append("a confident wrong answer: retested early")
        if row["item_id"]:
            diagnostics.append(f"item {row['item_id']}")
        pitfalls.append(
            Pitfall(
                id=f"ledger:{row['id']}",
                node_id=node.id,
                origin="ledger",
                symptom=strip_terminal(question or f"a mistake in {node.lesson_id}").strip(),
                cause=strip_terminal(row["attribution"] or "").strip(),
                correction=strip_terminal(correction).strip(),
                diagnostics=[strip_terminal(d) for d in diagnostics],
                error_type=row["error_type"],
                status=row["status"],
                sources=sources,
            )
        )
    return pitfalls, lost


# resolving a topic ------------------------------------------------------------------------------
_STOP = frozenset("a an and the of to in on for with from by is are how what why into".split())
_WORD = re.compile(r"[\w²³]+", re.UNICODE)


def resolve_topic(graph: CurriculumGraph, topic: str) -> tuple[list[str], str]:
    """The seed node ids a topic names, in curriculum order, and the rule that matched: a lesson
    id, a phase, a title or slug, a glossary term, words of a title. Raises
    LearningCapabilityError when nothing matches."""
    text = " ".join(topic.split())
    folded = text.casefold()
    nodes = graph.nodes
    pair = parse_lesson_ref(text)
    if pair is not None:
        hit = [n.id for n in nodes if (n.phase, n.number) == pair]
        if hit:
            return hit, "lesson id"
    phase = _phase_named(graph, folded)
    if phase is not None:
        hit = [n.id for n in nodes if n.phase == phase]
        if hit:
            return hit, "phase"
    for rule, key in (
        ("title", lambda n: n.title.casefold()),
        ("slug", lambda n: n.slug.casefold()),
        ("slug", lambda n: re.sub(r"^\d+[-_ .]*", "", n.slug).casefold().replace("-", " ")),
        ("folder", lambda n: n.folder.casefold()),
    ):
        hit = [n.id for n in nodes if key(n) == folded or key(n) == folded.replace("-", " ")]
        if hit:
            return hit, rule
    tagged = [n for n in nodes if folded in n.tags]
    if tagged:
        titled = [n.id for n in tagged if folded in n.title.casefold()]
        return (
            (titled, "glossary term in title")
            if titled
            else ([n.id for n in tagged], "glossary term")
        )
    inside = [n.id for n in nodes if folded in n.title.casefold()]
    if inside:
        return inside, "title contains topic"
    words = {w for w in _WORD.findall(folded) if len(w) > 2 and w not in _STOP}
    if words:
        scored = [(len(words & set(_WORD.findall(n.title.casefold()))), n) for n in nodes]
        best = max((s for s, _ in scored), default=0)
        if best:
            return [n.id for s, n in scored if s == best], "title words"
    sample = "; ".join(f"{n.lesson_id} {n.title}" for n in nodes[:3])
    raise LearningCapabilityError(
        f"no lesson in '{graph.name}' matches the topic '{text}': name a lesson id (P1 L02), a "
        f"phase (Phase 1), a lesson title or a glossary term (for example: {sample})"
    )


def topic_lessons(curriculum: Curriculum, topic: str) -> list[str] | None:
    """The lesson ids a topic names by lesson id or phase number ("P1 L08", "phase 2"), from the
    folder listing alone, so a packet of one phase reads that phase and its prerequisites, not
    the whole curriculum; None when naming it takes the lessons' titles (read everything)."""
    folded = " ".join(topic.split()).casefold()
    pair = parse_lesson_ref(folded)
    if pair is not None and pair in curriculum.listed(pair[0]):
        return [format_lesson_id(*pair)]
    match = re.fullmatch(_PHASE, folded)
    if match:
        ids = [format_lesson_id(*p) for p in curriculum.listed(int(match.group(1)))]
        return ids or None
    return None


_PHASE = r"(?:phase|p)\s*0*(\d{1,4})"


def _phase_named(graph: CurriculumGraph, folded: str) -> int | None:
    match = re.fullmatch(_PHASE, folded)
    if match:
        return int(match.group(1))
    for phase in graph.phases:
        names = {
            phase.slug.casefold(),
            phase.title.casefold(),
            re.sub(r"^\d+[-_ .]*", "", phase.slug).casefold().replace("-", " "),
        }
        if folded in names or folded.replace("-", " ") in names:
            return phase.number
    return None
