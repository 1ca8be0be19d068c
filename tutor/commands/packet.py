"""`tutor packet`: compile a study packet from the curriculum graph and write it, with its
exports, to a folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

MODES = ("deterministic_outline", "anthology", "pitfall", "llm_expanded")


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="compile a study packet (reading order, prerequisites, pitfalls, code, "
        "references) with provenance",
        description="Compile a deterministic study packet for a topic from the curriculum graph "
        "and your mistakes ledger, and write it as OUT/<request_hash>.json with its exports "
        "under OUT/<request_hash>/. The same request over the same curriculum gives the same "
        "packet, byte for byte, except its created_at.",
    )
    p.add_argument(
        "--topic",
        help="a lesson id (P1 L05), a phase (Phase 1), a lesson title or slug, or a glossary term",
    )
    p.add_argument("--goal", help="what the packet is for, in your words")
    p.add_argument(
        "--request",
        metavar="REQUEST.json",
        help="read the request from a JSON file instead (fields it does not know "
        "are ignored); other request options then must not be given",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="the packet's mode (default: deterministic_outline)",
    )
    p.add_argument(
        "--export",
        metavar="NAMES",
        action="append",
        default=[],
        help="exporters, comma-separated: markdown, bundle, html, assessment, "
        "notebook (repeatable)",
    )
    p.add_argument(
        "--seed-tag",
        metavar="TAG",
        action="append",
        default=[],
        help="also seed the packet with lessons carrying this glossary term (repeatable)",
    )
    p.add_argument("--max-nodes", metavar="N", help="at most N lessons")
    p.add_argument("--max-depth", metavar="N", help="follow prerequisites at most N steps back")
    p.add_argument("--no-pitfalls", action="store_true", help="leave pitfalls out")
    p.add_argument("--no-code-links", action="store_true", help="leave code links out")
    p.add_argument(
        "--expand",
        action="store_true",
        help="llm_expanded mode: draft source-locked prose for the core lessons, "
        "each section through fact_check (UNVERIFIED where no verifier could check "
        "it); off by default",
    )
    p.add_argument(
        "--offline",
        action="store_true",
        help="with --expand: use no model even when one is configured",
    )
    p.add_argument("--domain-pack", metavar="PATH", help="a domain_pack.yaml (or its folder)")
    p.add_argument("--source-pack", metavar="PATH", help="a source_pack.yaml (or its folder)")
    p.add_argument(
        "--curriculum",
        metavar="PATH",
        help="the curriculum to read (default: the one chosen by `tutor init`)",
    )
    p.add_argument("--out", metavar="DIR", required=True, help="the folder to write into")
    p.add_argument(
        "--json",
        action="store_true",
        help="print packet_id, request_hash, graph_hash, stage_log, export_paths "
        "and warnings as JSON",
    )
    return p


def _request(args: argparse.Namespace) -> dict[str, Any]:
    from learning_system.terminal import strip_terminal
    from tutor.errors import TutorError

    if args.request:
        given = [
            flag
            for flag, value in (
                ("--topic", args.topic),
                ("--goal", args.goal),
                ("--mode", args.mode),
                ("--export", args.export),
                ("--seed-tag", args.seed_tag),
                ("--max-nodes", args.max_nodes),
                ("--max-depth", args.max_depth),
                ("--no-pitfalls", args.no_pitfalls),
                ("--no-code-links", args.no_code_links),
            )
            if value
        ]
        if given:
            raise TutorError(f"--request reads the whole request; drop {', '.join(given)}")
        path = Path(args.request).expanduser()
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except OSError as exc:
            raise TutorError(f"cannot read {path}: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, ValueError) as exc:
            reason = " ".join(strip_terminal(str(exc)).split())[:160]
            raise TutorError(f"{path} is not a JSON request: {reason}") from None
        if not isinstance(data, dict):
            raise TutorError(
                f"{path} is not a JSON object with a topic, a goal and a generation_option"
            )
        data.setdefault("generation_option", "deterministic_outline")
        return data
    if not args.topic or not args.goal:
        raise TutorError("give --topic and --goal (or --request REQUEST.json)")
    return {
        "topic": args.topic,
        "goal": args.goal,
        "generation_option": args.mode or "deterministic_outline",
        "seed_tags": args.seed_tag,
        "max_nodes": args.max_nodes,
        "max_depth": args.max_depth,
        "include_pitfalls": not args.no_pitfalls,
        "include_code_links": not args.no_code_links,
        "exporters": [name for value in args.export for name in value.split(",")],
    }


def run(args: argparse.Namespace) -> int:
    from learning_system.terminal import strip_terminal
    from tutor import learner
    from tutor.engine.study_packets import compile_packet, packet_curriculum

    request = _request(args)
    mode = request.get("generation_option")
    if args.expand and not (isinstance(mode, str) and mode.strip().lower() == "llm_expanded"):
        from tutor.errors import TutorError

        raise TutorError("--expand goes with --mode llm_expanded (or that generation_option)")
    with learner.open_store() as store:
        root = learner.curriculum_path(store, args.curriculum)
        curriculum = packet_curriculum(root, request.get("topic"))
        provider = None
        if args.expand and not args.offline:
            provider = _provider(store)
        try:
            result = compile_packet(
                request,
                curriculum,
                store,
                out_dir=args.out,
                expand=args.expand,
                provider=provider,
                domain_pack=args.domain_pack,
                source_pack=args.source_pack,
            )
        finally:
            if provider is not None:
                _close(provider)
    _curriculum_warnings(curriculum, result.packet)
    if args.json:
        print(json.dumps(result.summary(), indent=2, ensure_ascii=False))
        return 0
    packet = result.packet
    print(
        strip_terminal(
            f"Study packet {result.packet_id} ({packet.body.mode}): "
            f"{len(packet.body.nodes)} lessons, {len(packet.body.pitfalls)} "
            f"pitfalls, {len(packet.body.code_links)} code links, "
            f"{len(packet.body.references)} references"
        )
    )
    print(
        "Reading order: "
        + strip_terminal(
            ", ".join(
                n.lesson_id
                for n in sorted(
                    packet.body.nodes, key=lambda n: packet.body.reading_order.index(n.id)
                )
            )
        )
    )
    print(strip_terminal(f"Packet: {result.packet_path}"))
    for path in result.export_paths:
        print(strip_terminal(f"  export: {path}"))
    for w in result.warnings:
        print(strip_terminal(f"{w.severity}: {w.code}: {w.message}"))
    return 0


def _curriculum_warnings(curriculum, packet) -> None:
    """What the curriculum loader said about the packet's lessons' files (a document cut at
    its size cap, a file refused as a link out of the curriculum), on stderr."""
    from learning_system.terminal import strip_terminal

    folders = [
        curriculum.lesson(node.lesson_id).path.relative_to(curriculum.root).as_posix()
        for node in packet.body.nodes
    ]
    for problem in curriculum.problems:
        if any(problem.file.startswith(f"{folder}/") for folder in folders):
            print(strip_terminal(f"curriculum {problem}"), file=sys.stderr)


def _provider(store):
    """The configured model provider, or None to run on the embedded offline default."""
    from tutor.llm import make_provider
    from tutor.llm.recorder import StoreRecorder
    from tutor.llm.settings import load_settings

    settings = load_settings()
    if settings.offline:
        return None
    return make_provider(settings, recorder=StoreRecorder(store))


def _close(provider) -> None:
    import asyncio

    try:
        asyncio.run(provider.aclose())
    except Exception:
        return
