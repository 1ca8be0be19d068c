"""With a model, a personalised variant of a step is shown only when it still holds every fact
the step's plan requires: checked by the program against the source's own sentences, through a
whole lesson against the loopback OpenAI server."""

from __future__ import annotations

import pytest
from test_engine_model import LESSON, request_payload, run_lesson, skill_of, valid_reply
from test_model_gaps import unmark

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.config import builtin_course_path
from tutor.engine.fact_survival import dropped, survives
from tutor.engine.projection import Declared, Evidence, project
from tutor.engine.step_plan import plan_step
from tutor.engine.steps import key_sentences, teaching_sections
from tutor.testing.model_server import ModelServer, Reply

COURSE = load_curriculum(builtin_course_path())
MARK = "Your variant, as planned."
REFUSED = "the model's variant was not shown: it dropped a required fact"


def variant(drop_first: bool):
    """A model whose teaching draft is the excerpt's key sentences under MARK — all of them,
    or all but the first."""

    def reply(body: dict) -> Reply:
        payload = request_payload(body)
        if skill_of(body) == "tutor" and payload["task"] == "teach":
            facts = key_sentences(unmark(payload["data"]["untrusted_excerpts"]), 3)
            kept = facts[1:] if drop_first else facts
            return Reply.json({"content": f"{MARK}\n\n{' '.join(kept)}", "claims": []})
        return valid_reply(body)

    return reply


def lesson_with(tmp_path, monkeypatch, drop_first: bool):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("TUTOR_HOME", str(home))
    # density 3: every step's plan differs from the unpersonalised one
    (home / "settings.toml").write_text('[learner]\npresentations = ["code"]\ndensity = 3\n')
    with Store(tmp_path / "tutor.db") as store, ModelServer(default=variant(drop_first)) as srv:
        session, seen = run_lesson(store, srv.base_url)
    assert session.done
    teach = [p for p in seen if p.stage == "teach" and p.banner is None]
    assert teach
    return teach


@pytest.mark.usefixtures("isolated_model_env")
def test_a_variant_that_keeps_every_required_fact_is_shown(tmp_path, monkeypatch):
    for p in lesson_with(tmp_path, monkeypatch, drop_first=False):
        assert p.content.startswith(MARK), p.content[:120]
        assert REFUSED not in p.content


@pytest.mark.usefixtures("isolated_model_env")
def test_a_variant_that_drops_a_required_fact_is_not_shown(tmp_path, monkeypatch):
    sections = {s.title: s for s in teaching_sections(COURSE.lesson(LESSON))}
    refused = 0
    for p in lesson_with(tmp_path, monkeypatch, drop_first=True):
        facts = key_sentences(sections[p.title.split(" · ", 1)[1]].text, 3)
        if MARK in p.content:  # the sentence it dropped was not one the plan requires
            flat = " ".join(p.content.split())
            assert all(f in flat for f in facts), p.content
            continue
        assert p.content.startswith("[source: ")
        assert f"[{REFUSED} (§" in p.content
        refused += 1
    assert refused


def test_a_paraphrase_keeps_a_fact_only_with_its_numbers_code_and_most_of_its_words():
    fact = "A vector with 3 components is written `(1, 2, 3)` and lives in three dimensions."
    assert survives(fact, "Written `(1, 2, 3)`, a vector of 3 components lives in 3 dimensions.")
    assert not survives(fact, "A vector with 4 components is written `(1, 2, 3)`, in dimensions.")
    assert not survives(fact, "A vector with 3 components lives in three dimensions.")
    assert not survives(fact, "It is written `(1, 2, 3)` with 3 parts.")


def test_every_required_fact_is_checked_and_an_unresolvable_one_counts_as_dropped():
    lesson = COURSE.lesson("P1 L01")
    concept = next(s for s in teaching_sections(lesson) if s.title == "The Concept")
    plan = plan_step(
        concept.title, concept, lesson.objectives, "primary", project(Declared(), Evidence())
    )
    facts = key_sentences(concept.text, 3)
    assert len(plan.required_facts) == len(facts) == 3
    assert dropped(plan, concept, " ".join(facts)) == []
    assert dropped(plan, concept, " ".join(facts[:2])) == [plan.required_facts[2]]
    changed = concept.model_copy(update={"text": concept.text.replace(facts[0], "Rewritten.")})
    assert plan.required_facts[0] in dropped(plan, changed, concept.text)


def test_a_fact_that_is_a_line_of_code_survives_only_as_written():
    line = "def f(x): return 3 * x**2 - 4 * x + 1"
    assert survives(line, "Then:\n\n```python\ndef f(x):  return 3 * x**2 - 4 * x + 1\n```")
    assert not survives(line, "def f(x): return 3 * x**2 + 1 - 4 * x")


def test_the_contracts_numbers_are_the_codes():
    from pathlib import Path

    from tutor.engine import fact_survival

    contract = " ".join((Path(__file__).parents[1] / "CONTRACT.md").read_text().split())
    assert fact_survival.WORDS_KEPT == 0.6 and "at least 60% of its substantive words" in contract
    assert fact_survival.STEM == 6 and "by their first 6 letters" in contract
    assert REFUSED in contract
