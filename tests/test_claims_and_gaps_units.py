"""Units behind issue 12: claims extracted by code, offline quiz verdicts, symbol and notation
options, the verifier settings, the breaker, aio.run, and relevance of external excerpts."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from learning_system.curriculum import Section
from tutor import aio
from tutor.engine import steps
from tutor.gates import samples
from tutor.gates.claims import extract_claims, is_scaffold
from tutor.gates.envelopes import QuizQuestion
from tutor.gates.mcq import audit_item
from tutor.gates.offline_verifier import verify
from tutor.llm.breaker import FORMAT_NOTICE, CircuitBreaker
from tutor.llm.settings import load_settings, load_verifier_settings, same_model
from tutor.scout.digest import Digest, SourceEntry

CONTRACT = " ".join(
    (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8").split()
)


def test_every_asserting_sentence_is_a_claim_and_scaffold_is_not():
    text = (
        "[source: primary §Vectors]\n\n## The dot product is a scalar\n\n"
        "A vector is a list of numbers. Cosine similarity can exceed 1 for long vectors. "
        "Why?\n\n- Each item that asserts is its own claim.\n- short\n\n"
        "```python\nprint(1)\n```\n\n| op | result type |\n|---|---|\n| dot | scalar |\n"
    )
    assert extract_claims(text) == [
        "The dot product is a scalar",
        "A vector is a list of numbers.",
        "Cosine similarity can exceed 1 for long vectors.",
        "Each item that asserts is its own claim.",
        "```python\nprint(1)\n```",
        "| op | result type |",
        "| dot | scalar |",
    ]
    assert is_scaffold("[external: A page]") and not is_scaffold("[a] and [b] differ here")
    # formulas, short assertions and rhetorical questions are claims too; a lone word is not
    tricky = (
        "(x^3)' = 2x\n\n2 + 2 = 5.\n\nCosine: unbounded.\n\nDid you know that cosine "
        "similarity can exceed 1 for long vectors?\n\nExample:\n\n- 3\n"
    )
    assert extract_claims(tricky) == [
        "(x^3)' = 2x",
        "2 + 2 = 5.",
        "Cosine: unbounded.",
        "Did you know that cosine similarity can exceed 1 for long vectors?",
        "3",
    ]


def test_a_title_or_an_abbreviation_ends_no_claim():
    """An outside tester saw "This was first proven by Dr." and "Helga Marsters …" marked
    unverified as two claims. A title's or an abbreviation's full stop ends no sentence."""
    text = (
        "This was first proven by Dr. Helga Marsters in 1987. A step is small, e.g. one "
        "tenth of the last. It ends here."
    )
    assert extract_claims(text) == [
        "This was first proven by Dr. Helga Marsters in 1987.",
        "A step is small, e.g. one tenth of the last.",
        "It ends here.",
    ]


def test_offline_quiz_audit_records_that_the_semantic_rules_were_not_checked():
    verdict = verify(samples.quiz_envelope())
    assert verdict.verdict == "UNVERIFIED"
    flawed = samples.quiz_envelope().model_copy(
        update={"questions_json": [samples.LONG_KEY_QUESTION]}
    )
    assert verify(flawed).verdict == "ISSUES"  # mechanical findings still stand


def mcq(question: str, options: list[str], key: int = 0) -> set[str]:
    item = QuizQuestion(id="x", type="mcq", question=question, options=options, correct_index=key)
    return {i.code for i in audit_item(item)}


def test_symbol_options_and_notation_are_not_flagged():
    assert mcq("Which Python operator is bitwise OR?", ["|", "&", ">", ";"]) == set()
    assert not {"M12"} & mcq(
        "Which is the probability that both events occur?",
        ["P(A and B)", "P(A or B)", "P(A) + P(B)", "P(A | B)"],
    )
    for combo in ("A and C", "B, C or D", "Both B and C", "A and B are correct"):
        assert "M12" in mcq("Pick one", ["X", "Y", "Z", combo]), combo
    assert "M17" in mcq("Pick one", ["X", "Y", "Z", "  "])


def test_a_separate_verifier_from_the_environment_or_the_settings_file(
    monkeypatch, tmp_path, isolated_model_env
):
    model = load_settings(base_url="http://a.example/v1", model="writer")
    assert load_verifier_settings(model) is model  # nothing set: the drafting model itself
    monkeypatch.setenv("TUTOR_VERIFIER_MODEL", "judge")
    judge = load_verifier_settings(model)
    assert (judge.model, judge.base_url) == ("judge", "http://a.example/v1")
    assert not same_model(model, judge)
    # the same model is not independent of itself on another endpoint, or spelled otherwise
    elsewhere = load_settings(base_url="http://localhost:11434/v1", model="Writer:latest")
    assert same_model(model, elsewhere)
    monkeypatch.delenv("TUTOR_VERIFIER_MODEL")
    from tutor.llm.settings import settings_file

    settings_file().parent.mkdir(parents=True, exist_ok=True)
    settings_file().write_text('[verifier]\nbase_url = "http://b.example/v1"\n')
    assert load_verifier_settings(model).base_url == "http://b.example/v1"
    assert "TUTOR_VERIFIER_MODEL" in CONTRACT and "[verifier]" in CONTRACT


def test_the_breaker_opens_after_failures_or_one_timeout_tells_once_and_resets():
    b = CircuitBreaker(3)
    b.failure("server_error")
    b.success()
    b.failure("server_error")
    b.failure("length")  # a long answer is the model's, not a failing endpoint
    b.failure("server_error")
    assert not b.is_open
    # but the learner is told once what cuts answers short and which setting to raise (an
    # outside server's cut-offs showed only UNVERIFIED marks, 16 times)
    told = b.notice()
    assert told is not None and "TUTOR_MAX_TOKENS" in told and b.notice() is None
    b.failure("connection")
    assert b.is_open and b.notice() and b.notice() is None
    b.reset()
    # answers that never follow the format (issue 22): failures too, told in those words
    b.failure("schema")
    assert not b.reask  # the last call's re-asks did not help: the next gets none
    b.success()
    assert b.reask
    b.failure("schema")
    b.failure("refusal")
    assert not b.is_open
    b.failure("schema")
    assert b.is_open and b.notice() == FORMAT_NOTICE and b.notice() is None
    b.reset()
    assert not b.is_open
    b.failure("timeout", "no answer within 0.5 s")
    assert b.is_open and "(no answer within 0.5 s)" in b.notice()
    b.reset()
    # a learner kept waiting opens it only when the wait is on the model (requests in flight)
    assert not b.stall("10 s at one screen") and not b.is_open
    assert (
        load_settings().breaker_failures == 3 and "`TUTOR_BREAKER_FAILURES` (default 3)" in CONTRACT
    )


async def answer_later() -> str:
    await asyncio.sleep(0)
    return "answered"


def test_aio_run_from_a_plain_thread_and_from_a_running_loop():
    assert aio.run(answer_later()) == "answered"
    seen = []
    worker = threading.Thread(target=lambda: seen.append(aio.run(answer_later())))
    worker.start()
    worker.join()

    async def inside() -> str:  # a loop runs in this thread: asyncio.run would refuse
        return aio.run(answer_later())

    assert seen == ["answered"] and asyncio.run(inside()) == "answered"
    with pytest.raises(ZeroDivisionError):

        async def broken() -> None:
            raise ZeroDivisionError

        aio.run(broken())


def _external(url: str, excerpt: str) -> SourceEntry:
    return SourceEntry(
        url=url,
        kind="external",
        title="",
        hash=None,
        status="ok",
        reason=None,
        excerpt=excerpt,
        takeaways=[],
        adds_vs_primary="",
    )


def test_the_external_excerpt_is_the_most_relevant_one_or_none():
    sources = [
        _external("u1", "Gradient descent moves parameters against the gradient of the loss."),
        _external("u2", "Cosine similarity compares the directions of two embedding vectors."),
    ]
    digest = Digest(
        id="d",
        lesson_id="P1 L01",
        lesson_title="t",
        curriculum="c",
        created_at="",
        request_hash="",
        sources=sources,
        synthesis="",
        outline=[],
        prereqs=[],
        lang_recommendation=None,
        warnings=[],
    )
    section = Section(
        title="Cosine similarity",
        level=2,
        text="Cosine similarity measures the angle "
        "between two vectors, ignoring how long the vectors are.",
    )
    found = steps.external_for(digest, section)
    assert found is not None and found.url == "u2"
    section = Section(
        title="Tokenisation",
        level=2,
        text="A tokenizer splits raw text into pieces "
        "that a model can look up in its vocabulary table.",
    )
    assert steps.external_for(digest, section) is None
    assert steps.RELEVANCE_MIN == 2 and "(at least 2)" in CONTRACT
