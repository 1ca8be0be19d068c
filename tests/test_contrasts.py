"""Contrast sets (tutor.engine.contrasts): a repaired choice whose key holds two words with an
opposite is asked with the key crossed with its own turned words — options of the key's kind,
form and topic, none set apart from the rest — before any lesson statement is lent."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sluice_course import sluice_course

from learning_system.curriculum import QuizItem, load_curriculum
from tutor.engine import guessing, items
from tutor.engine.contrasts import contrast_sets, turns


def _item(question: str, key: str) -> QuizItem:
    return QuizItem(index=0, id="q", question=question, options=[key, "A", "B", "C"], correct=0)


def test_a_contrast_set_crosses_two_turned_words_and_sets_no_option_apart() -> None:
    key = "It lets more water through, so the pond fills faster"
    (options,) = contrast_sets(_item("What does a sluice gate do when it is raised?", key), 1)
    assert options[0] == key
    assert len({o.lower() for o in options}) == 4
    assert {"more", "less"} <= {w for o in options for w in o.split()}
    words = Counter(w for o in options for w in set(o.replace(",", "").split()))
    # every word of a turned pair is in exactly two options: no option is the odd one out
    assert all(words[w] == 2 for w in ("more", "less", "faster", "slower")), words
    changed = [sum(a != b for a, b in zip(key.split(), o.split(), strict=True)) for o in options]
    assert sorted(changed) == [0, 1, 1, 2]
    # neither the answer's kind, form or length, its topic nor the options' agreement sets the
    # key apart (letter-level likeness is left to the admission, weighed over the phase)
    tells = frozenset(guessing.strategy_scores("q", options)) - {"closest_pair"}
    assert guessing.guessable_by("What does a sluice gate do?", options, 0, among=tells) == []


def test_words_the_stem_uses_and_words_with_their_opposite_are_not_turned() -> None:
    stem_says = _item("Why does the pond level get lower?", "More water leaves than enters")
    assert [t[0][2] for t in turns(stem_says.options[0], stem_says.question)] == ["Less"]
    assert contrast_sets(stem_says, 4) == []  # one word left to turn: no set
    both = "The forward and backward passes take more time than loading"
    assert [t[0][2] for t in turns(both, "What dominates a step?")] == ["less"]
    assert turns("A high-cardinality feature splits more", "What?") == [[(34, 38, "less")]]


def test_an_article_agrees_with_the_word_turned_after_it() -> None:
    """ "an increase" turned is "an decrease" no more: an option whose grammar breaks is struck
    by a learner who knows nothing."""
    key = "It gives an increase in flow and a larger pond"
    (options,) = contrast_sets(_item("What does the mill do?", key), 1)
    assert set(options) == {
        key,
        "It gives a decrease in flow and a larger pond",
        "It gives an increase in flow and a smaller pond",
        "It gives a decrease in flow and a smaller pond",
    }


def test_push_and_pull_are_not_turned_when_the_key_gives_the_direction() -> None:
    """ "which pulls strongly towards it" turned is "which pushes strongly towards it": moving
    towards the same place, the same claim — a second defensible answer. With the direction
    given, the verb is not turned (the other words still are); without one, it is."""
    key = "A note a step below the home note, which pulls strongly towards it"
    item = _item("Why does this note lead so strongly?", key)
    assert [[s[2] for s in t] for t in turns(key, item.question)] == [["above"]]
    assert contrast_sets(item, 4) == []  # one word left to turn: no set
    assert "pushes" in {s[2] for t in turns("It pulls the rope and lifts more", "What?") for s in t}


def test_whole_numbers_from_two_turn_doubled_and_one_does_not() -> None:
    found = turns("Each of the 3 rows sums to 1 and grows", "What holds?")
    assert [[s[2] for s in t] for t in found] == [["columns"], ["shrinks"], ["6"]]


def test_a_flawed_item_with_a_turnable_key_is_asked_with_its_contrast_set(tmp_path: Path) -> None:
    key = "It lets more water through, so the pond fills faster"
    course = load_curriculum(sluice_course(tmp_path / "turnable", "A sluice is old.", key))
    lesson = course.lessons[0]
    (shown,) = items.present(lesson.quiz, lesson, salt="s", curriculum=course)
    assert shown.type == "mcq" and "opposites" in shown.note
    assert sorted(shown.options) == sorted(contrast_sets(lesson.quiz[0], 1)[0])
    assert shown.options[shown.correct_index] == key
    # the control: with nothing to turn and a lesson that lends nothing fair, free recall
    plain = load_curriculum(
        sluice_course(tmp_path / "plain", "A sluice is old.", "It lets water through the gap below")
    )
    lesson = plain.lessons[0]
    (shown,) = items.present(lesson.quiz, lesson, salt="s", curriculum=plain)
    assert shown.type == "free_recall"
