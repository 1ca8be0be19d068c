"""Fetched bodies -> plain text that is safe to store, show and hash.

HTML goes through trafilatura (main-content extraction). Every text, whatever its type, loses
terminal escape sequences (ANSI CSI, OSC such as OSC 8 links), C0/C1 controls other than line
break and tab, and bidirectional overrides; it is NFC-normalised and its whitespace collapsed.
What is left is inert data: markup-looking text such as `[bold]` stays as literal characters and
must be printed without a markup interpreter.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from learning_system.terminal import strip_terminal as strip_controls  # noqa: F401  (re-exported)

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown")

# numeric character references (`&#27;`, `&#x1b;`, …): controls among them are decoded before
# the escape sequences are removed, so entity-encoded sequences go whole
_CHARACTER_REFERENCE = re.compile(r"&#(?:[xX]0*([0-9a-fA-F]{1,2})|0*(\d{1,3}));")
_INLINE_SPACE = re.compile(r"[^\S\n]+")
_BLANK_RUNS = re.compile(r"\n{3,}")


def normalise_text(text: str) -> str:
    """Controls stripped, NFC, spaces collapsed within lines, at most one blank line in a row."""
    text = unicodedata.normalize("NFC", strip_controls(text))
    lines = [_INLINE_SPACE.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


@lru_cache(maxsize=1)
def _extract_config():
    import logging

    from trafilatura.settings import use_config

    # its warnings about pages with nothing to extract are ours to report, as a source's reason
    logging.getLogger("trafilatura").setLevel(logging.ERROR)
    config = use_config()
    config.set("DEFAULT", "min_extracted_size", "1")
    config.set("DEFAULT", "min_output_size", "1")
    config.set("DEFAULT", "extraction_timeout", "0")
    return config


def _unescape_control_references(html: str) -> str:
    def char(match: re.Match[str]) -> str:
        code = int(match.group(1), 16) if match.group(1) else int(match.group(2))
        return chr(code) if code < 0x20 or 0x7F <= code <= 0x9F else match.group(0)

    return _CHARACTER_REFERENCE.sub(char, html)


def html_to_text(html: str) -> str:
    """The main content of an HTML page as light markdown text (blank lines between blocks)."""
    import trafilatura

    cleaned = strip_controls(_unescape_control_references(html))
    if not cleaned.strip():
        return ""
    text = trafilatura.extract(
        cleaned,
        output_format="markdown",  # blocks separated by blank lines, headings and lists marked
        include_comments=False,
        include_tables=True,
        include_links=False,
        include_images=False,
        deduplicate=False,
        config=_extract_config(),
    )
    if not text:
        text = trafilatura.html2txt(cleaned) or ""
    return normalise_text(text)


def body_to_text(body: str, content_type: str) -> str:
    """Normalised text of a fetched body, by its media type (without parameters)."""
    if content_type.lower() in HTML_TYPES:
        return html_to_text(body)
    return normalise_text(body)


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# passages: the parts of a text that carry its substance --------------------------------------

EXCERPT_CHARS = 500
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_HEADER_FIELD = re.compile(r"^\*\*[^*]{1,40}:?\*\*:?\s")
# Linear on any line: a link's text holds no bracket and its target no parenthesis, so a match
# attempt stops at the next `[` or `(` (nested brackets were quadratic); emphasis spans are
# bounded, so an unclosed `**` does not scan the rest of the line from every opener.
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()\s]*(?:\s+\"[^\"\n]{0,300}\")?\)")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.{1,400}?)(?<=\S)\1")
_URL = re.compile(r"https?://\S+")
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”')\]]?\s+(?=[\"“(\[]?[A-Z0-9])")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _blocks(text: str) -> list[list[str]]:
    """Blank-line separated blocks of lines; fenced code blocks dropped whole."""
    blocks: list[list[str]] = []
    current: list[str] = []
    fence = ""
    for line in text.split("\n"):
        if fence:
            if line.strip().startswith(fence):
                fence = ""
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)[0] * 3
            if current:
                blocks.append(current)
                current = []
            continue
        if line.strip():
            current.append(line.strip())
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def plain_inline(text: str) -> str:
    """Inline markdown reduced to its words: links to their text, emphasis markers dropped."""
    return _MD_ESCAPE.sub(r"\1", _EMPHASIS.sub(r"\2", _MD_LINK.sub(r"\1", text)))


def _is_substantive(lines: list[str]) -> bool:
    first = lines[0]
    if first.startswith(("#", "|", ">", "<", "![", "    ")) or _HEADER_FIELD.match(first):
        return False
    if all(_LIST_ITEM.match(line) for line in lines):
        return False  # navigation, link lists, bullet fragments
    joined = plain_inline(" ".join(lines))
    if len(joined) < 80 or len(joined.split()) < 12:
        return False
    words = _WORD.findall(_URL.sub(" ", joined))
    return sum(map(len, words)) >= 0.6 * len(joined)


def substantive_paragraphs(text: str) -> list[str]:
    """Paragraphs of running prose, each on one line, in document order."""
    return list(_substantive_paragraphs(text))


@lru_cache(maxsize=8)
def _substantive_paragraphs(text: str) -> tuple[str, ...]:
    paragraphs: list[str] = []
    for block in _blocks(text):
        # a block mixing prose lines and list items is prose followed by a list: keep the prose
        prose: list[str] = []
        while block and block[0].startswith("#"):
            block = block[1:]
        for line in block:
            if _LIST_ITEM.match(line) or line.startswith(("#", "|")):
                break
            prose.append(line)
        if prose and _is_substantive(prose):
            paragraphs.append(plain_inline(" ".join(prose)))
    return tuple(paragraphs)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [m.start() for m in _SENTENCE_END.finditer(cut)]
    if ends and ends[-1] >= limit // 2:
        return cut[: ends[-1]].rstrip()
    return cut.rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """About `limit` characters of a text's substance: its first prose paragraphs, whole where
    they fit, the last one cut at a sentence end. Falls back to the text's start."""
    chosen: list[str] = []
    size = 0
    for paragraph in substantive_paragraphs(text):
        room = limit + limit // 5 - size
        if room < 80:
            break
        chosen.append(_cut(paragraph, room))
        size += len(chosen[-1]) + 2
        if size >= limit * 9 // 10:
            break
    if not chosen:
        return _cut(" ".join(plain_inline(text).split()), limit)
    return "\n\n".join(chosen)


def sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


def lead_sentence(paragraph: str, limit: int = 280) -> str:
    """A paragraph's first sentence (two when the first is very short), at most `limit` chars."""
    parts = sentences(paragraph)
    if not parts:
        return ""
    lead = parts[0]
    if len(lead) < 40 and len(parts) > 1:
        lead = f"{lead} {parts[1]}"
    return _cut(lead, limit)
