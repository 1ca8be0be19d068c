"""Is an option a clause (it says something happened or holds: "The plebeians won their rights",
"A Roman general had used a Roman army …") or a phrase (a name or a term: "The right to veto the
acts of magistrates", "King Pyrrhus of Epirus, whose victories … that he could not go on")? One
noun phrase among three clauses is the odd one out by form: a learner who knows nothing picks
it (tutor.engine.option_forms tells the two apart, so repair lends options of the key's kind and
the admission weighs the odd one out).

A crude reading, by words: a finite verb (an auxiliary, a common past or present form, a verb
ending in -ed after its subject) in the option's main part — not inside a relative clause
("who supplied …", "whose victories … could …") nor after a subordinator ("…, as the rich
took …") — makes it a clause. A relative clause's own verb is its first; a second verb after
it is the main one ("A victory that costs the winner too much is still called …")."""

from __future__ import annotations

import re

_AUX = frozenset(
    "is are was were be been has have had will would can could may might must shall should did "
    "does do cannot isn't aren't wasn't weren't won't can't couldn't didn't doesn't don't".split()
)
_VERBS = frozenset(
    # common past forms that do not end in -ed, and present forms a subject takes
    "won made gave took became held led fought bought kept lost fell rose ran came went built "
    "sent left met paid sold told thought brought began grew knew saw stood struck broke chose "
    "drove wrote spoke found got felt meant sought taught caught threw spent stole hid laid "
    "lets makes gives takes keeps holds sets shows becomes remains allows uses goes comes "
    "runs turns moves falls rises leads pulls pushes stores returns changes reduces increases "
    "adds removes needs depends helps works splits sends lowers raises tells says marks ends "
    "begins forms creates produces contains lies sits stands wins loses pays leaves brings".split()
)
_NOT_BEFORE_ED = frozenset(  # "the landed", "a written", "of trained": an adjective, no verb
    "the a an its their his her our your this that these those of in by for with to from on at "
    "newly well most more less least very so too and or".split()
)
_PARTICIPLES = frozenset(
    "made held kept built sent left bought found told laid paid sold brought taught caught "
    "spent sought led hid lost won set put cut".split()
)
_PREPOSITIONS = frozenset(
    "along by in on from with of into at for to over under around across against during "
    "through between among within".split()
)
_OBJECT = frozenset("the a an its their his her each every all any some no".split())
_PRONOUNS = frozenset("it he she which that who".split())
_RELATIVE = frozenset("who whom whose which that where whereby".split())
_SUBORDINATE = frozenset(
    "as while because since although though when whenever if unless until whereas after before "
    "so once".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")


def _is_verb(cased: list[str], n: int) -> bool:
    words = [w.lower() for w in cased]
    w = words[n]
    before = words[n - 1] if n else ""
    after = words[n + 1] if n + 1 < len(words) else ""
    if (
        w in _PARTICIPLES
        and before not in _PRONOUNS
        and (after in _PREPOSITIONS or words[0] in ("a", "an"))
    ):
        return False  # "planks laid along the race", "a race kept wet": a participle's
    if w in _AUX or w in _VERBS:
        return True
    if w.endswith("ed") and len(w) > 4 and n and before not in _NOT_BEFORE_ED:
        # "avoiding pitched battles": an adjective; "A flow turned aside …": a participle (an
        # indefinite name is a phrase's head far more often than a sentence's subject)
        passive = any(x in _AUX for x in words[:n])  # "… is still called …"
        return not before.endswith("ing") and (words[0] not in ("a", "an") or passive)
    # a present form: "The model memorises the data", "which costs", "The screen stops …"
    if not (w.endswith("s") and not w.endswith(("ss", "us", "is", "'s")) and len(w) > 3 and n):
        return False
    if before in _PRONOUNS:
        return True
    return before not in _NOT_BEFORE_ED and (
        after in _OBJECT or (n == 2 and words[0] == "the" and cased[n].islower())
    )


def _head_is_clause(words: list[str]) -> bool:
    """Whether the option's first part (up to its first comma or subordinator) has a main
    verb: one before a relative pronoun, or a second one after it."""
    after_relative: int | None = None
    for n, w in enumerate(words):
        if w.lower() in _RELATIVE and n > 0:
            after_relative = 0 if after_relative is None else after_relative
            continue
        if not _is_verb(words, n):
            continue
        if after_relative is None:
            return True
        after_relative += 1
        if after_relative >= 2:
            return True
    return False


def is_clause(text: str) -> bool:
    """Whether the option says something (a clause) rather than names something (a phrase)."""
    parts = [p.strip() for p in text.replace(";", ",").split(",")]
    for k, part in enumerate(parts):
        words = [w.replace("’", "'") for w in _WORD.findall(part)]
        if not words:
            continue
        first = words[0].lower()
        if k and (first in _RELATIVE or first in _SUBORDINATE or first.endswith("ing")):
            continue  # a relative or subordinate clause, or a participle's: not the main part
        if k and any(w.endswith("ed") and not _is_verb(words, n) for n, w in enumerate(words[:2])):
            continue  # "published around 450 BC", "first used against …": a participle's
        cut = next((n for n, w in enumerate(words) if n and w.lower() in _SUBORDINATE), len(words))
        if _head_is_clause(words[:cut]):
            return True
    return False
