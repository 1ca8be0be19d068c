"""`tutor ingest [--json]`: write finished lessons into your records, through the review gate."""

from __future__ import annotations

import argparse
import json


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="write finished lessons into your records (reviewed; shows what was rejected)",
        description="Run the Clerk over every lesson outcome still waiting to be recorded. "
        "Each batch of record updates passes the review gate: accepted ones are written all "
        "at once, rejected ones stay waiting with their reasons.",
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return p


def run(args: argparse.Namespace) -> int:
    from learning_system.terminal import strip_terminal
    from tutor import learner
    from tutor.clerk.ingest import ingest_pending
    from tutor.llm import make_provider

    provider = make_provider()
    try:
        with learner.open_store() as store:
            results = ingest_pending(store, provider=provider)
            finished = bool(store.ingests.find())
    finally:
        _close(provider)
    if args.json:
        print(
            json.dumps([r.model_dump(mode="json", exclude={"writes"}) for r in results], indent=2)
        )
        return 0
    if not results:
        if finished:
            print("Nothing to ingest: every finished lesson is already in your records.")
        else:
            print(
                "Nothing to ingest yet: no lesson is finished. Lessons go into your records "
                "when they end (`tutor continue`)."
            )
        return 0
    for r in results:
        lesson, ingest_id = strip_terminal(r.lesson_id), strip_terminal(r.ingest_id)
        if r.status == "accepted":
            print(f"{lesson}: accepted, {r.changed} records written ({ingest_id})")
        elif r.status == "unchanged":
            print(f"{lesson}: already in your records ({ingest_id})")
        else:
            print(f"{lesson}: rejected, kept waiting until fixed ({ingest_id})")
        for reason in r.reasons:
            print(f"  - {strip_terminal(reason)}")
    return 0


def _close(provider: object) -> None:
    import asyncio

    aclose = getattr(provider, "aclose", None)
    if aclose is not None:
        asyncio.run(aclose())
