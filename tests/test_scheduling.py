from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from learning_system import scheduling


def test_rating_mapping_only_wrong_is_a_lapse():
    assert scheduling.rating_name("correct", "sure") == "Good"
    assert scheduling.rating_name("correct", "hunch") == "Hard"
    assert scheduling.rating_name("correct", "no_idea") == "Hard"
    assert scheduling.rating_name("wrong", "sure") == "Again"
    assert scheduling.rating_name("idk", "no_idea") == "Again"
    assert scheduling.needs_early_retest("wrong", "sure")
    assert not scheduling.needs_early_retest("wrong", "hunch")
    assert not scheduling.needs_early_retest("correct", "sure")


def test_good_review_pushes_due_further_than_again():
    now = datetime(2026, 3, 1, tzinfo=UTC)
    card, _ = scheduling.review(None, "correct", "sure", now)
    _, good_due = scheduling.review(card, "correct", "sure", now + timedelta(days=1))
    _, again_due = scheduling.review(card, "wrong", "sure", now + timedelta(days=1))
    assert good_due > again_due


answers = st.lists(
    st.tuples(
        st.integers(0, 400),
        st.sampled_from(["correct", "wrong", "idk"]),
        st.sampled_from(["sure", "hunch", "no_idea"]),
    ),
    max_size=30,
)


@given(answers)
def test_mastery_stays_between_0_and_080(rows):
    now = datetime(2026, 3, 1, tzinfo=UTC)
    value = scheduling.mastery([(now - timedelta(days=d), o, c) for d, o, c in rows], now)
    assert 0.0 <= value <= 0.80


def test_mastery_weights_recent_answers_more():
    now = datetime(2026, 3, 1, tzinfo=UTC)
    old_right = [(now - timedelta(days=60), "correct", "sure")] * 3 + [(now, "wrong", "sure")]
    new_right = [(now - timedelta(days=60), "wrong", "sure")] + [(now, "correct", "sure")] * 3
    assert scheduling.mastery(new_right, now) > scheduling.mastery(old_right, now)
    assert scheduling.mastery([(now, "correct", "sure")] * 5, now) == 0.80


def test_pending_answers_do_not_count_toward_mastery():
    now = datetime(2026, 3, 1, tzinfo=UTC)
    right = [(now, "correct", "sure")] * 3
    assert scheduling.mastery(right + [(now, "pending", "sure")] * 5, now) == scheduling.mastery(
        right, now
    )
