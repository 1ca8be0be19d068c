"""Curricula of our own, generated, in the reference layout — for tests and benchmarks that
must not be tuned to one real curriculum. Deterministic for a seed.

The made-up subject is a workshop of machines; every lesson is one machine with its own parts,
actions and purposes, so stems and options of different lessons share few words. Each lesson
lists common mistakes (beliefs worded like the keys). The banks have the real banks' flaw on
purpose: keys are the long, careful option in most items
(`leaky` share), the distractors short.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

MACHINES = [
    "kiln",
    "loom",
    "lathe",
    "press",
    "winch",
    "bellows",
    "sieve",
    "churn",
    "mill",
    "forge",
    "pump",
    "crane",
    "drill",
    "still",
    "oven",
    "spindle",
    "sluice",
    "capstan",
    "anvil",
    "hoist",
    "treadle",
    "quern",
    "mangle",
    "tumbler",
]
PARTS = [
    "valve",
    "gear",
    "belt",
    "lever",
    "spring",
    "chamber",
    "nozzle",
    "shaft",
    "flywheel",
    "hopper",
    "clutch",
    "damper",
    "ratchet",
    "bearing",
    "gauge",
    "filter",
    "coil",
    "rotor",
]
VERBS = [
    "regulates",
    "stores",
    "releases",
    "measures",
    "cools",
    "aligns",
    "locks",
    "filters",
    "balances",
    "drives",
    "seals",
    "tilts",
    "warms",
    "slows",
    "lifts",
    "presses",
]
GOODS = [
    "clay",
    "wool",
    "timber",
    "grain",
    "water",
    "steam",
    "oil",
    "sand",
    "ore",
    "resin",
    "cloth",
    "salt",
]
PURPOSES = [
    "the output stays even when the load changes",
    "nothing overheats during a long shift",
    "the operator can stop it safely at any moment",
    "the finished batch keeps its intended shape",
    "less material is wasted between runs",
    "the next stage receives a steady supply",
    "worn parts can be swapped without a full teardown",
    "the pressure never passes the rated limit",
]


MISBELIEFS = [  # purposes a part is wrongly believed to serve (never a key's purpose)
    "the machine can run for a week without oil",
    "the colour of every batch comes out the same",
    "the noise of the motor drops by half",
    "the operator never has to check the gauges",
    "the whole frame can be folded for storage",
    "each run finishes in half the usual time",
    "the parts never need cleaning after a shift",
    "two operators can share a single control",
]


def _item(rng: random.Random, machine: str, part: str, n: int, stage: str, leaky: bool) -> dict:
    verb = rng.choice(VERBS)
    good = rng.choice(GOODS)
    purpose = rng.choice(PURPOSES)
    others = rng.sample([v for v in VERBS if v != verb], 3)
    goods = rng.sample([g for g in GOODS if g != good], 3)
    key = f"It {verb} the {good} so that {purpose}"
    if leaky:
        distractors = [f"It {v} the {g}" for v, g in zip(others, goods, strict=True)]
    else:
        purposes = rng.sample([p for p in PURPOSES if p != purpose], 3)
        distractors = [
            f"It {v} the {g} so that {p}" for v, g, p in zip(others, goods, purposes, strict=True)
        ]
    options = [key, *distractors]
    rng.shuffle(options)
    return {
        "id": f"{machine}-{part}-{n}",
        "stage": stage,
        "question": f"In the {machine}, what is the {part} for?",
        "options": options,
        "correct": options.index(key),
        "explanation": f"The {part} of the {machine} {verb} the {good} so that {purpose}.",
    }


def _machine_names():
    """MACHINES, then the same names numbered (`kiln-2`, …): as many lessons as asked for, the
    first 24 named as before."""
    yield from MACHINES
    round_ = 2
    while True:
        yield from (f"{machine}-{round_}" for machine in MACHINES)
        round_ += 1


def _common_mistakes(machine: str, seed: int) -> list[str]:
    """A `## Common Mistakes` list: beliefs a learner may hold about what the machine's parts
    do, worded as the bank's keys are (what a real lesson's list of mistakes is to its bank).
    Drawn from a generator of its own, so the rest of the course is as it always was."""
    rng = random.Random(f"{seed}:{machine}:mistakes")
    out = ["## Common Mistakes", ""]
    for _ in range(30):
        verb, good, purpose = (
            rng.choice(VERBS),
            rng.choice(GOODS),
            rng.choice(PURPOSES + MISBELIEFS),
        )
        out.append(f"- Thinking that it {verb} the {good} so that {purpose}")
    return [*out, ""]


def write_course(
    root: Path,
    *,
    phases: int = 2,
    lessons: int = 6,
    items: int = 6,
    leaky: float = 0.85,
    catch_up_every: int = 4,
    seed: int = 7,
) -> Path:
    """Write a curriculum to `root`: `phases` × `lessons` lessons of `items` bank items each
    (a third `pre`, the rest `post`); each lesson needs the one before it, and every
    `catch_up_every`-th lesson needs three earlier ones (a catch-up probe)."""
    rng = random.Random(seed)
    names = _machine_names()
    made: list[tuple[int, int, str]] = []
    for p in range(1, phases + 1):
        phase_dir = root / "phases" / f"{p:02d}-workshop-{p}"
        for n in range(1, lessons + 1):
            machine = next(names)
            folder = phase_dir / f"{n:02d}-the-{machine}"
            (folder / "docs").mkdir(parents=True, exist_ok=True)
            earlier = [(pp, nn) for pp, nn, _ in made if pp == p]
            if earlier and n % catch_up_every == 0 and len(earlier) >= 3:
                needs = earlier[-3:]
            else:
                needs = earlier[-1:]
            prereq = (
                "None"
                if not needs
                else "; ".join(f"Phase {pp}, Lesson {nn:02d}" for pp, nn in needs)
            )
            parts = rng.sample(PARTS, items)
            body = [
                f"# The {machine.title()}",
                "",
                f"> Every {machine} is a set of parts that each do one job.",
                "",
                "**Type:** " + ("Build" if n % 2 else "Learn"),
                "**Language:** Python",
                f"**Prerequisites:** {prereq}",
                "",
                "## Learning Objectives",
                "",
                f"- Name what each part of the {machine} does",
                f"- Explain how the {machine} keeps its output even",
                "",
            ]
            for part in parts[:3]:
                body += [
                    f"## The {part.title()}",
                    "",
                    f"The {part} of the {machine} has one "
                    f"job, and the rest of the machine depends on it doing that job well. "
                    f"When the {part} fails, the {machine} stops or its output drifts.",
                    "",
                ]
            body += _common_mistakes(machine, seed)
            body += [
                "## Build It",
                "",
                f"Assemble the {machine} part by part, checking each "
                "one before the next is fitted, so a fault is found where it starts.",
                "",
            ]
            (folder / "docs" / "en.md").write_text("\n".join(body), encoding="utf-8")
            bank = [
                _item(
                    rng, machine, part, k, "pre" if k < items // 3 else "post", rng.random() < leaky
                )
                for k, part in enumerate(parts)
            ]
            (folder / "quiz.json").write_text(
                json.dumps({"questions": bank}, indent=1), encoding="utf-8"
            )
            made.append((p, n, machine))
    (root / "README.md").write_text(
        "# The Workshop\n\nA generated course of machines.\n", encoding="utf-8"
    )
    return root
