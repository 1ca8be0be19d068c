"""`tutor doctor [--json]`: the settings in effect (the key only as present/absent), whether the
model endpoint answers and lists the model, the store's health, and the curriculum in use
(gathered by tutor.doctor_report, which the app's Doctor command shows too)."""

from __future__ import annotations

import argparse
from typing import Any

from tutor.doctor_report import gather, render
from tutor.output import dumps


def add_parser(subparsers: Any, name: str) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        name,
        help="check settings, the model endpoint, the store and the curriculum",
        description="Show the settings in effect (the API key only as present or absent), "
        "whether the model endpoint answers, lists the model and follows a tiny structured "
        "completion's schema, the verifier model (separate or the same), the store's health "
        "and the curriculum in use. Exits 1 when something needs attention.",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    report = gather()
    print(dumps(report, indent=2) if args.json else render(report))
    return 0 if report["ok"] else 1
