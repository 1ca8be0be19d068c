"""The engine's API for two front ends: one session protocol for lessons and review, prompts
that carry data (no key hints), typed input read one way, progress events and cancel."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from conftest import write_tiny_curriculum

from learning_system import ledger
from learning_system.curriculum import load_curriculum
from learning_system.store import utcnow
from tutor.config import builtin_course_path
from tutor.engine import numbers, parse
from tutor.engine.parse import Command
from tutor.engine.progress import Activity, Progress
from tutor.engine.review import ReviewSession
from tutor.engine.session import Session
from tutor.engine.turns import Action, InvalidAction, Prompt
from tutor.errors import Cancelled
from tutor.testing.page_server import Page, PageServer

HINTS = ("1/a", "2/b", "0/x", "I don't know", "1 structural", "tutor continue", "tutor review")


@pytest.fixture(scope="module")
def course():
    return load_curriculum(builtin_course_path())


def scripted(prompt: Prompt, wrong: bool = False) -> Action:
    if prompt.kind == "read":
        return Action(kind="next")
    if prompt.kind == "choice":
        key = prompt.item.correct_index
        return Action(kind="answer", value=str((key + wrong) % 4), confidence="sure")
    if prompt.kind == "numeric":
        return Action(kind="answer", value=f"{prompt.item.answer + 7 * wrong:g}", confidence="sure")
    if prompt.kind == "text":  # a right written answer is the item's reference
        right = prompt.item is not None and not wrong
        return Action(
            kind="text",
            text=prompt.item.reference if right else "my own words",
            confidence="sure" if prompt.needs_confidence else None,
        )
    if prompt.kind == "yes_no":
        return Action(kind="yes_no", value="n" if wrong else "y")
    return Action(kind="error_type", value="2", text="I misread it")


def test_prompt_content_is_gated_data_without_key_hints(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    seen = []
    while not session.done:
        seen.append(session.prompt)
        session.act(scripted(session.prompt, wrong=True))
    seen.append(session.prompt)
    kinds = {p.kind for p in seen}
    assert {"choice", "error_type", "done"} <= kinds
    for p in seen:
        for hint in HINTS:
            assert hint not in p.content, (p.kind, hint, p.content[:200])
        if p.kind == "choice":  # the data a front end renders is the gated data
            assert p.item.question in p.content
            assert all(o in p.content for o in p.item.options)
    prior = next(p for p in seen if p.stage == "prior")
    assert prior.table and prior.table.headers == ["prerequisite", "evidence", "plan"]
    teach = [p for p in seen if p.stage == "teach" and not p.banner]
    assert teach and all(p.sources and " §" in p.sources[0] for p in teach)
    assert any(p.sources[0].startswith("primary §") for p in teach)


def _with_due_mistake(store, course) -> None:
    session = Session.start(store, course, course.lesson("P1 L01"), offline=True)
    while session.prompt.kind != "error_type":
        session.act(scripted(session.prompt, wrong=True))
    session.act(Action(kind="error_type", value="1", text="did not know"))
    session.close()


def test_review_validates_actions_like_a_lesson(store, course):
    _with_due_mistake(store, course)
    review = ReviewSession(store, now=utcnow() + timedelta(minutes=1))
    assert review.prompt.kind in ("choice", "numeric", "text")
    before = len(ledger.attempts(store))
    # typed at a multiple-choice question: a claim, never a wrong answer with empty text
    claim = parse.parse(review.prompt, "i know arithmetic")
    assert claim.kind == "claim"
    assert review.act(claim) is review.prompt
    with pytest.raises(InvalidAction):
        review.act(Action(kind="answer", value="1"))  # no confidence tag
    with pytest.raises(InvalidAction):
        review.act(Action(kind="next"))
    assert len(ledger.attempts(store)) == before
    notes = [n for n in store.sessions.notes() if n["kind"] == "claimed_known"]
    assert notes and notes[-1]["body"]["text"] == "arithmetic"
    review.act(scripted(review.prompt))
    assert len(ledger.attempts(store)) == before + 1
    review.close()


def test_review_asks_an_item_once_when_two_lessons_left_a_mistake_of_it(store, course):
    """An examiner's review asked the same question twice in a row: missed in one lesson's
    quiz and again in the next lesson's probe, it was two open mistakes. It is asked once; the
    other mistake takes the same answer (the grade moves both)."""
    from tutor.engine.items import Presented

    item = Presented(
        id="lim-1",
        lesson_id="P2 L02",
        type="numeric",
        question="How many moles of O2 react with 4 mol of H2?",
        answer=2.0,
        tolerance=0.0,
        reference="2",
        bloom="apply",
        stage="post",
    )
    for n, lesson in enumerate(("P2 L02", "P2 L03")):
        ledger.record_mistake(
            store,
            ledger.Mistake(
                id=f"m{n}",
                attempt_id=f"a{n}",
                item_id=item.id,
                lesson_id=lesson,
                item=item.model_dump(),
            ),
            when=utcnow() - timedelta(minutes=2 - n),
        )
    review = ReviewSession(store, now=utcnow() + timedelta(minutes=1))
    asked = []
    while review.prompt.kind != "done":
        if review.prompt.kind == "numeric":
            asked.append(review.prompt.item.question)
            review.act(Action(kind="answer", value="2", confidence="sure"))
        else:
            review.act(Action(kind="next"))
    review.close()
    assert asked == [item.question]
    reviews = [a for a in ledger.attempts(store) if a["kind"] == "review"]
    assert sorted(a["outcome"] for a in reviews) == ["correct", "correct"]
    assert {m["id"]: m["status"] for m in ledger.mistakes(store)} == {"m0": "open", "m1": "open"}
    assert all(m["next_review"] > utcnow().isoformat() for m in ledger.mistakes(store))


@pytest.mark.parametrize(
    "text,kind,value,confidence",
    [
        ("2 s", "answer", "1", "sure"),
        ("b h", "answer", "1", "hunch"),
        ("4n", "answer", "3", "no_idea"),
        ("x", "answer", "idk", None),
        ("0", "answer", "idk", None),
        ("c", "answer", "2", None),
    ],
)
def test_choice_lines(text, kind, value, confidence):
    p = Prompt(
        kind="choice",
        message_id="m",
        stage="probe",
        title="t",
        position="",
        content="",
        needs_confidence=True,
    )
    got = parse.parse(p, text)
    assert (got.kind, got.value, got.confidence) == (kind, value, confidence)


def _prompt(kind: str, **kw) -> Prompt:
    return Prompt(
        kind=kind,
        message_id="m",
        stage=kw.pop("stage", "probe"),
        title="t",
        position="",
        content="",
        **kw,
    )


def test_typed_input_rules():
    numeric = _prompt("numeric", needs_confidence=True)
    assert parse.parse(numeric, "0 s").value == "0"  # zero is a number, not "I don't know"
    assert parse.parse(numeric, "x").value == "idk"
    for bad in ("nan", "inf", "1e999", "six"):
        with pytest.raises(InvalidAction):
            parse.parse(numeric, bad)
    text = _prompt("text", needs_confidence=True)
    assert isinstance(parse.parse(text, "/p"), Command)
    got = parse.parse(text, "it scales the vector s")
    assert (got.text, got.confidence) == ("it scales the vector", "sure")
    assert parse.parse(text, "pause it").text == "pause it"
    with pytest.raises(InvalidAction):
        parse.parse(text, "k")
    with pytest.raises(InvalidAction, match="4,000"):
        parse.parse(text, "w" * 5000)
    yes = _prompt("yes_no")
    assert parse.parse(yes, "yes").value == "y" and parse.parse(yes, "No").value == "n"
    read = _prompt("read", stage="results")
    with pytest.raises(InvalidAction):
        parse.parse(read, "2 s")  # typed at an "enter next" screen: said, not swallowed
    assert parse.parse(read, "").kind == "next"
    assert parse.parse(_prompt("read", stage="teach"), "k").kind == "skip"
    err = _prompt("error_type", stage="mistake")
    got = parse.parse(err, "dev I misread the sign")
    assert (got.value, got.text) == ("2", "I misread the sign")
    assert any("deviation" in m for _, m in parse.keys_for(err))


def test_a_bad_confidence_tag_says_why_and_words_are_tags_too():
    choice = _prompt("choice", needs_confidence=True)
    with pytest.raises(InvalidAction, match="`z` is not a confidence tag"):
        parse.parse(choice, "2 z")
    with pytest.raises(InvalidAction, match="`maybe` is not a confidence tag"):
        parse.with_confidence(Action(kind="answer", value="1"), "maybe")
    assert parse.parse(choice, "2 sure").confidence == "sure"
    assert parse.parse(choice, "b no idea").confidence == "no_idea"
    # "not sure" is a hunch, after the answer or alone at the confidence prompt
    assert parse.with_confidence(Action(kind="answer", value="1"), "Not sure").confidence == "hunch"
    numeric = _prompt("numeric", needs_confidence=True)
    with pytest.raises(InvalidAction, match="`q` is not a confidence tag"):
        parse.parse(numeric, "6 q")
    # a unit after the number is dropped; prose after it is named, with the answer to give
    assert parse.parse(numeric, "180 degrees").value == "180"
    with pytest.raises(InvalidAction, match="without `because it has 20`: `20`"):
        parse.parse(numeric, "20 because it has 20")
    assert parse.parse(numeric, "180 s").value == "180"
    with pytest.raises(InvalidAction, match="kept up to 2,000 characters"):
        parse.attribution("x" * 2001)


READ_AS = [
    ("2,0", 2.0),  # a decimal comma, not a thousands separator
    ("18,02", 18.02),
    ("11,2", 11.2),
    ("0,5", 0.5),
    ("1,2345", 1.2345),
    ("1,000", 1000),  # groups of three after a first group of 1-3 digits: thousands
    ("12,345,678", 12345678),
    ("1,234.5", 1234.5),
    ("1,234", 1234),  # English convention
    ("1.204 x 10^24", 1.204e24),
    ("1.204 × 10^24", 1.204e24),
    ("1.204*10^24", 1.204e24),
    ("1.204 x 10**24", 1.204e24),
    ("6.022×10²³", 6.022e23),
    ("1/2", 0.5),
    ("3/4", 0.75),
    ("20 neutrons", 20),
    ("2 mol", 2),
    ("14.61 g", 14.61),
    ("25 °C", 25),
    ("18.02 g/mol", 18.02),
    ("2 mol L", 2),
]


def test_a_number_is_read_as_the_lesson_writes_it():
    """A decimal comma, grouped thousands, scientific notation as the lesson writes it, a
    fraction, a unit after the number: each is that number, with or without its tag."""
    numeric = _prompt("numeric", needs_confidence=True)
    for typed, value in READ_AS:
        for line in (typed, typed + " s"):
            got = parse.parse(numeric, line)
            assert numbers.readings(got.value) == (pytest.approx(value),), line
        assert parse.parse(numeric, typed + " h").confidence == "hunch"


def test_a_percent_reads_both_ways_and_unreadable_numbers_say_what_to_type():
    numeric = _prompt("numeric", needs_confidence=True)
    for typed in ("75%", "75 %", "75 percent"):
        assert numbers.readings(parse.parse(numeric, typed).value) == (75, 0.75)
    for bad in ("1,2,3", "12,34,567", "1,23.5"):
        with pytest.raises(InvalidAction, match="a comma is a decimal comma"):
            parse.parse(numeric, bad)
    for bad in ("twenty", "1/0", "2 x", "20 because it is"):
        with pytest.raises(InvalidAction):
            parse.parse(numeric, bad)


def test_feynman_questions_and_answers_read_as_the_learner_gave_them():
    from tutor.engine.grading import shown_answer
    from tutor.engine.items import Presented
    from tutor.engine.phases.teach import FEYNMAN_RUBRIC, feynman_question

    assert [feynman_question(r).split()[:3] for r in FEYNMAN_RUBRIC] == [
        ["Does", "it", "say"],
        ["Does", "it", "say"],
        ["Does", "it", "say"],
        ["Does", "it", "give"],
    ]
    item = Presented(
        id="q",
        lesson_id="P1 L01",
        type="mcq",
        question="?",
        options=list("abcd"),
        correct_index=0,
        reference="",
        bloom="remember",
        stage="pre",
    )
    assert shown_answer(item, "0") == "option 1" and shown_answer(item, "idk") == "I don't know"


def test_text_answer_p_is_refused_but_slash_p_pauses():
    text = _prompt("text", needs_confidence=True)
    with pytest.raises(InvalidAction):
        parse.parse(text, "p")
    assert parse.parse(text, "/pause") == Command(kind="pause")
    assert parse.parse(_prompt("choice"), "q") == Command(kind="pause")


def test_scout_reports_progress_and_the_learner_can_stop_waiting(tmp_path, store):
    with PageServer() as pages:
        fast = pages.route("/fast", Page.html("<p>" + "fast words about averages " * 40 + "</p>"))
        slow = pages.route("/slow", Page.drip(interval=0.5))
        root = write_tiny_curriculum(tmp_path / "c", [("Fast", fast), ("Slow", slow)])
        course = load_curriculum(root)
        events: list[Progress] = []

        def skip_when_fast_is_in(p: Progress) -> None:
            events.append(p)
            if "/fast" in p.what:
                activity.skip_waiting()

        activity = Activity(skip_when_fast_is_in)
        session = Session.start(
            store, course, course.lesson("P1 L02"), offline=False, activity=activity
        )
    sources = [e for e in events if e.what.startswith("sources:")]
    assert sources[-1].finished and sources[-1].done == sources[-1].total == 3
    slow = next(s for s in session.digest.sources if s.url.endswith("/slow"))
    assert slow.status == "unreachable" and "not waited for" in (slow.reason or "")
    assert session.prompt.stage == "prior"


def test_cancel_stops_act_and_keeps_the_action(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    session.act(Action(kind="next"))
    position = session.prompt.message_id
    session.close()
    with pytest.raises(Cancelled):
        session.act(scripted(session.prompt))
    again = Session.resume(store, course, store.sessions.get(session.id))
    assert again.prompt.message_id == position


def test_act_is_one_at_a_time_from_threads(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    results: list[str] = []

    def next_screen() -> None:
        try:
            session.act(Action(kind="next"))
            results.append("ok")
        except InvalidAction:
            results.append("refused")

    threads = [threading.Thread(target=next_screen) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # the prior is one read screen: exactly one "next" moves past it, the other is checked
    # against the probe question that followed and refused
    assert sorted(results) == ["ok", "refused"]
    events = [e for e in store.sessions.events(session.id) if e["kind"] == "action"]
    assert len(events) == 1


@pytest.mark.parametrize(
    ("typed", "value", "confidence"),
    [
        ("2.", "1", None),
        ("(b)", "1", None),
        ("b) h", "1", "hunch"),
        ("option 2 s", "1", "sure"),
        ("2, sure", "1", "sure"),
        ("2 - sure", "1", "sure"),
        ("c. no idea", "2", "no_idea"),
        ("2 not sure", "1", "hunch"),
        ("b, not sure", "1", "hunch"),
        ("I don't know", "idk", None),
        ("dont know", "idk", None),
    ],
)
def test_a_choice_written_another_common_way_is_read_as_meant(typed, value, confidence):
    """What a person (or another program driving the line dialogue) types for "option 2, sure"
    is taken, not refused: the screens show `1/a` and "I don't know", and people write `2.`."""
    got = parse.parse(_prompt("choice", needs_confidence=True), typed)
    assert (got.value, got.confidence) == (value, confidence)


def _choice_prompt(question: str, options: list[str], key: int):
    """A choice prompt waiting for its confidence, over a bank item with these options."""
    from tutor.engine.items import Presented

    item = Presented(
        id="q",
        lesson_id="L",
        type="mcq",
        question=question,
        options=options,
        correct_index=key,
        reference=options[key],
        bloom="remember",
        stage="pre",
    )
    return _prompt("choice", needs_confidence=True, item=item)


def test_a_choice_may_be_typed_as_its_options_whole_text():
    """An examiner typed `Avogadro` at a choice whose option 3 was Avogadro and was refused
    with "choose 1-4". An option's whole text (case, spacing and punctuation aside) is that
    option; part of one, or text two options share, is still refused."""
    question = "Whose number counts the particles in a mole?"
    choice = _choice_prompt(question, ["Dalton", "Lavoisier", "Avogadro", "Dalton's law"], 2)
    for typed, value, tag in (
        ("Avogadro", "2", None),
        ("avogadro s", "2", "sure"),
        ("Dalton's law, h", "3", "hunch"),
    ):
        got = parse.parse(choice, typed)
        assert (got.value, got.confidence) == (value, tag), typed
    for refused in ("Avoga", "law", "Avogadro Dalton"):
        with pytest.raises(InvalidAction):
            parse.parse(choice, refused)


def test_answers_an_outside_driver_typed_are_read_as_meant():
    """An outside tester's simulated learners typed an option's text with a closing full stop
    after a bracket (refused), a written answer's tag after a comma or in brackets (kept in the
    answer, the tag asked again) and "no idea" as a written answer (kept as text)."""
    ranges = ["(-1, 1)", "(0, 1)", "[0, infinity)", "(-infinity, infinity)"]
    choice = _choice_prompt("What is the output range of ReLU?", ranges, 2)
    got = parse.parse(choice, "[0, infinity). s")
    assert (got.value, got.confidence) == ("2", "sure")
    text = _prompt("text", needs_confidence=True)
    for typed, body, tag in (
        ("how aligned the two vectors are, hunch", "how aligned the two vectors are", "hunch"),
        ("a slope (sure)", "a slope", "sure"),
        ("the slope - no idea", "the slope", "no_idea"),
        ("the chain rule, not sure", "the chain rule", "hunch"),
        ("it is not sure", "it is not sure", None),
        ("to make sure", "to make sure", None),  # a word at the end is not a tag by itself
        ("the value f(s)", "the value f(s)", None),  # nor a bracket the answer opened
        ("it calls f(a, s)", "it calls f(a, s)", None),
    ):
        got = parse.parse(text, typed)
        assert (got.text, got.confidence) == (body, tag), typed
    for idk in ("no idea", "No idea.", "dunno", "not sure", "I have no idea"):
        assert parse.parse(text, idk).value == "idk", idk


def test_i_dont_know_in_words_is_i_dont_know_at_a_written_answer_too():
    assert parse.parse(_prompt("text", needs_confidence=True), "I don't know").value == "idk"
    written = parse.parse(_prompt("text", needs_confidence=True), "I don't know why, it scales")
    assert written.text == "I don't know why, it scales"
    assert parse.parse(_prompt("yes_no"), "yes.").value == "y"
