"""The form of an option at a glance — its opening, capitalisation and end stop — which every
option of a choice must share with its key, or a learner who knows nothing sets it apart: a
`Name: …` label, an instruction, a sentence to the reader, a clause opener, a statement about a
subject, a phrase (tutor.engine.repair matches lent options by it; tutor.engine.guessing's
"odd one out by form" weighs it)."""

from __future__ import annotations

import re

from tutor.gates import mcq

# openings that must match: a clause opener, a preposition, a pronoun … (any other opening is
# a phrase: a noun phrase or a verb phrase, told apart by a third-person verb and its object)
_HEADS = {
    **dict.fromkeys("when if whenever unless".split(), "when"),
    **dict.fromkeys("because since".split(), "because"),
    **dict.fromkeys("it they there this these that".split(), "it"),
    **dict.fromkeys("to".split(), "to"),
    **dict.fromkeys("by using through".split(), "by"),
    **dict.fromkeys("in on at during".split(), "in"),
    **dict.fromkeys("only always never every each".split(), "only"),
    **dict.fromkeys("you your we our".split(), "you"),  # said to the reader
    **dict.fromkeys("why what where which who".split(), "wh"),  # a question, or its echo
}
_OPENERS = frozenset(
    "without with after before unlike like however although though while so for instead also "
    "and or plus but yet both either neither here now then first finally".split()
)
# an instruction ("Build a tree …", "Reduce model complexity"): a step to take, told apart from
# a name or a statement at a glance, so it stands with instructions only
_DO = frozenset(
    "use try build compute find look include reduce increase decrease add remove implement "
    "write avoid apply check make keep pick choose take swap sort split normalize plot collect "
    "replace create define load save evaluate tune drop fit read install import call compare "
    "count multiply divide stop stack merge shuffle clip initialize freeze repeat iterate start "
    "run print prefer switch lower raise shrink grow limit cap mask pad train transform select "
    "identify handle convert encode filter combine visualize calculate detect generate".split()
)
_NOT_AFTER_DO = frozenset("of is are was were and or as".split())
_VERB_ENDS = ("ise", "ize", "ify", "ate")  # "Standardise each input", "Simplify the model"
_CLAIM = re.compile(r"^(the |a |an )?\S+( \S+){0,2} (is|are|was|were) (the|a|an|not) ", re.I)
_OBJECT_START = frozenset("a an the each all its their your every any one two".split())
_LABEL = re.compile(r"^[^\s:][^:.!?]{0,40}?:\s+(?=\S)")
# "A single number: the sum …", "They are orthogonal: …": a phrase or a clause going on, no label
_NO_LABEL = re.compile(
    r"^(the|an?|it|they|this|that|these|there|we|you)\b|\b(is|are|was|were)\b", re.I
)
LABEL_WORDS = 5


def label_end(text: str) -> int:
    """Where the text starts past a label of up to LABEL_WORDS words ("Ward's method: the merge
    …"), or 0 when it has none."""
    found = _LABEL.match(text)
    if not found or len(found.group().split()) > LABEL_WORDS or _NO_LABEL.search(found.group()):
        return 0
    return found.end()


def form(text: str) -> tuple[str, bool, bool]:
    """The shape an option must share with the key: its opening, capitalisation, end stop."""
    t = text.strip()
    if mcq.is_code_or_math(t):
        head = "code"
    else:
        tokens = [w.lower().strip(",.;:'\"()") for w in t.split()[:2]] + ["", ""]
        first, second = tokens[0], tokens[1]
        if label_end(t):
            head = "label"  # "Overfitting: the model …", "Ward's method: the merge …"
        elif (first in _DO and second not in _NOT_AFTER_DO) or (
            first.endswith(_VERB_ENDS) and second in _OBJECT_START
        ):
            head = "do"
        elif first in _HEADS:
            head = _HEADS[first]
        elif first in _OPENERS or t.split(None, 1)[0].endswith(","):
            head = f"opener:{first}"  # "Without it, …", "However, …", "Unlike X, …"
        elif first[:1].isdigit():
            head = "num"
        elif (
            first.endswith("s")
            and not first.endswith(("ss", "us", "is"))
            and len(first) > 3
            and second in _OBJECT_START
        ):
            head = "verb"  # "Creates a branch", "Tracks the changes"
        elif _CLAIM.match(t):
            head = "claim"  # "The sigmoid is …": a statement about a subject, not a phrase
        else:
            head = "phrase"
    return head, t[:1].isupper(), t.endswith(".")
