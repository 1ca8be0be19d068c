"""Mechanical multiple-choice checks (SPEC §6): deterministic, cheap, run before any model
auditor sees an item. Each finding is a QuizIssue with its own code (see codes.MCQ_CODES)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from tutor.gates.codes import MCQ_CODES
from tutor.gates.envelopes import QuestionType, QuizQuestion
from tutor.gates.verdicts import QuizAuditVerdict, QuizIssue

OPTION_COUNT = 4
# Key-length tolerance: the key is a length outlier when it is the single longest option and
# longer than the next longest by LONG_RATIO and by LONG_MIN_CHARS (or the mirror for shortest).
LONG_RATIO = 1.10
LONG_MIN_CHARS = 4
SHORT_RATIO = 1.25
SHORT_MIN_CHARS = 5
SPREAD_MIN_BATCH = 3

_FIX: dict[str, str] = {
    "M00": "Give the item a question, 4 string options and an integer key.",
    "M01": "Write exactly 4 options.",
    "M02": "Set correct_index to the 0-based position of the correct option.",
    "M03": "Vary the position of the correct option across the batch.",
    "M04": "Shorten the correct option or lengthen the distractors to a similar length.",
    "M05": "Lengthen the correct option or shorten the distractors to a similar length.",
    "M06": "Replace 'all/none of the above' with a plausible distractor.",
    "M07": "Ask a question with 4 substantive options instead of true/false or yes/no.",
    "M08": "Rewrite the stem as a complete question.",
    "M09": "State the stem positively, or emphasise the negative word.",
    "M10": "Make every option different.",
    "M11": "Order numeric options ascending or descending.",
    "M12": "Replace the combination option with a single, plausible option.",
    "M13": "Rephrase so the stem's words do not appear only in the correct option.",
    "M14": "Remove the example answer from the instructions.",
    "M15": "Hedge all options alike, or none.",
    "M16": "Do not restate the correct option in the stem.",
    "M17": "Fill in the empty stem or option.",
    "M18": "Give every question in the batch its own id.",
    "M19": "Give the numeric question its answer value.",
    "M20": "Ask it as a choice with its options, or reword the stem to stand on its own.",
}
# a stem that only makes sense beside its options ("Which of the following …", "Pick one",
# "Which statement about X is correct?", "Which option best describes …")
_JUDGED = r"(true|correct|false|incorrect|accurate|inaccurate|right|wrong|untrue|valid|invalid)"
_POINTS_AT_OPTIONS = re.compile(
    r"\b(which (one )?of (these|those|the following|the (statements|options|answers|choices))|"
    r"of the following|pick one|choose one|true or false|"
    r"select (one|the (correct|best|right) (one|option|answer))|the options? (above|below)|"
    r"which (option|choice)s?|"
    r"which (statement|answer|one|description|claim|sentence)s?\b[^?\n]{0,80}?"
    r"\b(is|are)( not)? (most |least |more |less )?" + _JUDGED + r"|"
    r"which (statement|answer|one|description|claim|sentence)s? best|"
    r"which (is|are)( not)? " + _JUDGED + r")\b",
    re.I,
)

# a stem that asks which statement is true (correct, false …): its options are judged as
# statements, so a true statement of the lesson lent as a distractor is a second key
_JUDGES_STATEMENTS = re.compile(
    r"\bwhich\b[^?\n]{0,100}?\b(is|are)( not)? (most |least |more |less )?"
    + _JUDGED
    + r"\b|\bwhich (of the )?(statement|claim|sentence|description)s?\b",
    re.I,
)


def judges_statements(stem: str) -> bool:
    """Whether the stem asks which statement is true, correct, false … ("Which statement about
    X is true?", "Which of the following is correct?")."""
    return _JUDGES_STATEMENTS.search(stem) is not None


# Key-encoding examples in instructions: "1b, 2b, 3c" / "reply like 'b'".
_KEY_PAIRS = re.compile(
    r"\b\d{1,2}\s*[).:-]?\s*[a-dA-D]\b\s*[,;/]\s*\d{1,2}\s*[).:-]?\s*[a-dA-D]\b"
)
_KEY_PAIRS_HINT = re.compile(r"[,;/]\s*\d")
_KEY_QUOTED = re.compile(
    r"\b(?:like|e\.g\.|eg|for\s+example|such\s+as|example)\s*[:,]?\s*"
    r"[\"'‘“`]\s*[a-d1-4](?:\s*[,;/ ]\s*\d{0,2}\s*[a-d1-4])*\s*[\"'’”`]"
)
_EXAMPLE_WORDS = ("like", "e.g", "eg", "example", "such as")
_QUOTES = "\"'‘“`"
_BLANK = re.compile(r"(?:^|(?<=[\s(\"']))_{2,}(?=$|[\s).,;:?!\"'])|\[\s*blank\s*\]", re.I)
_NEGATIVE_UPPER = re.compile(r"\b(?:NOT|EXCEPT|LEAST)\b")
_NEGATIVE_WORDS = frozenset({"not", "never", "except", "incorrect", "false", "untrue"})
_NEGATIVE_LOWER = re.compile(
    r"\b(?:which|what)\b(?:\s+[\w'-]+){0,4}?\s+(?:not|never|except|incorrect|false|untrue)\b"
)
_ALL_NONE = re.compile(
    r"\b(?:all|none)\s+of\s+(?:the\s+)?(?:above|below|these|those|them|options|answers|choices)\b"
)
_BOTH_NEITHER = re.compile(
    r"^[ \t]*(?:both|neither)\b[ \t]*(?:of\s+(?:the\s+)?(?:above|these|those|them)\b|"
    r"[a-d1-4]\b|(?:is|are)\s+(?:correct|true|right)\b|[.!]?[ \t]*$)"
    r"|\b(?:both|neither)\s+of\s+(?:the\s+)?(?:above|these|those|them)\b",
    re.MULTILINE,
)
# A combination option names other options by letter: the whole option is "A and C", "B, C or
# D", "A & B are correct", "Both B and C", "A and B only" — never notation such as P(A and B)
# or A + B inside a longer formula.
_LETTER_COMBINATION = re.compile(
    r"(?m:^[ \t]*(?:both[ \t]+|either[ \t]+|only[ \t]+)?\(?[A-D]\)?"
    r"(?:[ \t]*(?:,|and|&|or|\+)[ \t]*\(?[A-D]\)?)+"
    r"(?:[ \t]+(?:only|(?:are|is)[ \t]+(?:both[ \t]+)?(?:correct|true|right)))?[ \t]*[.!]?[ \t]*$)"
    r"|(?i:\b(?:options?|answers?|choices?)[ \t]+\(?[a-d1-4]\)?[ \t]*(?:and|&|or)\b)"
    r"|(?im:^[ \t]*\(?[a-d1-4]\)[ \t]*(?:and|&)[ \t]*\(?[a-d1-4]\))"
)
_TRUE_FALSE = frozenset({"true", "false", "yes", "no"})
_HEDGES = frozenset(
    "usually primarily generally typically often mostly mainly sometimes may might likely "
    "commonly largely tend tends probably".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")
_STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does doing for from had has
    have how if in into is it its itself may might more most much must no nor not of on
    one only or other our out over own same shall should so some such than that the their
    them then there these they this those through to too under until up upon very was we
    were what when where which while who whom why will with would you your about after again
    against all also any because before below between both during each few further here
    just like many most often once onto per rather than therefore thus using used use uses
    way ways""".split()
)
_NUMBER = re.compile(
    r"^\s*(?P<sign>[-+−]?)\s*(?P<cur>[$€£])?\s*"
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?P<exp>[eE][-+]?\d+)?"
    r"\s*(?P<unit>%|[A-Za-zµ°]{1,6}(?:/[A-Za-z]{1,4})?)?\s*$"
)
_NUMERIC_START = frozenset("0123456789-+−$€£.")
_PLAIN_WORD = re.compile(r"[A-Za-z]{3,}[,;:.!?]?")
_CODE_HINT = re.compile(
    r"`|\w\(|==|!=|<=|>=|->|=>|\*\*|\w\[|[{}]|\w=\w|\s=\s|\$|\\[a-z]+|[√∑∏∫×÷≤≥≈∂∇]"
    r"|\b[a-z_]\w*\.[a-z_]\w*\b|\w\s+[-+*/^]\s+\w|\d\s*[-+*/^]\s*\d"
)


def _issue(qid: str, code: str, problem: str) -> QuizIssue:
    return QuizIssue(
        id=qid, severity=MCQ_CODES[code][0], problem=problem, suggested_fix=_FIX[code], code=code
    )


def parse_number(text: str) -> tuple[float, str] | None:
    """(value, unit) when the text is a plain number, optionally with a currency or unit."""
    m = _NUMBER.match(text)
    if m is None:
        return None
    try:
        value = float(m["num"].replace(",", "") + (m["exp"] or ""))
    except ValueError:
        return None
    if m["sign"] in ("-", "−"):
        value = -value
    return value, (m["cur"] or "") + (m["unit"] or "")


def is_code_or_math(text: str) -> bool:
    """A number, or text with code or math notation and few plain words."""
    if parse_number(text) is not None:
        return True
    if _CODE_HINT.search(text) is None:
        return False
    tokens = text.split()
    plain = sum(1 for t in tokens if _PLAIN_WORD.fullmatch(t))
    return plain * 2 <= len(tokens)


def has_key_example(text: str) -> bool:
    """True when instructions show an example answer that could encode keys ('1b, 2c')."""
    if _KEY_PAIRS_HINT.search(text) and _KEY_PAIRS.search(text):
        return True
    if not any(q in text for q in _QUOTES):
        return False
    lower = text.lower()
    return any(w in lower for w in _EXAMPLE_WORDS) and _KEY_QUOTED.search(lower) is not None


def _is_negative(stem: str, lower: str, words: list[str]) -> bool:
    if ("NOT" in stem or "EXCEPT" in stem or "LEAST" in stem) and _NEGATIVE_UPPER.search(stem):
        return True
    return (
        ("which" in words or "what" in words)
        and not _NEGATIVE_WORDS.isdisjoint(words)
        and _NEGATIVE_LOWER.search(lower) is not None
    )


def _content_words(words: list[str]) -> set[str]:
    """Content words, matched as whole words (never substrings)."""
    return {w for w in words if len(w) > 2 and w not in _STOPWORDS}


def _norm_option(text: str) -> str:
    """Lower case, whitespace collapsed, trailing punctuation dropped — unless the option is
    nothing but punctuation or symbols (`|`, `&`, `;`, `>`): then it is kept as it is."""
    spaced = " ".join(text.lower().split())
    return spaced.strip(" .;:!") or spaced


def _first_word(text: str) -> str:
    head = text.split(None, 1)
    return head[0].lower().strip(",.;:!—–-") if head else ""


def _length_issues(q: QuizQuestion, key: int) -> list[QuizIssue]:
    lengths = [len(o.strip()) for o in q.options]
    key_len = lengths[key]
    others = lengths[:key] + lengths[key + 1 :]
    longest_other = max(others)
    shortest_other = min(others)
    long_leak = (
        key_len > longest_other
        and key_len >= LONG_RATIO * longest_other
        and key_len - longest_other >= LONG_MIN_CHARS
    )
    short_leak = (
        key_len < shortest_other
        and shortest_other >= SHORT_RATIO * key_len
        and shortest_other - key_len >= SHORT_MIN_CHARS
    )
    if not (long_leak or short_leak) or all(is_code_or_math(o) for o in q.options):
        return []
    if long_leak:
        problem = (
            f"the correct option is the longest ({key_len} chars vs at most {longest_other}): "
            "picking the longest finds it"
        )
        return [_issue(q.id, "M04", problem)]
    problem = f"the correct option is the shortest ({key_len} chars vs at least {shortest_other})"
    return [_issue(q.id, "M05", problem)]


def numeric_values(options: Sequence[str]) -> list[float] | None:
    """The values of options that are all plain numbers in one unit (three or more), which
    must be shown in order (M11); None otherwise."""
    if len(options) < 3 or any(o.lstrip()[:1] not in _NUMERIC_START for o in options):
        return None
    values: list[float] = []
    units: set[str] = set()
    for o in options:
        parsed = parse_number(o)
        if parsed is None:
            return None
        values.append(parsed[0])
        units.add(parsed[1])
    return values if len(units) == 1 else None


def _numeric_order_issue(q: QuizQuestion) -> list[QuizIssue]:
    values = numeric_values(q.options)
    if values is None:
        return []
    pairs = list(zip(values, values[1:], strict=False))
    if all(a <= b for a, b in pairs) or all(a >= b for a, b in pairs):
        return []
    return [_issue(q.id, "M11", "numeric options are not in order")]


def _contains_phrase(text: str, phrase: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text) is not None


def audit_item(q: QuizQuestion) -> list[QuizIssue]:
    """Every mechanical flaw of one item. Free-recall items get only the stem checks; numeric
    items the stem checks, their answer, and the order of any options."""
    out: list[QuizIssue] = []
    stem = q.question
    if not stem.strip():
        out.append(_issue(q.id, "M17", "the stem is empty"))
    if has_key_example(stem):
        out.append(_issue(q.id, "M14", "the stem shows an example answer that may encode keys"))
    if ("__" in stem or "[" in stem) and _BLANK.search(stem):
        out.append(_issue(q.id, "M08", "the stem has a blank to fill in"))
    if q.type == "free_recall":
        # a bank stem is one line; the program's own screens (a key point to confirm, a "why?")
        # quote the learner's words on lines of their own, which are not a stem
        if "\n" not in stem.strip() and _POINTS_AT_OPTIONS.search(stem):
            out.append(_issue(q.id, "M20", "the stem points at options that are not shown"))
        return out
    if q.type == "numeric":
        if q.answer is None:
            out.append(_issue(q.id, "M19", "the numeric question has no answer value"))
        out.extend(_numeric_order_issue(q))
        return out
    stem_lower = stem.lower()
    stem_words = _WORD.findall(stem_lower)
    if _is_negative(stem, stem_lower, stem_words):
        out.append(_issue(q.id, "M09", "the stem is negative"))

    options = q.options
    n = len(options)
    if n != OPTION_COUNT:
        out.append(_issue(q.id, "M01", f"{n} options instead of {OPTION_COUNT}"))
    key = q.correct_index
    key_ok = key is not None and 0 <= key < n
    if not key_ok:
        out.append(_issue(q.id, "M02", f"key {key} is not an option position"))
    normalised = [_norm_option(o) for o in options]
    empty = "" in normalised
    if empty:
        out.append(_issue(q.id, "M17", "an option is empty"))
    if len(set(normalised)) != n:
        out.append(_issue(q.id, "M10", "two options are the same"))
    joined = "\n".join(normalised)
    if " of " in joined and ("all" in joined or "none" in joined) and _ALL_NONE.search(joined):
        out.append(_issue(q.id, "M06", "an option is 'all/none of the above'"))
    raw_joined = "\n".join(" ".join(o.split()) for o in options)
    if (("both" in joined or "neither" in joined) and _BOTH_NEITHER.search(joined)) or (
        _LETTER_COMBINATION.search(raw_joined)
    ):
        out.append(_issue(q.id, "M12", "an option combines other options"))
    if sum(1 for o in options if _first_word(o) in _TRUE_FALSE) >= 2:
        out.append(_issue(q.id, "M07", "the options are true/false or yes/no"))
    out.extend(_numeric_order_issue(q))
    if not key_ok or n < 2 or empty:
        return out
    assert key is not None
    out.extend(_length_issues(q, key))

    key_words = _WORD.findall(normalised[key])
    distractor_words = _WORD.findall("\n".join(normalised[:key] + normalised[key + 1 :]))
    if not _HEDGES.isdisjoint(key_words) and _HEDGES.isdisjoint(distractor_words):
        out.append(_issue(q.id, "M15", "only the correct option is hedged"))
    stem_content = _content_words(stem_words)
    if stem_content and stem_content.isdisjoint(distractor_words):
        key_echo = stem_content.intersection(key_words)
        if key_echo:
            shown = ", ".join(sorted(key_echo))
            out.append(_issue(q.id, "M13", f"stem word(s) {shown} repeated only in the key"))
    key_norm = normalised[key]
    if len(key_norm) >= 4:
        stem_norm = " ".join(stem_lower.split())
        if key_norm in stem_norm and _contains_phrase(stem_norm, key_norm):
            if not is_code_or_math(options[key]) and not any(
                d and _contains_phrase(stem_norm, d) for i, d in enumerate(normalised) if i != key
            ):
                out.append(_issue(q.id, "M16", "the correct option is restated in the stem"))
    return out


def audit_batch(qs: Sequence[QuizQuestion]) -> list[QuizIssue]:
    """Batch-level flaws only (key-position spread, shared ids); one issue per affected item."""
    out: list[QuizIssue] = []
    counts = Counter(q.id for q in qs)
    for qid, n in counts.items():
        if n > 1:
            out.append(_issue(qid, "M18", f"{n} questions share the id {qid}"))
    keyed = [
        q
        for q in qs
        if q.type == "mcq" and q.correct_index is not None and 0 <= q.correct_index < len(q.options)
    ]
    if len(keyed) >= SPREAD_MIN_BATCH and len({q.correct_index for q in keyed}) == 1:
        slot = keyed[0].correct_index
        for q in keyed:
            out.append(_issue(q.id, "M03", f"every key in the batch is option {slot}"))
    return out


@lru_cache(maxsize=4096)
def _audit_item_memo(
    q_id: str,
    q_type: QuestionType,
    question: str,
    options: tuple[str, ...],
    correct_index: int | None,
    has_answer: bool,
) -> tuple[QuizIssue, ...]:
    q = QuizQuestion.model_construct(
        id=q_id,
        type=q_type,
        question=question,
        options=list(options),
        correct_index=correct_index,
        answer=0.0 if has_answer else None,
    )
    return tuple(audit_item(q))


def audit_item_memo(q: QuizQuestion) -> tuple[QuizIssue, ...]:
    """audit_item, remembered by the item's content: an item is pre-checked when its envelope
    is verified and again when its turn is checked; the second time is free."""
    return _audit_item_memo(
        q.id, q.type, q.question, tuple(q.options), q.correct_index, q.answer is not None
    )


def audit_all(qs: Sequence[QuizQuestion]) -> list[QuizIssue]:
    """Item-level issues of every item, then the batch-level ones."""
    issues: list[QuizIssue] = []
    for q in qs:
        issues.extend(audit_item_memo(q))
    issues.extend(audit_batch(qs))
    return issues


def blocking(issues: Iterable[QuizIssue]) -> list[QuizIssue]:
    return [i for i in issues if i.severity != "low"]


def mechanical_verdict(qs: Sequence[QuizQuestion]) -> QuizAuditVerdict:
    """ISSUES when any item or the batch has a high or medium flaw; PASS (with any low-severity
    issues listed) otherwise."""
    issues = audit_all(qs)
    return QuizAuditVerdict(verdict="ISSUES" if blocking(issues) else "PASS", issues=issues)
