"""The Clerk: a pending ingest into the learner's records, through the review gate, all or
nothing, idempotently."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from learning_system import ledger
from learning_system.outcome import IngestConcept, TaughtStep
from learning_system.store import Store
from tutor.clerk import apply
from tutor.clerk.concept_type import concept_type
from tutor.clerk.ingest import IngestResult, ingest, ingest_pending
from tutor.gates.receipts import Receipt, receipt_id_ok

RECORD_TABLES = ("concepts", "glossary", "learning_records", "knowledge_pages")
LATER = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)


def dump(store: Store, tables: tuple[str, ...] | None = None) -> dict[str, list[str]]:
    """Every row of every table (or of `tables`), in a stable order."""
    names = tables or tuple(
        r[0]
        for r in store.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    )
    return {t: sorted(repr(r) for r in store.execute(f"SELECT * FROM {t}")) for t in names}


def ingest_row(store: Store, ingest_id: str = "ingest:s1") -> dict:
    return next(r for r in store.ingests.find() if r["id"] == ingest_id)


# accepted ---------------------------------------------------------------------------------
def test_accepted_ingest_writes_every_record(lesson_outcome):
    store, pending = lesson_outcome
    result = ingest(store, pending, now=LATER)

    assert result.status == "accepted", result.reasons
    assert result.reasons == []
    assert result.changed == len(result.writes) == 3 + 2 + 1 + 3
    ended = datetime.fromisoformat(pending.created_at)

    concepts = {c["id"]: c for c in ledger.concepts(store)}
    dot = concepts["p1l01-dot-product"]
    assert (dot["name"], dot["type"], dot["status"]) == ("Dot product", "concept", "held")
    assert dot["interval_index"] == 0
    assert dot["next_review"] == (ended + timedelta(days=3)).isoformat(timespec="microseconds")
    assert 0 < dot["mastery"] <= 0.80  # two confident right answers: advisory, capped
    norm = concepts["p1l01-vector-norm"]
    assert (norm["type"], norm["language"], norm["status"]) == ("procedure", "Python", "developing")
    assert norm["mastery"] == 0.0
    assert norm["next_review"] == (ended + timedelta(days=2)).isoformat(timespec="microseconds")
    notation = concepts["p1l01-notation"]
    assert (notation["type"], notation["status"]) == ("memory", "developing")
    assert notation["track"] == "builtin" and notation["lesson_id"] == "P1 L01"

    glossary = {r["term"]: r for r in store.rows("SELECT * FROM glossary")}
    assert glossary["norm"]["definition"] == "The length of a vector."
    assert glossary["dot product"]["lesson_id"] == "P1 L01"

    record = store.rows("SELECT * FROM learning_records")[0]
    payload = json.loads(record["payload"])
    assert record["lesson_id"] == "P1 L01" and record["created_at"] == pending.created_at
    assert payload["verdict"] == {"dot products": "solid", "norms": "unknown"}
    assert payload["plan"] == ["Norms", "Dot product"]
    assert payload["taught"] == ["Norms", "Dot product"]
    assert (payload["attempts"], payload["mistakes"]) == (4, 1)
    assert payload["outcomes"] == {"correct": 2, "idk": 1, "wrong": 1}
    assert payload["sources"] == ["docs/en.md", "https://example.org/norms"]

    pages = {r["concept_id"]: r for r in store.rows("SELECT * FROM knowledge_pages")}
    assert set(pages) == set(concepts)
    norm_page = pages["p1l01-vector-norm"]
    assert "square root of the sum of squares" in norm_page["markdown"]
    assert json.loads(norm_page["sources"]) == ["docs/en.md", "https://example.org/norms"]
    assert "UNVERIFIED" in pages["p1l01-dot-product"]["markdown"]  # its step said so
    assert "met along the way" in pages["p1l01-notation"]["markdown"]

    row = ingest_row(store)
    assert (row["status"], row["reasons"]) == ("done", [])
    receipt = Receipt.model_validate(
        json.loads(
            store.rows("SELECT payload FROM receipts WHERE receipt_id = ?", (result.receipt_id,))[
                0
            ]["payload"]
        )
    )
    assert receipt.gate == "review" and receipt.verdict.verdict == "PASS"
    assert receipt.message_id == "records:ingest:s1" and receipt_id_ok(receipt)
    assert [w["kind"] for w in receipt.envelope.writes] == [w["kind"] for w in result.writes]


def test_second_ingest_of_the_same_outcome_changes_no_byte(lesson_outcome):
    store, pending = lesson_outcome
    assert ingest(store, pending, now=LATER).status == "accepted"
    before = dump(store)

    again = ingest(store, pending, now=LATER + timedelta(days=1))
    assert again.status == "unchanged" and again.writes == []
    assert ingest_pending(store, now=LATER + timedelta(days=2)) == []
    assert dump(store) == before


def test_the_same_outcome_under_another_ingest_id_rewrites_no_record(lesson_outcome):
    store, pending = lesson_outcome
    ingest(store, pending, now=LATER)
    records = dump(store, RECORD_TABLES)
    twin = pending.model_copy(update={"id": "ingest:s1-retry"})
    result = ingest(store, twin, now=LATER + timedelta(days=1))
    assert result.status == "accepted" and result.changed == 1  # only the record's ingest id
    after = dump(store, RECORD_TABLES)
    assert {t: after[t] for t in ("concepts", "glossary", "knowledge_pages")} == {
        t: records[t] for t in ("concepts", "glossary", "knowledge_pages")
    }


def test_a_later_lesson_refines_without_demoting_or_rescheduling(lesson_outcome):
    store, pending = lesson_outcome
    ingest(store, pending, now=LATER)
    before = ledger.concept_row(store, "p1l01-dot-product")
    later = pending.model_copy(
        update={
            "id": "ingest:s2",
            "session_id": "s2",
            "lesson_id": "P1 L02",
            "concepts": [
                IngestConcept(
                    id="p1l01-dot-product",
                    name="Dot product",
                    lesson_id="P1 L02",
                    kind_hint="Build",
                )
            ],
            "attempt_ids": [],
            "mistake_ids": [],
            "glossary": {},
            "taught": [],
            "created_at": (LATER + timedelta(days=1)).isoformat(),
        }
    )
    assert ingest(store, later, now=LATER + timedelta(days=1)).status == "accepted"
    after = ledger.concept_row(store, "p1l01-dot-product")
    assert after["status"] == "held"  # a bare "developing" without evidence demotes nothing
    assert after["type"] == "procedure"  # a specific type refines the ambiguous one
    assert after["next_review"] == before["next_review"] and after["lesson_id"] == "P1 L01"
    page = store.rows(
        "SELECT markdown FROM knowledge_pages WHERE concept_id = ?", ("p1l01-dot-product",)
    )[0]["markdown"]
    assert "Multiply matching components" in page  # not taught again: the page stays


# rejected ---------------------------------------------------------------------------------
def _bad(pending, case):
    c0, c1, c2 = pending.concepts
    step = pending.taught[0]
    return {
        "held without evidence": {"concepts": [c0.model_copy(update={"evidence": []}), c1, c2]},
        "held on wrong answers only": {
            "concepts": [c0.model_copy(update={"evidence": ["a3"]}), c1, c2]
        },
        "evidence not in the store": {
            "concepts": [c0.model_copy(update={"evidence": ["a1", "ghost"]}), c1, c2]
        },
        "concept without a name": {"concepts": [c0, c1.model_copy(update={"name": " "}), c2]},
        "concept without an id": {"concepts": [c0, c1, c2.model_copy(update={"id": ""})]},
        "attempt not in the store": {"attempt_ids": [*pending.attempt_ids, "a99"]},
        "mistake not in the store": {"mistake_ids": ["m1", "m99"]},
        "step without receipt": {
            "taught": [step.model_copy(update={"receipt_ids": []}), *pending.taught[1:]]
        },
        "empty definition": {"glossary": {**pending.glossary, "basis": "  "}},
    }[case]


EXPECTED = {
    "held without evidence": "marked held without evidence attempts",
    "held on wrong answers only": "none of its evidence attempts was answered correctly",
    "evidence not in the store": "evidence attempt ghost is not in the store",
    "concept without a name": "has no name",
    "concept without an id": "concept #3 has no id",
    "attempt not in the store": "attempt a99 is not in the store",
    "mistake not in the store": "mistake m99 is not in the store",
    "step without receipt": "taught step st1 has no gate receipt",
    "empty definition": "glossary term 'basis' has no definition",
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_a_rejected_review_keeps_the_ingest_waiting_and_the_records_untouched(lesson_outcome, case):
    store, pending = lesson_outcome
    bad = pending.model_copy(update=_bad(pending, case))
    records = dump(store, RECORD_TABLES)

    result = ingest(store, bad, now=LATER)

    assert result.status == "rejected"
    assert any(EXPECTED[case] in r for r in result.reasons), result.reasons
    assert dump(store, RECORD_TABLES) == records
    row = ingest_row(store)
    assert row["status"] == "rejected" and row["reasons"] == result.reasons
    kept = store.rows(
        "SELECT gate, outcome FROM receipts WHERE receipt_id = ?", (result.receipt_id,)
    )
    assert kept == [{"gate": "review", "outcome": "ISSUES"}]

    whole = dump(store)
    assert ingest(store, bad, now=LATER + timedelta(days=1)).reasons == result.reasons
    assert dump(store) == whole  # retrying the same rejection moves no byte, not even a time


def test_pending_ingests_are_retried_and_unreadable_ones_reported(lesson_outcome):
    store, pending = lesson_outcome
    store.ingests.save("ingest:broken", "s9", "P9 L09", {"id": "ingest:broken"})
    results = ingest_pending(store, now=LATER)
    by_id = {r.ingest_id: r for r in results}
    assert by_id["ingest:s1"].status == "accepted"
    assert by_id["ingest:broken"].status == "rejected"
    assert "cannot be read" in by_id["ingest:broken"].reasons[0]
    assert ingest_row(store, "ingest:broken")["status"] == "rejected"
    assert [r.status for r in ingest_pending(store, now=LATER)] == ["rejected"]


# all or nothing ---------------------------------------------------------------------------
def test_a_crash_mid_ingest_leaves_the_old_state(lesson_outcome, monkeypatch):
    store, pending = lesson_outcome
    before = dump(store)
    calls = []

    def crash(conn, w, **kw):
        calls.append(w["id"])
        raise OSError("disk gone mid-ingest")

    monkeypatch.setattr(apply, "write_knowledge_page", crash)
    with pytest.raises(OSError, match="disk gone"):
        ingest(store, pending, now=LATER)
    assert calls  # concepts, glossary and the record were already written inside the batch
    assert dump(store) == before
    assert ingest_row(store)["status"] == "pending"

    monkeypatch.undo()
    assert ingest(store, pending, now=LATER).status == "accepted"
    assert len(ledger.concepts(store)) == 3


def test_a_killed_process_mid_ingest_leaves_the_old_state(lesson_outcome, tmp_path):
    """The real thing: the process dies inside the transaction; a new process finds the old
    state and can ingest again."""
    import subprocess
    import sys
    import textwrap

    store, pending = lesson_outcome
    before = dump(store)
    script = textwrap.dedent(f"""
        import os
        from learning_system.store import Store
        from tutor.clerk import apply, ingest
        from learning_system.outcome import PendingIngest
        store = Store({str(store.path)!r})
        pending = PendingIngest.model_validate(store.ingests.find()[0]["payload"])
        def die(conn, w, **kw):
            os._exit(9)
        apply.write_knowledge_page = die
        ingest.ingest(store, pending)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.returncode == 9, proc.stderr.decode()
    store.close()
    with Store(store.path) as reopened:
        assert dump(reopened) == before
        assert ingest_pending(reopened, now=LATER)[0].status == "accepted"


# the model verifier ---------------------------------------------------------------------
class _Provider:
    offline = False
    name = "stub"

    def __init__(self, verdict=None, error=None):
        self.verdict, self.error, self.seen = verdict, error, []

    async def verify(self, envelope):
        self.seen.append(envelope)
        if self.error:
            raise self.error
        return self.verdict


def test_a_model_review_with_issues_rejects_the_batch(lesson_outcome):
    from tutor.gates.verdicts import ReviewVerdict

    store, pending = lesson_outcome
    provider = _Provider(
        ReviewVerdict(
            verdict="ISSUES",
            explanation="norm page overclaims",
            rejected=["knowledge:p1l01-vector-norm"],
        )
    )
    result = ingest(store, pending, provider=provider, now=LATER)
    assert result.status == "rejected"
    assert result.reasons == [
        "norm page overclaims",
        "records to change: knowledge:p1l01-vector-norm",
    ]
    assert provider.seen[0].gate == "review" and provider.seen[0].batch_id == "ingest:s1"
    assert ledger.concepts(store) == []


def test_a_model_review_that_cannot_run_is_said_so_never_silently_passed(lesson_outcome):
    store, pending = lesson_outcome
    result = ingest(store, pending, provider=_Provider(error=TimeoutError("slow")), now=LATER)
    assert result.status == "accepted"
    assert "UNVERIFIED" in result.reasons[0] and "slow" in result.reasons[0]
    assert ingest_row(store)["reasons"] == result.reasons
    outcome = store.rows("SELECT outcome FROM receipts WHERE receipt_id = ?", (result.receipt_id,))[
        0
    ]["outcome"]
    assert outcome == "UNVERIFIED"


async def test_ingest_runs_inside_an_event_loop(lesson_outcome):
    from tutor.gates.verdicts import ReviewVerdict

    store, pending = lesson_outcome
    provider = _Provider(ReviewVerdict(verdict="PASS", explanation="faithful"))
    assert ingest(store, pending, provider=provider, now=LATER).status == "accepted"


def test_a_real_model_endpoint_reviews_the_batch(lesson_outcome, monkeypatch, tmp_path):
    from tutor.llm.openai_provider import OpenAIProvider
    from tutor.llm.skills import load_skill
    from tutor.testing.fixtures import fast_settings, isolate_model_env
    from tutor.testing.model_server import ModelServer, Reply

    isolate_model_env(monkeypatch, tmp_path / "home")
    store, pending = lesson_outcome
    with ModelServer() as srv:
        srv.script(
            [
                Reply.json(
                    {
                        "verdict": "ISSUES",
                        "explanation": "glossary overreaches",
                        "rejected": ["glossary:norm"],
                    }
                )
            ]
        )
        provider = OpenAIProvider(fast_settings(srv.base_url))
        result = ingest(store, pending, provider=provider, now=LATER)
        body = srv.chat_requests[0].body
    assert result.status == "rejected" and result.reasons[0] == "glossary overreaches"
    assert body["messages"][0]["content"] == load_skill("GATE:review")  # the skill
    assert "ingest:s1" in json.dumps(body)  # the envelope
    assert ledger.concepts(store) == []


# types ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, hint, expected",
    [
        ("Key terms of linear algebra", "Learn", "memory"),
        ("Vector notation", "Build", "memory"),
        ("How to implement backprop", "Learn", "procedure"),
        ("Gradient descent", "Build", "procedure"),
        ("Choosing an architecture", "Learn", "design"),
        ("CNN vs transformer trade-offs", "", "design"),
        ("Eigenvalues", "Learn", "concept"),
        ("Implementing a design trade-off", "Build", "concept"),  # ambiguous
    ],
)
def test_concept_type_is_decided_from_name_and_lesson_kind(name, hint, expected):
    assert concept_type(name, hint) == expected


def test_ingest_result_is_a_strict_model():
    with pytest.raises(ValueError):
        IngestResult(ingest_id="i", lesson_id="l", status="accepted", extra=1)


def test_knowledge_page_takes_untagged_steps_that_name_the_concept(lesson_outcome):
    store, pending = lesson_outcome
    steps = [
        *pending.taught,
        TaughtStep(
            step_id="st3",
            title="Notation recap",
            content="Vector notation uses bold letters.",
            sources=["docs/en.md"],
            receipt_ids=["rcpt-3"],
        ),
    ]
    ingest(store, pending.model_copy(update={"taught": steps}), now=LATER)
    page = store.rows(
        "SELECT markdown FROM knowledge_pages WHERE concept_id = ?", ("p1l01-notation",)
    )[0]["markdown"]
    assert "bold letters" in page and "met along the way" not in page
