"""Deterministic repair of bank items whose only flaw is the shape of their options.

Real banks leak their keys by length: the key is the long, careful option and the distractors are
short. An item whose key and stem are sound but whose distractors give the key away is repaired
without a model by replacing its distractors with options drawn from its own lesson (never
another item's key): the wrong options of its bank's other items, the misconceptions its
document names, and statements the document makes that do not answer the stem
(tutor.engine.lesson_statements), chosen to match the key in length and form:

- **length**: each borrowed option is within LENGTH_BAND of the key, and the key's length rank
  among the four is set per item (longest, 2nd, 3rd or shortest, balanced over a bank), so no
  length strategy finds it;
- **form**: the same opening (an article, `To`, `Because`, `It`, a gerund …), code with code,
  the same capitalisation and closing punctuation;
- **answer kind**: when the stem asks for a kind of answer (a reason, an action, a number) and
  the key is one, options of that kind come first, so a "why …" stem does not leave the key the
  only reason (tutor.engine.answer_kinds);
- **definition**: under a stem asking what a term means (`What is X?`), no sentence of the
  document — it defines nothing, and a learner who knows nothing strikes it — only wrong
  options, named misconceptions and other terms' meanings;
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

from learning_system.curriculum import Lesson, QuizItem
from tutor.engine import lesson_statements
from tutor.engine.answer_kinds import asks_definition, fits
from tutor.engine.option_forms import form
from tutor.engine.selfgrade import STEM
from tutor.gates import mcq
from tutor.gates.envelopes import QuizQuestion

LENGTH_BAND = (0.78, 1.28)  # a borrowed option's length as a share of the key's
SIMILAR_STEM = 0.34  # Jaccard of content words above which two stems ask the same thing
SAME_ANSWER = 0.5  # share of a candidate's content words found in the key (or explanation)
MAX_TRIES = 24
NOTES = {  # how a choice item's options were made, as `tutor items` says it
    "repaired": "distractors drawn from its own lesson",
    "contrast": "options made from its key, words turned into their opposites",
}
TWIN = 0.6  # Jaccard of content words at which two options say nearly the same
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of to in on for and or is are be by with as at this that which what when how why "
    "from it its into than then does do you your their they them can could would should will "
    "not no more most less each any all one two only also but if so such other".split()
)
_WRITTEN_WRONG = frozenset({"wrong", "mistake"})  # written as wrong, not true elsewhere


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12], 16)


@dataclass(frozen=True)
class Donor:
    """A text the lesson offers as a distractor: another item's wrong option (`item_id`), or a
    statement of the lesson's document (`kind`: said, mistake, term)."""

    text: str
    item_id: str
    kind: str
    shape: tuple[str, bool, bool]
    stem_words: frozenset[str]
    words: frozenset[str]
    norm: str  # `norm(text)`, once: every repair compares it with the whole pool


def donors(lesson: Lesson) -> list[Donor]:
    """What the item's own lesson can lend: the wrong options of its bank's items, the
    misconceptions its document names and the statements it makes — never a text that is, or
    says much the same as, the key of an item of its bank (a distractor must not be a key seen
    elsewhere)."""
    cached = _DONORS.get(id(lesson))
    if cached is not None and cached[0] is lesson:
        return cached[1]
    keys = [q.options[q.correct] for q in lesson.quiz if 0 <= q.correct < len(q.options)]
    key_norms = {norm(k) for k in keys}
    key_words = [words(k) for k in keys]
    out: list[Donor] = []
    for q in lesson.quiz:
        if q.type != "mcq" or not 0 <= q.correct < len(q.options):
            continue
        stem = frozenset(words(q.question))
        for n, option in enumerate(q.options):
            if n != q.correct:
                text = option.strip()
                out.append(
                    Donor(text, q.id, "wrong", form(text), stem, frozenset(words(text)), norm(text))
                )
    for s in lesson_statements.statements(lesson):
        found = frozenset(words(s.text))
        if found and not any(len(found & k) >= SAME_ANSWER * len(found) for k in key_words):
            out.append(Donor(s.text, "", s.kind, form(s.text), frozenset(), found, norm(s.text)))
    out = [d for d in out if d.norm not in key_norms]
    if len(_DONORS) > 256:
        _DONORS.clear()
    _DONORS[id(lesson)] = (lesson, out)  # the lesson is kept, so its id stays its own
    return out


_DONORS: dict[int, tuple[Lesson, list[Donor]]] = {}


def _jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 0.0


def _answers_too(
    d: Donor, item: QuizItem, key_words: set[str], stem_words: set[str], explained: set[str]
) -> bool:
    """Could this option also be a right answer to the item? (asked alike, said alike: words
    compared by their stems, so "predicting" says what "predict" says)"""
    if _jaccard(d.stem_words, stem_words) >= SIMILAR_STEM:
        return True
    if not d.words:
        return True
    mine, key, told = stems(d.words), stems(key_words), stems(explained)
    if len(mine & key) >= SAME_ANSWER * min(len(mine), len(key) or 1):
        return True
    return len(mine & told) >= SAME_ANSWER * len(mine) + 1


def _roots(found: Iterable[str]) -> set[str]:
    """Words by their first letters, as the grading compares them: "approximate" meets
    "approximation" (tutor.engine.selfgrade.STEM)."""
    return {w[:STEM] for w in found}


def stems(found: Iterable[str]) -> set[str]:
    """Words without their commonest endings (-ing, -ed, -es, -s): a crude stem."""
    out = set()
    for w in found:
        for end in ("ing", "ed", "es", "s"):
            if w.endswith(end) and len(w) - len(end) >= 3 and not w.endswith("ss"):
                w = w[: -len(end)]
                break
        out.add(w)
    return out


def dressed_as(text: str, key: str) -> str:
    """A lent text with the key's capitalisation of its first letter and the key's end stop
    (neither changes what it says), so the key is not told apart by them. Code is left as it
    is."""
    t = text.strip()
    if mcq.is_code_or_math(t) or mcq.is_code_or_math(key) or not t[:1].isalpha():
        return t
    if not (t.split()[0].isupper() and len(t.split()[0]) > 1):  # an acronym keeps its case
        t = (t[0].upper() if key[:1].isupper() else t[0].lower()) + t[1:]
    t = t.rstrip(".")
    return t + "." if key.rstrip().endswith(".") else t


def target_rank(item: QuizItem) -> int:
    """How many distractors are longer than the key (0: the key is the longest … 3: the
    shortest); spread evenly over a bank by the item's id."""
    return _seed("rank", item.id) % 4


@dataclass(frozen=True)
class _Tiers:
    """How far a lent option stands from the key by what a guesser compares: its echo of the
    stem, whether it is on the item's topic, on or off the question as the key is, its words.
    Tiers, not scores: within a tier the order is a coin's, so the key is one more option of
    its kind and no measure of echo or topic can tell it from the rest."""

    stem_words: set[str]
    topic: set[str]
    asked: set[str]  # stems of the stem's and title's words: what "strike the off-topic" uses
    key: str
    key_words: set[str]
    question: str

    def __call__(self, d: Donor, text: str) -> int:
        n_words = len(self.key.split())
        echo_off = len(self.stem_words & d.words) != len(self.stem_words & self.key_words)
        on_topic = bool(self.topic & d.words) or d.kind in _WRITTEN_WRONG
        words_off = abs(len(text.split()) - n_words) > max(2, n_words // 3)
        unlike_key = bool(self.asked & _roots(d.words)) != bool(self.asked & _roots(self.key_words))
        other_kind = fits(self.question, text) != fits(self.question, self.key)  # a fact for "why"
        return echo_off + (not on_topic) + words_off + 2 * unlike_key + 3 * other_kind


def repair(
    item: QuizItem, lesson: Lesson, pool: Sequence[Donor], exclude: frozenset[str] = frozenset()
) -> list[str] | None:
    """The first of `repairs`, or None."""
    found = repairs(item, lesson, pool, exclude, limit=1)
    return found[0] if found else None


def repairs(
    item: QuizItem,
    lesson: Lesson,
    pool: Sequence[Donor],
    exclude: frozenset[str] = frozenset(),
    limit: int = 1,
) -> list[list[str]]:
    """Up to `limit` sets of options for the item (key first, then three distractors) that pass
    the mechanical rules, best first (none when no fair set can be found). The item's own
    distractors are kept when they fit the key's length and form; the rest are drawn from its
    own lesson (`donors`), first those that share a word with the stem or the lesson title when
    the key does (and none when it does not), echo the stem as often as the key, share a word
    with the item's topic and have about as many words as the key, at random within each tier.
    `exclude`: texts that must not appear (the phase's keys, options shown in the lesson)."""
    if item.type != "mcq" or not 0 <= item.correct < len(item.options):
        return []
    key = item.options[item.correct].strip()
    n_key = len(key)
    if n_key < 8:
        return []
    shape = form(key)
    stem_words = words(item.question)
    key_words = words(key)
    explained = words(item.explanation) | key_words
    own_distractors = [o.strip() for n, o in enumerate(item.options) if n != item.correct]
    tier_of = _Tiers(
        stem_words,
        (stem_words | set().union(*(words(o) for o in own_distractors)) | words(lesson.title))
        - key_words,
        _roots(stem_words | words(lesson.title)),
        key,
        key_words,
        item.question,
    )
    own_norm = {norm(o) for o in item.options}
    lo, hi = LENGTH_BAND
    seen: set[str] = {norm(key)}
    chosen_words: list[frozenset[str]] = []
    ranked: list[tuple[tuple[object, ...], str]] = []
    for text in own_distractors:  # written for this stem: the most plausible, when they fit
        if norm(text) in exclude:
            continue
        if lo * n_key <= len(text) <= hi * n_key and len(text) != n_key and form(text) == shape:
            seen.add(norm(text))
            chosen_words.append(frozenset(words(text)))
            ranked.append(((-1, 0), text))
    if asks_definition(item.question):  # a sentence about something else defines nothing
        pool = [d for d in pool if d.kind != "said"]
    for d in pool:
        lent = d.norm
        if lent in own_norm or lent in exclude or lent in seen or d.item_id == item.id:
            continue
        text = dressed_as(d.text, key)
        n = len(text)
        if not (lo * n_key <= n <= hi * n_key) or n == n_key or form(text) != shape:
            continue
        if _answers_too(d, item, key_words, stem_words, explained):
            continue
        if any(_jaccard(d.words, w) >= TWIN for w in chosen_words):
            continue  # two near-twins among the options tell that both are wrong
        seen.add(lent)
        chosen_words.append(d.words)
        ranked.append(((tier_of(d, text), _seed(item.id, text) % 1000), text))
    ranked.sort()
    return _fair_sets(item, key, ranked, limit)


def _fair_sets(
    item: QuizItem, key: str, ranked: list[tuple[tuple[object, ...], str]], limit: int
) -> list[list[str]]:
    """Up to `limit` distinct choices of distractors from the ranked candidates that pass the
    mechanical rules with the key (key first), the key's length rank varying between them;
    a share of them is drawn with candidates of fewer words than the key first, and one with
    more words first, so the key's rank by words varies too (a lesson whose wrong statements
    run wordier than its keys would otherwise leave the key the one with fewest words)."""
    n_words = len(key.split())
    orders = [
        ranked,
        sorted(ranked, key=lambda c: (len(c[1].split()) >= n_words, c[0])),
        sorted(ranked, key=lambda c: (len(c[1].split()) <= n_words, c[0])),
    ]
    out: list[list[str]] = []
    for n, order in enumerate(orders):
        share = limit - len(out) if n == len(orders) - 1 else max(1, limit // len(orders))
        out += _sets_from(item, key, order, share, out)
    return out[:limit]


def _sets_from(
    item: QuizItem,
    key: str,
    ranked: list[tuple[tuple[object, ...], str]],
    limit: int,
    taken: list[list[str]],
) -> list[list[str]]:
    n_key = len(key)
    r = target_rank(item)
    out: list[list[str]] = []
    for attempt in range(MAX_TRIES):
        picks = _choose(ranked, n_key, (r + attempt) % 4, attempt // 4)
        if picks is None or any(set(picks) == set(o[1:]) for o in [*taken, *out]):
            continue
        options = [key, *picks]
        if not rule_codes(item, options, 0):
            out.append(options)
            if len(out) >= limit:
                break
    return out


def rule_codes(item: QuizItem, options: list[str], key: int) -> set[str]:
    """The multiple-choice rules the item fails asked with these options (none: it passes)."""
    q = QuizQuestion(
        id=item.id, type="mcq", question=item.question, options=options, correct_index=key
    )
    return {i.code or "?" for i in mcq.blocking(mcq.audit_item(q))}


def norm(text: str) -> str:
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
