"""A second kind of generated curriculum: glossary lessons, for tests and benchmarks that must
not be tuned to the reference curriculum or to the workshop course (course_maker).

Each lesson names a handful of made-up terms of one subject (`weather`, `kitchen`); its document
has prose about each term, a `## Key Terms` table (what people say, what it actually means) and
a `## Common Mistakes` list. Its bank asks what a term means, which term a description names,
and why a term matters. Like real banks, most items leak their key by its length (the key is the
careful, long option; the distractors are short), so what is shown must be made fair from the
lesson itself. Deterministic for a seed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

SUBJECTS: dict[str, dict[str, list[str]]] = {
    "weather": {
        "adjectives": (
            "drifting cold sinking trapped polar coastal high veering dry humid low warm upper "
            "stalled rising"
        ).split(),
        "nouns": (
            "front ridge trough cell band layer gust plume shear haze squall eddy wave lobe vortex"
        ).split(),
        "things": [
            "air mass",
            "cloud deck",
            "pressure gradient",
            "sea breeze",
            "rain shadow",
            "jet streak",
            "dew surface",
            "inversion lid",
        ],
        "verbs": "lifts traps cools steers thins feeds splits slows".split(),
        "conditions": [
            "the ground loses heat overnight",
            "two currents meet over open water",
            "a slope forces the wind upward",
            "the sun warms the land faster than the sea",
            "moist air stalls below a warm layer",
            "the pressure falls quickly over a few hours",
        ],
    },
    "kitchen": {
        "adjectives": (
            "slow folded resting brown clear wet dry cold split whipped raw glossy thin sour sweet"
        ).split(),
        "nouns": (
            "roux stock glaze crumb emulsion brine crust reduction dough foam batter curd syrup "
            "paste jus"
        ).split(),
        "things": [
            "starch",
            "gluten web",
            "fat layer",
            "sugar syrup",
            "protein chain",
            "salt crust",
            "egg foam",
            "milk solid",
        ],
        "verbs": "binds thickens coats browns loosens holds softens sets".split(),
        "conditions": [
            "the pan is hotter than the boiling point",
            "the mixture rests in the fridge overnight",
            "an acid is added near the end",
            "the fat is cut in while still cold",
            "the liquid is stirred without pause",
            "the heat is lowered once it simmers",
        ],
    },
}


def _term(rng: random.Random, words: dict[str, list[str]], used: set[str]) -> str:
    while True:
        term = f"{rng.choice(words['adjectives'])} {rng.choice(words['nouns'])}"
        if term not in used:
            used.add(term)
            return term


def _meaning(rng: random.Random, words: dict[str, list[str]]) -> str:
    return (
        f"the {rng.choice(words['things'])} that {rng.choice(words['verbs'])} "
        f"the {rng.choice(words['things'])} when {rng.choice(words['conditions'])}"
    )


def _short_wrong(rng: random.Random, words: dict[str, list[str]]) -> list[str]:
    return [f"A kind of {noun}" for noun in rng.sample(words["nouns"], 3)]


def _items(
    rng: random.Random, words: dict[str, list[str]], terms: dict[str, str], leaky: float
) -> list[dict]:
    names = list(terms)
    bank: list[dict] = []
    for n, term in enumerate(names):
        key = terms[term][0].upper() + terms[term][1:]
        if rng.random() < leaky:
            wrong = _short_wrong(rng, words)
        else:
            wrong = [_meaning(rng, words).capitalize() for _ in range(3)]
        if n % 3 == 2:
            stem = f"Which term names {terms[term]}?"
            options, key = [term, *rng.sample([t for t in names if t != term], 3)], term
        else:
            stem = f"What does the {term} mean?"
            options = [key, *wrong]
        rng.shuffle(options)
        bank.append(
            {
                "id": f"{term.replace(' ', '-')}-{n}",
                "stage": "pre" if n < 2 else "post",
                "question": stem,
                "options": options,
                "correct": options.index(key),
                "explanation": f"The {term} is {terms[term]}.",
            }
        )
    return bank


def _document(
    title: str, prereq: str, terms: dict[str, tuple[str, str, str]], mistakes: list[str]
) -> str:
    lines = [f"# {title}", "", f"> {title} in a few words.", "", f"**Prerequisites:** {prereq}"]
    lines += ["", "## Learning Objectives", "", f"- Name the terms of {title.lower()}", ""]
    lines += ["## The Concept", ""]
    for term, (meaning, when, instead) in terms.items():
        lines += [
            f"### The {term.title()}",
            "",
            f"The {term} is {meaning}. It matters most when {when}. Without it, {instead}.",
            "",
        ]
    lines += ["## Common Mistakes", ""]
    lines += [f"- {m}" for m in mistakes]
    lines += ["", "## Key Terms", "", "| Term | What people say | What it actually means |"]
    lines += ["|------|----------------|----------------------|"]
    lines += [
        f'| {t} | "Just a {t.split()[-1]}" | {m[0].upper()}{m[1:]} |'
        for t, (m, _, _) in terms.items()
    ]
    return "\n".join(lines) + "\n"


def write_course(
    root: Path,
    subject: str,
    *,
    lessons: int = 14,
    terms: int = 6,
    leaky: float = 0.8,
    seed: int = 5,
) -> Path:
    """Write a glossary course about `subject` to `root`: one phase of `lessons` lessons, each
    needing the one before it and every third one needing three earlier ones."""
    rng = random.Random(seed)
    words = SUBJECTS[subject]
    used: set[str] = set()
    phase = root / "phases" / f"01-{subject}"
    for n in range(1, lessons + 1):
        mine = {
            _term(rng, words, used): (
                _meaning(rng, words),
                rng.choice(words["conditions"]),
                _meaning(rng, words),
            )
            for _ in range(2 * terms)
        }
        title = f"{subject.title()} {n}: the {next(iter(mine))}"
        needs = list(range(max(1, n - 3), n)) if n % 3 == 0 else ([n - 1] if n > 1 else [])
        prereq = "; ".join(f"Phase 1, Lesson {k:02d}" for k in needs) or "None"
        mistakes = [
            f"Treating the {t} as {_meaning(rng, words)}" for t in rng.sample(list(mine), 5)
        ]
        folder = phase / f"{n:02d}-{subject}-{n}"
        (folder / "docs").mkdir(parents=True, exist_ok=True)
        (folder / "docs" / "en.md").write_text(
            _document(title, prereq, mine, mistakes), encoding="utf-8"
        )
        quizzed = dict(list(mine.items())[:terms])  # the lesson names more terms than it asks
        bank = _items(rng, words, {t: m for t, (m, _, _) in quizzed.items()}, leaky)
        (folder / "quiz.json").write_text(json.dumps({"questions": bank}, indent=1), "utf-8")
    (root / "README.md").write_text(f"# {subject.title()}\n\nA generated glossary course.\n")
    return root
