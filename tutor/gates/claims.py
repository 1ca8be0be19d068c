"""Claims are the program's, not the drafter's: the text a teaching turn shows is split into
sentences by code, and every sentence that asserts something is a claim to check.

- A fenced code block (``` … ```) is one claim, fences included.
- A table row is one claim; separator rows (`|---|`) are not.
- A heading is its own paragraph, without its `#` marks.
- Scaffold lines — a whole line in square brackets, such as the `[source: primary §Intro]`
  provenance the program writes — are structure, not claims. (The engine rejects a model draft
  that contains one, so only the program writes them.)
- Any other paragraph (a list item or quote counts as its own paragraph, without its marker) is
  split into sentences at `.`, `!` or `?` followed by a space and a capital, digit or bracket.
  A sentence asserts something when it has a digit or a formula sign (`2 + 2 = 5.`,
  `(x^3)' = 2x`) or at least MIN_WORDS words with letters (`Cosine: unbounded.`); a question
  counts too, since a rhetorical one can carry a claim. Only a lone word (`Why?`, `Example:`)
  or bare punctuation asserts nothing.

Pure and deterministic; the engine and the gate checker use the same function, so a sentence
the drafter did not list cannot reach the learner unchecked.
"""

from __future__ import annotations

import re
from functools import lru_cache

MIN_WORDS = 2
_FORMULA = re.compile(r"[0-9=<>≤≥≠≈^×÷·∑∫√±+*/'′]")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[`*_]*[A-Z0-9(`\"'])")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•◆✓]|\d{1,3}[.)]|\(?[a-hA-H][.)])\s+")
_QUOTE_MARKER = re.compile(r"^\s*(?:>\s*)+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_SCAFFOLD = re.compile(r"^\s*\[[^\[\]\n]*\]\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|[\s:|-]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_WORD = re.compile(r"[^\W\d_]{1,}[\w'’-]*", re.UNICODE)


def is_scaffold(line: str) -> bool:
    """A whole line in square brackets: program-written structure (provenance, step labels)."""
    return _SCAFFOLD.match(line) is not None


def asserts(sentence: str) -> bool:
    s = sentence.strip()
    return bool(_FORMULA.search(s)) or len(_WORD.findall(s)) >= MIN_WORDS


# a title or an abbreviation whose full stop ends no sentence: "Dr. Helga Marsters", "e.g. a"
_ABBREVIATION = re.compile(r"(?:\b(?:Dr|Mr|Mrs|Ms|Prof|Sr|Jr|vs|Fig|cf)|\be\.g|\bi\.e)\.$")


def _sentences(paragraph: str) -> list[str]:
    text = " ".join(paragraph.split())
    out: list[str] = []
    for piece in (s.strip() for s in _SENTENCE_END.split(text)):
        if piece and out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        elif piece:
            out.append(piece)
    return out


@lru_cache(maxsize=2048)
def _extract(text: str) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()

    def add(claim: str) -> None:
        if claim not in seen:
            seen.add(claim)
            out.append(claim)

    lines = text.splitlines()
    para: list[str] = []

    def flush() -> None:
        if para:
            for s in _sentences(" ".join(para)):
                if asserts(s):
                    add(s)
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            flush()
            block = [line]
            i += 1
            while i < len(lines):
                block.append(lines[i])
                if lines[i].strip().startswith(fence.group(1)):
                    break
                i += 1
            code = "\n".join(block).strip()
            if code.strip("`~ \n"):
                add(code)
            i += 1
            continue
        stripped = line.strip()
        if not stripped or is_scaffold(line):
            flush()
        elif _HEADING.match(line):
            flush()
            heading = stripped.lstrip("#").strip()
            if asserts(heading):
                add(heading)
        elif stripped.startswith("|"):
            flush()
            if not _TABLE_RULE.match(line) and len(_WORD.findall(stripped)) >= 1:
                add(stripped)
        elif _LIST_MARKER.match(line) or _QUOTE_MARKER.match(line):
            flush()
            para.append(_LIST_MARKER.sub("", _QUOTE_MARKER.sub("", line)))
        else:
            para.append(line)
        i += 1
    flush()
    return tuple(out)


def extract_claims(text: str) -> list[str]:
    """The claims of a teaching text, in order, each once (see the module docstring)."""
    return list(_extract(text))
