"""Markdown views of the learner's records, generated from the store and never parsed back.

Every run renders every file from scratch, deterministically: stable ordering and no "generated
at" time, so running it twice over the same store changes no byte. Text that came from outside
the program (learner answers, attributions, fetched excerpts) is written as text: terminal
escape sequences and control characters are stripped and markdown/HTML structure is escaped.
Taught text (a lesson's own markdown, gated before it was shown) keeps its markdown and code as
written; only what is dangerous is made inert (`md_document`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from learning_system.errors import LearningSystemError
from learning_system.store import Store
from learning_system.terminal import strip_terminal

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from learning_system.tables.rows import KnowledgePageRow

README = "README.md"
README_TEXT = (
    "# Your tutor records\n\n"
    "These files are generated from your tutor store by `tutor views`. The store is the record:\n"
    "edits here are overwritten on the next run and are never read back.\n\n"
    "- [Active concepts](active-concepts.md)\n"
    "- [Mistakes](mistakes.md)\n"
    "- [Learning records](learning-records.md)\n"
    "- [Session notes](session-notes.md)\n"
    "- Knowledge pages: the `knowledge/` folder, one page per concept\n"
    "- Knowledge packs: the `packs/` folder, one page per lesson with a ready pack\n"
)
KNOWLEDGE_DIR = "knowledge"
STATUS_ORDER = {"developing": 0, "held": 1, "advanced": 2}

_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]{}#|~!$])")
_LINE_START_BLOCK = re.compile(r"^([-+=]|\d+[.)])")
_WS = re.compile(r"\s+")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class ViewsError(LearningSystemError):
    """The views cannot be written where asked; the message says why and what to do."""


# text from outside the program ---------------------------------------------------------------
def md_text(text: str) -> str:
    """Untrusted text as markdown paragraphs that render as the same text and nothing more:
    no headings, lists, quotes, code, links, emphasis, tables or HTML can come out of it."""
    lines = []
    for raw in strip_terminal(text).split("\n"):
        line = raw.strip()
        line = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        line = _INLINE_SPECIAL.sub(r"\\\1", line)
        line = _LINE_START_BLOCK.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], line)
        lines.append(line)
    return "\n".join(lines).strip("\n")


def md_inline(text: str) -> str:
    """Untrusted text on one line (a list item, a table cell, a heading)."""
    return md_text(_WS.sub(" ", strip_terminal(text)).strip())


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?=\s|$)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# a script scheme before a target (`javascript:alert(1)`): its colon becomes U+FF1A, so no
# link, reference definition or autolink can carry it whatever surrounds it
_SCRIPT_SCHEME = re.compile(r"\b(javascript|vbscript|data|file):(?=\S)", re.IGNORECASE)


def _inert_inline(line: str) -> str:
    """One line of markdown outside code: raw HTML and unsafe link targets made text; code
    spans kept as written."""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(line):
        out.append(_inert_prose(line[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_inert_prose(line[last:]))
    return "".join(out)


_HTML_START = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=#?\w+;)")


def _inert_prose(text: str) -> str:
    """Only what would start raw HTML (`<` before a tag name, `/`, `!`, `?`) or an entity is
    escaped, so `1 < 2` and indented code read as written."""
    text = _HTML_START.sub("&lt;", _ENTITY.sub("&amp;", text))
    return _SCRIPT_SCHEME.sub("\\1\uff1a", text)


def md_document(text: str, top: int = 3) -> str:
    """Taught markdown kept as markdown — headings, lists, tables, links and code with its
    indentation — with what is dangerous made inert: terminal sequences and control
    characters stripped, raw HTML written as text, `javascript:`-style link targets broken.
    Its headings are moved down so the highest becomes level `top` (at most `######`), so it
    sits under the page's own headings, and a code fence it leaves open is closed, so it cannot
    swallow the page. Code spans are kept as written unless CommonMark would still find raw
    HTML or a script link in the result (backtick runs that pair differently than they seem):
    then every line outside fenced code is made inert, code spans included."""
    kept = _md_document(text, top, _inert_inline)
    return kept if renders_inert(kept) else _md_document(text, top, _inert_prose)


@lru_cache(maxsize=1)
def _commonmark() -> MarkdownIt:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True})
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    return parser


def renders_inert(markdown: str) -> bool:
    """True when a CommonMark renderer (raw HTML on, every link target accepted) finds no raw
    HTML and no link or image to a script scheme in `markdown`."""
    pending = list(_commonmark().parse(markdown))
    while pending:
        token = pending.pop()
        if token.type in ("html_inline", "html_block"):
            return False
        target = token.attrGet("href") or token.attrGet("src")
        if target is not None and _script_target(str(target)):
            return False
        pending.extend(token.children or [])
    return True


def _script_target(url: str) -> bool:
    scheme = "".join(url.split()).lower().split(":", 1)
    return len(scheme) == 2 and scheme[0] in ("javascript", "vbscript", "data", "file")


def _md_document(text: str, top: int, inert: Callable[[str], str]) -> str:
    depth = max(0, top - min(_heading_levels(text), default=top))
    lines, fence = [], ""
    for line in strip_terminal(text).split("\n"):
        m = _FENCE.match(line)
        if fence:
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not line.strip()[len(m.group(1)) :].strip()
            ):
                fence = ""
            lines.append(line)
            continue
        if m:
            fence = m.group(1)
            lines.append(line)
            continue
        h = _HEADING.match(line)
        if h:
            level = min(6, len(h.group(1)) + depth)
            line = "#" * level + line[h.end() :]
        lines.append(inert(line))
    if fence:
        lines.append(fence)
    return "\n".join(lines).strip("\n")


def _heading_levels(text: str) -> list[int]:
    levels, fence = [], ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
            continue
        if m:
            fence = m.group(1)
        elif h := _HEADING.match(line):
            levels.append(len(h.group(1)))
    return levels


def md_code(text: str, info: str = "") -> str:
    """Text in a fenced block whose fence no run of backticks inside it can close."""
    body = strip_terminal(text)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body.rstrip()}\n{fence}"


def knowledge_file_name(concept_id: str) -> str:
    """A file name for a concept's page: safe on every filesystem, distinct per concept id."""
    safe = _SAFE_NAME.sub("-", concept_id).strip(".-")[:80] or "concept"
    if safe != concept_id:
        safe += "-" + hashlib.sha256(concept_id.encode("utf-8")).hexdigest()[:8]
    return f"{safe}.md"


# rendering -----------------------------------------------------------------------------------
def _day(value: str | None) -> str:
    return value[:10] if value else "—"


def _json(value: str | None) -> Any:
    if not value:
        return {}
    try:
        return json.loads(value)
    except ValueError:
        return {"unreadable": value}


def render_active_concepts(store: Store) -> str:
    rows = store.concepts.all()
    rows.sort(key=lambda r: (STATUS_ORDER.get(r["status"], 9), r["next_review"] or "", r["id"]))
    out = ["# Active concepts", ""]
    if not rows:
        out += ["No concepts yet: they are recorded when a lesson ends.", ""]
        return "\n".join(out)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    summary = " · ".join(
        f"{n} {md_inline(s)}"
        for s, n in sorted(counts.items(), key=lambda kv: (STATUS_ORDER.get(kv[0], 9), kv[0]))
    )
    out += [
        f"{len(rows)} concepts: {summary}. Mastery (0.00–0.80) is advisory; the status is the "
        "plain record.",
        "",
        "| concept | status | mastery (advisory) | next review | type | language | lesson |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        mastery = r["mastery"] if r["mastery"] is not None else 0.0
        out.append(
            f"| {md_inline(r['name'] or r['id'])} ({md_inline(r['id'])}) "
            f"| {md_inline(r['status'] or '')} | {mastery:.2f} | {_day(r['next_review'])} "
            f"| {md_inline(r['type'] or '')} | {md_inline(r['language'] or '') or '—'} "
            f"| {md_inline(r['lesson_id'] or '') or '—'} |"
        )
    out.append("")
    return "\n".join(out)


def render_mistakes(store: Store) -> str:
    rows = store.mistakes.open_first()
    out = ["# Mistakes", ""]
    if not rows:
        out += ["No mistakes recorded.", ""]
        return "\n".join(out)
    open_n = sum(1 for r in rows if r["status"] == "open")
    out += [
        f"{open_n} open, {len(rows) - open_n} resolved. Open mistakes come first in every review.",
        "",
    ]
    names = store.concepts.names()
    for r in rows:
        item = _json(r["item"])
        question = item.get("question") if isinstance(item, dict) else None
        question = question if isinstance(question, str) and question.strip() else ""
        concept = names.get(r["concept_id"] or "") or r["concept_id"] or "a question"
        heading = md_inline(concept) + (f" — {md_inline(_short(question))}" if question else "")
        out += [f"## {heading}", ""]
        if question and _short(question) != question.strip():
            out.append(f"- Question: {md_inline(question)}")
        if r["lesson_id"]:
            out.append(f"- Lesson: {md_inline(r['lesson_id'])}")
        out.append(f"- Error type: {md_inline(r['error_type'] or '') or 'not yet named'}")
        attribution = md_inline(r["attribution"] or "")
        out.append(f"- Your attribution: {attribution or 'not given'}")
        if r["status"] == "open":
            status = f"open · next review {_day(r['next_review'])}"
            if r["retest_early"]:
                status += " · early retest"
        else:
            status = f"{md_inline(r['status'] or '')} · {_day(r['resolved_at'])}"
        out.append(f"- Status: {status}")
        out += [f"- Record: `{_code_span(r['id'])}`", ""]
    return "\n".join(out)


def _short(text: str, limit: int = 80) -> str:
    """A question as a heading: its first line, cut at a word near `limit` characters."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[:limit].rsplit(" ", 1)[0] + " …"


def _code_span(text: str) -> str:
    """An id in a code span: no backtick or line break can end it early."""
    return _WS.sub(" ", strip_terminal(text)).replace("`", "'")


def render_learning_records(store: Store) -> str:
    rows = store.records.learning_records()
    out = ["# Learning records", ""]
    if not rows:
        out += ["No lessons recorded yet.", ""]
        return "\n".join(out)
    for r in rows:
        p = _json(r["payload"])
        title = p.get("lesson_title") or ""
        out += [f"## {md_inline(r['lesson_id'])}" + (f" — {md_inline(title)}" if title else ""), ""]
        out.append(f"- Ended: {_day(p.get('ended_at') or r['created_at'])}")
        if p.get("session_id"):
            out.append(f"- Session: {md_inline(str(p['session_id']))}")
        out.append(
            f"- Answers: {int(p.get('attempts', 0))} · mistakes: {int(p.get('mistakes', 0))}"
        )
        verdict = p.get("verdict") or {}
        if verdict:
            out.append(
                "- Probe verdict: "
                + ", ".join(
                    f"{md_inline(str(k))}: {md_inline(str(v))}" for k, v in sorted(verdict.items())
                )
            )
        concepts = p.get("concepts") or []
        if concepts:
            out.append(
                "- Concepts: "
                + ", ".join(
                    f"{md_inline(str(c.get('name') or c.get('id')))} "
                    f"({md_inline(str(c.get('status')))})"
                    for c in concepts
                )
            )
        for label, key in (("Plan", "plan"), ("Taught", "taught"), ("Skipped", "skipped")):
            steps = p.get(key) or []
            if steps:
                out.append(f"- {label}:")
                out += [f"  {n}. {md_inline(str(s))}" for n, s in enumerate(steps, 1)]
        terms = p.get("glossary") or []
        if terms:
            out.append("- Glossary: " + ", ".join(md_inline(str(t)) for t in terms))
        sources = p.get("sources") or []
        if sources:
            out.append("- Sources:")
            out += [f"  - {md_inline(str(s))}" for s in sources]
        out.append("")
    return "\n".join(out)


def render_session_notes(store: Store) -> str:
    rows = store.sessions.all_notes()
    out = ["# Session notes", ""]
    if not rows:
        out += ["No session notes yet.", ""]
        return "\n".join(out)
    lessons = store.sessions.lessons()
    session = None
    for r in rows:
        if r["session_id"] != session:
            session = r["session_id"]
            lesson = lessons.get(session or "")
            out += [
                f"## {md_inline(lesson) + ' · ' if lesson else ''}session "
                f"{md_inline(session or '')}",
                "",
            ]
        body = _json(r["body"])
        out += _note(
            r["kind"] or "note",
            body if isinstance(body, dict) else {"note": body},
            _day(r["created_at"]),
        )
    return "\n".join(out)


def _table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += [
        "| " + " | ".join(md_inline(str(c if c is not None else "")) or "—" for c in row) + " |"
        for row in rows
    ]
    return out + [""]


def _note(kind: str, body: dict[str, Any], day: str) -> list[str]:
    """One session note as prose, with a table where it holds rows."""
    if kind == "prior":
        rows = [r for r in body.get("hypothesis") or [] if isinstance(r, dict)]
        out = [
            f"### Prior ({day})",
            "",
            "What the records suggested before the probe (a hypothesis; the probe decides):",
            "",
        ]
        if not rows:
            return out + ["No prerequisites to look up.", ""]
        return out + _table(
            ["prerequisite", "evidence", "plan"],
            [[r.get("prerequisite"), r.get("evidence"), r.get("plan")] for r in rows],
        )
    if kind == "verdict" and "strand" in body:
        strand, verdict = (md_inline(str(body.get(k, ""))) for k in ("strand", "verdict"))
        out = [f"### Probe verdict ({day})", "", f"{strand}: **{verdict}**", ""]
        rows = [r for r in body.get("evidence") or [] if isinstance(r, dict)]
        if rows:
            out += _table(
                ["item", "answer", "confidence", "outcome", "follow-up"],
                [
                    [
                        r.get("item"),
                        r.get("answer"),
                        r.get("confidence"),
                        r.get("outcome"),
                        r.get("follow_up"),
                    ]
                    for r in rows
                ],
            )
        return out
    if kind == "plan":
        steps = body.get("steps") or []
        out = [f"### Plan ({day})", ""]
        if not steps:
            return out + ["No teaching steps: the quiz came next.", ""]
        return out + [f"{n}. {md_inline(str(t))}" for n, t in enumerate(steps, 1)] + [""]
    if kind == "skipped":
        return [
            f"### Skipped ({day})",
            "",
            f"You skipped the step "
            f"“{md_inline(str(body.get('step', '')))}”; it is not counted as taught.",
            "",
        ]
    if kind == "withheld":
        return [
            f"### Withheld ({day})",
            "",
            f"A screen was withheld by its gate (code "
            f"{md_inline(str(body.get('code', '')))}): "
            f"{md_inline(str(body.get('reason', '')))}",
            "",
        ]
    if kind == "claimed_known":
        return [
            f"### You said you already know ({day})",
            "",
            md_inline(str(body.get("text", ""))),
            "",
        ]
    out = [f"### {md_inline(kind.replace('_', ' ').capitalize())} ({day})", ""]
    for key in sorted(body):
        if key == "kind":
            continue
        value = body[key]
        text = (
            value
            if isinstance(value, str)
            else json.dumps(value, sort_keys=True, ensure_ascii=False)
        )
        out.append(f"- {md_inline(str(key))}: {md_inline(text)}")
    return out + [""]


def render_knowledge_page(row: KnowledgePageRow) -> str:
    """The stored page (built by the Clerk with every untrusted part escaped), cleaned of any
    terminal sequences once more, and made inert line by line when a renderer would still
    find raw HTML or a script link in it."""
    page = strip_terminal(row["markdown"] or "").rstrip()
    if not renders_inert(page):
        page = _md_document(page, 1, _inert_prose)
    return page + "\n"


def render_views(store: Store) -> dict[str, str]:
    """Every view file, by path relative to the views folder."""
    files = {
        README: README_TEXT,
        "active-concepts.md": render_active_concepts(store),
        "mistakes.md": render_mistakes(store),
        "learning-records.md": render_learning_records(store),
        "session-notes.md": render_session_notes(store),
    }
    for row in store.records.knowledge_pages():
        files[f"{KNOWLEDGE_DIR}/{knowledge_file_name(row['concept_id'])}"] = render_knowledge_page(
            row
        )
    from learning_system.pack_views import pack_file_name, render_pack

    for pack in store.packs.ready():
        files[pack_file_name(pack)] = render_pack(pack)
    return {k: v if v.endswith("\n") else v + "\n" for k, v in files.items()}


# writing ---------------------------------------------------------------------------------------
def _is_views_folder(out: Path) -> bool:
    if not out.exists():
        return True
    if not out.is_dir():
        return False
    if not any(out.iterdir()):
        return True
    readme = out / README
    return readme.is_file() and readme.read_text(encoding="utf-8", errors="replace").startswith(
        README_TEXT.split("\n", 1)[0]
    )


def _write_if_changed(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_views(store: Store, out: Path | str) -> list[Path]:
    """Render every view into `out`, replacing what an earlier run wrote there. Returns the
    paths of the files, sorted."""
    out = Path(out).expanduser()
    if not _is_views_folder(out):
        raise ViewsError(
            f"{out} is not empty and was not written by `tutor views`; choose an empty or new "
            "folder with --out"
        )
    files = render_views(store)
    from learning_system.pack_views import PACKS_DIR

    for folder in (KNOWLEDGE_DIR, PACKS_DIR):
        (out / folder).mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        _write_if_changed(out / rel, text)
    for folder in (KNOWLEDGE_DIR, PACKS_DIR):
        for stale in (out / folder).glob("*.md"):
            if f"{folder}/{stale.name}" not in files:
                stale.unlink()
    return sorted(out / rel for rel in files)
