"""A section's own text as blocks (prose, code, table, diagram) under its subsection headings,
the producers that find a representation in them — or decline with the reason — and the
section re-ordered for a plan. Nothing is written here: every line shown is the source's."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.engine.projection import Presentation

_FENCE = re.compile(r"^\s*(```|~~~)")
DIAGRAM_LANGS = {"mermaid", "dot", "graphviz", "ascii", "diagram", "plantuml"}
EXAMPLE_TITLE = re.compile(r"\bexample|\bworked\b|\bbuild it\b|\bin practice\b", re.I)


@dataclass(frozen=True)
class Block:
    kind: str  # heading, prose, code, table, diagram
    text: str


@dataclass(frozen=True)
class Chunk:
    """A heading (or none, before the first) and the blocks under it."""

    heading: str
    blocks: tuple[Block, ...]

    def kinds(self) -> set[str]:
        return {b.kind for b in self.blocks}


@dataclass(frozen=True)
class Produced:
    representation: Presentation


@dataclass(frozen=True)
class Declined:
    representation: Presentation
    reason: str


def blocks(text: str) -> list[Block]:
    """The section's lines grouped into blocks, each kept verbatim."""
    out: list[Block] = []
    lines = text.strip("\n").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            lang = line.strip().lstrip("`~").strip().lower()
            j = i + 1
            while j < len(lines) and not _FENCE.match(lines[j]):
                j += 1
            kind = "diagram" if lang in DIAGRAM_LANGS else "code"
            out.append(Block(kind, "\n".join(lines[i : j + 1])))
            i = j + 1
            continue
        if line.startswith("#"):
            out.append(Block("heading", line))
            i += 1
            continue
        if not line.strip():
            i += 1
            continue
        kind = "table" if line.lstrip().startswith("|") else "prose"
        j = i
        while (
            j < len(lines)
            and lines[j].strip()
            and not _FENCE.match(lines[j])
            and not lines[j].startswith("#")
            and (lines[j].lstrip().startswith("|")) == (kind == "table")
        ):
            j += 1
        out.append(Block(kind, "\n".join(lines[i:j])))
        i = j
    return out


def chunks(text: str) -> list[Chunk]:
    out: list[Chunk] = []
    heading, current = "", list[Block]()
    for b in blocks(text):
        if b.kind == "heading":
            if heading or current:
                out.append(Chunk(heading, tuple(current)))
            heading, current = b.text, []
        else:
            current.append(b)
    if heading or current:
        out.append(Chunk(heading, tuple(current)))
    return out


def produce(
    representation: Presentation, parts: list[Chunk], section_title: str
) -> Produced | Declined:
    """Whether the section holds the representation; Declined with the reason when it does
    not (nothing is made up in its place)."""
    if representation == "prose":
        return Produced("prose")
    if representation == "worked_example":
        if EXAMPLE_TITLE.search(section_title) or any(
            EXAMPLE_TITLE.search(c.heading) for c in parts
        ):
            return Produced("worked_example")
        return Declined("worked_example", f"§{section_title} has no worked example")
    if any(representation in c.kinds() for c in parts):
        return Produced(representation)
    return Declined(representation, f"§{section_title} has no {representation}")


def arrange(text: str, order: tuple[Presentation, ...]) -> str:
    """The section's own blocks re-ordered: worked-example subsections first when asked for,
    and within each subsection but a worked example the asked-for kinds before its prose (a
    stable sort, so the source's order holds among equals), a paragraph that introduces a block
    (it ends in a colon) staying just before it."""
    parts = chunks(text)
    if "worked_example" in order:
        first = [c for c in parts if EXAMPLE_TITLE.search(c.heading)]
        parts = first + [c for c in parts if c not in first]
    kinds: list[str] = [r for r in order if r in ("code", "table", "diagram")]

    def rank(unit: tuple[Block, ...]) -> int:
        return min(kinds.index(b.kind) if b.kind in kinds else len(kinds) for b in unit)

    lines: list[str] = []
    for c in parts:
        if c.heading:
            lines.append(c.heading)
        worked = bool(EXAMPLE_TITLE.search(c.heading))  # its order is the working's order
        ordered = units(c.blocks) if worked else sorted(units(c.blocks), key=rank)
        lines += [b.text for unit in ordered for b in unit]
    return "\n\n".join(lines)


def units(blocks: tuple[Block, ...]) -> list[tuple[Block, ...]]:
    """The blocks in runs that read as one: a paragraph ending in a colon with the block it
    introduces, a paragraph beginning in lower case ("where theta is...") with the run before
    it."""
    out: list[list[Block]] = []
    for b in blocks:
        introduced = bool(out) and out[-1][-1].kind == "prose" and _introduces(out[-1][-1])
        continues = b.kind == "prose" and b.text[:1].islower()
        if out and (introduced or continues):
            out[-1].append(b)
        else:
            out.append([b])
    return [tuple(run) for run in out]


def _introduces(b: Block) -> bool:
    return b.text.rstrip().endswith(":")


def essentials(text: str, facts: list[str], order: tuple[Presentation, ...]) -> tuple[str, int]:
    """The section at density 1, and how many of its blocks were left out: each subsection's
    first paragraph, the blocks holding its key sentences (the step's required facts), the
    blocks of the representations asked for, each with the paragraph introducing it or the
    block it introduces (a paragraph ending in a colon), the asked-for example subsections
    whole, and the headings over them. The whole text when a fact is found in no single block
    (nothing required is ever dropped)."""
    parts = chunks(text)
    every = [b for c in parts for b in c.blocks]
    if not all(any(_holds(b, f) for b in every) for f in facts):
        return text, 0
    lines: list[str] = []
    kept = 0
    for c in parts:
        whole = "worked_example" in order and bool(EXAMPLE_TITLE.search(c.heading))
        chosen = list(c.blocks) if whole else _essential_blocks(c, facts, order)
        if chosen and c.heading:
            lines.append(c.heading)
        lines += [b.text for b in chosen]
        kept += len(chosen)
    return "\n\n".join(lines), len(every) - kept


def _holds(b: Block, fact: str) -> bool:
    return fact in " ".join(b.text.split())


def _essential_blocks(c: Chunk, facts: list[str], order: tuple[Presentation, ...]) -> list[Block]:
    lead = next((b for b in c.blocks if b.kind == "prose"), None)

    def wanted(b: Block) -> bool:
        asked = b.kind != "prose" and b.kind in order
        return b is lead or asked or any(_holds(b, f) for f in facts)

    return [b for unit in units(c.blocks) if any(wanted(b) for b in unit) for b in unit]
