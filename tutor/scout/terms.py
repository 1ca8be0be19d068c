"""Search terms from short texts: glossary terms found in a text, key phrases, and the
substantive words used to check that a sentence is grounded in a source."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

STOPWORDS = frozenset(
    """
    a about above after again against all also an and any are as at be because been before being
    below between both but by can could did do does doing down during each even every few for from
    further had has have having here how however if in into is it its itself just may might more
    most much must no nor not now of off on once one only or other our out over own same should so
    some such than that the their them then there these they this those through thus to too under
    until up upon use used uses using very via was way ways we well were what when where whether
    which while who whom why will with within without would yet you your new like get gets make
    makes made many lot lots thing things really see seen first second third etc e.g i.e vs
    """.split()
)
# verbs and fillers that open learning objectives ("Implement …", "Explain why …")
OBJECTIVE_WORDS = frozenset(
    """
    implement build compare explain distinguish configure compute derive understand describe
    identify apply evaluate create design construct verify analyze analyse interpret recognize
    recognise calculate define demonstrate choose select write train run set setup learn know
    show use work working basic basics simple common scratch from-scratch own role why how
    between various different key main core step steps real practical hands-on intuition
    intuitive introduction intro overview especially familiarity perform builds including
    include includes produce produces handle handles measure measures difference differences
    """.split()
)
_PHRASE_BREAK = re.compile(r"[,;:.!?()\[\]{}\"“”'‘’/|&+=<>*`#~^$]|\s-\s|\s–\s|\s—\s")
_TOKEN = re.compile(r"[^\W_][\w.+#-]*[\w+#]|[^\W_]")
_WORD = re.compile(r"[^\W\d_][\w'’-]*[^\W_]|[^\W\d_]")


def glossary_forms(term: str) -> list[str]:
    return list(_glossary_forms(term))


@lru_cache(maxsize=4096)
def _glossary_forms(term: str) -> tuple[str, ...]:
    """The lower-case forms a glossary term is searched by: `Adam (Optimizer)` -> [adam];
    `CNN (Convolutional Neural Network)` -> [cnn, convolutional neural network]."""
    match = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", term)
    if not match:
        return (term.strip().lower(),) if term.strip() else ()
    main, inner = match.group(1).strip(), match.group(2).strip()
    forms = [main.lower()] if main else []
    is_acronym = bool(re.fullmatch(r"[A-Z0-9]{2,8}s?", main)) or (
        " " not in inner and sum(ch.isupper() for ch in inner) >= 2
    )
    if inner and is_acronym:
        forms.append(inner.lower())
    return tuple(form for form in forms if form)


@lru_cache(maxsize=4096)
def _pattern(form: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(form) + r"(?![\w-])", re.IGNORECASE)


def glossary_hits(text: str, glossary: Mapping[str, str]) -> list[str]:
    """Glossary terms (their names as in the glossary) occurring in `text`, in order of first
    occurrence; a term inside a longer matched term (`gradient` in `gradient descent`) is not
    counted."""
    lowered = text.lower()
    candidates: list[tuple[str, str]] = []
    for term in glossary:
        for form in glossary_forms(term):
            if form in lowered:
                candidates.append((form, term))
    candidates.sort(key=lambda pair: (-len(pair[0]), pair[0]))
    taken = [False] * len(text)
    first: dict[str, int] = {}
    for form, term in candidates:
        for match in _pattern(form).finditer(text):
            if any(taken[match.start() : match.end()]):
                continue
            for i in range(match.start(), match.end()):
                taken[i] = True
            first[term] = min(first.get(term, match.start()), match.start())
    return sorted(first, key=lambda term: (first[term], term))


def key_phrases(text: str, *, max_words: int = 3) -> list[str]:
    """Lower-case phrases of up to `max_words` content words, in order of appearance: the text is
    cut at punctuation, stopwords and objective verbs (a RAKE-style split)."""
    phrases: list[str] = []
    for chunk in _PHRASE_BREAK.split(text):
        run: list[str] = []
        for token in [*_TOKEN.findall(chunk), ""]:
            word = token.lower()
            if (
                word
                and word not in STOPWORDS
                and word not in OBJECTIVE_WORDS
                and (len(word) > 2 or token.isupper())
                and not word.isdigit()
            ):
                run.append(word)
                continue
            if run:
                phrase = " ".join(run[-max_words:]) if len(run) > max_words else " ".join(run)
                if phrase not in phrases:
                    phrases.append(phrase)
                run = []
    return phrases


def unique(values: Iterable[str], limit: int | None = None) -> list[str]:
    out: list[str] = []
    for value in values:
        value = " ".join(value.split())
        if value and value not in out:
            out.append(value)
            if limit is not None and len(out) == limit:
                break
    return out


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    word = word.lower().strip("'’-")
    for suffix in ("ies", "es", "s"):
        if len(word) > 4 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def content_words(text: str) -> set[str]:
    """Stemmed lower-case words of a text, without stopwords."""
    return {
        _stem(word)
        for word in _WORD.findall(text)
        if len(word) > 2 and word.lower() not in STOPWORDS
    }


def grounded(claim: str, source_words: set[str], share: float = 0.5) -> bool:
    """Whether a sentence shares enough substantive words with its source: at least `share` of
    its content words, and at least two of them (one when it has only one)."""
    words = content_words(claim)
    if not words:
        return False
    hits = len(words & source_words)
    return hits >= min(2, len(words)) and hits >= share * len(words)
