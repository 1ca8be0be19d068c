"""`tutor scout LESSON`: gather a lesson's sources into a digest and show it.

Fetched text is untrusted: it is printed as plain text (never through a markup interpreter)."""

from __future__ import annotations

import argparse
import sys

from tutor.output import dumps


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="gather a lesson's sources into a digest (drift shown)",
        description="Read a lesson's own document and its Further Reading links live, compare "
        "each with what was seen last time (ok / changed / new / unreachable), and build the "
        "digest the tutor teaches from.",
    )
    p.add_argument("lesson", metavar="LESSON", help="a lesson id such as 'P1 L08', or its folder")
    p.add_argument(
        "--curriculum",
        metavar="PATH",
        help="curriculum folder (default: the one "
        "chosen with `tutor init`, else the built-in course)",
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="fetch nothing and ask no model; external references show as unreachable",
    )
    p.add_argument("--json", action="store_true", help="print the digest as JSON")
    return p


def _progress(line: str) -> None:
    print(f"scout: {line}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from tutor import learner
    from tutor.scout import prepare_sync

    with learner.open_store() as store:
        curriculum = learner.load(learner.curriculum_path(store, args.curriculum))
        lesson = curriculum.lesson(args.lesson)
        provider = None
        if not args.offline:
            from tutor.llm import make_provider
            from tutor.llm.recorder import StoreRecorder

            provider = make_provider(recorder=StoreRecorder(store))
        digest = prepare_sync(
            lesson, curriculum, store, provider=provider, offline=args.offline, progress=_progress
        )
    if args.json:
        print(dumps(digest.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False))
        return 0
    print(summary(digest))
    return 0


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else "" for line in text.splitlines())


def summary(digest) -> str:
    """A readable, plain-text summary of a digest."""
    lines = [
        f"{digest.lesson_id} · {digest.lesson_title} ({digest.curriculum})",
        f"digest {digest.id}, prepared {digest.created_at}",
        "",
        "Sources:",
    ]
    for source in digest.sources:
        reason = f" — {source.reason}" if source.reason else ""
        lines.append(f"  {source.kind:<9} {source.status:<11} {source.title}{reason}")
        lines.append(f"            {source.url}")
        if source.status == "changed":
            lines.append("            drift: this source changed since it was last read")
    for source in digest.reachable():
        lines += ["", f"{source.title}:", _indent(source.excerpt)]
        lines += [f"    - {takeaway}" for takeaway in source.takeaways]
        if source.adds_vs_primary:
            lines.append(f"    adds: {source.adds_vs_primary}")
    lines += ["", "Synthesis:", _indent(digest.synthesis), "", "Outline:"]
    lines += [("  " if item.level <= 2 else "    ") + item.title for item in digest.outline]
    lines += ["", "Prerequisites:"]
    lines += [f"  - {p.concept} [{', '.join(p.keywords)}]" for p in digest.prereqs] or ["  none"]
    if digest.lang_recommendation:
        lines += ["", f"Exercises in: {digest.lang_recommendation}"]
    if digest.warnings:
        lines += ["", "Notes:"] + [f"  - {warning}" for warning in digest.warnings]
    return "\n".join(lines)
