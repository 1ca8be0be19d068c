"""`tutor items LESSON`: the probe and end-of-lesson quiz items the tutor would present for a
lesson, in presented form, each gated through quiz_audit with its receipt kept in the store, so
anyone can audit what learners see. Items the gate blocks are listed apart as withheld."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from tutor.output import dumps

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson
    from learning_system.store import Store
    from tutor.engine.items import Presented

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="the probe and quiz items a lesson would present, with their receipts",
        description="List the probe and end-of-lesson quiz items the tutor would present for "
        "LESSON, as the learner would see them (options in shown order), each with the id of "
        "the quiz_audit receipt it passed. Items the gate withholds are listed separately.",
    )
    p.add_argument(
        "lesson",
        metavar="LESSON",
        help="a lesson id such as 'P1 L08' or 'p1l8', or the lesson's folder",
    )
    p.add_argument(
        "--curriculum",
        metavar="PATH",
        help="the curriculum to read (default: the one chosen by `tutor init`)",
    )
    p.add_argument(
        "--session",
        metavar="ID",
        help="list what that session presents (its options in its order), the items it has had "
        "answered first, in the order answered; without it, those of one fresh session (each "
        "session draws its own seed, so another may repair, order or ask them differently; "
        "`tutor status --json` gives a session's id)",
    )
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return p


def presented_items(
    curriculum: Curriculum, lesson: Lesson, seed: str | None = None
) -> list[tuple[str, Presented]]:
    """(purpose, item) for every item a session with this seed presents, probe first, before
    gating — the engine's own path (tutor.engine.selection). A quiz item already in the probe
    is not asked again."""
    from tutor.engine import selection

    out: list[tuple[str, Presented]] = []
    for batch in selection.probe_batches(curriculum, lesson):
        out += [("probe", p) for p in selection.present_strand(batch, seed, curriculum)]
    probed = frozenset(p.id for _, p in out)
    out += [("quiz", p) for p in selection.present_quiz(lesson, seed, curriculum, probed)]
    return out


def _concept(curriculum: Curriculum, item: Presented) -> str:
    from tutor.engine.selection import concept_id

    try:
        return concept_id(curriculum.lesson(item.lesson_id))
    except LookupError:
        return item.lesson_id


def _message_id(lesson: Lesson, purpose: str, item: Presented, concept: str) -> str:
    """One message per distinct presented content, so its quiz_audit receipt is unambiguous."""
    body = json.dumps(
        [item.to_question().model_dump(mode="json"), purpose, concept, item.reference],
        sort_keys=True,
    )
    digest = hashlib.sha256(body.encode()).hexdigest()[:12]
    return f"items:{lesson.id}:{purpose}:{item.id}:{digest}"


def _receipt_id(store: Store, message_id: str) -> str | None:
    ids = [
        row["receipt_id"]
        for row in store.receipts.of_message(message_id)
        if row["gate"] == "quiz_audit"
    ]
    return ids[-1] if ids else None


def collect(
    store: Store, curriculum: Curriculum, lesson: Lesson, seed: str | None = None
) -> dict[str, Any]:
    """Gate every item the lesson may present; the listed items and the withheld ones."""
    from tutor.engine.gatekeeper import Gatekeeper
    from tutor.gates.checker import Block
    from tutor.gates.digest_view import GateDigest

    gate = Gatekeeper(store, GateDigest(sources={}), provider=None)
    listed: list[dict[str, Any]] = []
    withheld: list[dict[str, Any]] = []
    summary = {"mcq": 0, "numeric": 0, "free_recall": 0}
    for purpose, item in presented_items(curriculum, lesson, seed):
        concept = _concept(curriculum, item)
        message_id = _message_id(lesson, purpose, item, concept)
        outcome = gate.ask(
            message_id,
            item.render(),
            [item.to_question()],
            "probe" if purpose == "probe" else "end-of-lesson quiz",
            concept,
            item.reference,
        )
        receipt_id = _receipt_id(store, message_id)
        if isinstance(outcome, Block):
            withheld.append(
                {
                    "id": item.id,
                    "lesson_id": item.lesson_id,
                    "purpose": purpose,
                    "type": item.type,
                    "question": item.question,
                    "code": outcome.code,
                    "reason": outcome.reason,
                    "details": list(outcome.details),
                    "receipt_id": receipt_id,
                }
            )
            continue
        if receipt_id is None:  # an emitted ask always has its receipt; never list one without
            withheld.append(
                {
                    "id": item.id,
                    "lesson_id": item.lesson_id,
                    "purpose": purpose,
                    "type": item.type,
                    "question": item.question,
                    "code": "G02",
                    "reason": "no quiz_audit receipt was kept",
                    "details": [],
                    "receipt_id": None,
                }
            )
            continue
        entry: dict[str, Any] = {
            "id": item.id,
            "lesson_id": item.lesson_id,
            "purpose": purpose,
            "type": item.type,
            "question": item.question,
            "options": list(item.options),
            "correct_index": item.correct_index,
            "bloom": item.bloom,
            "stage": item.stage,
            "receipt_id": receipt_id,
            "unverified": bool(outcome.unverified),
            "flags": list(outcome.flags),
            "note": item.note,
        }
        if item.type == "numeric":
            entry["answer"] = item.answer
            entry["tolerance"] = item.tolerance
        if item.type == "free_recall":
            entry["reference"] = item.reference
        listed.append(entry)
        summary[item.type] += 1
    return {"lesson": lesson.id, "items": listed, "withheld": withheld, "summary": summary}


def in_asked_order(report: dict[str, Any], asked: list[str | None]) -> None:
    """A session's listing as it went: the items answered so far first, in the order answered
    (each with `asked`, its place), then the rest in the listing's order (`asked` None) — the
    probe picks its next question by the answers, so what is not answered has no place yet."""
    order: dict[str, int] = {}
    for item_id in asked:
        if item_id is not None and item_id not in order:
            order[item_id] = len(order) + 1
    for entry in report["items"]:
        entry["asked"] = order.get(entry["id"])
    report["items"].sort(
        key=lambda e: (e["purpose"] != "probe", e["asked"] is None, e["asked"] or 0)
    )


def _plain(text: object) -> str:
    """Curriculum text is untrusted: show control characters as escapes, never act on them."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def _print_listing(report: dict[str, Any], title: str, curriculum_root: str) -> None:
    s = report["summary"]
    print(_plain(f"{report['lesson']} {title}"))
    print(_plain(f"Curriculum: {curriculum_root}"))
    print(
        f"{len(report['items'])} items: {s['mcq']} multiple choice · {s['numeric']} numeric · "
        f"{s['free_recall']} free recall; {len(report['withheld'])} withheld"
    )
    for purpose, heading in (("probe", "Probe"), ("quiz", "End-of-lesson quiz")):
        rows = [i for i in report["items"] if i["purpose"] == purpose]
        if not rows:
            continue
        print(f"\n{heading}")
        if purpose == "probe" and "asked" in rows[0]:
            print(
                "(answered so far first, in the order answered; the probe picks its next "
                "question by the answers)"
            )
        for n, item in enumerate(rows, 1):
            place = item.get("asked", 0)
            when = (
                "" if place == 0 else f"  (answered #{place})" if place else "  (not answered yet)"
            )
            print(_plain(f"\n{n:>3}. [{item['type']}] {item['question']}{when}"))
            for k, option in enumerate(item["options"]):
                mark = "  <- key" if k == item["correct_index"] else ""
                print(_plain(f"       {k + 1}/{'abcd'[k] if k < 4 else '?'}  {option}{mark}"))
            if item["type"] == "numeric":
                print(_plain(f"       answer: {item['answer']:g} ± {item['tolerance'] or 0:g}"))
            if item["type"] == "free_recall":
                print(_plain(f"       reference: {item['reference']}"))
            if item["note"]:
                print(_plain(f"       note: {item['note']}"))
            if item["lesson_id"] != report["lesson"]:
                print(_plain(f"       from: {item['lesson_id']}"))
            print(
                _plain(
                    f"       receipt: {item['receipt_id']}"
                    + ("  (UNVERIFIED)" if item["unverified"] else "")
                )
            )
    if report["withheld"]:
        print("\nWithheld (blocked by the gate, never shown)")
        for item in report["withheld"]:
            print(_plain(f"  {item['code']}  {item['purpose']}  {item['id']}: {item['reason']}"))


def run(args: argparse.Namespace) -> int:
    from tutor import learner
    from tutor.errors import TutorError

    with learner.open_store() as store:
        path = learner.curriculum_path(store, args.curriculum)
        curriculum = learner.load(path, only=[args.lesson])  # that lesson and its prerequisites
        try:
            lesson = curriculum.lesson(args.lesson)
        except LookupError as exc:
            raise TutorError(str(exc)) from None
        if args.session:
            row = store.sessions.get(args.session)
            if row is None or row["lesson_id"] != lesson.id:
                raise TutorError(
                    f"no session {args.session} of {lesson.id} in this store: "
                    "`tutor status --json` names the current one (position.session)"
                )
        report = collect(store, curriculum, lesson, args.session or None)
        if args.session:
            in_asked_order(
                report, [r["item_id"] for r in store.attempts.where(session_id=args.session)]
            )
    if args.json:
        print(dumps(report, indent=2))
    else:
        _print_listing(report, lesson.title, str(curriculum.root))
    return 0
