"""Reading one lesson document (`docs/en.md`): title, motto, header fields, sections, learning
objectives and the further-reading links. Pure text in, plain data out; never raises on content."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict


class Link(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    url: str


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str
    level: int
    text: str


@dataclass
class LessonDoc:
    """What a lesson document says, before it is tied to a place in a curriculum."""

    title: str = ""
    motto: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    sections: list[Section] = field(default_factory=list)

    @property
    def type(self) -> str:
        return self.headers.get("type", "")

    @property
    def languages(self) -> list[str]:
        return parse_languages(self.headers.get("languages", ""))

    @property
    def prerequisites_text(self) -> str:
        return self.headers.get("prerequisites", "")

    @property
    def time_minutes(self) -> int | None:
        return parse_time_minutes(self.headers.get("time", ""))

    @property
    def objectives(self) -> list[str]:
        text = section_block(self.sections, OBJECTIVE_TITLES)
        return list_items(text) if text is not None else []

    @property
    def further_reading(self) -> list[Link]:
        text = section_block(self.sections, READING_TITLES)
        return parse_links(text) if text is not None else []

    @property
    def unreadable_links(self) -> list[str]:
        """The Further Reading links that are no web address (`file://`, a relative path): the
        Scout cannot fetch them, so they are left out of `further_reading`."""
        text = section_block(self.sections, READING_TITLES)
        if text is None:
            return []
        urls = (m.group(2).strip() for m in _MD_LINK.finditer(text))
        return [u for u in urls if not u.lower().startswith(("http://", "https://", "#"))]


OBJECTIVE_TITLES = ("learning objectives", "objectives", "what you'll learn", "what you will learn")
READING_TITLES = ("further reading", "references", "resources", "further resources", "reading")

# header keys as written -> the one name the loader uses
HEADER_KEYS = {
    "type": "type",
    "language": "languages",
    "languages": "languages",
    "prerequisite": "prerequisites",
    "prerequisites": "prerequisites",
    "prereqs": "prerequisites",
    "time": "time",
    "duration": "time",
    "estimated time": "time",
}

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*))?$")  # trailing blanks stripped in code
_HEADER_FIELD = re.compile(r"^(?:[-*+]\s+)?\*\*([^*]+?)\*\*\s*:?\s*(.*)$")
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
# A link's text holds no brackets, so each `[` is scanned only to the next one: linear on any line
_MD_LINK = re.compile(
    r"\[([^\[\]]*)\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+\"[^\"]*\")?\s*\)"
)
_BARE_URL = re.compile(r"https?://[^\s<>()\[\]]+(?:\([^\s<>()]*\)[^\s<>()\[\]]*)*")
# `(?<!\s)`: a match starts only where a whitespace run starts, so a long run is scanned once
_DESCRIPTION_SPLIT = re.compile(r"(?<!\s)\s++(?:--|—|–|-)\s+")


def parse_lesson_doc(text: str) -> LessonDoc:
    """Split a lesson document into title, motto, header fields and `##`/`###` sections."""
    doc = LessonDoc()
    lines = _drop_front_matter(text.splitlines())
    preamble: list[str] = []
    body: list[str] | None = None  # lines of the current section, None before the first one
    open_sections: list[tuple[str, int, list[str]]] = []
    fence = ""
    for line in lines:
        if fence:
            if line.lstrip().startswith(fence):
                fence = ""
            (body if body is not None else preamble).append(line)
            continue
        fence_match = _FENCE.match(line)
        if fence_match:
            fence = fence_match.group(1)[0] * len(fence_match.group(1))
            (body if body is not None else preamble).append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            title = _without_closing_hashes(heading.group(2) or "")
            if level == 1 and not doc.title and body is None:
                doc.title = title
                continue
            if level in (2, 3) and title:
                body = []
                open_sections.append((title, level, body))
                continue
        (body if body is not None else preamble).append(line)
    doc.motto, doc.headers = _read_preamble(preamble)
    doc.sections = [
        Section(title=title, level=level, text="\n".join(lines_).strip("\n").rstrip())
        for title, level, lines_ in open_sections
    ]
    return doc


def _without_closing_hashes(title: str) -> str:
    """`Title ##` -> `Title` (a closing sequence needs a space before it, or is all there is);
    done in code, not a regex, to stay linear on long runs of spaces."""
    title = title.strip()
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        return bare.strip()
    return title


def _drop_front_matter(lines: list[str]) -> list[str]:
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                return lines[i + 1 :]
    return lines


def _read_preamble(lines: list[str]) -> tuple[str, dict[str, str]]:
    motto_lines: list[str] = []
    headers: dict[str, str] = {}
    motto_done = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(">") and not motto_done:
            motto_lines.append(stripped.lstrip(">").strip())
            continue
        if motto_lines:
            motto_done = True
        found = _HEADER_FIELD.match(stripped)
        if found:
            key = HEADER_KEYS.get(found.group(1).strip().rstrip(":").strip().lower())
            if key and key not in headers:
                headers[key] = found.group(2).strip()
    motto = " ".join(part for part in motto_lines if part)
    return motto, headers


def section_block(sections: list[Section], titles: tuple[str, ...] | str) -> str | None:
    """The markdown of the first section whose title matches (case-insensitive), with its
    subsections (their headings included); None when there is no such section."""
    wanted = (titles,) if isinstance(titles, str) else titles
    wanted = tuple(_norm_title(t) for t in wanted)
    for i, section in enumerate(sections):
        if _norm_title(section.title) not in wanted:
            continue
        parts = [section.text] if section.text else []
        for sub in sections[i + 1 :]:
            if sub.level <= section.level:
                break
            parts.append(f"{'#' * sub.level} {sub.title}")
            if sub.text:
                parts.append(sub.text)
        return "\n\n".join(parts)
    return None


def _norm_title(title: str) -> str:
    return " ".join(title.replace("’", "'").lower().split()).strip(" :")


def list_items(text: str) -> list[str]:
    """Top-level list items of a markdown block, continuation lines and nested items folded in."""
    items: list[str] = []
    fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fence = not fence
            continue
        if fence or not line.strip():
            continue
        item = _LIST_ITEM.match(line)
        if item and len(item.group(1).expandtabs(4)) < 2:
            items.append(item.group(2).strip())
        elif items and not line.lstrip().startswith("#"):
            rest = item.group(2) if item else line
            items[-1] = f"{items[-1]} {rest.strip()}"
    return [item for item in items if item]


def parse_links(text: str) -> list[Link]:
    """External references of a further-reading block: markdown links, and bare URLs titled by the
    text before them. Entries without an http(s) URL are not fetchable and are left out."""
    links: list[Link] = []
    seen: set[str] = set()
    entries = list_items(text) or [line for line in text.splitlines() if line.strip()]
    for entry in entries:
        found = False
        for match in _MD_LINK.finditer(entry):
            url = match.group(2).strip()
            if not url.lower().startswith(("http://", "https://")):
                continue
            found = True
            if url not in seen:
                seen.add(url)
                links.append(Link(title=_clean_title(match.group(1)) or url, url=url))
        if found:
            continue
        for match in _BARE_URL.finditer(entry):
            url = match.group(0).rstrip(".,;:!?'\"*_")
            if url in seen:
                continue
            seen.add(url)
            before = _DESCRIPTION_SPLIT.split(entry[: match.start()])[0]
            title = _clean_title(before.rstrip().rstrip("(<:").rstrip())
            links.append(Link(title=title or url, url=url))
    return links


def _clean_title(text: str) -> str:
    text = text.replace("**", "").replace("__", "").replace("`", "")
    text = " ".join(text.split()).strip(" ,;:-—–")
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'*_":
        text = text[1:-1].strip()
    return text


_NO_LANGUAGE = {"", "-", "--", "—", "–", "none", "n/a", "na"}
_LANGUAGE_SPLIT = re.compile(r"(?<!\s)\s*+(?:,|;|\||\band\b)\s*")


def parse_languages(value: str) -> list[str]:
    value = value.replace("**", "").replace("`", "").strip()
    if value.lower() in _NO_LANGUAGE:
        return []
    names = [name.strip(" .") for name in _LANGUAGE_SPLIT.split(value)]
    return [name for name in names if name.lower() not in _NO_LANGUAGE]


_HOURS = re.compile(r"(?<!\d)(\d++(?:\.\d+)?)\s*+(?:h|hr|hrs|hour|hours)\b", re.IGNORECASE)
_MINUTES = re.compile(r"(?<!\d)(\d++)\s*+(?:m|min|mins|minute|minutes)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def parse_time_minutes(value: str) -> int | None:
    """`~75 minutes` -> 75, `1.5 hours` -> 90, `1h 30m` -> 90, `60-90 minutes` -> 90."""
    if not value or len(value) > 200:  # a header line of that length names no time
        return None
    hours = _HOURS.findall(value)
    minutes = _MINUTES.findall(value)
    if minutes and (not hours or int(minutes[-1]) >= 60):
        return int(minutes[-1])  # "90 minutes (1.5 hours)" names the same span twice
    if hours:
        return int(round(float(hours[-1]) * 60 + (int(minutes[-1]) if minutes else 0)))
    numbers = _NUMBER.findall(value)
    try:
        return int(round(float(numbers[-1]))) if numbers else None
    except (OverflowError, ValueError):  # digits beyond any float: no time given
        return None
