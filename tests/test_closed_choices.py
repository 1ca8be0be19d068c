"""Closed sets and answer kinds: an item whose every option is an answer of one kind that other
items of its phase have as keys or options (the account types of a ledger) is asked as a choice
when no strategy finds its key — and refused when one option is the key far more often than the
rest, which a frequency learner would pick; and a stem asking for a reason whose key alone is a
reason is found by elimination (the `answer_kind` strategy), which repair avoids and the
admission weighs."""

from __future__ import annotations

import json
from pathlib import Path

from guessers_driver import run_guessers
from sluice_course import sluice_course

from learning_system.curriculum import load_curriculum
from tutor.engine import admission, guessing, items, repair
from tutor.engine.answer_kinds import answer_kind, asked_kind
from tutor.testing.ledger_maker import write_ledger_course

COLOURS = ["amber", "coral", "ivory", "olive", "peach", "slate"]  # one kind, one length


def _dye_course(tmp_path: Path, keys: list[str]) -> Path:
    """One lesson whose bank asks, per item, which colour marks an event; item n's key is
    keys[n] and its distractors are the next three colours after it (a closed set)."""
    folder = tmp_path / "course" / "phases" / "01-p" / "01-the-dye-works"
    (folder / "docs").mkdir(parents=True)
    doc = "# The Dye Works\n\n> Each event has its colour.\n\n## The Colours\n\n"
    doc += "".join(f"Event {n} is marked {k}. " for n, k in enumerate(keys)) + "\n"
    (folder / "docs" / "en.md").write_text(doc, encoding="utf-8")
    bank = []
    for n, key in enumerate(keys):
        at = COLOURS.index(key)
        options = [COLOURS[(at + d + n % 2) % len(COLOURS)] for d in (1, 2, 3)]
        options.insert(n % 4, key)
        bank.append(
            {
                "id": f"dye-{n}",
                "stage": "post",
                "question": f"Which colour marks event {n} at the dye works?",
                "options": options,
                "correct": n % 4,
                "explanation": f"Event {n} is marked {key}.",
            }
        )
    (folder / "quiz.json").write_text(json.dumps(bank), encoding="utf-8")
    return tmp_path / "course"


def _forms(root: Path) -> dict[str, items.Form]:
    curriculum = load_curriculum(root)
    forms, _ = items.phase_forms(curriculum, curriculum.lessons[0])
    return forms


def _frequency_hits(forms: dict[str, items.Form]) -> float:
    """What "pick the option most often another admitted item's key" finds, per admitted
    item."""
    keys: dict[str, set[str]] = {}
    for item_id, (options, key, _) in forms.items():
        keys.setdefault(repair.norm(options[key]), set()).add(item_id)
    return sum(
        guessing.chance_of_key(
            [float(len(keys.get(repair.norm(o), set()) - {item_id})) for o in options], key
        )
        for item_id, (options, key, _) in forms.items()
    )


def test_a_fair_closed_set_is_asked_as_a_choice(tmp_path: Path) -> None:
    """Every option is another item's key, some colours more often than others, and the
    lesson's sets let the admission keep the key from being the option seen most, or least,
    as a key elsewhere: the items are choices (before, none was: a distractor that is another
    item's key sent each to repair, which cannot lend to a one-word key). Were each colour the
    key equally often, striking the option seen most elsewhere would win: an item's own key is
    seen one time fewer than the rest."""
    keys = [c for c, n in zip(COLOURS, (3, 3, 2, 2, 1, 1), strict=True) for _ in range(n)]
    forms = _forms(_dye_course(tmp_path, keys))
    assert len(forms) >= 10, forms
    assert {how for _, _, how in forms.values()} == {"closed"}
    assert _frequency_hits(forms) <= guessing.ADMIT_CAP * len(forms) + admission.SLACK


def test_a_closed_set_whose_key_is_one_option_far_more_often_is_refused(tmp_path: Path) -> None:
    """ "amber" is the key of nine items of twelve: a learner picking the option seen most as a
    key would find them, so the admission keeps no more of them than chance allows."""
    keys = ["amber"] * 9 + ["coral", "ivory", "olive"]
    forms = _forms(_dye_course(tmp_path, keys))
    ambers = [i for i, (o, k, _) in forms.items() if o[k] == "amber"]
    assert len(ambers) <= guessing.ADMIT_CAP * len(forms) + admission.SLACK + 1, forms
    assert len(forms) < len(keys)
    assert _frequency_hits(forms) <= guessing.ADMIT_CAP * len(forms) + admission.SLACK


def test_the_kind_of_answer_a_stem_asks_for_is_a_strategy() -> None:
    """A "why" stem whose key alone is a reason, and a "what does X do" stem whose key alone is
    an action, are answered by elimination; with distractors of the key's kind they are not."""
    why = "Why does the miller close the sluice at night?"
    assert asked_kind(why) == "reason"
    facts = [
        "Because the pond must fill before the morning grinding",
        "The sluice is a wooden gate set in the mill race",
        "A mill pond holds the water above the wheel",
        "The race is the channel that feeds the wheel",
    ]
    assert "answer_kind" in guessing.guessable_by(why, facts, 0)
    reasons = [
        facts[0],
        "Because the wheel would otherwise turn with no grain on the stones",
        "Because floating branches come down the race in the dark",
        "Because the lower field floods when the gate stays open",
    ]
    assert "answer_kind" not in guessing.guessable_by(why, reasons, 0)
    # a result clause gives a reason as "because" does: the key alone saying one is found
    result = "The gate shuts at dusk, making the pond fill before morning"
    assert answer_kind(result) == "reason"
    assert "answer_kind" in guessing.guessable_by(why, [result, *facts[1:]], 0)
    does = "What does the forward pass do?"
    assert asked_kind(does) == "action"
    assert answer_kind("Pushes the input through each layer to the output") == "action"
    assert answer_kind("Neurons whose input is always negative") != "action"
    assert asked_kind("How many stones does the mill turn?") == "number"
    assert answer_kind("3 stones") == "number"


WHY_CONCEPT = (
    "It keeps the pond full so that the morning grinding can start early. "
    "It stops floating branches because they come down the race at night. "
    "It spares the lower field so the water does not flood the young wheat. "
    "It is a wooden gate with iron hinges that is set in the mill race. "
    "It is the oldest part of the mill and was built by the first miller. "
    "It is painted red every spring by the miller and his two young sons. "
)


def test_repair_lends_distractors_of_the_kind_the_stem_asks_for(tmp_path: Path) -> None:
    """A "why" item whose own distractors are one-word names is repaired from its lesson: its
    best set lends reasons like its key, though the lesson offers facts of the same length and
    opening ("It is …") that a learner who knows nothing would strike (the sets after it, with
    a fact, are the admission's to weigh by the answer_kind strategy)."""
    key = "It saves the stones, so they do not grind with no one near"
    root = sluice_course(
        tmp_path,
        WHY_CONCEPT,
        key,
        "Why does the miller close the sluice at night?",
        item_id="sluice-night",
        explanation="An untended mill can burn.",
    )
    lesson = load_curriculum(root).lessons[0]
    facts = [d.text for d in repair.donors(lesson) if d.text.startswith("It is")]
    assert len(facts) >= 3 and all(answer_kind(t) != "reason" for t in facts)
    found = repair.repairs(lesson.quiz[0], lesson, repair.donors(lesson), limit=4)
    assert found
    best = found[0]  # the lesson says three reasons: the best set lends all of them
    assert [answer_kind(o) for o in best] == ["reason"] * 4, best
    question = lesson.quiz[0].question
    assert not guessing.guessable_by(question, best, 0, among=frozenset({"answer_kind"}))


def test_the_ledger_course_is_asked_in_fair_choices(tmp_path: Path) -> None:
    """bench/guessers.py on the generated ledger, whose choices are closed sets of column names:
    at least half of what its sessions present are choices (none were while a distractor that
    is another item's key sent every item to repair), and no strategy — the frequency learners
    (the option most or least often revealed as a key, the one shown most), the answer kind and
    the test-wise learner included — finds more than 30% of the keys."""
    root = write_ledger_course(tmp_path / "ledger")
    share, lines, out = run_guessers(root)
    assert share >= 50, out
    rates = {
        line.split()[0]: float(line.split()[-1].rstrip("%"))
        for line in lines
        if line.startswith("    ")
    }
    for name in ("seen_key", "strike_seen_key", "most_shown", "answer_kind", "testwise"):
        assert name in rates, out
    assert max(rates.values()) <= 30.0, out
