"""Receipts kept in a real SQLite store, read back, and checked."""

from __future__ import annotations

import sqlite3

from learning_system.store import Store
from tutor.gates.audit import load_receipts, save_receipt
from tutor.gates.checker import Block, Emit, check_turn
from tutor.gates.samples import sample_teach_and_ask


def test_receipts_round_trip_through_the_store(tmp_path):
    turn, receipts, digest = sample_teach_and_ask("m-1")
    path = tmp_path / "tutor.db"
    with Store(path) as store:
        for r in receipts:
            save_receipt(store, r)
            save_receipt(store, r)  # idempotent
        assert len(store.receipts.of_message("m-1")) == 2
        assert store.receipts.of_message("other") == []
    with Store(path) as store:  # reopened: durable
        rows = store.receipts.of_message("m-1")
        # offline: one claim is not verbatim in the excerpt, and the quiz's semantic rules
        # were not checked (no model), so both receipts record UNVERIFIED
        assert {r["outcome"] for r in rows} == {"UNVERIFIED"}
        assert {r["gate"] for r in rows} == {"fact_check", "quiz_audit"}
        loaded = load_receipts(store, "m-1")
    assert sorted(r.receipt_id for r in loaded) == sorted(r.receipt_id for r in receipts)
    assert sorted(loaded, key=lambda r: r.gate) == sorted(receipts, key=lambda r: r.gate)
    assert isinstance(check_turn(turn, loaded, digest), Emit)


def test_a_corrupted_stored_receipt_fails_closed(tmp_path):
    turn, receipts, digest = sample_teach_and_ask("m-2")
    path = tmp_path / "tutor.db"
    with Store(path) as store:
        for r in receipts:
            save_receipt(store, r)
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE receipts SET payload = '{\"gate\": \"fact_check\"}' WHERE gate = 'fact_check'"
    )
    conn.commit()
    conn.close()
    with Store(path) as store:
        loaded = load_receipts(store, "m-2")
    assert [r.gate for r in loaded] == ["quiz_audit"]
    out = check_turn(turn, loaded, digest)
    assert isinstance(out, Block) and out.code == "G02"


def test_an_altered_stored_receipt_is_caught(tmp_path):
    turn, receipts, digest = sample_teach_and_ask("m-3")
    path = tmp_path / "tutor.db"
    with Store(path) as store:
        for r in receipts:
            payload = r.model_dump(mode="json")
            if r.gate == "quiz_audit":
                payload["cycles"] = 1  # edited after the receipt was made
            store.receipts.save(r.receipt_id, r.message_id, r.gate, "PASS", payload)
        loaded = load_receipts(store, "m-3")
    out = check_turn(turn, loaded, digest)
    assert isinstance(out, Block) and out.code == "G06"
