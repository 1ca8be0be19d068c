"""The probe's search for the edge of what is known over one strand's items, and the
questions it may ask next (prepared while the current one is answered)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class EdgeSearch:
    """The edge of what is known, over one strand's items ordered easiest first: a binary
    search — the middle item, then a harder one after a known answer and an easier one after an
    unknown one, so two answers already bracket the edge (a known easy item and a missed hard
    one is partial knowledge, both missed is none) — and then the unasked items nearest the
    edge (the split the answers contradict least). While the edge is bracketed, a choice item
    is taken before a free-recall one (`recall`: their indices), which is asked only where no
    choice item is left in the bracket, and one the learner has not seen graded before one
    they have (`seen`: a shown answer is remembered, not known). It only chooses the next
    item; when a strand has been asked enough is the lesson's budget's call
    (tutor.engine.probe_budget). An ungraded answer neither moves the search nor counts."""

    def __init__(
        self, n: int, recall: frozenset[int] = frozenset(), seen: frozenset[int] = frozenset()
    ) -> None:
        self.n = n
        self.recall = recall
        self.seen = seen
        self.lo, self.hi = 0, n - 1
        self.answers: dict[int, bool] = {}
        self.skipped: set[int] = set()

    def edge(self) -> int:
        """The split that the answers contradict least: items below it known, the rest not."""
        return min(
            range(self.n + 1),
            key=lambda e: (
                sum(1 for i, k in self.answers.items() if (i < e) != k),
                abs(e - self.n / 2),
            ),
        )

    def rest(self) -> list[int]:
        """The items neither answered nor skipped."""
        return [j for j in range(self.n) if j not in self.answers and j not in self.skipped]

    def next_index(self) -> int | None:
        rest = self.rest()
        if not rest:
            return None
        if self.lo <= self.hi:
            inside = [j for j in rest if self.lo <= j <= self.hi]
            if inside:
                middle = (self.lo + self.hi) / 2
                return min(
                    inside, key=lambda j: (j in self.recall, j in self.seen, abs(j - middle), j)
                )
        e = self.edge()
        return min(rest, key=lambda j: (abs(j - e + 0.5), j))

    def record(self, i: int, known: bool | None) -> None:
        if known is None:
            self.skipped.add(i)
            return
        self.answers[i] = known
        if self.lo <= self.hi:
            if known:
                self.lo = max(self.lo, i + 1)
            else:
                self.hi = min(self.hi, i - 1)


def ahead(
    searches: Sequence[EdgeSearch],
    queues: Sequence[Sequence[T]],
    k: int,
    asked: int | None = None,
) -> list[T]:
    """The questions the probe may ask next, whichever way the one at `asked` (in group k;
    None: nothing asked yet) is answered: each group's next item (the budget picks the group)."""
    out: list[T] = []
    for g, search in enumerate(searches):
        outcomes: tuple[bool | None, ...] = (
            (True, False) if g == k and asked is not None else (None,)
        )
        for known in outcomes:
            trial = copy.deepcopy(search)
            if known is not None and asked is not None:
                trial.record(asked, known)
            j = trial.next_index()
            if j is not None and queues[g][j] not in out:
                out.append(queues[g][j])
    return out
