"""The tutoring engine driven by scripted learners, in-process, against a real store."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from learning_system import ledger
from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.config import builtin_course_path
from tutor.engine import selection
from tutor.engine.session import Session
from tutor.engine.turns import Action, InvalidAction, Prompt

REVEALING = re.compile(r"(You answered:|not quite\.|Reference:)")


@pytest.fixture(scope="module")
def course():
    return load_curriculum(builtin_course_path())


def answer(prompt: Prompt, policy: str = "right-sure") -> Action:
    """A scripted learner. policy: right-sure, right-hunch, wrong-sure, idk."""
    if prompt.kind == "read":
        return Action(kind="next")
    if prompt.kind in ("choice", "numeric"):
        item = prompt.item
        if policy == "idk":
            return Action(kind="answer", value="idk")
        if prompt.kind == "choice":
            right = item.correct_index
            value = right if policy.startswith("right") else (right + 1) % 4
            value = str(value)
        else:
            value = f"{item.answer:g}" if policy.startswith("right") else f"{item.answer + 7:g}"
        return Action(kind="answer", value=value, confidence=policy.split("-")[1])
    if prompt.kind == "text":
        if prompt.needs_confidence and policy == "idk":
            return Action(kind="text", value="idk")
        conf = policy.split("-")[1] if prompt.needs_confidence and "-" in policy else None
        return Action(
            kind="text",
            text="my own words",
            confidence=conf or ("sure" if prompt.needs_confidence else None),
        )
    if prompt.kind == "yes_no":
        return Action(kind="yes_no", value="y" if policy.startswith("right") else "n")
    if prompt.kind == "error_type":
        return Action(kind="error_type", value="3", text="I rushed it")
    raise AssertionError(prompt.kind)


def run(session: Session, policy="right-sure", until=None, limit=400) -> list[Prompt]:
    seen = []
    for _ in range(limit):
        p = session.prompt
        seen.append(p)
        if session.done or (until and until(p)):
            break
        session.act(answer(p, policy(p) if callable(policy) else policy))
    return seen


def test_whole_lesson_offline_reaches_done_with_every_answer_recorded(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    seen = run(session)
    assert session.done
    stages = [p.stage for p in seen]
    for stage in ("prior", "probe", "results", "plan", "teach", "quiz"):
        assert stage in stages, stage
    asked = [p for p in seen if p.kind in ("choice", "numeric", "text") and p.needs_confidence]
    recorded = ledger.attempts(store, session_id=session.id)
    assert len(recorded) >= len(asked)
    assert not [a for a in recorded if a["outcome"] == "pending"], "every answer is graded"
    assert all(p.banner is None for p in seen)
    assert store.ingests.find(status="pending"), "a finished lesson leaves a pending ingest"
    teach = [p for p in seen if p.stage == "teach"]
    assert teach and all(p.content.startswith("[source: ") for p in teach)
    assert store.receipts.of_message(teach[0].message_id)


def test_feedback_is_withheld_until_the_batch_ends(store, course):
    session = Session.start(store, course, course.lesson("P1 L03"), offline=True)
    seen = run(session, until=lambda p: p.stage == "results")
    before = seen[:-1]
    assert any(p.stage == "probe" for p in before)
    for p in before:
        assert not REVEALING.search(p.content), p.content


def test_every_probe_answer_needs_a_confidence_tag_except_idk(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    run(session, until=lambda p: p.stage == "probe")
    p = session.prompt
    value = "0" if p.kind == "choice" else "1"
    with pytest.raises(InvalidAction, match="confidence"):
        session.act(
            Action(kind="answer" if p.kind != "text" else "text", value=value, text="words")
        )
    session.act(
        Action(kind="answer", value="idk") if p.kind != "text" else Action(kind="text", value="idk")
    )
    rows = ledger.attempts(store, session_id=session.id)
    assert [(r["outcome"], r["confidence"]) for r in rows] == [("idk", "no_idea")]


def test_right_with_a_hunch_gets_a_reprobe_on_the_same_lesson(store, course):
    """Offline the re-probe is another item of the lesson's bank: it is said to be one more on
    the same lesson, not the same question "worded differently" (an examiner found a neutron
    count re-probed with "Which particle carries no charge?" under that claim)."""
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    seen = run(session, policy="right-hunch", until=lambda p: p.stage == "plan")
    texts = " ".join(p.content for p in seen)
    assert "one more, on the same lesson" in texts and "worded differently" not in texts
    assert any("re-probe" in p.title for p in seen)


def test_sure_at_apply_gets_why_and_wrong_reasoning_is_a_misconception(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)

    def policy(p: Prompt) -> str:
        # right and sure on every question, but the reasoning does not match the reference
        if p.kind == "yes_no" and "reasoning" in p.content:
            return "wrong-sure"
        return "right-sure"

    seen = run(session, policy=policy, until=lambda p: p.stage == "plan")
    assert any("Why?" in p.content for p in seen)
    verdicts = [p.content for p in seen if p.content.startswith("Verdict for")]
    assert verdicts and "unstable" in verdicts[0]
    misconceptions = [
        m for m in ledger.mistakes(store) if m["attribution"].startswith("misconception")
    ]
    assert misconceptions and misconceptions[0]["retest_early"] == 1


def test_wrong_answers_become_mistakes_with_the_learners_attribution(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    run(session, policy="wrong-sure", until=lambda p: p.stage == "plan")
    rows = ledger.mistakes(store)
    assert rows
    assert {r["error_type"] for r in rows} == {"application"}
    assert all(r["attribution"] == "I rushed it" for r in rows)
    assert ledger.due_queue(store)[0].kind == "mistake"


def test_resume_replays_to_the_same_prompt_without_doubling_answers(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    run(session, until=lambda p: p.stage == "teach" and "Step 2/" in p.title)
    where = session.prompt
    before = len(ledger.attempts(store, session_id=session.id))
    session.pause()
    row = store.sessions.latest(curriculum=str(course.root))
    assert row["status"] == "paused" and row["position"] == where.position
    again = Session.resume(store, course, row)
    assert again.prompt.title == where.title
    assert again.prompt.content == where.content
    assert len(ledger.attempts(store, session_id=session.id)) == before
    run(again)
    assert again.done
    ids = [r["id"] for r in ledger.attempts(store, session_id=session.id)]
    assert len(ids) == len(set(ids))


def test_catch_up_mode_pools_strands(store, corpus_root):
    curriculum = load_curriculum(corpus_root)
    lesson = next(x for x in curriculum.lessons if len(x.prerequisites) >= 3)
    session = Session.start(store, curriculum, lesson, offline=True)
    seen = run(session, policy="wrong-sure", until=lambda p: p.stage == "plan")
    probe = [p for p in seen if p.stage == "probe"]
    assert any("catch-up across" in p.title for p in probe)
    assert {p.title.split(" · ")[1] for p in probe} == {"strand 1 of 1"}
    asked = [p for p in probe if p.item is not None and "re-probe" not in p.title]
    # two of each strand's own, more only where answers leave doubt: never over the budget
    strands = len(selection.strands(curriculum, lesson))
    assert 2 * strands <= len(asked) <= max(12, 2 * strands)
    verdict = next(p.content for p in seen if p.content.startswith("Verdict for catch-up"))
    assert "By strand:" in verdict
    # the gaps map back to the strands: each unknown prerequisite gets a refresh step
    plan = seen[-1].content
    assert plan.count("refresh: ") >= 1


def test_pause_mid_probe_resumes_on_the_same_question_with_answers_kept(store, course):
    session = Session.start(store, course, course.lesson("P1 L03"), offline=True)
    run(session, until=lambda p: p.stage == "probe" and p.position.endswith("question 2"))
    where = session.prompt
    session.pause()
    row = store.sessions.latest(curriculum=str(course.root))
    assert row["status"] == "paused" and "question 2" in row["position"]
    again = Session.resume(store, course, row)
    assert (again.prompt.message_id, again.prompt.content) == (where.message_id, where.content)
    assert len(ledger.attempts(store, session_id=session.id)) == 1


def test_i_already_know_is_recorded_and_the_probe_still_asks(store, course):
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    run(session, until=lambda p: p.stage == "probe")
    before = session.prompt
    after = session.act(Action(kind="claim", text="the chain rule"))
    assert after is before, "the claim does not skip the question"
    notes = [n for n in store.sessions.notes(session.id) if n["kind"] == "claimed_known"]
    assert [n["body"]["text"] for n in notes] == ["the chain rule"]


def test_the_next_lesson_inherits_the_probe_verdicts_without_searching_again(store, course):
    first = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    run(first)
    verdict = next(
        n["body"]["verdict"] for n in store.sessions.notes(first.id) if n["kind"] == "verdict"
    )
    second = Session.start(store, course, course.lesson("P1 L03"), offline=True)
    table = second.prompt.content
    row = next(line for line in table.splitlines() if "Vectors and Dot Products" in line)
    assert f"probe in P1 L02: {verdict}" in row
    assert row.rstrip().endswith("skip-fast" if verdict == "solid" else "expand")


def test_the_prior_finds_a_strand_by_its_own_words_not_by_the_and_and(store, course):
    """Mistakes on vectors (made in P1 L02's probe) are no record of "Derivatives and the Chain
    Rule": its title's "and" and "the" once matched every record, showing an open mistake for a
    lesson never asked about."""
    first = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    run(first, policy="wrong-sure", until=lambda p: p.stage == "plan")
    first.pause()
    assert store.mistakes.all(status="open")  # the vectors answers were wrong
    second = Session.start(store, course, course.lesson("P1 L03"), offline=True)
    row = next(line for line in second.prompt.content.splitlines() if "Derivatives" in line)
    assert "nothing in your records" in row and row.rstrip().endswith("expand")


def test_continue_after_a_finished_lesson_opens_the_next_one(store, course, monkeypatch, tmp_path):
    from tutor.engine.runner import open_session

    for name in ("OPENAI_API_KEY", "TUTOR_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "home"))
    first = open_session(store, course, offline=True)
    assert first.lesson.id == "P1 L01" and not first.resumed
    run(first, until=lambda p: p.stage == "probe")
    again = open_session(store, course, offline=True)
    assert again.id == first.id and again.resumed
    run(again)
    following = open_session(store, course, offline=True)
    assert following.lesson.id == "P1 L02"


def test_continue_with_a_lesson_paused_midway_resumes_it(course, monkeypatch, tmp_path):
    """`tutor continue --lesson L` on a lesson paused midway picks it up where it stopped, even
    after another lesson was opened since; it started it over, leaving the answers behind."""
    from tutor.engine.runner import open_session

    monkeypatch.setenv("TUTOR_HOME", str(tmp_path / "home"))
    with Store(tmp_path / "t.db") as store:
        first = open_session(store, course, lesson_ref="P1 L02", offline=True)
        run(first, until=lambda p: p.stage == "probe")
        first.act(answer(first.prompt))
        where = first.prompt.message_id
        first.pause()
        other = open_session(store, course, lesson_ref="P1 L03", offline=True)
        assert other.id != first.id
        other.pause()
        again = open_session(store, course, lesson_ref="p1l02", offline=True)
        assert again.id == first.id and again.resumed and again.prompt.message_id == where
        assert len(ledger.attempts(store, session_id=first.id)) == 1


def test_every_corpus_lesson_runs_to_the_end_offline_with_nothing_withheld(tmp_path, corpus_root):
    curriculum = load_curriculum(corpus_root)
    policies = itertools.cycle(["right-sure", "wrong-sure", "right-hunch", "idk"])
    for n, lesson in enumerate(curriculum.lessons):
        with Store(tmp_path / f"{n}.db") as s:
            session = Session.start(s, curriculum, lesson, offline=True)
            seen = run(session, policy=lambda p: next(policies), limit=600)
            assert session.done, lesson.id
            assert not [p.banner for p in seen if p.banner], lesson.id
            assert s.ingests.find(status="pending"), lesson.id


def test_a_lesson_whose_document_is_missing_still_runs(tmp_path, store):
    import shutil

    from conftest import write_tiny_curriculum

    root = write_tiny_curriculum(tmp_path / "course", [("Means", "http://127.0.0.1:9/m")])
    shutil.rmtree(root / "phases" / "01-basics" / "01-counting" / "docs")
    curriculum = load_curriculum(root)
    assert curriculum.warnings
    session = Session.start(store, curriculum, curriculum.lesson("P1 L01"), offline=True)
    seen = run(session)
    assert session.done
    said = next(p.content for p in seen if "no teaching text" in p.content)
    assert "tutor curriculum check" in said  # where the reason (a warning) is listed
    # a lesson with no text has nothing to explain back: never "Explain … Counting." to be
    # graded against its folder's name
    assert not any("Explain" in p.content for p in seen if p.stage == "probe")


def test_a_skipped_step_is_recorded_as_skipped_not_taught(store, course):
    from learning_system.outcome import PendingIngest
    from tutor.clerk.ingest import ingest_pending

    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    run(session, until=lambda p: p.stage == "teach")
    skipped = session.prompt.title.split(" · ", 1)[1]
    session.act(Action(kind="skip"))
    run(session)
    assert session.done
    [row] = store.ingests.find(status="pending")
    pending = PendingIngest.model_validate(row["payload"])
    assert pending.skipped == [skipped]
    assert skipped not in [t.title for t in pending.taught] and pending.taught
    [result] = ingest_pending(store)
    assert result.status == "accepted", result.reasons
    [record] = store.rows("SELECT payload FROM learning_records")
    payload = json.loads(record["payload"])
    assert payload["skipped"] == [skipped] and skipped not in payload["taught"]
    for page in store.rows("SELECT markdown FROM knowledge_pages"):
        assert f"## {skipped}\n" not in page["markdown"]


def test_each_concept_of_a_lesson_gets_its_own_row_and_schedule(store, course):
    from learning_system.outcome import PendingIngest
    from tutor.clerk.ingest import ingest_pending

    session = Session.start(store, course, course.lesson("P1 L01"), offline=True)
    run(session)
    [result] = ingest_pending(store)
    assert result.status == "accepted", result.reasons
    rows = {c["id"]: c for c in ledger.concepts(store)}
    names = [c["name"] for c in rows.values()]
    assert {
        "The dot product",
        "Cosine similarity",
        "Length and unit vectors",
        "Vectors and Dot Products",
    } <= set(names)
    assert len({n.lower().removeprefix("the ") for n in names}) == len(names)  # no twins
    assert not [n for n in names if n.lower().startswith("where")]
    assert all(c["next_review"] for c in rows.values())
    pending = PendingIngest.model_validate(store.ingests.find()[0]["payload"])
    evidence = {c.id: c.evidence for c in pending.concepts}
    dot = next(cid for cid, c in rows.items() if c["name"] == "The dot product")
    assert evidence[dot], "answers about the dot product count for it"
    page = store.rows("SELECT markdown FROM knowledge_pages WHERE concept_id = ?", (dot,))
    assert "### The dot product" in page[0]["markdown"]
    assert "### Cosine similarity" not in page[0]["markdown"]  # its own part of the step


def _mill_lesson(root):
    """A lesson of four sections after a first one (whose bank the probe asks), two of its
    bank items kept for checkpoints: the first asks about its last section, the second about
    its first."""
    first = root / "phases" / "01-p" / "01-water"
    (first / "docs").mkdir(parents=True)
    (first / "docs" / "en.md").write_text(
        "# Water\n\n> It runs downhill.\n\n## The Problem\n\nRain falls on the hills and "
        "gathers in streams.\n\n## The Concept\n\nWater always runs downhill, to the lowest "
        "ground it can reach.\n",
        encoding="utf-8",
    )
    downhill = ["Downhill", "Uphill", "Sideways", "In circles"]
    water = [{"id": "water-1", "question": "Which way does water run?", "options": downhill}]
    (first / "quiz.json").write_text(json.dumps([{**water[0], "correct": 0}]), encoding="utf-8")
    folder = root / "phases" / "01-p" / "02-the-mill"
    (folder / "docs").mkdir(parents=True)
    sections = {
        "The Problem": "The sluice gate sets how much water reaches the buckets of the wheel.",
        "The Concept": "A mill wheel turns only while water falls onto its buckets from the race.",
        "Build It": "Fit the millstones so the upper runner stone turns above the bedstone.",
        "Ship It": "Dress the grooves of the bedstone with a chisel every few weeks of grinding.",
    }
    doc = (
        "# The Mill\n\n> Water on demand.\n\n**Type:** Learn\n"
        "**Prerequisites:** Phase 1, Lesson 01 (Water)\n\n"
        + "".join(f"## {title}\n\n{text}\n\n" for title, text in sections.items())
    )
    (folder / "docs" / "en.md").write_text(doc, encoding="utf-8")
    bank = [
        {
            "id": f"mill-check-{n}",
            "stage": "check",
            "question": question,
            "options": options,
            "correct": 0,
        }
        for n, (question, options) in enumerate(
            [
                (
                    "How often are the grooves of the bedstone dressed?",
                    ["Every few weeks", "Every few years", "Every few days", "Every few hours"],
                ),
                (
                    "What sets how much water reaches the buckets?",
                    ["The sluice gate", "The belt drive", "The wheel hub", "The grain chute"],
                ),
            ]
        )
    ]
    (folder / "quiz.json").write_text(json.dumps(bank), encoding="utf-8")
    return load_curriculum(root)


def test_a_checkpoint_asks_what_the_steps_so_far_have_taught(store, tmp_path):
    """An examiner's checkpoint asked about Avogadro's number right after "The Problem", before
    the step that teaches it. Of the bank items kept for checkpoints, one whose question and
    key the steps so far have said comes first (here the second in the bank)."""
    course = _mill_lesson(tmp_path / "course")
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    seen = run(session, until=lambda p: p.stage == "checkpoint" and p.item is not None)
    asked = seen[-1]
    assert asked.stage == "checkpoint" and asked.item is not None, [p.title for p in seen]
    assert asked.item.id == "mill-check-1", asked.item.question
    session.close()


def test_a_checkpoint_asks_no_bank_item_the_steps_have_not_taught(store, tmp_path):
    """An examiner's SQL checkpoint asked which LIKE character matches one character right
    after "The Problem", a step before LIKE was taught. When no bank item kept for checkpoints
    has been taught by the steps so far, the checkpoint asks what the step said, in words that
    stand alone in a later review (the lesson named, not "this step")."""
    course = _mill_lesson(tmp_path / "course")
    doc = course.lesson("P1 L02").doc_path
    text = doc.read_text(encoding="utf-8").replace(
        "The sluice gate sets how much water reaches the buckets of the wheel.",
        "Grain must be ground to flour before any bread can be baked from it.",
    )
    doc.write_text(text, encoding="utf-8")
    course = load_curriculum(tmp_path / "course")
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    seen = run(session, until=lambda p: p.stage == "checkpoint" and p.item is not None)
    session.close()
    asked = seen[-1].item
    assert asked is not None and asked.type == "free_recall", asked
    assert not asked.id.startswith("mill-check"), asked.question
    assert asked.question.startswith("In your own words: what does The Mill say about")


def test_a_refresh_teaches_the_section_that_says_what_was_missed(store, tmp_path):
    """An examiner's refresher of an unstable prerequisite showed its first section (The
    Problem), not the passage holding the fact missed. A refresh now teaches the prerequisite's
    section that says most of what the probe found missed: here The Concept ("downhill")."""
    course = _mill_lesson(tmp_path / "course")
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    seen = run(session, policy="wrong", until=lambda p: p.stage == "teach")
    session.close()
    plan = next(p for p in seen if p.stage == "plan")
    assert "refresh: Water" in plan.content, plan.content
    assert seen[-1].title.startswith("Step 1/") and "downhill" in seen[-1].content.lower()
