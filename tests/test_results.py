"""Results that teach (issue 21, part 5): a batch's results show each question, the learner's
answer in words, the right answer where theirs was not, the confidence, right or wrong in words
beside the glyph, and a sure-and-wrong answer set apart."""

from __future__ import annotations

import pytest

from learning_system.curriculum import load_curriculum
from learning_system.store import Store
from tutor.config import builtin_course_path
from tutor.engine.session import Session
from tutor.engine.turns import Action, Prompt


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Prompt:
    """P1 L02's first results screen, for a learner sure of a wrong pick on every choice."""
    course = load_curriculum(builtin_course_path())
    store = Store(tmp_path_factory.mktemp("results") / "t.db")
    session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
    for _ in range(200):
        p = session.prompt
        if p.content.startswith("Verdict for"):
            return p
        if p.kind == "read":
            action = Action(kind="next")
        elif p.kind == "choice":
            action = Action(
                kind="answer", value=str((p.item.correct_index + 1) % 4), confidence="sure"
            )
        elif p.kind == "numeric":
            action = Action(kind="answer", value=f"{p.item.answer + 5:g}", confidence="sure")
        elif p.kind == "text":
            action = Action(kind="text", value="idk")
        elif p.kind == "yes_no":
            action = Action(kind="yes_no", value="n")
        else:
            action = Action(kind="error_type", value="2", text="misread it")
        session.act(action)
    raise AssertionError("no results screen")


def test_each_row_names_the_question_both_answers_and_right_or_wrong_in_words(results):
    table = results.table
    assert table is not None
    assert table.headers[:3] == ["question", "your answer", "right answer"]
    wrong = [r for r in table.rows if r[table.headers.index("outcome")] == "wrong"]
    assert wrong
    for row in wrong:
        question, given, right = row[:3]
        assert question and not question.startswith(("p1", "P1"))  # the question, not an id
        assert given and not given.startswith("option ")
        assert right and right != given
    text = results.content
    assert "✗ wrong — you were sure" in text  # sure and wrong stands out, in words
    assert "your answer: " in text and "right answer: " in text
    first_question = wrong[0][0].rstrip("…")
    assert first_question[:30] in text


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_results_table_is_drawn_in_the_worker_and_copied_on_screen(
    results, size, tmp_path, monkeypatch, isolated_model_env
):
    """Drawing the table measures every cell, and the screen draws it again for each layout
    pass (5-7 times at 80x24, once the scroll bar appears): it is drawn in the worker that made
    the prompt, at the widths the screen shows it at, so the event loop draws none of it."""
    import threading

    from test_app import _screen_text
    from test_app_snapshots import _gallery

    from tutor.app import drawn

    on_the_loop: list[int] = []
    draw = drawn.Drawn.draw

    def watched(self, console, options):
        if threading.current_thread() is threading.main_thread():
            if options.max_width not in self._drawn:
                on_the_loop.append(options.max_width)
        return draw(self, console, options)

    monkeypatch.setattr(drawn.Drawn, "draw", watched)
    monkeypatch.setattr(drawn, "_WIDTHS", {})  # nothing drawn yet: no teaching came before
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path))
    app = _gallery(results)(mode="continue", offline=True, store=Store(tmp_path / "tutor.db"))
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.02)
            if getattr(app.screen, "prompt", None) is results and not app.screen.busy:
                break
        await pilot.pause()
        assert "question" in _screen_text(app)  # the table's head, above the fold
    assert on_the_loop == []
