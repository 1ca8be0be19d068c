"""The option sets a bank item offers the admission (tutor.engine.admission): its own options
when they pass the multiple-choice rules; else — when its only flaws are the options' shape —
its closed sets (tutor.engine.closed_sets), its contrast sets (tutor.engine.contrasts) and the
sets its lesson lends (tutor.engine.repair), in that order, the lent ones taken only where no
set made from the item itself balances the phase about as well."""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from learning_system.curriculum import Lesson, QuizItem
from tutor.engine import repair
from tutor.engine.admission import Offer
from tutor.engine.closed_sets import closed_sets
from tutor.engine.contrasts import contrast_sets
from tutor.gates.mcq import OPTION_COUNT, judges_statements

REPAIRABLE = frozenset({"M04", "M05", "M13", "M15"})  # flaws of the options' shape alone
ALTERNATIVES = 12  # fair option sets weighed per repaired item

Sets = list[tuple[list[str], int]]  # option sets, each with its key index


class OptionSets(NamedTuple):
    """An item's sets by how they were made, and the rule codes it failed as the bank wrote
    it ("shared": a distractor is another item's key or option)."""

    closed: Sets
    own: Sets  # its own options, or its contrast sets
    lent: Sets
    codes: set[str]

    def offered(self) -> tuple[Sets, int, int]:
        """The sets in the admission's order, how many are closed, and where the lent begin."""
        sets = self.closed + self.own + self.lent
        return sets, len(self.closed), len(self.closed) + len(self.own)


def made(offer: Offer, n: int, codes: set[str]) -> str:
    """How the chosen set `n` was made: "closed", "bank", "contrast" or "repaired" (lent)."""
    if n < offer.closed:
        return "closed"
    if not codes:
        return "bank"
    return "repaired" if offer.lent(n) else "contrast"


def option_sets(
    item: QuizItem,
    home: Lesson,
    keyed: dict[str, set[str]],
    vocabulary: dict[str, set[str]],
    shown: frozenset[str],
) -> OptionSets:
    """The item's fair option sets. `keyed`, `vocabulary`: the phase's keys, and options, → the
    questions they belong to (two items asking the same count once); `shown`: the texts already
    shown in its lesson, which no lent or contrast set repeats."""
    if len(item.options) > OPTION_COUNT:
        picked = _own_fours(item, frozenset(keyed) | shown)
        if picked:
            return OptionSets([], picked, [], set())
    codes = repair.rule_codes(item, item.options, item.correct)
    keys = frozenset(keyed)
    own = [repair.norm(o) for o in item.options]
    own_key = own[item.correct] if 0 <= item.correct < len(item.options) else ""
    closed: Sets = []
    if not codes and (set(own) - {own_key}) & ((keys - {own_key}) | shown):
        codes = {"shared"}  # a distractor is another item's key or option: lend afresh
        if all(vocabulary.get(o, set()) - {item.question} for o in own):
            closed = closed_sets(item, home, keyed, ALTERNATIVES)
    if not codes:
        return OptionSets([], [(list(item.options), item.correct)], [], codes)
    # too few options (M01, 3 of them): the key is asked with options made or lent, like a repair
    few = {"M01"} if len(item.options) < OPTION_COUNT else set()
    if not codes <= REPAIRABLE | {"shared"} | few or judges_statements(item.question):
        # a stem asking which statement is true (or false) is not repaired: lent statements
        # of its lesson are true, options made or borrowed may be — a second defensible key
        return OptionSets([], [], [], codes)
    turned = [
        (options, 0)
        for options in contrast_sets(item, ALTERNATIVES)
        if not {repair.norm(o) for o in options[1:]} & (keys | shown)
    ]
    lent = repair.repairs(item, home, repair.donors(home), keys | shown, ALTERNATIVES)
    return OptionSets(closed, turned, [(options, 0) for options in lent], codes)


def _own_fours(item: QuizItem, taken: frozenset[str]) -> Sets:
    """For an item with more than OPTION_COUNT options: its key with three of its own
    distractors, every such set that passes the rules and repeats no text in `taken` (the
    phase's keys and what its lesson shows), at most ALTERNATIVES, in the bank's order."""
    key = item.options[item.correct]
    others = [o for n, o in enumerate(item.options) if n != item.correct]
    out: Sets = []
    for three in combinations(others, OPTION_COUNT - 1):
        if {repair.norm(o) for o in three} & taken:
            continue
        options = [key, *three]
        if not repair.rule_codes(item, options, 0):
            out.append((options, 0))
        if len(out) == ALTERNATIVES:
            break
    return out
