"""CONTRACT.md's "Tutor engine" section, held to the code."""

from __future__ import annotations

from pathlib import Path

from test_engine_api import _prompt

from tutor.engine import (
    admission,
    guessing,
    learner_levels,
    option_sets,
    parse,
    probe_budget,
    repair,
    selection,
    verdicts,
)
from tutor.engine.phases import teach
from tutor.engine.verdicts import Evidence, strand_verdict

CONTRACT = (Path(__file__).resolve().parents[1] / "CONTRACT.md").read_text(encoding="utf-8")
SECTION = " ".join(CONTRACT.split("## Tutor engine", 1)[1].split())


def test_the_numbers_in_the_contract_are_the_codes():
    assert guessing.GUESS_CAP == 0.30 and "30%" in SECTION
    assert guessing.ADMIT_CAP == 0.25 and "more than 25% of the MCQs plus half a key" in SECTION
    assert admission.SLACK == 0.5 and "(`ADMIT_CAP`, `SLACK`" in SECTION
    assert repair.TWIN == 0.6 and "(0.6 of their words shared)" in SECTION
    assert admission.LENT == 1.0 and "by more than `LENT` (1.0" in SECTION
    assert option_sets.ALTERNATIVES == 12 and "Of up to 12 fair option sets" in SECTION
    assert (
        option_sets.REPAIRABLE == {"M04", "M05", "M13", "M15"} and "(M04, M05, M13, M15)" in SECTION
    )
    assert repair.LENGTH_BAND == (0.78, 1.28) and "0.78–1.28 times" in SECTION
    assert repair.SIMILAR_STEM == 0.34 and "a third of their content words" in SECTION
    assert repair.SAME_ANSWER == 0.5 and "half its content words" in SECTION
    assert probe_budget.LESSON_QUESTIONS == 12 and "asks at most 12 questions" in SECTION
    assert probe_budget.lesson_budget(7) == 21 and "(3 per strand, 1 per strand solid" in SECTION
    assert probe_budget.lesson_budget(14, recorded=14) == 14 and verdicts.CONFIRM == 1
    assert probe_budget.most_asked(7) == 21 and "or 6 a strand when that is less" in SECTION
    assert probe_budget.STRAND_MAX == 6 and "or it has 6 answers" in SECTION
    assert probe_budget.SURE_ENOUGH == 0.9 and "0.9 likely" in SECTION
    assert 'a right answer tagged "no idea" counts as a miss' in SECTION
    assert learner_levels.RIGHT_CHANCE == (0.9, 0.5, 0.2) and "0.9, 0.5 and 0.2" in SECTION
    assert (
        learner_levels.RECALL_RIGHT_CHANCE == (0.9, 0.5, 0.05) and "an unknown one 0.05" in SECTION
    )
    assert selection.CATCH_UP_STRANDS == 3 and "Three strands or more" in SECTION
    assert len(teach.FEYNMAN_RUBRIC) == 4 and "all four rubric points" in SECTION


def test_not_sure_after_an_answer_is_a_hunch():
    assert "or alone at the confidence prompt, is a hunch" in SECTION
    choice = _prompt("choice", needs_confidence=True)
    assert parse.parse(choice, "2 not sure").confidence == "hunch"
    assert parse.confidence_of("not sure") == "hunch"


def row(outcome="correct", confidence="sure", follow_up="", self_graded=False):
    """A strand's graded answer (follow_up "free recall": a free-recall one)."""
    return Evidence("item", "P1 L01", "option 1", confidence, outcome, follow_up, self_graded)


def test_verdict_rules():
    assert verdicts.MIN_EVIDENCE == 2 and "fewer than 2 graded answers" in SECTION
    assert verdicts.SELF_GRADED_WEIGHT == 0.5 and "answer counts half of all that" in SECTION
    assert verdicts.HUNCH_WEIGHT == 0.5 and "a hunch counts 0.5 right" in SECTION
    assert "the level the probe's own level model finds likeliest" in SECTION
    assert selection.CATCH_UP_GROUP == 3 and "batches of at most 3 strands" in SECTION
    assert strand_verdict([row()]) == "not probed"  # one answer is no evidence
    # ... unless it confirms what the records show: right and sure on a strand solid in them
    assert "except a strand solid in the records whose one answer has full credit" in SECTION
    assert strand_verdict([row()], recorded=True) == "solid"
    # a right hunch with nothing left to re-probe it counts half, like an unsure re-probe
    assert "or no item is left to re-probe with" in SECTION
    assert verdicts.credit(row(confidence="hunch", follow_up="re-probe: none available")) == 0.5
    assert strand_verdict([row(confidence="hunch")], recorded=True) == "not probed"
    assert strand_verdict([row("wrong")], recorded=True) == "not probed"
    assert strand_verdict([row("wrong"), row("wrong")], recorded=True) == "unknown"
    assert strand_verdict([row(), row("pending", "hunch")]) == "not probed"
    assert (
        strand_verdict([row(), row(confidence="hunch", follow_up="re-probe: right, sure")])
        == "solid"
    )
    assert (
        strand_verdict([row(), row(confidence="hunch", follow_up="re-probe: right, unsure")])
        == "solid"
    )  # 1.5 of 2: the re-probe's own confidence counts
    assert (
        strand_verdict([row(confidence="hunch", follow_up="re-probe: right, unsure"), row("wrong")])
        == "unstable"
    )  # 1 right (the hunch 0.5, its re-probe 0.5), 1 missed
    assert (
        strand_verdict(
            [
                row(confidence="hunch", follow_up="re-probe: right, unsure"),
                row("wrong"),
                row("wrong"),
            ]
        )
        == "unknown"
    )  # 1 right, 2 missed
    assert (
        strand_verdict([row(confidence="hunch", follow_up="re-probe: wrong"), row()]) == "unstable"
    )
    assert strand_verdict([row(), row(), row(), row("wrong")]) == "solid"  # one slip in four
    # the model finds half known likelier than known after one slip in three (0.125 to 0.081)
    assert strand_verdict([row(), row(), row("wrong")]) == "unstable"
    # ... but a slip the learner tagged a hunch counts half a miss: known is likelier
    assert "wrong with a hunch counts 0.5 missed" in SECTION
    assert strand_verdict([row(), row(), row("wrong", "hunch")]) == "solid"
    assert strand_verdict([row(), row(), row("wrong", "no_idea")]) == "unstable"
    assert strand_verdict([row(), row("wrong", "hunch"), row("wrong", "hunch")]) == "unstable"
    # one right of three choice answers is what guessing yields; a free recall is not guessed
    assert strand_verdict([row(), row("wrong"), row("idk", "no_idea")]) == "unknown"
    recall = row(follow_up="free recall")
    assert strand_verdict([recall, row("wrong"), row("idk", "no_idea")]) == "unstable"
    assert (
        strand_verdict([row(), row("wrong"), row("idk", "no_idea"), row("wrong"), row("wrong")])
        == "unknown"
    )  # 1/5
    # a self-graded answer weighs half: right on two MCQs, wrong on the free recall → solid;
    # right on the free recall only, wrong on three MCQs → unknown (0.5 right, 3 missed), like
    # one MCQ right instead (1 right, 3 missed)
    assert strand_verdict([row(), row(), row("wrong", self_graded=True)]) == "solid"
    assert (
        strand_verdict([row("wrong"), row("wrong"), row("wrong"), row(self_graded=True)])
        == "unknown"
    )
    assert strand_verdict([row("wrong"), row("wrong"), row("wrong"), row()]) == "unknown"


def test_a_verdict_is_the_likeliest_level_of_the_search_model():
    """The verdict and the search weigh answers with one model; a right hunch is weaker
    evidence of knowing, not half a miss."""
    unsure_again = row(confidence="hunch", follow_up="re-probe: right, unsure")
    # a knower right four times, unsure on two of them (each re-probed right, unsure again),
    # with one slip: the old credited share (2 of 4) called it unstable
    assert strand_verdict([row(), unsure_again, unsure_again, row("wrong")]) == "solid"
    assert (
        strand_verdict([row(), row(), row("wrong"), row("wrong"), row("wrong"), row("wrong")])
        != "solid"
    )
    assert strand_verdict([row(), row(), row(), row()], misconception=True) == "unstable"
    # right throughout but never sure (hunches re-probed right, unsure again) is not solid
    assert strand_verdict([unsure_again] * 4) == "unstable"
    assert "no answer right and sure (the answer itself or its re-probe)" in SECTION
    assert (
        strand_verdict([row(), row(confidence="hunch", follow_up="re-probe: wrong")]) == "unstable"
    )
    # the search's doubt is the verdict model's: 0.9 sure of "known" after four right answers
    four = [learner_levels.Weighed(1, 0)] * 4
    assert learner_levels.likeliest(four) == "known"
    assert probe_budget.SURE_ENOUGH < 1 - learner_levels.doubts(four)[1]
    assert 1 - learner_levels.doubts(four[:3])[1] < probe_budget.SURE_ENOUGH


def test_plan_and_prior_wording_in_the_contract():
    assert "`refresh: <strand> (<verdict>; prior: <plan>)`" in SECTION
    assert "Its rows are the probe's strands" in SECTION


def test_the_grading_numbers_in_the_contract_are_the_codes():
    from tutor.engine import selfgrade

    assert selfgrade.MAX_POINTS == 4 and "first 1–4 whole sentences" in SECTION
    assert selfgrade.MIN_CONTENT_WORDS == 2 and "fewer than 2 distinct content words" in SECTION
    assert selfgrade.MIN_DISTINCT_SHARE == 0.4 and "40% distinct" in SECTION
    assert selfgrade.ON_TOPIC_SHARE == 0.2 and "under 20% of its content words" in SECTION
    assert selfgrade.EXPLAIN_MIN_WORDS == 6 and "fewer than 6 distinct content words" in SECTION
    assert selfgrade.EXPLAIN_MIN_LESSON == 3 and "fewer than 3 of them" in SECTION
    assert selfgrade.EXPLAIN_LESSON_SHARE == 0.3 and "under 30%" in SECTION
    assert selfgrade.PROSE_FUNCTION_SHARE == 0.15 and "under 15% of its words" in SECTION
    assert (selfgrade.COPIED_RUN, selfgrade.COPIED_SHARE) == (8, 0.6)
    assert "over 60% in runs of 8 or more" in SECTION
