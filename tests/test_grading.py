"""Grading that cannot be gamed (issue 21, part 3): offline free recall and the Feynman
explain-back are graded by the program first, so a learner who says yes to every self-grade
screen still cannot turn the question typed back, words copied from it, one word repeated or an
off-topic paragraph into "right"; Feynman takes "I don't know"; key points are whole sentences."""

from __future__ import annotations

import pytest

from learning_system import ledger
from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.engine import selfgrade
from tutor.engine.session import Session
from tutor.engine.turns import Action, Prompt, check_action
from tutor.testing.course_maker import write_course

OFF_TOPIC = (
    "My grandmother grows tomatoes on her balcony every summer, waters them at dawn, and "
    "trades the surplus with neighbours for fresh bread and homemade jam."
)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return load_curriculum(write_course(tmp_path_factory.mktemp("course") / "workshop"))


def gaming(kind: str, question: str) -> str:
    return {
        "question": question,
        "stem": " ".join(question.split()[1:4]),
        "one-word": "vector " * 700,
        "off-topic": OFF_TOPIC,
    }[kind]


def cheat(kind: str):
    """A learner who types `kind` at every written answer, says yes to every self-grade
    screen, and answers choice items right and sure."""

    def act(p: Prompt) -> Action:
        if p.kind == "read":
            return Action(kind="next")
        if p.kind == "choice":
            return Action(kind="answer", value=str(p.item.correct_index), confidence="sure")
        if p.kind == "numeric":
            return Action(kind="answer", value=f"{p.item.answer:g}", confidence="sure")
        if p.kind == "text":
            question = p.item.question if p.item else p.content.split("\n")[0]
            if kind == "idk":
                return Action(kind="text", value="idk")
            confidence = "sure" if p.needs_confidence else None
            return Action(kind="text", text=gaming(kind, question), confidence=confidence)
        if p.kind == "yes_no":
            return Action(kind="yes_no", value="y")
        if p.kind == "error_type":
            return Action(kind="error_type", value="1", text="did not know")
        raise AssertionError(p.kind)

    return act


def run_lesson(store: Store, course, act) -> Session:
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    for _ in range(600):
        if session.done:
            return session
        session.act(act(session.prompt))
    raise AssertionError("the lesson did not end")


@pytest.mark.parametrize("kind", ["question", "stem", "one-word", "off-topic"])
def test_a_gamed_answer_is_wrong_however_the_learner_grades_it(tmp_path, course, kind):
    store = Store(tmp_path / "t.db")
    session = run_lesson(store, course, cheat(kind))
    attempts = ledger.attempts(store, session_id=session.id)
    written = [
        a
        for a in attempts
        if a["kind"] in ("probe", "checkpoint", "quiz")
        and a["answer"]
        and not a["answer"].isdigit()
    ]
    assert written, "the lesson asked for written answers"
    assert all(a["outcome"] == "wrong" for a in written), [
        (a["item_id"], a["outcome"]) for a in written
    ]
    feynman = [a for a in attempts if a["kind"] == "feynman"]
    assert [(a["outcome"], bool(a["feynman"])) for a in feynman] == [("wrong", False)]


def test_feynman_takes_i_dont_know_and_review_brings_it_back(tmp_path, course):
    store = Store(tmp_path / "t.db")
    session = run_lesson(store, course, cheat("idk"))
    feynman = [a for a in ledger.attempts(store, session_id=session.id) if a["kind"] == "feynman"]
    assert [(a["outcome"], bool(a["feynman"])) for a in feynman] == [("idk", False)]
    mistakes = [m for m in ledger.mistakes(store) if m["attempt_id"] == feynman[0]["id"]]
    assert [m["attribution"] for m in mistakes] == ["I don't know"]


def test_an_explanation_in_the_lessons_terms_reaches_the_rubric(tmp_path, course):
    """The program's check lets a real explanation through: the learner's own rubric marks
    decide it (all four yes: passed)."""
    store = Store(tmp_path / "t.db")
    real = own_words(course.lesson("P1 L02"))
    assert explained(store, course, real) == ("correct", True)


def own_words(lesson) -> str:
    """An explanation in the lesson's terms and the learner's own sentences."""
    text = " ".join(s.text for s in lesson.sections)
    terms = list(dict.fromkeys(w for w in selfgrade._content(text) if w.isalpha()))[:12]
    pairs = zip(terms[::2], terms[1::2], strict=False)
    assert selfgrade.explains(
        real := "In my own words, " + ", and ".join(f"the {a} goes with the {b}" for a, b in pairs),
        text,
        lesson.title,
    )
    return real + "."


def explained(store: Store, course, text: str) -> tuple[str, bool]:
    """The Feynman explain-back's outcome, and whether it passed, for a learner who explains
    with `text` and says yes to every rubric screen."""

    def act(p: Prompt) -> Action:
        if p.kind == "text" and p.item is None and p.content.startswith("Explain"):
            return Action(kind="text", text=text)
        return cheat("question")(p)

    session = run_lesson(store, course, act)
    (feynman,) = [
        a for a in ledger.attempts(store, session_id=session.id) if a["kind"] == "feynman"
    ]
    return feynman["outcome"], bool(feynman["feynman"])


@pytest.mark.parametrize("kind", ["copied", "keywords", "questions"])
def test_the_lesson_copied_its_keywords_or_its_questions_are_no_explanation(tmp_path, course, kind):
    """Found by an examiner: the Feynman check passed 4 of 4 for the lesson's checkpoint
    questions typed back, a list of its keywords and a pasted passage, with every rubric
    screen answered yes. Each now fails before the rubric; the learner's own sentences in the
    lesson's terms still reach it (the control above)."""
    lesson = course.lesson("P1 L02")
    text = " ".join(s.text for s in lesson.sections)
    gamed = {
        "copied": " ".join(text.split()[:60]),
        "keywords": " ".join(dict.fromkeys(w for w in selfgrade._content(text)))[:300],
        "questions": " ".join(q.question for q in lesson.quiz),
    }[kind]
    assert explained(Store(tmp_path / "t.db"), course, gamed) == ("wrong", False)


def test_a_point_the_answer_never_touched_is_never_offered():
    reference = "The variance averages the squared deviations. It is never negative."
    question = "What does the variance measure?"
    points = selfgrade.key_points(reference)
    assert points == ["The variance averages the squared deviations.", "It is never negative."]
    assert selfgrade.touched("it averages squared deviation values", question, reference) == [
        points[0]
    ]
    assert selfgrade.touched("What does the variance measure?", question, reference) == []
    assert selfgrade.touched("variance variance variance variance", question, reference) == []
    assert selfgrade.touched("squared " + OFF_TOPIC, question, reference) == []
    assert selfgrade.passes(2, 3) and not selfgrade.passes(1, 2)


def test_every_offline_key_point_is_a_whole_sentence(course):
    """Over every bank item of the generated course: each key point is one whole sentence of
    the reference (as a free-recall item is graded), never a cut clause or half a line of
    code."""
    from tutor.engine import items

    checked = 0
    for lesson in course.lessons:
        for p in items.present(lesson.quiz, lesson, salt="k", curriculum=course):
            reference = " ".join(p.reference.split())
            for point in selfgrade.key_points(p.reference):
                assert point in reference
                end = reference.index(point) + len(point)
                assert end == len(reference) or point[-1] in ".!?", (point, reference)
                start = reference.index(point)
                assert start == 0 or reference[start - 2] in ".!?", (point, reference)
                checked += 1
    assert checked > 50


def test_an_explain_back_drawn_from_its_lesson_is_checked_against_what_it_teaches(course):
    """An explanation in the lesson's own terms is offered every point of what the lesson sets
    out to teach (its objectives), not marked wrong for missing its motto's words; the learner's
    marks decide. Nonsense, the question back and off-topic text are wrong without asking."""
    from tutor.engine import grading, probe_items

    lesson = course.lesson("P1 L02")
    item = probe_items.explain_item(lesson)
    assert item is not None and item.reference.startswith(lesson.objectives[0].rstrip("."))
    real = " ".join(" ".join(s.text for s in lesson.sections).split()[:60])
    asked: list[str] = []

    def says(value: str):
        def screen(n: int, text: str):
            asked.append(text)
            return Action(kind="yes_no", value=value)
            yield  # a screen is a generator; this one answers at once

        return screen

    def graded(answer: str, value: str = "y") -> bool | None:
        run = grading.key_point_grade(item, answer, says(value))
        try:
            next(run)
        except StopIteration as done:
            return done.value
        raise AssertionError("the grade asked for more than its screens")

    points = selfgrade.key_points(item.reference)
    assert len(points) > 1
    assert graded(real) is True and len(asked) == len(points)
    # each objective is asked as what the lesson teaches, whole, and whether it was covered
    for text, aim in zip(asked, lesson.objectives, strict=False):
        assert aim.rstrip(".") in text and text.endswith("Did your explanation cover it?")
    assert graded(real, "n") is False
    asked.clear()
    for junk in (item.question, OFF_TOPIC, "lesson " * 700, gaming("stem", item.question)):
        assert not grading.could_answer(item, junk)
        assert graded(junk) is False
    assert asked == []


def test_a_free_recall_answer_that_states_the_key_exactly_is_right_by_the_program(tmp_path):
    """A bank item asked as free recall keeps its key: typing exactly it (spacing, case and
    quotes aside) is right without a self-grade — a line of code or a number has too few words
    for the key-point check, which would mark it wrong."""
    from sluice_course import sluice_course

    from tutor.engine import items

    root = sluice_course(tmp_path, "Raise the gate.", key="lo = mid + 1", item_id="code")
    course = load_curriculum(root)
    lesson = course.lessons[0]
    (p,) = items.present(lesson.quiz, lesson, salt="s", curriculum=course)
    assert p.type == "free_recall" and p.key == "lo = mid + 1"
    assert items.grade(p, "LO=mid+1") is True
    assert items.grade(p, "`lo = mid + 1`.") is True
    assert items.grade(p, "lo = mid") is None  # not the key: graded the usual way
    assert items.grade(p, p.question) is None
    asked_back = p.model_copy(update={"question": "Is it lo = mid + 1 or hi = mid - 1?"})
    assert items.grade(asked_back, "lo = mid + 1") is None  # the question already holds it


def _keyed(question: str, key: str, explanation: str = ""):
    from tutor.engine.items import Presented, with_explanation

    return Presented(
        id="q",
        lesson_id="L",
        type="free_recall",
        question=question,
        key=key,
        reference=with_explanation(key, explanation) if explanation else key,
        bloom="remember",
        stage="pre",
    )


def test_a_short_answer_that_names_a_key_that_is_a_name_is_right_by_the_program():
    """A key that is a name or a term is right when the answer says it, with or without its
    bracketed other name, articles and a few words around it; never negated, hedged between
    names, padded with a list, or for a key of symbols or one-letter words."""
    from tutor.engine import items

    assembly = _keyed(
        "Which assembly elected the consuls?",
        "The Centuriate Assembly (comitia centuriata)",
        "It voted by centuries, the richest first.",
    )
    for said in ("The Centuriate Assembly", "centuriate", "the comitia centuriata"):
        assert items.grade(assembly, said) is True, said
    gauls = _keyed("Who sacked Rome in 390 BC?", "The Gauls")
    assert items.grade(gauls, "Gauls") is True
    assert items.grade(gauls, "the Gauls, from the north") is True
    # more words than a name: graded the usual way (the learner confirms the point it touches)
    assert items.grade(gauls, "the Gauls, who came south over the Alps") is None
    for not_it in (
        "not the Gauls",
        "Gauls or Samnites",
        "Samnites",
        "Gauls Samnites Etruscans Latins Greeks",  # a list, not an answer
        "assembly",  # the question's own word
    ):
        assert (
            items.grade(gauls if "Gaul" in not_it or "Samn" in not_it else assembly, not_it)
            is not True
        ), not_it
    code = _keyed("What is the new lower bound?", "lo = mid + 1")
    assert items.grade(code, "lo = mid") is None  # symbols: graded the usual way
    chord = _keyed("Which triad is built on the dominant of G major?", "D major triad")
    assert items.grade(chord, "E major triad") is None  # "D" is a word `stems` cannot see


def test_a_keyed_item_is_graded_on_its_key_not_on_the_explanation_after_it():
    """The bank's explanation follows the key in the reference and is shown with the grade, but
    a concise right answer needs only the key's point: one confirmed point of one, not one of
    four (where the explanation's sentences about the wrong options counted as points)."""
    from tutor.engine import grading

    item = _keyed(
        "What does the dot product of two vectors return?",
        "A single scalar: the sum of the products of paired entries",
        "Not a vector. The cross product returns a vector. Element-wise product keeps the shape.",
    )
    asked: list[str] = []

    def screen(n: int, text: str):
        asked.append(text)
        return Action(kind="yes_no", value="y")
        yield

    run = grading.key_point_grade(item, "a single scalar number, the sum of products", screen)
    with pytest.raises(StopIteration) as done:
        next(run)
    assert done.value.value is True and len(asked) == 1 and "1 of 1" in asked[0]
    # a point of one or two own words is touched by one of them: the learner confirms
    assert selfgrade.touches("the D major chord", "The D major triad.", "Which chord?")


def _self_graded(item, answer: str, value: str = "y") -> tuple[bool | None, list[str]]:
    """The program's grade of a free-recall answer with a learner who marks every point
    offered `value`, and the points it was asked about."""
    from tutor.engine import grading

    asked: list[str] = []

    def screen(n: int, text: str):
        asked.append(text)
        return Action(kind="yes_no", value=value)
        yield

    run = grading.key_point_grade(item, answer, screen)
    with pytest.raises(StopIteration) as done:
        next(run)
    return done.value.value, asked


def test_a_short_right_answer_is_confirmed_by_the_learner_not_marked_wrong_unasked():
    """Found by an examiner on a chemistry course: "O2", the key of a question naming H2 and
    O2, and "coefficients" for "Only the coefficients in front of formulas" were wrong without
    asking (too few words). The key a question names is offered to the learner to confirm (a
    pick among the question's own names is not right by the program), and one word that is a
    key point's own word touches that point; copied question words and other words still do
    not."""
    from tutor.engine import grading, items

    limiting = _keyed("With 1 mol O2 and 3 mol H2, which reactant is limiting?", "O2")
    assert items.grade(limiting, "o2") is None and grading.could_answer(limiting, "O2")
    assert _self_graded(limiting, "O2") == (True, [grading._point_question(limiting, 1, 1, "O2")])
    assert _self_graded(limiting, "O2", "n")[0] is False
    assert _self_graded(limiting, "H2") == (False, [])
    change = _keyed(
        "When balancing an equation, what may you change?",
        "Only the coefficients in front of formulas",
    )
    right, asked = _self_graded(change, "coefficients")
    assert right is True and len(asked) == 1 and grading.could_answer(change, "coefficients")
    for not_it in ("equation", "subscripts", "coefficients " * 5, "balancing"):
        assert _self_graded(change, not_it) == (False, []), not_it
        assert not grading.could_answer(change, not_it), not_it


GRADED = [
    (20, "2,0", False),  # a decimal comma: 2.0, not 20
    (18.02, "18,02", True),
    (20, "20", True),
    (20, "20 neutrons", True),
    (1.204e24, "1.204 x 10^24", True),
    (6.022e23, "6.022×10²³", True),
    (0.75, "3/4", True),
    (75, "75%", True),  # a percent is right when either reading is the key
    (0.75, "75%", True),
    (0.75, "7.5%", False),
    (1234, "1,234", True),
]


def test_a_numeric_answer_is_graded_as_it_was_read(tmp_path):
    """What the learner types goes through the same parse and grade as in a lesson: "2,0" is
    2.0 (wrong for 20), "18,02" is 18.02 (right for 18.02)."""
    import json

    from sluice_course import sluice_course

    from tutor.engine import items, parse

    root = sluice_course(tmp_path, "Count the water.")
    bank = [
        {
            "id": f"count-{n}",
            "stage": "post",
            "type": "numeric",
            "question": f"How much water passes gate {n}?",
            "answer": key,
            "tolerance": 0.001 * key,
            "options": [],
            "correct": -1,
            "explanation": "Count it.",
        }
        for n, key in enumerate(sorted({key for key, _, _ in GRADED}))
    ]
    (root / "phases" / "01-p" / "01-the-sluice" / "quiz.json").write_text(json.dumps(bank))
    course = load_curriculum(root)
    lesson = course.lessons[0]
    presented = {p.answer: p for p in items.present(lesson.quiz, lesson, "s", course)}
    assert all(p.type == "numeric" for p in presented.values())
    for key, typed, right in GRADED:
        item = presented[key]
        prompt = Prompt(
            kind="numeric",
            message_id="m",
            stage="quiz",
            title="t",
            position="",
            content="",
            item=item,
        )
        action = parse.parse(prompt, typed + " s")
        check_action(prompt, action)  # what a session takes
        assert items.grade(item, action.value) is right, (key, typed)


def test_a_right_short_answer_in_other_words_is_offered_to_confirm_not_marked_wrong_unasked():
    """Found by an examiner on an SQL course: "the FROM clause" (key FROM, a word of the
    question), "all the columns" (key "Every column of the table") and "a string literal" (in
    the bank's explanation, not the key) were wrong without asking. A short key said within a
    short answer, one own word of a point of three, and the explanation's words offer the
    key's point to the learner; the question typed back, a negated key and other words do
    not."""
    from tutor.engine import grading

    clause = _keyed(
        "Which clause names the table a query reads from?",
        "FROM",
        "FROM names the table; SELECT names the columns.",
    )
    right, asked = _self_graded(clause, "the FROM clause")
    assert right is True and len(asked) == 1 and grading.could_answer(clause, "the FROM clause")
    for not_it in (
        "Which clause names the table a query reads from?",
        "not FROM",
        "FROM or WHERE",
        "the clause",
    ):
        assert _self_graded(clause, not_it) == (False, []), not_it
    star = _keyed("What does SELECT * return?", "Every column of the table", "The star: all.")
    assert _self_graded(star, "all the columns")[0] is True
    assert _self_graded(star, "the first row")[0] is False
    literal = _keyed(
        "What is 'name' (in single quotes) in SELECT 'name' FROM customers?",
        "A text value repeated on every row",
        "Single quotes make a string literal, so every row shows the text name.",
    )
    right, asked = _self_graded(literal, "a string literal")
    assert right is True and "A text value repeated on every row" in asked[0]
    assert _self_graded(literal, "the customers table")[0] is False


def test_a_lead_in_to_a_table_is_no_key_sentence():
    """An examiner's checkpoint graded against "… The customers table of our shop looks like
    this:", a lead-in to a table the reference never shows. A sentence ending in a colon says
    nothing alone: it is neither taught as a claim nor made a key point."""
    from tutor.engine.steps import key_sentences

    text = (
        "A relational database stores data in tables of rows and columns. Every column has a "
        "type such as INTEGER or TEXT. The customers table of our shop looks like this:\n\n"
        "| id | name |\n|---|---|\n| 1 | Ada |\n\n"
        "Each row of it is one customer of the shop, named only once."
    )
    assert key_sentences(text, 3) == [
        "A relational database stores data in tables of rows and columns.",
        "Every column has a type such as INTEGER or TEXT.",
        "Each row of it is one customer of the shop, named only once.",
    ]


def test_an_aside_that_is_no_name_makes_no_short_answer_right():
    """Found by an outside tester's learners: "About 10 steps, because exact for quadratic
    functions" was right by the program for "1 step (it is exact for quadratic functions)",
    and "it ignores SIGHUP" for a sentence ending "(SIGHUP)": a bracketed aside is another name
    only for a key that is a name. And a word-salad answer was offered a key point through one
    word ("there") of the bank's explanation: that route needs two of its own words."""
    from tutor.engine import grading, items

    newton = _keyed(
        "Newton's method converges to the minimum of f(x) = 5x^2 + 3x + 1 in how many steps?",
        "1 step (it is exact for quadratic functions)",
    )
    assert items.grade(newton, "About 10 steps, because exact for quadratic functions") is None
    hangup = _keyed(
        "What happens to a running process when you close the terminal?",
        "It receives a hangup signal and is terminated (SIGHUP)",
    )
    assert items.grade(hangup, "it ignores SIGHUP") is None
    assembly = _keyed("Which assembly elected the consuls?", "The Centuriate Assembly (comitia)")
    assert items.grade(assembly, "the comitia") is True  # a name's aside still names it
    unsupervised = _keyed(
        "What distinguishes unsupervised learning from supervised learning?",
        "Unsupervised learning has no labeled outputs to learn from",
        "In unsupervised learning, there are no labels.",
    )
    salad = "learning from What supervised basically happens somehow there"
    assert grading.offered(unsupervised, salad) == []


def test_an_explanation_of_vague_words_any_lesson_holds_is_no_explanation():
    """An outside tester's learner explained "Calculus for Machine Learning" as "the main
    things in it and how the parts of it are used in practice for the whole topic really" and
    was offered every objective to confirm: those words are in any lesson's text."""
    lesson = (
        "The derivative measures how a function changes. The chain rule composes derivatives "
        "of nested functions, and the gradient collects partial derivatives. In practice the "
        "main use is training: each part of a network is used to compute the whole loss."
    )
    title = "Calculus for Machine Learning"
    vague = (
        "Calculus for Machine Learning is about the main things in it and how the parts of it "
        "are used in practice for the whole topic really."
    )
    assert not selfgrade.explains(vague, lesson, title)
    honest = (
        "A derivative says how fast a function changes, the chain rule multiplies the "
        "derivatives of nested functions, and the gradient holds every partial derivative."
    )
    assert selfgrade.explains(honest, lesson, title)


def test_a_checkpoints_key_sentences_cover_the_step_not_its_opening_alone():
    """An examiner's summary of a whole step was offered one of three points: the step's
    first three sentences, all from its first paragraph. A checkpoint takes each paragraph's
    first sentence first."""
    from tutor.engine.steps import key_sentences

    text = (
        "A table stores rows of one shape. Each row has the same columns in it. Each column "
        "has one type of value.\n\nSELECT names the columns a query returns to you. It may "
        "compute new ones.\n\nFROM names the table that the query reads its rows from."
    )
    assert key_sentences(text, 3, spread=True) == [
        "A table stores rows of one shape.",
        "SELECT names the columns a query returns to you.",
        "FROM names the table that the query reads its rows from.",
    ]
    assert key_sentences(text, 3)[1] == "Each row has the same columns in it."
