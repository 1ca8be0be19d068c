"""Deterministic repair of bank items whose only flaw is the shape of their options.

Real banks leak their keys by length: the key is the long, careful option and the distractors are
short. An item whose key and stem are sound but whose distractors give the key away is repaired
without a model by replacing its distractors with options drawn from other items of the same
phase (their keys first: true statements about something else, "right elsewhere"), chosen to
match the key in length and form:

- **length**: each borrowed option is within LENGTH_BAND of the key, and the key's length rank
  among the four is set per item (longest, 2nd, 3rd or shortest, balanced over a bank), so no
  length strategy finds it;
- **form**: the same opening (an article, `To`, `Because`, `It`, a gerund …), code with code,
  the same capitalisation and closing punctuation;
- **stem echo**: when the key repeats a stem word, the chosen distractors repeat stem words as
  often, so "the option echoing the stem" finds it no more than chance;
- **never a second key**: an option is never taken from an item asking much the same thing
  (stems sharing most content words), nor one saying much the same as this key or its
  explanation, nor a text that is an option of this item already or the key of another item in
  the same batch.

The repaired item passes the same mechanical rules (tutor.gates.mcq) or is not used.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from learning_system.curriculum import Curriculum, Lesson, QuizItem
from tutor.gates import mcq
from tutor.gates.envelopes import QuizQuestion

LENGTH_BAND = (0.78, 1.28)  # a borrowed option's length as a share of the key's
SIMILAR_STEM = 0.34  # Jaccard of content words above which two stems ask the same thing
SAME_ANSWER = 0.5  # share of a candidate's content words found in the key (or explanation)
MAX_TRIES = 24
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of to in on for and or is are be by with as at this that which what when how why "
    "from it its into than then does do you your their they them can could would should will "
    "not no more most less each any all one two only also but if so such other".split()
)
# openings that must match: a clause opener, a preposition, a pronoun … (any other opening is
# a phrase: a noun phrase or a verb phrase, told apart by a third-person verb and its object)
_HEADS = {
    **dict.fromkeys("when if whenever unless".split(), "when"),
    **dict.fromkeys("because since".split(), "because"),
    **dict.fromkeys("it they there this these that".split(), "it"),
    **dict.fromkeys("to".split(), "to"),
    **dict.fromkeys("by using through".split(), "by"),
    **dict.fromkeys("in on at during".split(), "in"),
    **dict.fromkeys("only always never".split(), "only"),
}
_OBJECT_START = frozenset("a an the each all its their your every any one two".split())


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def form(text: str) -> tuple[str, bool, bool]:
    """The shape an option must share with the key: its opening, capitalisation, end stop."""
    t = text.strip()
    if mcq.is_code_or_math(t):
        head = "code"
    else:
        tokens = [w.lower().strip(",.;:'\"()") for w in t.split()[:2]] + ["", ""]
        first, second = tokens[0], tokens[1]
        if t.split(None, 1)[0].endswith(":"):
            head = "label"  # "Overfitting: the model …"
        elif first in _HEADS:
            head = _HEADS[first]
        elif first[:1].isdigit():
            head = "num"
        elif (
            first.endswith("s")
            and not first.endswith(("ss", "us", "is"))
            and len(first) > 3
            and second in _OBJECT_START
        ):
            head = "verb"  # "Creates a branch", "Tracks the changes"
        else:
            head = "phrase"
    return head, t[:1].isupper(), t.endswith(".")


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12], 16)


@dataclass(frozen=True)
class Donor:
    text: str
    item_id: str
    lesson_id: str
    phase: int
    lesson_number: int
    shape: tuple[str, bool, bool]
    stem_words: frozenset[str]
    words: frozenset[str]
    is_key: bool
    norm: str  # `_norm(text)`, once: every repair compares it with the whole pool


def donors(curriculum: Curriculum | None, lesson: Lesson) -> list[Donor]:
    """Options other items can lend: their keys (true, but about something else) and their
    distractors, from the whole curriculum (the repair prefers the lesson's own phase) — read
    whole when only part of it was, so what is lent never depends on how much was loaded.
    Without a curriculum, the lesson's own bank is all there is."""
    if curriculum is not None:
        curriculum.complete()
    lessons = curriculum.lessons if curriculum is not None else [lesson]
    cache_key = (id(curriculum), tuple(x.id for x in lessons)) if curriculum else None
    if cache_key is not None and cache_key in _DONORS:
        return _DONORS[cache_key][1]
    out = []
    for home in lessons:
        for q in home.quiz:
            if q.type != "mcq" or not 0 <= q.correct < len(q.options):
                continue
            stem = frozenset(words(q.question))
            for n, option in enumerate(q.options):
                text = option.strip()
                out.append(
                    Donor(
                        text,
                        q.id,
                        home.id,
                        home.phase,
                        home.number,
                        form(text),
                        stem,
                        frozenset(words(text)),
                        n == q.correct,
                        _norm(text),
                    )
                )
    if cache_key is not None:
        _DONORS.clear()
        _DONORS[cache_key] = (curriculum, out)  # the curriculum is kept, so its id stays its own
    return out


_DONORS: dict[tuple[object, ...], tuple[Curriculum | None, list[Donor]]] = {}


def _jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 0.0


def _answers_too(
    d: Donor, item: QuizItem, key_words: set[str], stem_words: set[str], explained: set[str]
) -> bool:
    """Could this option also be a right answer to the item? (asked alike, said alike)"""
    if _jaccard(d.stem_words, stem_words) >= SIMILAR_STEM:
        return True
    if not d.words:
        return True
    if len(d.words & key_words) >= SAME_ANSWER * min(len(d.words), len(key_words) or 1):
        return True
    return len(d.words & explained) >= SAME_ANSWER * len(d.words) + 1


def target_rank(item: QuizItem) -> int:
    """How many distractors are longer than the key (0: the key is the longest … 3: the
    shortest); spread evenly over a bank by the item's id."""
    return _seed("rank", item.id) % 4


def repair(
    item: QuizItem, lesson: Lesson, pool: Sequence[Donor], exclude: frozenset[str] = frozenset()
) -> list[str] | None:
    """Options for the item (key first, then three distractors) that pass the mechanical rules,
    or None when no fair set can be found. The item's own distractors are kept when they fit
    the key's length and form; the rest are borrowed, preferring options that echo the stem as
    much as the key does, then options on the same topic (sharing words with the item and
    coming from its own lesson or a nearby one). `exclude` holds texts that must not appear
    (the keys and shown options of the other items of the batch). Deterministic."""
    if item.type != "mcq" or not 0 <= item.correct < len(item.options):
        return None
    key = item.options[item.correct].strip()
    n_key = len(key)
    if n_key < 8:
        return None
    shape = form(key)
    stem_words = words(item.question)
    key_words = words(key)
    explained = words(item.explanation) | key_words
    key_echo = len(stem_words & key_words)
    own_distractors = [o.strip() for n, o in enumerate(item.options) if n != item.correct]
    topic = (
        stem_words | set().union(*(words(o) for o in own_distractors)) | words(lesson.title)
    ) - key_words
    own_norm = {_norm(o) for o in item.options}
    lo, hi = LENGTH_BAND
    seen: set[str] = {_norm(key)}
    ranked: list[tuple[tuple[object, ...], str]] = []
    for text in own_distractors:  # written for this stem: the most plausible, when they fit
        if lo * n_key <= len(text) <= hi * n_key and len(text) != n_key and form(text) == shape:
            seen.add(_norm(text))
            ranked.append(((-99, 0, 0), text))
    for d in pool:
        norm = d.norm
        if norm in own_norm or norm in exclude or norm in seen or d.item_id == item.id:
            continue
        n = len(d.text)
        if not (lo * n_key <= n <= hi * n_key) or n == n_key or d.shape != shape:
            continue
        if _answers_too(d, item, key_words, stem_words, explained):
            continue
        seen.add(norm)
        echo = min(len(stem_words & d.words), key_echo)
        score = 3 * echo + min(len(topic & d.words), 3) + _nearness(d, lesson)
        ranked.append(((-score, not d.is_key, _seed(item.id, d.text) % 1000), d.text))
    ranked.sort()
    return _first_fair(item, key, ranked)


def _nearness(d: Donor, lesson: Lesson) -> int:
    """3 from the item's own lesson, 2 from one at most two lessons away in its phase, 1 from
    its phase, else 0."""
    if d.lesson_id == lesson.id:
        return 3
    if d.phase == lesson.phase:
        return 2 if abs(lesson.number - d.lesson_number) <= 2 else 1
    return 0


def _first_fair(
    item: QuizItem, key: str, ranked: list[tuple[tuple[object, ...], str]]
) -> list[str] | None:
    """The first choice of distractors from the ranked candidates that passes the mechanical
    rules with the key (key first), or None."""
    n_key = len(key)
    r = target_rank(item)
    for attempt in range(MAX_TRIES):
        picks = _choose(ranked, n_key, (r + attempt) % 4, attempt // 4)
        if picks is None:
            continue
        options = [key, *picks]
        q = QuizQuestion(
            id=item.id, type="mcq", question=item.question, options=options, correct_index=0
        )
        if not mcq.blocking(mcq.audit_item(q)):
            return options
    return None


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .;:!")


def _choose(
    ranked: list[tuple[tuple[object, ...], str]], n_key: int, n_longer: int, skip: int
) -> list[str] | None:
    """Three distractors, best ranked first, n_longer of them longer than the key; when the
    key is to be the longest, one distractor is close below it (no length outlier), and when
    it is the shortest, one is close above it. `skip` passes over that many best choices."""
    longer = [t for _, t in ranked if len(t) > n_key]
    shorter = [t for _, t in ranked if len(t) < n_key]
    picks_long = longer[skip : skip + n_longer] if n_longer else []
    picks_short = shorter[skip : skip + 3 - n_longer] if n_longer < 3 else []
    if len(picks_long) != n_longer or len(picks_short) != 3 - n_longer:
        return None
    if n_longer == 0 and max(len(t) for t in picks_short) < n_key / 1.1:
        close = [t for t in shorter if len(t) >= n_key / 1.1 and t not in picks_short]
        if not close:
            return None
        picks_short[-1] = close[0]
    if n_longer == 3 and min(len(t) for t in picks_long) >= 1.2 * n_key:
        close = [t for t in longer if len(t) < 1.2 * n_key and t not in picks_long]
        if not close:
            return None
        picks_long[-1] = close[0]
    return picks_long + picks_short
