"""Verdicts with enough evidence (issue 21, part 4), through the session path the line dialogue
takes (the curriculum read with only the lesson and its prerequisites, the session opened by
`open_session`): every strand two graded answers of its own or the reason shown, the lesson's
question cap, partial knowledge told apart from none."""

from __future__ import annotations

import pytest

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor import learner as load_path
from tutor.engine import probe_budget, selection
from tutor.engine.edge_search import EdgeSearch
from tutor.engine.items import Presented, broad_to_narrow
from tutor.engine.runner import open_session
from tutor.engine.turns import Action, Prompt
from tutor.engine.verdicts import GRADED_OUTCOMES, NOT_PROBED
from tutor.testing.course_maker import write_course
from tutor.testing.ledger_maker import write_ledger_course


@pytest.fixture(scope="module")
def ledger(tmp_path_factory):
    return write_ledger_course(tmp_path_factory.mktemp("ledger") / "ledger")


@pytest.fixture(scope="module")
def workshop(tmp_path_factory):
    return write_course(tmp_path_factory.mktemp("workshop") / "workshop")


def answer(prompt: Prompt, knows) -> Action:
    """Right and sure on what `knows(item)` says is known, else "I don't know"."""
    if prompt.kind == "read":
        return Action(kind="next")
    item = prompt.item
    if item is not None and prompt.needs_confidence:
        if not knows(item):
            return Action(kind="text" if item.type == "free_recall" else "answer", value="idk")
        if item.type == "free_recall":
            return Action(kind="text", text=item.reference, confidence="sure")
        value = f"{item.answer:g}" if item.type == "numeric" else str(item.correct_index)
        return Action(kind="answer", value=value, confidence="sure")
    if prompt.kind == "text":
        return Action(kind="text", text="because it is what the lesson says it is")
    if prompt.kind == "yes_no":
        return Action(kind="yes_no", value="y")
    return Action(kind="error_type", value="1", text="did not know it")


def probe(
    tmp_path, monkeypatch, root, lesson_id, knows=lambda item: True, records=None, reply=answer
):
    """The lesson's probe as the line dialogue opens it: (probe prompts, the verdict notes,
    the strands). `records`: verdicts by strand a previous session of the store found;
    `reply(prompt, knows)`: the learner's answers."""
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    curriculum = load_path.load(root, [lesson_id])
    seen: list[Prompt] = []
    with Store(tmp_path / f"{lesson_id}.db") as store:
        if records is not None:
            store.sessions.save("earlier", "P0 L00", str(root), "done", "end", {})
            store.sessions.add_note("earlier-verdict", "earlier", "verdict", {"verdicts": records})
        session = open_session(store, curriculum, lesson_ref=lesson_id, offline=True)
        assert session is not None
        try:
            while session.prompt.stage not in ("plan", "teach", "done"):
                seen.append(session.prompt)
                session.act(reply(session.prompt, knows))
        finally:
            session.close()
        notes = [n["body"] for n in store.sessions.notes(session.id) if n["kind"] == "verdict"]
    lesson = curriculum.lesson(lesson_id)
    return seen, notes, selection.strands(curriculum, lesson)


def asked(seen: list[Prompt]) -> list[Prompt]:
    return [p for p in seen if p.stage == "probe" and p.item is not None and p.needs_confidence]


def test_every_strand_gets_two_graded_answers_of_its_own(tmp_path, monkeypatch, ledger):
    """Banks of one or two items and catch-up fans: each strand still gets two of its own."""
    for lesson in load_curriculum(ledger).lessons:
        _, notes, strands = probe(tmp_path, monkeypatch, ledger, lesson.id)
        evidence = [r for n in notes for r in n["evidence"]]
        for s in strands:
            own = [r for r in evidence if r["lesson"] == s.lesson.id]
            assert sum(r["outcome"] in GRADED_OUTCOMES for r in own) >= 2, (lesson.id, s.name)
            assert notes[-1]["verdicts"][s.name] != NOT_PROBED


def test_a_strand_short_of_answers_says_why(tmp_path, monkeypatch, ledger):
    # without its explain-back a one-item bank cannot give two answers: the results say so
    monkeypatch.setattr(
        probe_budget,
        "fill_ups",
        lambda lesson, recall, explain: [p for p in recall if p.lesson_id == lesson.id],
    )
    whole = load_curriculum(ledger)
    lesson = next(
        x for x in whole.lessons if any(len(s.items) == 1 for s in selection.strands(whole, x))
    )
    seen, notes, strands = probe(tmp_path, monkeypatch, ledger, lesson.id)
    small = next(s for s in strands if len(s.items) == 1)
    assert notes[-1]["verdicts"][small.name] == NOT_PROBED
    shown = "\n".join(p.content for p in seen)
    assert f"{small.name}: 1 graded answer of its own, 2 needed: only 1 item in its bank" in shown


def test_the_probe_keeps_to_the_lesson_question_budget(tmp_path, monkeypatch, ledger, workshop):
    for root in (ledger, workshop):
        for lesson in load_curriculum(root).lessons:
            for n, knows in enumerate((lambda item: True, lambda item: False)):
                home = tmp_path / f"{root.name}-{n}"  # each learner its own home
                home.mkdir(exist_ok=True)
                seen, _, strands = probe(home, monkeypatch, root, lesson.id, knows)
                questions = [p for p in asked(seen) if "re-probe" not in p.title]
                assert questions or not strands
                assert len(questions) <= probe_budget.lesson_budget(len(strands))
                assert len(strands) > 4 or len(questions) <= 12


def test_the_cap_holds_on_a_late_corpus_lesson(tmp_path, monkeypatch, corpus_root):
    whole = load_curriculum(corpus_root)
    lesson = max(whole.lessons, key=lambda x: len(selection.strands(whole, x)))
    seen, notes, strands = probe(tmp_path, monkeypatch, corpus_root, lesson.id, lambda i: False)
    assert len(strands) >= 9
    # two of each strand's own, and a third for each where the answers leave doubt
    assert len(asked(seen)) <= probe_budget.lesson_budget(len(strands)) == 3 * len(strands)
    assert f"The probe asks up to about {3 * len(strands)} questions" in seen[0].content
    assert all(v == "unknown" for v in notes[-1]["verdicts"].values())


def test_partial_knowledge_is_told_apart_from_none(tmp_path, monkeypatch, workshop):
    lesson_id = "P1 L02"  # one prerequisite, six items
    whole = load_curriculum(workshop)
    [strand] = selection.strands(whole, whole.lesson(lesson_id))
    easier = {q.id for q in broad_to_narrow(strand.items)[:3]}

    def verdict(knows) -> str:
        home = tmp_path / str(len(list(tmp_path.iterdir())))  # a learner of its own each
        home.mkdir()
        _, notes, _ = probe(home, monkeypatch, workshop, lesson_id, knows)
        return notes[-1]["verdicts"][strand.name]

    def knows_easier(item: Presented) -> bool:
        return item.id in easier

    assert verdict(lambda item: False) == "unknown"
    assert verdict(knows_easier) == "unstable"
    assert verdict(lambda item: True) == "solid"


def test_every_batch_presents_the_same_whatever_is_loaded(corpus_root):
    """A partial curriculum read whole midway (a lookup by name) still finds each item's
    lesson: a late lesson's catch-up batches present what the whole load presents."""
    whole = load_curriculum(corpus_root)
    lesson = max(whole.lessons, key=lambda x: len(selection.strands(whole, x)))
    partial = load_path.load(corpus_root, [lesson.id])

    def presented(curriculum):
        batches = selection.probe_batches(curriculum, curriculum.lesson(lesson.id))
        return [
            [
                (p.id, p.lesson_id, p.type, *p.options)
                for p in selection.present_strand(b, "s", curriculum)
            ]
            for b in batches
        ]

    first = presented(partial)
    assert first == presented(whole)
    members = {m.lesson.id for b in selection.probe_batches(whole, lesson) for m in b.members}
    assert {row[1] for batch in first for row in batch} == members


def test_a_late_lesson_solid_in_the_records_reaches_teaching_in_12(
    tmp_path, monkeypatch, corpus_root
):
    """A late lesson whose prerequisites the records show solid: one question confirms each,
    within the lesson's 12; a strand whose answer does not confirm it gets its second."""
    whole = load_curriculum(corpus_root)
    lesson = max(whole.lessons, key=lambda x: len(selection.strands(whole, x)))
    names = [s.name for s in selection.strands(whole, lesson)]
    assert len(names) >= 9
    solid = dict.fromkeys(names, "solid")
    home = tmp_path / "knows"
    seen, notes, strands = probe(home, monkeypatch, corpus_root, lesson.id, records=solid)
    questions = [p for p in asked(seen) if "re-probe" not in p.title]
    assert len(questions) <= probe_budget.lesson_budget(len(names), len(names)) == 12
    assert "The probe asks up to about 12 questions" in seen[0].content  # the prior says so
    assert notes[-1]["verdicts"] == solid
    first = strands[0].lesson.id  # forgotten since: its one answer does not confirm it
    home = tmp_path / "forgot"
    knows = lambda item: item.lesson_id != first  # noqa: E731
    seen, notes, _ = probe(home, monkeypatch, corpus_root, lesson.id, knows, records=solid)
    evidence = [r for n in notes for r in n["evidence"] if r["lesson"] == first]
    assert len(evidence) >= 2 and notes[-1]["verdicts"][strands[0].name] == "unknown"
    assert all(v == "solid" for k, v in notes[-1]["verdicts"].items() if k != strands[0].name)


def test_a_half_knower_is_not_called_solid_whichever_half(tmp_path, monkeypatch, workshop):
    """A strand of six items, the learner knows three of them — any three, not only the easier
    ones: the probe keeps asking while a half knower could still have been right by chance, so
    even one whose known half is exactly what it asked first is not called solid."""
    from itertools import combinations

    lesson_id = "P1 L02"  # one prerequisite, six items
    whole = load_curriculum(workshop)
    [strand] = selection.strands(whole, whole.lesson(lesson_id))
    bank = [q.id for q in strand.items]
    assert len(bank) == 6
    for n, half in enumerate(combinations(bank, 3)):
        knows = lambda item, half=half: item.id in half  # noqa: E731
        _, notes, _ = probe(tmp_path / str(n), monkeypatch, workshop, lesson_id, knows)
        assert notes[-1]["verdicts"][strand.name] != "solid", half


def test_a_lucky_guess_moves_the_search_like_a_miss(tmp_path, monkeypatch, workshop):
    """Right but tagged "no idea" is a guess: the search asks what it asks after "I don't know"
    (an easier item next), not what it asks after an answer the learner knew."""
    lesson_id = "P1 L02"

    def guessed(prompt: Prompt, knows) -> Action:
        item = prompt.item
        if item is not None and prompt.needs_confidence and item.type == "mcq":
            return Action(kind="answer", value=str(item.correct_index), confidence="no_idea")
        return answer(prompt, knows)

    def asked_ids(home, reply) -> list[str]:
        seen, notes, _ = probe(home, monkeypatch, workshop, lesson_id, lambda i: False, None, reply)
        assert set(notes[-1]["verdicts"].values()) == {"unknown"}
        return [p.item.id for p in asked(seen) if p.item is not None]

    assert asked_ids(tmp_path / "guess", guessed) == asked_ids(tmp_path / "idk", answer)


def test_a_right_free_recall_leaves_less_doubt_than_a_right_choice():
    """The search weighs answers with the verdict's level model: a right free recall has no
    options to guess from, so one right of three leaves "unknown" less likely after it."""
    searches = [EdgeSearch(4, recall=frozenset({0})), EdgeSearch(4)]
    for search in searches:
        for i, known in enumerate((True, False, False)):
            search.record(i, known)
    assert probe_budget.most_in_doubt(searches) == 1
