"""Which bank items of a phase are asked as choices, and with which of their fair option sets.

Every option is the top of some answer-free strategy, so no single item can be fair to all of
them; only a bank can be. Each item offers a few fair option sets (tutor.engine.repair); the
admission picks one per item so that, over the phase, every strategy — and every "pick the
option in its 2nd, 3rd or 4th place" by it, what a test-wise learner trained on revealed keys
learns (tutor.engine.guessing.placed_weights) — finds the key as near one time in four as the
sets allow. It picks greedily in bank order, then revisits each item while that brings the
phase nearer chance, and only then drops items — each time the one whose leaving brings the
strategies most under the cap — until no strategy's own pick finds the key in more than
ADMIT_CAP of the admitted items plus SLACK; then it takes back, in bank order, each dropped item
that fits under the cap again. No option text is shown twice in a lesson, except in
a closed set (tutor.engine.items: options of one vocabulary, like the columns of a ledger), where
"an option seen as a key elsewhere" says nothing by itself; the strategies weigh how often each
option is another question's key (`keys`) or option (`vocabulary`), so a frequency learner is
held to the cap like every other strategy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tutor.engine.guessing import ADMIT_CAP, placed_weights
from tutor.engine.repair import norm

PASSES = 4  # revisits of the whole bank before items are dropped
PLACED = 0.5  # how much a `name@r` strategy weighs against a strategy's own pick when balancing
OVER = 50.0  # how much more a strategy's own pick over the cap weighs
SLACK = 0.5  # a strategy may pass the cap by half a key: strict, a bank collapses item by item
# what choosing a set lent by the item's lesson costs over one made from the item itself (its
# own options turned): lent statements answer another question, which a reader can tell
LENT = 1.0


@dataclass(frozen=True)
class Offer:
    """One item's fair option sets (key index with each) and where it is shown."""

    question: str
    title: str  # its lesson's title (a strategy compares options with it)
    lesson: str  # no option text is shown twice in one lesson
    sets: list[tuple[list[str], int]]
    closed: int = 0  # how many of the sets, first, are closed sets (tutor.engine.items)
    lent_from: int | None = None  # where the sets lent by its lesson begin (None: no lent set)

    def lent(self, n: int) -> bool:
        return self.lent_from is not None and n >= self.lent_from


@dataclass
class Admission:
    """Offers in bank order (`offer` answers which set is chosen so far, so later repairs can
    avoid its texts); `settle` revisits and drops, and gives the final choice."""

    names: list[str] = field(default_factory=list)
    offers: dict[str, Offer] = field(default_factory=dict)
    weights: dict[str, list[list[float]]] = field(default_factory=dict)
    chosen: dict[str, int] = field(default_factory=dict)
    load: list[float] = field(default_factory=list)
    scale: list[float] = field(default_factory=list)  # per strategy, its weight in balancing
    capped: list[bool] = field(default_factory=list)  # per strategy, held to ADMIT_CAP
    shown: dict[str, dict[str, int]] = field(default_factory=dict)  # lesson → text → count
    keys: dict[str, set[str]] = field(default_factory=dict)  # the phase's keys → their questions
    vocabulary: dict[str, set[str]] = field(default_factory=dict)  # its options → their questions
    closed: set[tuple[str, int]] = field(default_factory=set)  # (item, set) of closed sets

    def in_use(self, lesson: str) -> frozenset[str]:
        return frozenset(t for t, n in self.shown.get(lesson, {}).items() if n > 0)

    def offer(self, item_id: str, offer: Offer) -> tuple[list[str], int] | None:
        """Take the item's sets; the one chosen for it so far (None: every set repeats a text
        already shown in its lesson)."""
        self.closed |= {(item_id, n) for n in range(offer.closed)}
        rows = [
            placed_weights(
                offer.question,
                o,
                k,
                offer.title,
                [len(self.keys.get(norm(t), set()) - {offer.question}) for t in o],
                [len(self.vocabulary.get(norm(t), set()) - {offer.question}) for t in o],
            )
            for o, k in offer.sets
        ]
        if not rows:
            return None
        if not self.names:
            self.names = list(rows[0])
            self.load = [0.0] * len(self.names)
            self.scale = [PLACED if "@" in n else 1.0 for n in self.names]
            self.capped = ["@" not in n for n in self.names]
        self.offers[item_id] = offer
        self.weights[item_id] = [[r[n] for n in self.names] for r in rows]
        best = self._best(item_id, len(self.chosen) + 1)
        if best is None:
            return None
        self._take(item_id, best)
        return offer.sets[best]

    def _texts(self, item_id: str, n: int) -> list[str]:
        """The texts of a set that must not repeat in its lesson (none for a closed set)."""
        if (item_id, n) in self.closed:
            return []
        options, key = self.offers[item_id].sets[n]
        return [norm(o) for m, o in enumerate(options) if m != key]

    def _fits(self, item_id: str, n: int) -> bool:
        used = self.shown.get(self.offers[item_id].lesson, {})
        return not any(used.get(t, 0) > 0 for t in self._texts(item_id, n))

    def _cost(self, load: list[float], count: int) -> float:
        """How far the strategies stand from chance over `count` items: any strategy's own
        pick over the cap counts far more than the rest."""
        chance, cap = count / 4, ADMIT_CAP * count + SLACK
        cost = 0.0
        for a, s, capped in zip(load, self.scale, self.capped, strict=True):
            cost += s * (a - chance) ** 2
            if capped and a > cap:
                cost += OVER * (a - cap) ** 2
        return cost

    def _best(self, item_id: str, count: int) -> int | None:
        """The fitting set that leaves the strategies nearest chance over `count` items, a set
        lent by its lesson costing LENT more."""
        best, best_cost = None, 0.0
        offer = self.offers[item_id]
        for n, w in enumerate(self.weights[item_id]):
            if not self._fits(item_id, n):
                continue
            cost = self._cost([a + b for a, b in zip(self.load, w, strict=True)], count)
            cost += LENT if offer.lent(n) else 0.0
            if best is None or cost < best_cost - 1e-12:
                best, best_cost = n, cost
        return best

    def _take(self, item_id: str, n: int) -> None:
        self.chosen[item_id] = n
        self.load = [a + b for a, b in zip(self.load, self.weights[item_id][n], strict=True)]
        used = self.shown.setdefault(self.offers[item_id].lesson, {})
        for t in self._texts(item_id, n):
            used[t] = used.get(t, 0) + 1

    def _release(self, item_id: str) -> None:
        n = self.chosen.pop(item_id)
        self.load = [a - b for a, b in zip(self.load, self.weights[item_id][n], strict=True)]
        used = self.shown[self.offers[item_id].lesson]
        for t in self._texts(item_id, n):
            used[t] -= 1

    def _revisit(self) -> None:
        for _ in range(PASSES):
            moved = False
            for item_id in list(self.chosen):
                before = self.chosen[item_id]
                self._release(item_id)
                best = self._best(item_id, len(self.chosen) + 1)
                self._take(item_id, before if best is None else best)
                moved = moved or self.chosen[item_id] != before
            if not moved:
                return

    def settle(self) -> dict[str, tuple[list[str], int]]:
        """The admitted items with their chosen sets: no strategy's own pick finds the key in
        more than ADMIT_CAP of them (its other places are balanced, not capped: every option
        holds some place)."""
        self._revisit()
        while self._drop_over_cap():
            self._revisit()  # what is left may balance better; a strategy over again drops more
        while self._readmit():
            self._revisit()
        return {i: self.offers[i].sets[n] for i, n in self.chosen.items()}

    def _readmit(self) -> bool:
        """Take back, in bank order, each left-out item that fits under the cap again (a drop
        is greedy: what later drops and revisits freed may fit it); whether any came back."""
        back = False
        for item_id in self.offers:
            n = None if item_id in self.chosen else self.fits_back(item_id)
            if n is not None:
                self._take(item_id, n)
                back = True
        return back

    def fits_back(self, item_id: str) -> int | None:
        """The set a left-out item would be taken back with, when its best set keeps every
        strategy under the cap (None: it does not fit)."""
        best = self._best(item_id, len(self.chosen) + 1)
        if best is None:
            return None
        self._take(item_id, best)
        over = self._over(self.load, len(self.chosen))
        self._release(item_id)
        return best if over <= 0 else None

    def _over(self, load: list[float], count: int) -> float:
        cap = ADMIT_CAP * count + SLACK
        return sum(a - cap for a, c in zip(load, self.capped, strict=True) if c and a > cap)

    def _after_leaving(self, item_id: str) -> tuple[float, float, str]:
        """Over the cap, and the cost, were the item to leave."""
        w = self.weights[item_id][self.chosen[item_id]]
        left = [a - b for a, b in zip(self.load, w, strict=True)]
        count = len(self.chosen) - 1
        return self._over(left, count), self._cost(left, count), item_id

    def _drop_over_cap(self) -> bool:
        """Drop items, one at a time, each time the one whose leaving brings the strategies
        over the cap most under it, until none is over; whether any was dropped."""
        dropped = False
        while self.chosen and self._over(self.load, len(self.chosen)) > 0:
            self._release(min(self.chosen, key=self._after_leaving))
            dropped = True
        return dropped
