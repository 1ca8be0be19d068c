"""Reading a curriculum glossary (`glossary/terms.md`) into term -> definition.

Shapes read: a heading per term (`### Term`) whose body is either labelled bullets (the
definition is the one labelled like "What it actually means") or plain text; failing that,
`**Term**: definition` lines or a `| Term | … | Definition |` table."""

from __future__ import annotations

import re

# No lazy group before optional trailers: a heading line of any length matches in linear time
# (closing hashes and spaces are stripped in code).
_TERM_HEADING = re.compile(r"^ {0,3}#{2,4}[ \t]+(\S.*)$")
_LABELLED = re.compile(r"^\s*[-*+]\s+\*\*([^*]+)\*\*\s*:?\s*(.*)$")  # label's ':' cut in code
_BOLD_LINE = re.compile(r"^\s*(?:[-*+]\s+)?\*\*([^*]+?)\*\*\s*(?::|—|–|-{1,2})\s*(.+)$")
_BOLD_COLON_INSIDE = re.compile(r"^\s*(?:[-*+]\s+)?\*\*([^*]+?):\*\*\s*(.+)$")
_DEFINITION_LABELS = ("what it actually means", "definition", "meaning", "means")


def parse_glossary(text: str) -> dict[str, str]:
    return _by_headings(text) or _by_lines(text)


def _by_headings(text: str) -> dict[str, str]:
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    fence = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        heading = None if fence else _TERM_HEADING.match(line)
        if heading:
            term = heading.group(1).rstrip().rstrip("#").strip()
            # single-letter headings (`## A`) group terms; they are not terms themselves
            if len(term) <= 1:
                current = None
                continue
            current = entries.setdefault(term, []) if term not in entries else None
            continue
        if current is not None:
            current.append(line)
    glossary: dict[str, str] = {}
    for term, body in entries.items():
        definition = _definition(body)
        if definition:
            glossary[term] = definition
    return glossary


def _definition(body: list[str]) -> str:
    labelled: dict[str, str] = {}
    for line in body:
        match = _LABELLED.match(line)
        if match:
            labelled[match.group(1).strip().rstrip(":").strip().lower()] = match.group(2).strip()
    for label in _DEFINITION_LABELS:
        if labelled.get(label):
            return labelled[label]
    paragraph: list[str] = []
    for line in body:
        if not line.strip():
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    return " ".join(paragraph)


def _by_lines(text: str) -> dict[str, str]:
    glossary: dict[str, str] = {}
    for line in text.splitlines():
        match = _BOLD_COLON_INSIDE.match(line) or _BOLD_LINE.match(line)
        if match:
            term, definition = match.group(1).strip().rstrip(":"), match.group(2).strip()
        elif line.strip().startswith("|") and line.count("|") >= 3:
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if set("".join(cells)) <= set("-: ") or cells[0].lower() in ("term", "word"):
                continue
            term, definition = cells[0].replace("**", "").strip(), cells[-1]
        else:
            continue
        if term and definition and term not in glossary:
            glossary[term] = definition
    return glossary
