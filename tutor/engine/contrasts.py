"""Contrast sets: a choice item's options made from its own key by turning two of its words
into their opposites ("narrower" → "wider", "fewer" → "more"), crossed two by two — the key, each
word turned alone, and both turned. Every option then has the key's kind, shape and topic, and
each differs from two others by one word and from the last by two, so neither the form of an
answer nor the options' agreement points at the key: only knowing which way each word goes
does. A whole number from 2 up turns too (doubled). A word the stem uses is never turned
(the options keeping it would echo the stem), nor `push`/`pull` when the key gives the direction
("pulls towards it" and "pushes towards it" say the same: a second key)."""

from __future__ import annotations

import re
from itertools import combinations

from learning_system.curriculum import QuizItem
from tutor.engine.repair import rule_codes
from tutor.engine.words import content_words

_PAIRS = """
increase decrease increases decreases increasing decreasing increased decreased
more less fewer more larger smaller largest smallest large small bigger smaller
higher lower highest lowest high low faster slower fast slow quickly slowly
wider narrower wide narrow longer shorter long short deeper shallower deep shallow
closest farthest nearest farthest closer farther
maximum minimum maximize minimize maximizes minimizes maximized minimized
above below before after inside outside first last earliest latest earlier later
many few positive negative
linear nonlinear supervised unsupervised overfit underfit overfitting underfitting
shrink grow shrinks grows shrinking growing vanishing exploding
add remove adds removes adding removing added removed
input output inputs outputs forward backward soft hard sparse dense
simple complex rows columns row column horizontal vertical
upper lower left right start end local global
precision recall numerator denominator
independent dependent static dynamic explicit implicit
stable unstable continuous discrete finite infinite absolute relative
exponential polynomial
encoder decoder read write reads writes reading writing
better worse best worst good bad early late zero nonzero
reduce increase reduces increases reduced increased reducing increasing
improve worsen improves worsens true false similar different
succeed fail succeeds fails convex concave symmetric asymmetric
inner outer internal external top bottom max min once twice
identical different simultaneously sequentially starts ends
push pull pushes pulls download upload downloading uploading head tail
""".split()


def _opposites() -> dict[str, str]:
    """Each word's opposite, both ways (a word takes its first pairing)."""
    out: dict[str, str] = {}
    for a, b in zip(_PAIRS[::2], _PAIRS[1::2], strict=True):
        out.setdefault(a, b)
        out.setdefault(b, a)
    return out


OPPOSITE = _opposites()
_TOKEN = re.compile(r"[A-Za-z]+")
# words whose opposite says the same once the key gives the direction ("pulls strongly towards
# it", "pushes strongly towards it"): turned only when the key names no direction
_AIMED = frozenset("push pull pushes pulls".split())
_DIRECTION = frozenset(
    "towards toward away into onto apart together back up down out in to from off along".split()
)
# a whole number standing alone (not in a name like "float32", a decimal or a percentage)
_NUMBER = re.compile(r"(?<![\w.^/])\d+(?![\w.%^/])")
ROOT = 5  # letters a word is matched on against the stem


def _turn(word: str) -> str:
    other = OPPOSITE[word.lower()]
    return other.capitalize() if word[:1].isupper() else other


Turn = list[tuple[int, int, str]]  # the spans one turn rewrites, each with its new text


def turns(key: str, question: str) -> list[Turn]:
    """The key's words that have an opposite (not in a hyphened compound), each a turn of all
    its occurrences; none whose root the stem uses, and none whose opposite the key holds too
    ("forward and backward" turned says the same)."""
    asked = {w[:ROOT] for w in content_words(question)}
    tokens = [
        m
        for m in _TOKEN.finditer(key)
        if m.group(0).lower() in OPPOSITE and "-" not in key[max(0, m.start() - 1) : m.end() + 1]
    ]
    held = {m.group(0).lower() for m in tokens}
    aimed = bool(_DIRECTION & {w.lower() for w in _TOKEN.findall(key)})
    out: list[Turn] = []
    for low in dict.fromkeys(m.group(0).lower() for m in tokens):
        if OPPOSITE[low] in held or any(w[:ROOT] in asked for w in (low, OPPOSITE[low])):
            continue
        if aimed and low in _AIMED:  # "pulls towards it" turned is "pushes towards it": the same
            continue
        out.append(
            [(t.start(), t.end(), _turn(t.group(0))) for t in tokens if t.group(0).lower() == low]
        )
    # a number the stem does not give, from 2 up (1 would leave "1 neurons"), doubled when
    # the double is not in the key already
    stated = {m.group(0) for m in _NUMBER.finditer(key)}
    taken = {m.group(0) for m in _NUMBER.finditer(question)}
    for m in _NUMBER.finditer(key):
        n = int(m.group(0))
        if n < 2 or m.group(0) in taken or str(2 * n) in stated:
            continue
        taken.add(m.group(0))
        out.append(
            [
                (t.start(), t.end(), str(2 * n))
                for t in _NUMBER.finditer(key)
                if t.group(0) == m.group(0)
            ]
        )
    return out


_ARTICLE = re.compile(r"\b([Aa])n? $")


def _with(key: str, chosen: list[Turn]) -> str:
    """The key with the chosen turns made, an article before a turned word agreeing with it
    ("an input" → "a output" would tell the turned option apart: "an output")."""
    out = key
    for start, end, other in sorted((s for t in chosen for s in t), reverse=True):
        head = out[:start]
        article = _ARTICLE.search(head)
        if article:
            a = article.group(1) + ("n" if other[:1].lower() in "aeiou" else "")
            head = head[: article.start()] + a + " "
        out = head + other + out[end:]
    return out


def contrast_sets(item: QuizItem, limit: int) -> list[list[str]]:
    """Up to `limit` option sets (key first) crossing two of the key's turnable words, each
    set passing the mechanical rules; none when the key has fewer than two."""
    if item.type != "mcq" or not 0 <= item.correct < len(item.options):
        return []
    key = item.options[item.correct].strip()
    out: list[list[str]] = []
    for a, b in combinations(turns(key, item.question), 2):
        options = [key, _with(key, [a]), _with(key, [b]), _with(key, [a, b])]
        if len({o.lower() for o in options}) < 4:
            continue
        if not rule_codes(item, options, 0):
            out.append(options)
        if len(out) >= limit:
            break
    return out
