"""The option sets of a closed-set item: one whose options are a vocabulary of answers of one kind
that other items of its phase share as keys and options (the columns of a ledger, the account
types of a balance sheet). Striking "an option seen as a key elsewhere" says nothing there, so
such an item is not sent to repair; the admission (tutor.engine.admission) weighs how often each
option is another question's key or option."""

from __future__ import annotations

import random

from learning_system.curriculum import Lesson, QuizItem
from tutor.engine.repair import _seed, norm
from tutor.gates import mcq
from tutor.gates.envelopes import QuizQuestion


def closed_sets(
    item: QuizItem, home: Lesson, keyed: dict[str, set[str]], limit: int
) -> list[tuple[list[str], int]]:
    """The option sets of a closed-set item, one whose every option is an option of other
    items of its phase too — one vocabulary of answers of one kind, like the account types of
    a ledger: its own options, and up to `limit` − 1 sets of its key with three other
    texts its lesson's bank sets among its options that are other items' keys, each drawn as
    often as it is a key — as the key itself was — so that neither how often an option is a
    key nor how often it is shown tells the key from the rest (the admission weighs both)."""
    key = item.options[item.correct]
    pool = {
        norm(o): o.strip()
        for q in home.quiz
        if q.type == "mcq"
        for o in q.options
        if keyed.get(norm(o), set()) - {item.question}
    }
    pool.pop(norm(key), None)
    texts = sorted(pool.values())
    often = [len(keyed[norm(t)] - {item.question}) for t in texts]
    rng = random.Random(_seed("closed", item.id))
    out = [(list(item.options), item.correct)]
    for _ in range(4 * limit if len(texts) >= 3 else 0):
        picks: list[str] = []
        while len(picks) < 3:
            picks += [t for t in rng.choices(texts, often) if t not in picks]
        options = [key, *picks]
        fresh = all({norm(o) for o in options} != {norm(o) for o in s} for s, _ in out)
        q = QuizQuestion(
            id=item.id, type="mcq", question=item.question, options=options, correct_index=0
        )
        if fresh and not mcq.blocking(mcq.audit_item(q)):
            out.append((options, 0))
        if len(out) >= limit:
            break
    return out
