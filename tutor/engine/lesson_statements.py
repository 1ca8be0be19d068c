"""What a lesson's own document offers as distractors: statements it makes (true, but about
something other than a given stem), the misconceptions it names (a `Common Mistakes` list, the
"what people say" column of its key terms) and its key terms' meanings. Code, tables of data,
headings and link lists are left out; each statement is one whole sentence or table cell."""

from __future__ import annotations

import re
from dataclasses import dataclass

from learning_system.curriculum import Lesson
from tutor.engine.option_forms import label_end

_FENCE = re.compile(r"```.*?(```|$)", re.S)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKUP = re.compile(r"[*_`>#]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_MISTAKE_TITLES = ("mistake", "pitfall", "misconception", "gotcha")
_SKIP_TITLES = ("further reading", "exercises", "learning objectives", "ship it")
MIN_WORDS, MAX_WORDS = 3, 40
MAX_LINE = 2000  # characters; a longer line (a 1 MiB run of brackets) is never a statement
# "Thinking that X", "Treating the Y as X": the mistaken belief is X
_BELIEF = re.compile(
    r"^(thinking|believing|assuming|expecting)( that)? |^(treating|using|reading) .{1,60}? as ",
    re.I,
)
_ASIDE = re.compile(r"\s*\([^()]*\)")
_HEADERS = frozenset({"term", "what people say", "what it actually means"})
# a sentence about the lesson itself, its code or the reader ("coming in Lesson 03", "you know
# that", "See code/svm.py for …", "The code in svm.py …", "what beginners get wrong"), or one
# that leans on the sentence before it ("This breaks …", "The same holds"): no answer to any
# stem, so a learner who knows nothing strikes it
_REMARK = re.compile(
    r"\b(you know|you'll|you will|we'll|we will|we saw|let's|lesson \d+|"
    r"this (lesson|section|chapter)|next (lesson|section)|(see|shown|as|listed) (above|below)|"
    r"in hindsight|coming (up|in|next)|later on|so far|for now|beginners?|"
    r"see code/|(code|demos?)/\w+\.\w+|\w+\.(py|ipynb|js|ts|rs|go|java|cpp|sh)|from-scratch|"
    r"library versions?)\b",
    re.I,
)
_LIST_ITEM = re.compile(r"^([-*]|\d{1,2}[.)])\s+")
# a sentence leaning on the one before it: lent alone, "He enlarged the Senate" reads as the
# act of whoever the stem names
_ANAPHOR = re.compile(
    r"^(this|these|those|here|the same|he|she|they|his|her|their|meanwhile)\b", re.I
)
# "Without it, X", "In practice, X", "And X", "Ward's method: X": X is a statement of its own
# (after a label, what the named thing is: a sibling term's meaning)
# (never a clause with a subject of its own: "It stores its data, its gradient, …" is no lead-in)
_LEAD_IN = re.compile(
    r"^((?!(It|They|We|You|He|She|There|This|These)\b)[A-Z][\w' -]{0,30}?, |"
    r"(And|Or|Plus|But|So|Also|Yet),? )(?=[a-z])"
)
# a lead-in that is the sentence's subject ("Rome, constantly at war, could not …", "The
# soldiers, fearing …, followed him"): one word that opens no phrase, or a noun phrase
_SUBJECT_LEAD = re.compile(
    r"^((?!(However|Moreover|Instead|Still|Thus|Hence|Therefore|Otherwise|Meanwhile|Often|"
    r"Usually|Sometimes|Typically|Finally|First|Second|Then|Now|Here|Later|Today|Similarly|"
    r"Likewise|Conversely|Crucially|Importantly|Practically|Fortunately|Unfortunately|Again|"
    r"Indeed|Overall|Together|Alternatively|Surprisingly|Notably|Essentially|Formally|"
    r"Intuitively|Concretely|Specifically|Generally|Roughly|Ideally|Previously|Next)\b)"
    r"[A-Z][\w'-]*, |[A-Z][\w'-]*( [A-Z][\w'-]*){1,2}, |"
    r"(The|A|An|His|Her|Its|Their|Our|Your|My|Each|Every|Both|All|Many|Most) )"
)
# "The foo bar is the X that …": the meaning of a term the document defines, said as a phrase
_DEFINES = re.compile(
    r"^(?:the |an? )?[\w-]+(?: [\w-]+){0,3} (?:is|are|means) ((?:the|an?) \w.*)$", re.I
)


@dataclass(frozen=True)
class Statement:
    text: str
    # "said" (the document says it), "mistake" (it names it as wrong), "term" (a key term's
    # meaning), "name" (a key term itself: a sibling of a key that is a term)
    kind: str


def _clean(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _MARKUP.sub("", text)
    return " ".join(text.split()).strip(" -:;|\"'")


def _fits(s: Statement) -> bool:
    text = s.text
    n = len(text.split())
    return (
        (1 if s.kind == "name" else MIN_WORDS) <= n <= MAX_WORDS
        and not text.endswith(":")
        and "=" not in text
        and not (s.kind == "said" and (_REMARK.search(text) or _ANAPHOR.match(text)))
    )


def _table_cells(line: str) -> list[str]:
    return [_clean(c) for c in line.strip().strip("|").split("|")]


def _from_section(title: str, text: str) -> list[Statement]:
    mistakes = any(t in title.lower() for t in _MISTAKE_TITLES)
    out: list[Statement] = []
    prose: list[str] = []
    for line in _FENCE.sub("\n\n", text).splitlines():
        stripped = line.strip()
        if len(stripped) > MAX_LINE:  # no statement is this long: never scanned, left out
            stripped = ""
        if not stripped:  # a paragraph ends: sentences never run across it (or across code)
            out += [_said(x) for x in _SENTENCE_END.split(" ".join(prose))]
            prose = []
            continue
        if stripped.startswith("|"):
            cells = _table_cells(stripped)
            if len(cells) == 3 and not set(cells[1]) <= set("-: "):
                out.append(Statement(cells[0], "name"))
                out.append(_mistake(cells[1]))
                out.append(Statement(cells[2], "term"))
            continue
        item = _LIST_ITEM.match(stripped)
        if item:  # a list item, bulleted or numbered, is a statement of its own
            said = _clean(stripped[item.end() :])
            out.append(_mistake(said) if mistakes else _said(said))
            continue
        prose.append(stripped)
    out += [_said(x) for x in _SENTENCE_END.split(" ".join(prose))]
    return out


def _mistake(text: str) -> Statement:
    """A misconception as the document names it, without its lead ("Thinking that …") and
    without what it puts in brackets, often the correction ("Isotopes differ in protons (they
    differ in neutrons)"), which lent as a distractor would mark it wrong."""
    belief = _ASIDE.sub("", _BELIEF.sub("", text))
    return Statement(" ".join(belief.split()).rstrip(" ,;:"), "mistake")


def _said(sentence: str) -> Statement:
    """A sentence of the document; one that asks or introduces (ends in `?` or `:`) is no
    statement and is kept empty, to be left out."""
    raw = sentence.strip()
    return Statement("" if raw.endswith(("?", ":")) else _clean(raw), "said")


def _derived(s: Statement) -> list[Statement]:
    """The statement, and what it says past a lead-in (`Without it, …`) or, for a definition
    (`The X is the Y that …`), the meaning it gives (a sibling term's meaning)."""
    out = [s]
    if s.kind == "said":
        rest = s.text if _SUBJECT_LEAD.match(s.text) else _LEAD_IN.sub("", s.text)
        if rest != s.text:
            out.append(Statement(rest[0].upper() + rest[1:], "said"))
        after = label_end(s.text)
        if after and len(s.text[after:].split()) > 2:
            meaning = s.text[after:]
            out.append(Statement(meaning[0].upper() + meaning[1:], "term"))
        defined = _DEFINES.match(rest.rstrip("."))
        if defined:
            meaning = defined.group(1)
            out.append(Statement(meaning[0].upper() + meaning[1:], "term"))
    return out


def statements(lesson: Lesson) -> list[Statement]:
    """The lesson document's usable statements, in document order, each text once (with what
    a lead-in or a definition leaves, `_derived`)."""
    seen: set[str] = set()
    out: list[Statement] = []
    for section in lesson.sections:
        if any(t in section.title.lower() for t in _SKIP_TITLES):
            continue
        for s in (
            d for found in _from_section(section.title, section.text) for d in _derived(found)
        ):
            low = s.text.lower()
            if s.text and _fits(s) and low not in seen and low not in _HEADERS:
                seen.add(low)
                out.append(s)
    return out
