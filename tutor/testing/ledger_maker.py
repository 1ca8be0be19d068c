"""A second generated curriculum, unlike the shared corpus and the workshop
(tutor.testing.course_maker): the books of a made-up trading guild. Its banks mix numeric items
(balances and fees, answered with a number) with multiple choice whose options are all of one
shape (column names, so no option stands out by its length); banks hold 1 to 8 items, and a
lesson may need up to five earlier ones (wide catch-up fans). Deterministic for a seed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

BOOKS = [
    "grain",
    "salt",
    "copper",
    "wool",
    "amber",
    "dye",
    "spice",
    "timber",
    "glass",
    "linen",
    "honey",
    "tin",
    "ivory",
    "pepper",
    "silk",
    "wax",
]
COLUMNS = [
    "tally",
    "levy",
    "tithe",
    "surplus",
    "arrears",
    "pledge",
    "rebate",
    "toll",
    "dowry",
    "stipend",
    "bounty",
    "forfeit",
]
EVENTS = [
    "a debt carried into the next season",
    "a payment promised but not yet made",
    "a share owed to the guild hall",
    "a charge taken at the city gate",
    "a sum returned after a short delivery",
    "goods counted at the end of the day",
    "a fine for a late caravan",
    "a reward paid for recovered goods",
    "a wage paid to the book keeper",
    "what is left once every claim is met",
]
BANK_SIZES = (1, 2, 3, 5, 8)


def _numeric(rng: random.Random, book: str, n: int, stage: str) -> dict:
    opening, taken, paid = rng.randint(40, 400), rng.randint(5, 90), rng.randint(5, 90)
    if rng.random() < 0.5:
        return {
            "id": f"{book}-balance-{n}",
            "type": "numeric",
            "stage": stage,
            "bloom": "apply",
            "question": (
                f"In the {book} book an account opens at {opening} coins, takes in {taken} "
                f"and pays out {paid}. What is its closing balance, in coins?"
            ),
            "options": [],
            "correct": -1,
            "answer": opening + taken - paid,
            "tolerance": 0,
            "explanation": f"Closing balance = opening + in − out = {opening + taken - paid}.",
        }
    rate = rng.choice([2, 4, 5, 10, 20, 25])
    return {
        "id": f"{book}-fee-{n}",
        "type": "numeric",
        "stage": stage,
        "bloom": "apply",
        "question": (
            f"The {book} book charges a fee of {rate} per cent on a sale of {opening} coins. "
            "How many coins is the fee?"
        ),
        "options": [],
        "correct": -1,
        "answer": opening * rate / 100,
        "tolerance": 0.01,
        "explanation": f"The fee is {rate}/100 of {opening}, {opening * rate / 100:g} coins.",
    }


def _choice(rng: random.Random, book: str, n: int, stage: str, columns: dict[str, str]) -> dict:
    event = rng.choice(list(columns))
    key = columns[event]
    others = rng.sample([c for c in COLUMNS if c != key], 3)
    options = [key, *others]
    rng.shuffle(options)
    return {
        "id": f"{book}-column-{n}",
        "stage": stage,
        "bloom": "remember",
        "question": f"Which column of the {book} book records {event}?",
        "options": options,
        "correct": options.index(key),
        "explanation": f"In the {book} book, {event} goes in the {key} column.",
    }


def _doc(book: str, prereq: str, columns: dict[str, str]) -> str:
    lines = [
        f"# The {book.title()} Book",
        "",
        f"> Every coin of the {book} trade is written down once, in the column that says why.",
        "",
        "**Type:** Learn",
        "**Language:** Python",
        f"**Prerequisites:** {prereq}",
        "",
        "## Learning Objectives",
        "",
        f"- Name the column of the {book} book that records each kind of entry",
        f"- Work out a closing balance and a fee in the {book} book",
        "",
        "## The Columns",
        "",
    ]
    lines += [
        f"In the {book} book, {event} goes in the {col} column." for event, col in columns.items()
    ]
    lines += [
        "",
        "## Balances",
        "",
        f"A closing balance in the {book} book is the opening sum, plus what was taken in, "
        "minus what was paid out. A fee is a share of the sale, written as so many per cent.",
        "",
    ]
    return "\n".join(lines)


def write_ledger_course(root: Path, *, phases: int = 2, lessons: int = 8, seed: int = 5) -> Path:
    """Write the guild's books to `root`: `phases` × `lessons` lessons, each needing one to
    five earlier lessons of its phase, with banks of 1 to 8 items."""
    rng = random.Random(seed)
    books = iter(BOOKS * (1 + phases * lessons // len(BOOKS)))
    for p in range(1, phases + 1):
        phase_dir = root / "phases" / f"{p:02d}-the-guild-{p}"
        for n in range(1, lessons + 1):
            book = next(books)
            folder = phase_dir / f"{n:02d}-the-{book}-book"
            (folder / "docs").mkdir(parents=True, exist_ok=True)
            earlier = list(range(1, n))
            needs = sorted(rng.sample(earlier, min(len(earlier), rng.choice([1, 1, 2, 3, 5]))))
            prereq = "; ".join(f"Phase {p}, Lesson {k:02d}" for k in needs) or "None"
            columns = dict(zip(rng.sample(EVENTS, 5), rng.sample(COLUMNS, 5), strict=True))
            (folder / "docs" / "en.md").write_text(_doc(book, prereq, columns), encoding="utf-8")
            size = rng.choice(BANK_SIZES)
            bank = []
            for k in range(size):
                stage = "pre" if k < max(1, size // 3) else "post"
                if rng.random() < 0.4:
                    bank.append(_numeric(rng, book, k, stage))
                else:
                    bank.append(_choice(rng, book, k, stage, columns))
            (folder / "quiz.json").write_text(json.dumps(bank, indent=1), encoding="utf-8")
    (root / "README.md").write_text(
        "# The Guild's Books\n\nA generated course of bookkeeping.\n", encoding="utf-8"
    )
    return root
