"""Grading free recall offline, program first: a reference's key points are its whole
sentences; an answer makes a point only if it uses one of the point's own words that the
question does not already contain, and only such points are offered to the learner to confirm.
Nonsense, the question typed back, words copied from it and off-topic text are wrong without
asking: the learner can confirm a point the answer touched, never invent one."""

from __future__ import annotations

import re

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(`'\"])")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an of to in on for and or is are be by with as at this that which what when how why "
    "from it its into than then does do you your i my me we it's not no yes so very just".split()
)
MAX_POINTS = 4
MIN_CONTENT_WORDS = 2
MIN_DISTINCT_SHARE = 0.4
ON_TOPIC_SHARE = 0.2
STEM = 5  # words compared by their first letters: "deviations" makes the point of "deviation"
NAME_WORDS = 3  # a key of at most this many own words is a name an answer may simply say
NAME_EXTRA = 2  # other words an answer that says such a name may hold
SHORT_POINT = 3  # a key point of at most this many own words is touched by one of them
PHRASE_WORDS = 4  # a key of at most this many words may be said within a short answer
_ASIDE = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]")
_NEGATED_OR_HEDGED = re.compile(r"\b(not?|never|neither|nor|none|or)\b|n't\b|/")
EXPLAIN_MIN_WORDS = 6  # distinct content words an explain-back needs
EXPLAIN_MIN_LESSON = 3  # of them, words of the lesson's own text (its title's aside)
EXPLAIN_LESSON_SHARE = 0.3  # and at least this share of them
# words any lesson holds, which show nothing of this one ("the main things … used in practice")
_VAGUE = {
    w[:STEM]
    for w in "about thing things part parts use used uses using practice whole topic really "
    "main basically general important example way ways work works make made many much also "
    "like well different kind lot lots stuff certain various other same such every each".split()
}
PROSE_FUNCTION_SHARE = 0.15  # of an explanation's words, function words (a keyword list has none)
COPIED_RUN = 8  # words in a row the same as the lesson's: copied
COPIED_SHARE = 0.6  # of an explanation's words, copied ones above which it is not one's own
_QUESTION = re.compile(r"[^.!?]*\?")


def _content(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2]


def stems(text: str) -> set[str]:
    """The content words of a text, each cut to its first STEM letters."""
    return {w[:STEM] for w in _content(text)}


def key_points(reference: str) -> list[str]:
    """Up to MAX_POINTS key points of a reference: its first whole sentences that say
    something (a one-sentence reference is one point; no sentence is cut)."""
    text = " ".join(reference.split())
    points = [p.strip() for p in _SENTENCE.split(text) if _content(p)]
    return points[:MAX_POINTS] or ([text] if text else [])


def well_formed(answer: str) -> bool:
    """At least MIN_CONTENT_WORDS distinct content words, not one word repeated (at least
    MIN_DISTINCT_SHARE of them distinct)."""
    words = _content(answer)
    distinct = set(words)
    return len(distinct) >= MIN_CONTENT_WORDS and len(distinct) >= MIN_DISTINCT_SHARE * len(words)


def touches(answer: str, point: str, question: str) -> bool:
    """The answer uses the point's own words — those the question does not contain: two of
    them (one, for a point of at most SHORT_POINT: "the D major chord" may make "The D major
    triad", "all the columns" may make "Every column of the table")."""
    own = stems(point) - stems(question)
    return len(own & stems(answer)) >= (1 if len(own) <= SHORT_POINT else 2) and bool(own)


def names_key(answer: str, question: str, key: str) -> bool:
    """A short key (a name or a term: at most NAME_WORDS content words the question does not
    hold; what it puts in brackets is another name for it) said in the answer: every own word
    of the key, or of a bracketed name, with at most NAME_EXTRA words besides — "The Centuriate
    Assembly" names "The Centuriate Assembly (comitia centuriata)", "Gauls" names "The Gauls".
    Never a negated or hedged answer ("not …", "… or …")."""
    if not key or _NEGATED_OR_HEDGED.search(answer.lower()):
        return False
    asked = stems(question)
    given = stems(answer) - asked
    if len(given - stems(key)) > NAME_EXTRA:
        return False
    name = _ASIDE.sub(" ", key)
    if not _names(name, asked):
        return False  # "1 step (it is exact …)", "It is killed (SIGHUP)": the aside names no key
    asides = [a or b for a, b in _ASIDE.findall(key)]
    names = [name, *(a for a in asides if len(a.split()) <= NAME_WORDS)]
    return any(_names(n, asked) <= given for n in names if _names(n, asked))


def _names(name: str, asked: set[str]) -> set[str]:
    """The own words of a name (its content words the question does not hold), when it is one:
    words only, at most NAME_WORDS own words and one more word in all ("The Centuriate
    Assembly", not "It receives a hangup signal and is terminated"); else none."""
    own = stems(name) - asked
    short = len(name.split()) <= NAME_WORDS + 1
    return own if _all_words(name) and short and 0 < len(own) <= NAME_WORDS else set()


def says_within(answer: str, key: str) -> bool:
    """A key of at most PHRASE_WORDS words said as a phrase within an answer of at most
    NAME_EXTRA other content words, neither negated nor hedged: "the FROM clause" says "FROM",
    "set lo = mid + 1" says "lo = mid + 1"."""
    tokens = re.findall(r"\w+|[^\w\s]", key.lower().strip(" `'\"."))
    words = [t for t in tokens if t[0].isalnum()]
    if not words or len(words) > PHRASE_WORDS or _NEGATED_OR_HEDGED.search(answer.lower()):
        return False
    phrase = r"(?<!\w)" + r"\s*".join(map(re.escape, tokens)) + r"(?!\w)"
    return bool(re.search(phrase, answer.lower())) and len(stems(answer) - stems(key)) <= NAME_EXTRA


def _all_words(name: str) -> bool:
    """A name made of words only, each of them counted (no symbol, digit or one-letter word
    that `stems` would drop: "lo = mid + 1" and "D major" are not names it can check)."""
    tokens = name.replace("-", " ").split()
    return bool(tokens) and all(
        re.fullmatch(r"[A-Za-z']+[.,;:]?", t) and (t.lower() in _STOP or len(t) > 2) for t in tokens
    )


def on_topic(answer: str, question: str, reference: str) -> bool:
    """At least ON_TOPIC_SHARE of the answer's content words are the question's or the
    reference's: an answer about something else is not graded as one about this."""
    own = stems(answer)
    return len(own & stems(question + " " + reference)) >= ON_TOPIC_SHARE * len(own)


def touched(answer: str, question: str, reference: str) -> list[str]:
    """The key points of the reference an answer could have made; none for a malformed or
    off-topic answer. One word is an answer when it is a point's own word ("coefficients" for
    "Only the coefficients in front of formulas"): it touches that point."""
    if well_formed(answer) and on_topic(answer, question, reference):
        return [p for p in key_points(reference) if touches(answer, p, question)]
    if len(_content(answer)) == 1:
        return [p for p in key_points(reference) if stems(answer) <= stems(p) - stems(question)]
    return []


def passes(covered: int, points: int) -> bool:
    """Right when the answer made more than half of the key points."""
    return covered * 2 > points


def answers_at_all(answer: str, question: str, reference: str) -> bool:
    """Whether a text could be an answer to the question at all, whoever grades it: well
    formed, on topic, and more than the question's own words."""
    if len(_content(answer)) == 1:  # one word: a word of a key point the question lacks
        return bool(touched(answer, question, reference))
    return (
        well_formed(answer)
        and on_topic(answer, question, reference)
        and bool(stems(answer) - stems(question))
    )


def offered_points(answer: str, question: str, reference: str, grounds: str = "") -> list[str]:
    """The key points a learner may confirm an answer made: for an explain-back (`grounds`: the
    words of its lesson), every point when the answer is an explanation drawn from the lesson
    (`explains`: it is in one's own words, so it need not repeat the reference's), none
    otherwise; for any other answer, those it touched."""
    if grounds:
        return key_points(reference) if explains(answer, grounds, question) else []
    return touched(answer, question, reference)


def explains(text: str, lesson_text: str, title: str) -> bool:
    """An explain-back worth checking against the rubric: prose (`prose`), EXPLAIN_MIN_WORDS
    distinct content words, not one word repeated, and at least EXPLAIN_MIN_LESSON (and
    EXPLAIN_LESSON_SHARE) of them words of the lesson's own text other than its title's and
    vague words any lesson holds (`_VAGUE`: "main", "things", "used", "practice" …)."""
    if not well_formed(text) or not prose(text):
        return False
    own = stems(text)
    from_lesson = own & (stems(lesson_text) - stems(title)) - _VAGUE
    return (
        len(own) >= EXPLAIN_MIN_WORDS
        and len(from_lesson) >= EXPLAIN_MIN_LESSON
        and len(from_lesson) >= EXPLAIN_LESSON_SHARE * len(own)
    )


def prose(text: str) -> bool:
    """Sentences, not a list of the lesson's keywords nor its questions typed back: at least
    PROSE_FUNCTION_SHARE of the words are function words (`the`, `is`, `of` …), and at most half
    of the words are in questions."""
    words = _WORD.findall(text.lower())
    asked = sum(len(_WORD.findall(q)) for q in _QUESTION.findall(text.lower()))
    function = sum(w in _STOP for w in words)
    return function >= PROSE_FUNCTION_SHARE * len(words) and asked * 2 <= len(words)


def copied(text: str, source: str) -> bool:
    """Whether most of a text (over COPIED_SHARE of its words) is in runs of COPIED_RUN words
    or more taken word for word from `source`: not one's own words."""
    words = _WORD.findall(text.lower())
    runs = {
        tuple(found[n : n + COPIED_RUN])
        for found in [_WORD.findall(source.lower())]
        for n in range(len(found) - COPIED_RUN + 1)
    }
    inside = [False] * len(words)
    for n in range(len(words) - COPIED_RUN + 1):
        if tuple(words[n : n + COPIED_RUN]) in runs:
            inside[n : n + COPIED_RUN] = [True] * COPIED_RUN
    return bool(words) and sum(inside) > COPIED_SHARE * len(words)
