"""Mechanical multiple-choice checks: each code fails a flawed item and passes its repair."""

from __future__ import annotations

import json

import pytest

from tutor.gates.codes import MCQ_CODES
from tutor.gates.envelopes import QuizQuestion
from tutor.gates.mcq import (
    audit_all,
    audit_batch,
    audit_item,
    has_key_example,
    is_code_or_math,
    mechanical_verdict,
    parse_number,
)
from tutor.gates.samples import QUESTIONS


def mcq(question: str, options: list[str], key: int, qid: str = "q") -> QuizQuestion:
    return QuizQuestion(id=qid, type="mcq", question=question, options=options, correct_index=key)


BALANCED = mcq(
    "Which structure gives constant-time lookups by key?",
    ["A sorted list", "A hash table", "A linked list", "A binary heap"],
    1,
)

# code -> (flawed item, repaired item); the flawed one has the code, the repaired one not.
ITEM_CASES: dict[str, tuple[QuizQuestion, QuizQuestion]] = {
    "M01": (
        mcq("Which structure gives constant-time lookups?", ["A list", "A hash table"], 1),
        BALANCED,
    ),
    "M02": (BALANCED.model_copy(update={"correct_index": 4}), BALANCED),
    "M04": (
        mcq(
            "What does a cache do?",
            [
                "Deletes files",
                "Keeps recent results close at hand for fast reuse",
                "Sorts rows",
                "Prints logs",
            ],
            1,
        ),
        mcq(
            "What does a cache do?",
            [
                "Deletes stale files",
                "Keeps recent results",
                "Sorts rows by key",
                "Prints debug logs",
            ],
            1,
        ),
    ),
    "M05": (
        mcq(
            "Which command lists files?",
            ["Compress the whole folder", "ls", "Open a brand new shell", "Reboot the machine"],
            1,
        ),
        mcq(
            "Which command lists files?",
            ["Compress the folder", "Run ls in it", "Open a new shell", "Reboot the box"],
            1,
        ),
    ),
    "M06": (
        mcq("Which are sorting methods?", ["Merge", "Quick", "Heap", "All of the above"], 3),
        mcq("Which is a stable sorting method?", ["Merge", "Quick", "Heap", "Shell"], 0),
    ),
    "M07": (
        mcq("Is a hash lookup constant time on average?", ["Yes", "No", "True", "False"], 0),
        BALANCED,
    ),
    "M08": (
        mcq("A ____ maps keys to values.", ["list", "hash table", "queue", "stack"], 1),
        mcq("What maps keys to values?", ["A list", "A hash table", "A queue", "A stack"], 1),
    ),
    "M09": (
        mcq("Which is NOT a sorting method?", ["Merge", "Quick", "Heap", "Hash"], 3),
        mcq("Which is a hashing method?", ["Merge", "Quick", "Heap", "Hash"], 3),
    ),
    "M10": (
        mcq("Which is a queue discipline?", ["FIFO", "LIFO", "fifo", "Random"], 0),
        mcq("Which is a queue discipline?", ["FIFO", "LIFO", "LRU", "Random"], 0),
    ),
    "M11": (
        mcq("How many bits are in a byte?", ["4", "8", "16", "2"], 1),
        mcq("How many bits are in a byte?", ["2", "4", "8", "16"], 2),
    ),
    "M12": (
        mcq("Which are linear structures?", ["Trees", "Graphs", "Lists", "A and C"], 3),
        mcq("Which is a linear structure?", ["Trees", "Graphs", "Lists", "Heaps"], 2),
    ),
    "M13": (
        mcq(
            "Which structure evicts the least recently used entry?",
            ["A FIFO queue", "A stack", "An LRU cache structure", "A heap"],
            2,
        ),
        mcq(
            "Which structure evicts the least recently used entry?",
            ["A FIFO queue", "A stack structure", "An LRU cache", "A heap"],
            2,
        ),
    ),
    "M14": (
        mcq(
            "Answer all three; reply like '1b, 2a, 3c'. Which maps keys?",
            ["A list", "A hash table", "A queue", "A stack"],
            1,
        ),
        mcq(
            "Answer all three with one letter each. Which maps keys?",
            ["A list", "A hash table", "A queue", "A stack"],
            1,
        ),
    ),
    "M15": (
        mcq(
            "What does a cache hold?",
            ["Old logs", "Usually recent results", "Source code", "User passwords"],
            1,
        ),
        mcq(
            "What does a cache hold?",
            ["Usually old logs", "Usually recent results", "Source code", "User passwords"],
            1,
        ),
    ),
    "M16": (
        mcq(
            "Is a hash table the structure behind Python dicts?",
            ["a hash table", "a b-tree", "a skip list", "a trie"],
            0,
        ),
        mcq(
            "Which structure is behind Python dicts?",
            ["a hash table", "a b-tree", "a skip list", "a trie"],
            0,
        ),
    ),
    "M17": (
        mcq("Which maps keys to values?", ["A list", "A hash table", " ", "A stack"], 1),
        BALANCED,
    ),
    "M19": (
        QuizQuestion(id="n", type="numeric", question="How many bits are in a byte?"),
        QuizQuestion(id="n", type="numeric", question="How many bits are in a byte?", answer=8),
    ),
    "M20": (
        QuizQuestion(id="f", type="free_recall", question="Which of the following is a trie?"),
        QuizQuestion(id="f", type="free_recall", question="What is a trie?"),
    ),
}


def test_m20_reads_a_bank_stem_not_a_screen_quoting_the_learner():
    screen = "What is a trie?\n  Your answer: both of these, which of these is it\n\nA point."
    assert "M20" not in codes(audit_item(QuizQuestion(id="s", type="free_recall", question=screen)))
    plain = QuizQuestion(id="p", type="free_recall", question="Which of these is slowest?")
    assert "M20" in codes(audit_item(plain))
    common = QuizQuestion(id="c", type="free_recall", question="Why do both of these matter?")
    assert "M20" not in codes(audit_item(common))


@pytest.mark.parametrize(
    "stem",
    [
        "Which statement about the harmonic minor scale is correct?",
        "Which statement about the end of the war is true?",
        "Which statements are accurate?",
        "Which one is false?",
        "Which answer is NOT correct?",
        "Which option best describes a plagal cadence?",
        "Which statement best describes the first consuls?",
        "Which is true of a perfect fourth?",
        "Which of the statements below is incorrect?",
    ],
)
def test_m20_reads_which_statement_is_true_as_pointing_at_options(stem: str) -> None:
    """A 'which statement (option, answer, one) … is true/correct/false' stem judges options:
    asked without them it cannot be answered, so as free recall it is withheld (M20, high)."""
    issues = audit_item(QuizQuestion(id="w", type="free_recall", question=stem))
    assert [i.severity for i in issues if i.code == "M20"] == ["high"]


@pytest.mark.parametrize(
    "stem",
    [
        "Which statement did the consul make before the Senate?",
        "Which one of the two consuls led the army north?",
        "Which assembly elected the consuls?",
        "What is the correct name of the fifth degree?",
        # the program's own screens quote a bank stem on a line of their own
        "You were sure about: Which statement about the war is true?\nWhy? Give your reasoning.",
        "Which statement about the war is true?\n  Your answer: the second is correct\n\nA point.",
    ],
)
def test_m20_leaves_stems_that_stand_alone_and_the_programs_screens(stem: str) -> None:
    assert "M20" not in codes(audit_item(QuizQuestion(id="s", type="free_recall", question=stem)))


def codes(issues) -> set[str]:
    return {i.code for i in issues}


def test_every_item_code_has_a_case():
    item_codes = {c for c, (_, scope, _) in MCQ_CODES.items() if scope == "item"}
    assert set(ITEM_CASES) | {"M00"} == item_codes  # M00 is the quiz-bank reader's


@pytest.mark.parametrize("code", sorted(ITEM_CASES))
def test_item_code(code):
    flawed, repaired = ITEM_CASES[code]
    assert code in codes(audit_item(flawed))
    assert code not in codes(audit_item(repaired))
    found = [i for i in audit_item(flawed) if i.code == code][0]
    assert found.severity == MCQ_CODES[code][0]
    assert found.id == flawed.id and found.problem and found.suggested_fix


def test_balanced_items_pass():
    assert audit_item(BALANCED) == []
    assert audit_all(QUESTIONS) == []
    assert mechanical_verdict(QUESTIONS).verdict == "PASS"


def test_key_position_spread_in_batches_of_three():
    same = [q.model_copy(update={"id": f"s{n}"}) for n, q in enumerate([BALANCED] * 3)]
    assert codes(audit_batch(same)) == {"M03"}
    assert len(audit_batch(same)) == 3
    assert audit_batch(same[:2]) == []  # fewer than 3: no spread rule
    assert audit_batch(QUESTIONS) == []  # keys 0, 2, 1


def test_duplicate_ids_in_a_batch():
    issues = audit_batch([BALANCED, BALANCED.model_copy(update={"correct_index": 1})])
    assert codes(issues) == {"M18"}
    assert mechanical_verdict([BALANCED, BALANCED]).verdict == "ISSUES"


def test_length_tolerance_lets_a_slightly_longer_key_pass():
    item = mcq(
        "What does a cache hold?",
        ["Old server logs", "Recent results", "Program source", "User passwords!"],
        1,
    )
    assert audit_item(item) == []
    longer_by_little = mcq(
        "What does a cache hold?",
        ["Old server logs", "Recent results.", "Program source", "User data"],
        1,
    )
    assert "M04" not in codes(audit_item(longer_by_little))


def test_code_and_numeric_options_are_exempt_from_length():
    code = mcq(
        "Which call clears gradients?",
        ["opt.step()", "loss.backward()", "optimizer.zero_grad(set_to_none=True)", "model.eval()"],
        2,
    )
    assert "M04" not in codes(audit_item(code))
    numbers = mcq("What is 1/3 to four places?", ["0.3333", "0.3", "0.33", "0.333"], 0)
    assert "M04" not in codes(audit_item(numbers))
    assert is_code_or_math("Var(w) = 2/fan_in")
    assert not is_code_or_math("Runs train.py and keeps the errors")


def test_stem_word_echo_uses_word_boundaries():
    # "data" in the stem must not match "database" in a distractor, nor "date" in the key
    item = mcq(
        "Which store keeps data on disk?",
        ["A database in memory", "A file on disk", "A CPU register", "A date cache"],
        1,
    )
    assert "M13" in codes(audit_item(item))
    subword = mcq(
        "Which store keeps rows on disk?",
        ["A rowset in memory", "A file kept there", "A CPU register", "A cache"],
        1,
    )
    assert "M13" not in codes(audit_item(subword))


def test_combinations_and_negatives_are_not_overmatched():
    item = mcq(
        "What happens to precision and recall when the threshold drops?",
        [
            "Both rise",
            "Recall rises, precision falls",
            "Precision rises, recall falls",
            "Neither changes at all",
        ],
        1,
    )
    assert "M12" not in codes(audit_item(item))
    stem = mcq(
        "What is the chance of at least one false positive in 20 tests?",
        ["5%", "25%", "64%", "95%"],
        2,
    )
    assert "M09" not in codes(audit_item(stem))
    assert "M12" in codes(audit_item(mcq("Pick one", ["X", "Y", "Z", "Both B and C"], 0)))


def test_numeric_and_free_recall_items_skip_option_checks():
    numeric = QuizQuestion(
        id="n", type="numeric", question="How many bits in a byte?", options=["8", "4"], answer=8
    )
    assert audit_item(numeric) == []
    recall = QuizQuestion(id="r", type="free_recall", question="Explain hashing in your words.")
    assert audit_item(recall) == []
    blank = QuizQuestion(id="r", type="free_recall", question="A ___ maps keys.")
    assert codes(audit_item(blank)) == {"M08"}


def test_helpers():
    assert parse_number("1,024 KB") == (1024.0, "KB")
    assert parse_number("-0.5") == (-0.5, "")
    assert parse_number("about five") is None
    assert has_key_example("Reply like '1b, 2b, 3c'")
    assert has_key_example('e.g. "b"')
    assert not has_key_example("Pick a, b, c or d for each question.")


def test_corpus_length_leak_is_caught(corpus_root):
    items = 0
    flagged = 0
    for path in sorted(corpus_root.glob("phases/*/*/quiz.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        raw = data["questions"] if isinstance(data, dict) else data
        for n, q in enumerate(raw):
            item = mcq(q["question"], q["options"], q["correct"], qid=f"{path.parent.name}-{n}")
            items += 1
            flagged += "M04" in codes(audit_item(item))
    assert items >= 300
    assert flagged / items > 0.75  # the README's "pick the longest" leak, caught
