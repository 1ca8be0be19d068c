"""Choices that need knowledge: a presented choice's distractors come from its own lesson and are
never another item's key; an item its lesson cannot make fair is asked another way; and no
no-knowledge strategy finds the keys of what a session presents, whatever its seed — checked on
generated courses unlike the reference curriculum (bench/guessers.py, run as a learner's
session loads lessons)."""

from __future__ import annotations

import importlib
import json
import random
from pathlib import Path

import pytest
from guessers_driver import run_guessers
from sluice_course import sluice_course

from learning_system.curriculum import Curriculum, load_curriculum
from tutor.commands.items import presented_items
from tutor.engine import admission, guessing, items, option_forms, option_sets, repair
from tutor.gates import mcq
from tutor.testing import glossary_course

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ("s-alpha", "s-beta", "s-gamma")


def lent_texts(tmp_path: Path, concept: str) -> set[str]:
    """What the one-lesson course with this concept section lends, each text as compared."""
    lesson = load_curriculum(sluice_course(tmp_path, concept)).lessons[0]
    return {d.norm for d in repair.donors(lesson)}


@pytest.fixture(scope="module")
def glossary(tmp_path_factory) -> Path:
    return glossary_course.write_course(tmp_path_factory.mktemp("g") / "weather", "weather")


@pytest.fixture(scope="module")
def session_load():
    """`load_curriculum` as a learner's session loads a lesson (`only`: it and its
    prerequisites), each lesson once for the module: what a session presents is chosen over the
    loaded phase whatever its seed, and choosing it is most of these tests' time."""
    loaded: dict[tuple[Path, tuple[str, ...]], Curriculum] = {}

    def load(root: Path, only: list[str] | None = None) -> Curriculum:
        if only is None:
            return load_curriculum(root)
        key = (root, tuple(only))
        if key not in loaded:
            loaded[key] = load_curriculum(root, only=only)
        return loaded[key]

    return load


def _keys(root: Path) -> dict[str, str]:
    """Every bank item's key (normalised) → its item id, over the whole course."""
    whole = load_curriculum(root)
    return {
        repair.norm(q.options[q.correct]): q.id
        for lesson in whole.lessons
        for q in lesson.quiz
        if 0 <= q.correct < len(q.options)
    }


def _distractors_that_are_keys(
    root: Path, lesson_ids: list[str], seeds: tuple[str, ...], load=load_curriculum
) -> list[str]:
    """What sessions of each seed present, each lesson loaded once as a learner's session loads
    it (the option sets are chosen over the loaded phase, whatever the seed)."""
    keys = _keys(root)
    found = []
    for ref in lesson_ids:
        curriculum = load(root, only=[ref])
        for seed in seeds:
            for _, p in presented_items(curriculum, curriculum.lesson(ref), seed):
                if p.type != "mcq":
                    continue
                for n, option in enumerate(p.options):
                    owner = keys.get(repair.norm(option))
                    if n != p.correct_index and owner is not None and owner != p.id:
                        found.append(f"{seed} {ref} {p.id}: {option!r} is the key of {owner}")
    return found


def test_no_presented_distractor_is_another_items_key(glossary: Path, session_load) -> None:
    lessons = [x.id for x in load_curriculum(glossary).lessons]
    assert _distractors_that_are_keys(glossary, lessons, SEEDS, session_load) == []


def test_no_presented_distractor_is_another_items_key_on_the_corpus(corpus_root: Path) -> None:
    lessons = ["P1 L03", "P2 L03", "P2 L10", "P3 L12"]
    assert _distractors_that_are_keys(corpus_root, lessons, ("s-corpus",)) == []


FAIR_CONCEPT = (
    "It holds the channel shut while the upper pond fills. "
    "It keeps floating branches out of the wheel below the race. "
    "It lowers the level of the mill pond in a dry summer. "
    "It sends the spare flow around the wheel into the ditch. "
    "It sets the depth of the water that reaches the far field."
)


def test_an_item_its_lesson_cannot_make_fair_is_asked_another_way(tmp_path: Path) -> None:
    bare = load_curriculum(sluice_course(tmp_path / "bare", "A sluice is old."))
    lesson = bare.lessons[0]
    (shown,) = items.present(lesson.quiz, lesson, salt="s", curriculum=bare)
    assert shown.type == "free_recall"
    assert "quiz rules" in shown.note
    # the control: the same item, when its lesson says enough of the same kind, has fair
    # option sets whose distractors are the lesson's own statements, never a one-word option
    rich = load_curriculum(sluice_course(tmp_path / "rich", FAIR_CONCEPT))
    lesson = rich.lessons[0]
    found = repair.repairs(lesson.quiz[0], lesson, repair.donors(lesson), limit=3)
    assert found
    said = {repair.norm(s) for s in FAIR_CONCEPT.split(". ")}
    for options in found:
        assert all(repair.norm(o) in said for o in options[1:]), options


@pytest.mark.parametrize(
    "question",
    [
        "Which statement about the gate of a sluice is true?",
        "Which of the following is correct about the raised gate?",
        "Which statement about the raised gate is false?",
    ],
)
def test_a_stem_asking_which_statement_is_true_is_never_lent_true_statements(
    tmp_path: Path, question: str
) -> None:
    """The lesson's statements are true: lent beside the key of a stem asking which statement
    is true (or false), each is a second defensible answer. Such an item is not repaired; asked
    without its options it points at them (M20), so it is withheld, not shown."""
    root = sluice_course(tmp_path, FAIR_CONCEPT, question=question)
    course = load_curriculum(root)
    lesson = course.lessons[0]
    (shown,) = items.present(lesson.quiz, lesson, salt="s", curriculum=course)
    said = {repair.norm(x) for x in FAIR_CONCEPT.split(". ")}
    assert shown.type == "free_recall"
    assert not said & {repair.norm(o) for o in shown.options}
    issues = mcq.blocking(mcq.audit_item(shown.to_question()))
    assert [i.code for i in issues] == ["M20"]
    assert option_sets.option_sets(lesson.quiz[0], lesson, {}, {}, frozenset()).offered()[0] == []
    # the control: asked what the gate does, the same key is lent the lesson's statements
    plain = load_curriculum(sluice_course(tmp_path / "plain", FAIR_CONCEPT)).lessons[0]
    lent = option_sets.option_sets(plain.quiz[0], plain, {}, {}, frozenset()).lent
    assert lent and all(said >= {repair.norm(o) for o in options[1:]} for options, _ in lent)


def test_a_statement_saying_another_items_key_is_never_lent(tmp_path: Path) -> None:
    """A document sentence that says what another item's key says (a second key) is not lent,
    even when it fits the length and form better than anything else."""
    texts = lent_texts(tmp_path, FAIR_CONCEPT + " It lets water through at a rate its height sets.")
    assert "it lets water through at a rate its height sets" not in texts
    assert "it keeps floating branches out of the wheel below the race" in texts


def test_guessers_bench_holds_on_generated_courses_across_seeds(
    glossary: Path, session_load, monkeypatch
) -> None:
    """bench/guessers.py, over what sessions of three seeds present on a generated course: the
    best no-knowledge strategy (length, shape, stem and title words, odd one out, options seen
    as keys, a test-wise learner trained on other lessons) stays within its ceiling. Run in this
    process, each lesson loaded once for every seed and the test above (its command line runs
    in the test on a course of another subject)."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    guessers = importlib.import_module("guessers")
    monkeypatch.setattr(guessers, "load_curriculum", session_load)
    lines: list[str] = []
    guessers.measure("weather", glossary, 3, 10_000, lines.append)
    best = next(line for line in lines if "best strategy:" in line)
    rate = float(best.split("best strategy:")[1].split()[1].rstrip("%")) / 100
    assert rate <= 0.30, "\n".join(lines)


def _offer(n: int, key: str, wrong: list[str]) -> tuple[str, admission.Offer]:
    question = f"What does part {n} of the mill do?"
    return f"q{n}", admission.Offer(question, "The Mill", "L1", [([key, *wrong], 0)])


def test_remarks_and_inflected_second_keys_are_never_lent(tmp_path: Path) -> None:
    """A sentence about the lesson itself or leaning on the one before it answers no stem (a
    learner who knows nothing strikes it), and one saying the key's words in other endings
    ("sets the rates" for "rate set") is a second key: neither is lent."""
    remarks = (
        " Gates that open by hand are coming in Lesson 04."
        " This keeps the wheel turning through the whole night."
        " It sets the rates at which all the waters pass through."
        " See code/sluice.py for the whole gate with its chain and weights."
        " The chain is the part that beginners most often get wrong."
    )
    lesson = load_curriculum(sluice_course(tmp_path, FAIR_CONCEPT + remarks)).lessons[0]
    texts = {d.norm for d in repair.donors(lesson)}
    assert "it keeps floating branches out of the wheel below the race" in texts
    assert "gates that open by hand are coming in lesson 04" not in texts
    assert "this keeps the wheel turning through the whole night" not in texts
    assert not any(t.startswith(("see code/", "the chain is")) for t in texts), texts
    item = lesson.quiz[0]
    for options in repair.repairs(item, lesson, repair.donors(lesson), limit=12):
        assert "it sets the rates at which all the waters pass through" not in map(
            repair.norm, options
        )


PHRASES = (
    "A channel held shut while the upper pond fills up. "
    "A screen that keeps floating branches out of the wheel. "
    "A lower level of the mill pond in a dry summer. "
    "A spare flow sent around the wheel into the ditch. "
)
SET_APART = (  # a sentence to the reader, a label, a lead-in, an instruction, a claim of all
    "You raise the gate by its chain before the pond fills. "
    "Miller's rule: a flow turned aside into the ditch at night. "
    "And a race kept wet through the dry months of summer. "
    "Build a frame of oak that holds the gate in the race. "
    "Every wheel below the race turns the stones of the mill. "
)


def test_options_set_apart_by_their_look_are_never_lent_beside_a_phrase(tmp_path: Path) -> None:
    """Beside a key that is a phrase, a sentence to the reader, a `Name: …` label, an `And …`
    lead-in, an instruction or an `Every …` claim stands out by its look alone (a learner who
    knows nothing strikes it): none is lent. What the label and the lead-in leave is a phrase
    of its own, and is."""
    root = sluice_course(
        tmp_path,
        PHRASES + SET_APART,
        key="The depth of water let into the race below the mill",
        question="What does the gate of a sluice set when it is raised?",
    )
    lesson = load_curriculum(root).lessons[0]
    found = repair.repairs(lesson.quiz[0], lesson, repair.donors(lesson), limit=12)
    lent = {repair.norm(o) for options in found for o in options[1:]}
    assert "a flow turned aside into the ditch at night" in lent
    assert "a race kept wet through the dry months of summer" in lent
    apart = [s for s in SET_APART.split(". ") if s]
    assert not lent & {repair.norm(s) for s in apart}, lent
    assert "phrase" not in {option_forms.form(s)[0] for s in apart}
    # a phrase going on after a colon is no label; an instruction is one by its verb's ending too
    assert option_forms.form("A single number: the sum of paired entries")[0] == "phrase"
    assert option_forms.form("They are orthogonal: their directions are unrelated")[0] == "it"
    assert option_forms.form("Standardise each input to a similar scale")[0] == "do"


def test_numbered_steps_are_statements_of_their_own(tmp_path: Path) -> None:
    """A numbered list's items are whole statements, as a bulleted list's are: never run
    together with the next item's number ("… until the pond drains 2")."""
    steps = (
        "\n\n1. Lift the gate by its chain until the pond drains"
        "\n2. Clear the branches caught in the screen below it\n"
    )
    texts = lent_texts(tmp_path, FAIR_CONCEPT + steps)
    assert "lift the gate by its chain until the pond drains" in texts
    assert "clear the branches caught in the screen below it" in texts


def test_a_clause_before_a_comma_is_no_lead_in(tmp_path: Path) -> None:
    """ "In a dry summer, X" lends X; "It keeps the wheel wet, the stones cool …" does not lend
    its fragment "The stones cool …" (a learner who knows nothing strikes a fragment)."""
    said = (
        " In a dry summer, the miller closes the gate at noon."
        " It keeps the wheel wet, the stones cool and the race clear of mud."
    )
    texts = lent_texts(tmp_path, FAIR_CONCEPT + said)
    assert "the miller closes the gate at noon" in texts
    assert not any(t.startswith("the stones cool") for t in texts), texts


def test_striking_the_options_off_the_question_is_a_strategy_the_admission_weighs() -> None:
    options = [
        "The gate lets water through",
        "A wheel turns the stone",
        "Branches float down the race",
        "Mud settles in the pond",
    ]
    found = guessing.guessable_by("What does the gate of a sluice do?", options, 0)
    assert "strike_off_topic" in found


def _mill_bank(words: tuple[str, str, str, str]) -> dict[str, tuple[list[str], int]]:
    """Twelve items each offering one set: the key says `words[0]`, the distractors the rest
    (with gate names that even out the lengths)."""
    made = admission.Admission()
    for n in range(12):
        key = f"It {words[0]} turns wheel {n} at the lower gate"
        wrong = [
            f"It {w} turns wheel {n} at the {gate} gate"
            for w, gate in zip(words[1:], ("back", "inner", "middle"), strict=True)
        ]
        question = f"What does part {n} of the mill do?"
        made.offer(f"q{n}", admission.Offer(question, "The Mill", "L1", [([key, *wrong], 0)]))
    return made.settle()


_MILL = (
    "gate wheel race pond stone chain weight ditch field water flow board oak iron sluice".split()
)


@pytest.mark.parametrize("seed", [*range(6), 18, 21])
def test_the_admission_leaves_out_no_item_that_fits_under_the_cap(seed: int) -> None:
    """Dropping is greedy, one item at a time: once the strategies are under the cap, every
    item left out is one whose taking back would put a strategy over it (seeds 18 and 21 left
    out items that fitted, before dropped items were taken back)."""
    rng = random.Random(seed)
    made = admission.Admission()
    for n in range(30):
        sets = []
        for _ in range(2):
            texts = [" ".join(rng.choices(_MILL, k=rng.randint(3, 9))) for _ in range(4)]
            sets.append(([t.capitalize() for t in texts], rng.randrange(4)))
        made.offer(f"q{n}", admission.Offer(f"What does part {n} do?", "The Mill", "L1", sets))
    admitted = made.settle()
    assert len(admitted) >= 20
    for item_id in made.offers.keys() - admitted.keys():
        assert made.fits_back(item_id) is None, item_id
    for name, capped in zip(made.names, made.capped, strict=True):
        hits = sum(
            guessing.placed_weights(made.offers[i].question, o, k, "The Mill")[name]
            for i, (o, k) in admitted.items()
        )
        assert not capped or hits <= guessing.ADMIT_CAP * len(admitted) + admission.SLACK


def test_the_admission_holds_the_hedged_key_to_the_cap() -> None:
    """A bank whose keys are each the one hedged option ("often") among options that admit no
    exception ("always", "never", "only"): a test-wise learner picks the hedged one, so the
    admission keeps only as many as the cap allows, and names the tell."""
    hedged = _mill_bank(("often", "always", "never", "only"))
    hits = sum(
        guessing.guess_weights(f"What does part {i[1:]} of the mill do?", o, k, "The Mill")[
            "hedged"
        ]
        for i, (o, k) in hedged.items()
    )
    assert hits <= guessing.ADMIT_CAP * len(hedged) + admission.SLACK
    assert len(hedged) <= 1
    options = ["It often turns it", "It always turns it", "It never turns it", "It only turns it"]
    assert "hedged" in guessing.guessable_by("What does it do?", options, 0)


@pytest.mark.parametrize("subject", ["kitchen"])
def test_a_testwise_learner_gains_nothing_on_a_generated_course(tmp_path: Path, subject) -> None:
    """bench/guessers.py on a glossary course of another subject: at least half of what the
    sessions present are choices, and neither the best single strategy nor the test-wise learner
    trained on the other lessons' revealed keys finds more than GUESS_CEILING of the keys."""
    root = glossary_course.write_course(tmp_path / subject, subject, seed=11)
    share, lines, out = run_guessers(root)
    assert share >= 50, out
    for name in ("testwise", "hedged", "closest_pair", "best strategy:"):
        line = next(line for line in lines if line.strip().startswith(name))
        rate = float(line.split(name)[1].split()[-1 if name != "best strategy:" else 1].rstrip("%"))
        assert rate <= 30.0, out


def test_numeric_options_are_shown_in_order_with_the_key_where_it_falls(tmp_path):
    """The tutor's own shuffle never puts numbers out of order (M11 on its own doing)."""
    from tutor.gates import mcq

    root = sluice_course(tmp_path, "A sluice gate of 512 mm passes twice the water of 256 mm.")
    bank_file = next(root.rglob("quiz.json"))
    bank = json.loads(bank_file.read_text(encoding="utf-8"))
    bank[0].update(
        question="How many millimetres high is the sluice gate in the lesson?",
        options=["640", "128", "512", "256"],
        correct=2,
    )
    bank_file.write_text(json.dumps(bank), encoding="utf-8")
    course = load_curriculum(root)
    lesson = course.lessons[0]
    for salt in ("a", "b", "c", "d", "e", "f"):
        (p,) = items.present(lesson.quiz, lesson, salt=salt, curriculum=course)
        assert p.type == "mcq", p.note
        assert p.options == ["128", "256", "512", "640"]
        assert p.options[p.correct_index] == "512"
        assert not [i for i in mcq.audit_item(p.to_question()) if i.code == "M11"]


def test_a_bank_item_of_three_to_eight_options_is_asked_not_dropped(tmp_path):
    """A choice shows four options. An item with more is asked with its key and three of its
    own distractors; one with three is asked with options made or lent (or as free recall);
    two options (true/false) are not a choice item: dropped with a warning, as before."""
    root = sluice_course(tmp_path, "A raised gate lets water through; a lowered gate holds it.")
    bank_file = next(root.rglob("quiz.json"))
    bank = json.loads(bank_file.read_text(encoding="utf-8"))
    six = ["A cart", "A loom", "A kiln", "A weir", "A dam", "A mill"]
    bank += [
        {
            "id": "six",
            "question": "Which low river barrier raises the water upstream?",
            "options": six,
            "correct": 3,
        },
        {
            "id": "three",
            "question": "What does a lowered sluice gate do to the water?",
            "options": ["It holds the water back", "It heats it", "It filters it"],
            "correct": 0,
        },
        {"id": "two", "question": "Is a sluice a gate?", "options": ["Yes", "No"], "correct": 0},
    ]
    bank_file.write_text(json.dumps(bank), encoding="utf-8")
    course = load_curriculum(root)
    lesson = course.lessons[0]
    assert [q.id for q in lesson.quiz] == ["sluice-gate", "six", "three"]
    assert any("has 2 options" in p.message for p in course.problems)
    for salt in ("a", "b", "c"):
        shown = {p.id: p for p in items.present(lesson.quiz, lesson, salt=salt, curriculum=course)}
        assert shown.keys() == {"sluice-gate", "six", "three"}
        p = shown["six"]
        assert p.type == "mcq", p.note
        assert len(p.options) == 4 and set(p.options) <= set(six)
        assert p.options[p.correct_index] == "A weir"
        p = shown["three"]
        if p.type == "mcq":
            assert len(p.options) == 4 and "It holds the water back" in p.options
            assert p.options[p.correct_index] == "It holds the water back"
        else:
            assert p.reference.startswith("It holds the water back")


def test_a_sentence_is_never_lent_with_its_subject_cut_off():
    """What a lead-in leaves is lent (`In practice, X` → `X`), but a sentence's own subject
    before a comma is no lead-in: `Rome, constantly at war, could not …` was lent as
    `Constantly at war …, could not …`, a sentence with no subject."""
    from tutor.engine.lesson_statements import Statement, _derived

    def derived(text: str) -> list[str]:
        return [d.text for d in _derived(Statement(text, "said"))]

    for whole in (
        "Rome, constantly at war with its neighbours, could not fight without them.",
        "The soldiers, fearing they would lose the plunder, followed him east.",
        "Tiberius Gracchus, a tribune, proposed a law on public land.",
    ):
        assert derived(whole) == [whole]
    assert derived("In practice, the gradient is clipped.")[-1] == "The gradient is clipped."
    assert derived("However, the model overfits.")[-1] == "The model overfits."


def test_a_sentence_leaning_on_the_one_before_is_never_lent():
    """ "He enlarged the Senate" lent under a stem about someone else reads as that person's
    act (a second defensible answer): a sentence opening with a pronoun or `Meanwhile` is not a
    statement of its own, as `This …` was not."""
    from tutor.engine.lesson_statements import Statement, _fits

    for leaning in (
        "He enlarged the Senate and filled the courts with his own men.",
        "Their armies were paid by their general, not by the state.",
        "Meanwhile the tribunes kept proposing new land laws.",
    ):
        assert not _fits(Statement(leaning, "said")), leaning
    assert _fits(Statement("The Senate was enlarged to six hundred members.", "said"))


PHRASE_CONCEPT = (
    "A weir raises the river upstream of the mill in every season. "
    "A leat carries the raised water along the hillside to the wheel. "
    "A tailrace returns the spent water to the river below the mill. "
    "A millpond stores a night's flow for the working day ahead."
)
KEY_TERMS = (
    "\n\n## Key Terms\n\n| Term | What people say | What it actually means |\n|---|---|---|\n"
    "| Weir | A dam | A low wall across a river that raises the water behind it |\n"
    "| Leat | A ditch | An open channel that carries water along a contour to a wheel |\n"
    "| Tailrace | The exit | The channel that takes water from the wheel back to the river |\n"
)


def test_a_stem_asking_what_a_term_means_is_lent_no_sentence_about_something_else(
    tmp_path: Path,
) -> None:
    """Under "What is a sluice?" a sentence the document says about something else ("A weir
    raises the river …") defines nothing, and a learner who knows nothing strikes it: such a
    stem is lent only other terms' meanings and wrong options, else asked another way."""
    key = "A gate that lets water through at a rate set by its height"
    said = {repair.norm(s) for s in PHRASE_CONCEPT.split(". ")}

    def lent(root: Path) -> list[set[str]]:
        lesson = load_curriculum(root).lessons[0]
        found = repair.repairs(lesson.quiz[0], lesson, repair.donors(lesson), limit=6)
        return [{repair.norm(o) for o in options[1:]} for options in found]

    # the control: asked what the gate does, the document's sentences are lent
    doing = sluice_course(tmp_path / "doing", PHRASE_CONCEPT, key=key)
    assert any(s & said for s in lent(doing))
    from tutor.engine.answer_kinds import asks_definition

    for stem in ("What were the Twelve Tables?", "What decides which element an atom is?"):
        assert asks_definition(stem), stem
    for stem in ("What does the gate do?", "What is the purpose of the gate?"):
        assert not asks_definition(stem), stem
    asking = "What is a sluice?"
    bare = sluice_course(tmp_path / "bare", PHRASE_CONCEPT, key=key, question=asking)
    assert lent(bare) == []
    course = load_curriculum(bare)
    (shown,) = items.present(course.lessons[0].quiz, course.lessons[0], salt="s", curriculum=course)
    assert shown.type == "free_recall"
    terms = sluice_course(tmp_path / "terms", PHRASE_CONCEPT + KEY_TERMS, key=key, question=asking)
    sets = lent(terms)
    assert sets and all(not s & said for s in sets)
    assert any("a low wall across a river that raises the water behind it" in s for s in sets)


def test_a_misconception_is_lent_without_the_correction_it_puts_in_brackets():
    """An examiner's chemistry lesson listed "Isotopes differ in protons (they differ in
    neutrons)" as a mistake; lent whole, the distractor said it was wrong. A misconception is
    lent without its bracketed aside, from a list or a key-terms table alike."""
    from tutor.engine.lesson_statements import _from_section

    listed = _from_section(
        "Common Mistakes", "- Thinking that isotopes differ in protons (they differ in neutrons).\n"
    )
    table = _from_section(
        "Key Terms",
        "| Cation | An ion that gained electrons (no: it lost them) | An ion with fewer "
        "electrons than protons |\n",
    )
    mistakes = [s.text for s in listed + table if s.kind == "mistake"]
    assert mistakes == ["isotopes differ in protons.", "An ion that gained electrons"]


ROOT_CONCEPT = (
    "A weir can approximate the level of any pond upstream. "
    "A leat can approximate the contour of any hillside. "
    "A race can approximate the speed of any falling stream. "
    "A wheel turns only while the water falls on its buckets. "
    "A millpond stores a night's flow for the working day. "
    "A tailrace returns the spent water to the river below."
)


def test_options_echo_the_stem_by_word_root_as_the_key_does(tmp_path: Path) -> None:
    """The key "… can approximate any steady flow" echoes the stem's "approximation" by its
    root, not its ending-stripped stem; lent statements that echo it the same way come first,
    so echoing the stem by root ("approx…") does not single the key out (the old tiers lent
    exactly the three that do not)."""
    root = sluice_course(
        tmp_path,
        ROOT_CONCEPT,
        key="A gate can approximate any steady flow of water",
        question="What does the approximation rule of the sluice promise?",
    )
    lesson = load_curriculum(root).lessons[0]
    (options,) = repair.repairs(lesson.quiz[0], lesson, repair.donors(lesson), limit=1)
    assert all("approximate" in o for o in options), options
