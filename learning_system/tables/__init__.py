"""The store's tables, one small repository per table group, in the manner of sqlite-utils'
`Table`: `store.attempts`, `store.mistakes`, `store.concepts`, `store.records`, `store.sessions`,
`store.receipts`, `store.model_calls`, `store.sources`, `store.digests`, `store.ingests` and
`store.packs`, each over the `Store` it belongs to.

Together with `learning_system/store.py` this is the store layer: every SQL statement of the
project is written here, and nothing outside it runs SQL (tests/test_layers.py holds that).
Rows come back as the `TypedDict`s in `rows.py`, JSON columns as stored (text); decoding them,
and any rule about what a row means, belongs to the callers (`learning_system.ledger`, the
Clerk, the views).

Every write runs in `Store.transaction()`, so it is durable when it returns; a write made
inside an open transaction (the Clerk's batch) joins it and commits with it."""

from __future__ import annotations

import json
from collections.abc import Sized
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from learning_system.store import Store


class Table:
    """A repository over the store it is given."""

    def __init__(self, store: Store) -> None:
        self.store = store


def marks(values: Sized) -> str:
    """`?, ?, ?` for an IN list of `len(values)` items (NULL for none: matches nothing)."""
    return ", ".join("?" for _ in range(len(values))) or "NULL"


def decoded(row: dict[str, Any], field: str) -> dict[str, Any]:
    """`row` with its JSON column `field` decoded ({} when empty)."""
    value = row.get(field)
    row[field] = json.loads(value) if value else {}
    return row
