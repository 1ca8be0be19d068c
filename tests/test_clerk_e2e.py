"""End to end: a lesson run offline to the end by a scripted learner, then ingested by the Clerk
and shown in every view; a second ingest changes no byte of the store or of the views."""

from __future__ import annotations

import json

import pytest

from learning_system import ledger
from learning_system.curriculum import load_curriculum
from learning_system.outcome import PendingIngest
from learning_system.store import Store
from learning_system.views import knowledge_file_name, write_views
from tutor.clerk.ingest import ingest, ingest_pending
from tutor.config import builtin_course_path
from tutor.engine.session import Session
from tutor.engine.turns import Action, Prompt

ATTRIBUTION = "# I misread\n```\n<b>the sign</b>\x1b[2J"


def learner(prompt: Prompt, n: int) -> Action:
    """Right and sure, except every third answer is confidently wrong."""
    wrong = n % 3 == 2
    if prompt.kind == "read":
        return Action(kind="next")
    if prompt.kind == "choice":
        right = prompt.item.correct_index
        return Action(
            kind="answer", value=str((right + wrong) % len(prompt.item.options)), confidence="sure"
        )
    if prompt.kind == "numeric":
        value = prompt.item.answer + (7 if wrong else 0)
        return Action(kind="answer", value=f"{value:g}", confidence="sure")
    if prompt.kind == "text":
        return Action(
            kind="text",
            text="in my own words",
            confidence="sure" if prompt.needs_confidence else None,
        )
    if prompt.kind == "yes_no":
        return Action(kind="yes_no", value="n" if wrong else "y")
    if prompt.kind == "error_type":
        return Action(kind="error_type", value="3", text=ATTRIBUTION)
    raise AssertionError(prompt.kind)


def dump(store: Store) -> dict[str, list[str]]:
    tables = [
        r[0]
        for r in store.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    ]
    return {t: sorted(repr(r) for r in store.execute(f"SELECT * FROM {t}")) for t in tables}


def files_of(out) -> dict[str, bytes]:
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


@pytest.fixture
def finished(tmp_path):
    course = load_curriculum(builtin_course_path())
    with Store(tmp_path / "tutor.db") as store:
        session = Session.start(store, course, course.lesson("P1 L02"), offline=True)
        for n in range(400):
            if session.done:
                break
            session.act(learner(session.prompt, n))
        assert session.done
        session.close()
        yield store, session.id


def test_an_offline_lesson_ingested_shows_in_the_records_and_every_view(finished, tmp_path):
    store, session_id = finished
    [row] = store.ingests.find(status="pending")
    pending = PendingIngest.model_validate(row["payload"])
    assert pending.mistake_ids, "the scripted learner made mistakes"

    [result] = ingest_pending(store)
    assert result.status == "accepted", result.reasons
    assert store.ingests.find(status="done")[0]["id"] == pending.id

    concepts = {c["id"]: c for c in ledger.concepts(store)}
    assert set(concepts) == {c.id for c in pending.concepts}
    for c in concepts.values():
        assert c["type"] in ("memory", "concept", "procedure", "design")
        assert c["status"] in ("developing", "held", "advanced")
        assert c["interval_index"] == 0 and c["next_review"] > pending.created_at
        assert c["track"] == "builtin"
    glossary = {r["term"] for r in store.rows("SELECT term FROM glossary")}
    assert glossary == set(pending.glossary)
    [record] = store.rows("SELECT * FROM learning_records")
    payload = json.loads(record["payload"])
    assert record["lesson_id"] == "P1 L02" and payload["session_id"] == session_id
    assert payload["attempts"] == len(pending.attempt_ids) > 0
    assert payload["mistakes"] == len(pending.mistake_ids)
    assert payload["taught"] == [s.title for s in pending.taught]
    pages = {r["concept_id"] for r in store.rows("SELECT concept_id FROM knowledge_pages")}
    assert pages == set(concepts)

    out = tmp_path / "views"
    write_views(store, out)
    views = {k: v.decode("utf-8") for k, v in files_of(out).items()}
    for c in concepts.values():
        assert c["name"] in views["active-concepts.md"]
        assert f"knowledge/{knowledge_file_name(c['id'])}" in views
    for m in ledger.mistakes(store):
        assert m["id"] in views["mistakes.md"].replace("\\", "")
    assert (
        "Your attribution: \\# I misread \\`\\`\\` &lt;b&gt;the sign&lt;/b&gt;"
        in views["mistakes.md"]
    )
    assert all(
        "\x1b" not in v and "<b>" not in v for k, v in views.items() if k != "session-notes.md"
    )
    assert "## P1 L02 — Derivatives and the Chain Rule" in views["learning-records.md"]
    lesson_page = views[f"knowledge/{knowledge_file_name('p1l02-derivatives-and-the-chain-rule')}"]
    assert pending.taught[1].title in lesson_page and "## Sources" in lesson_page
    assert f"## P1 L02 · session {session_id}" in views["session-notes.md"]
    assert "| prerequisite | evidence | plan |" in views["session-notes.md"]
    # the lesson's own markdown, code and its indentation kept on the knowledge page
    assert "\\#" not in lesson_page and "\\`" not in lesson_page
    assert "```python\n" in lesson_page and "\n    " in lesson_page

    # the same outcome again: no byte of the store's data or of the views changes
    before = dump(store)
    assert ingest_pending(store) == []
    assert ingest(store, pending).status == "unchanged"
    assert dump(store) == before
    write_views(store, out)
    assert {k: v.decode("utf-8") for k, v in files_of(out).items()} == views
