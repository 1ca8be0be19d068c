"""`tutor quiz audit QUIZ.json [--json]`: run the mechanical multiple-choice checks over a
curriculum quiz bank (`{"questions": [...]}` or a bare list). Items are audited alone and in
batches by stage. Exit 0 when every item is fit to show, 1 when any item has a high or medium
issue (or is malformed), 2 when the file cannot be read as a quiz bank."""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from tutor.output import clean_text, dumps


def add_parser(sub, name: str) -> argparse.ArgumentParser:
    p = sub.add_parser(
        name,
        help="audit a quiz bank with the mechanical multiple-choice checks",
        description="Work with curriculum quiz banks.",
    )
    actions = p.add_subparsers(dest="quiz_action", metavar="ACTION", required=True)
    audit = actions.add_parser(
        "audit",
        help="report every mechanical flaw of each item in QUIZ.json",
        description="Audit each item of a quiz bank (and each stage as a batch). Exit 0 all ok, "
        "1 issues found, 2 invalid input.",
    )
    audit.add_argument("quiz", type=Path, metavar="QUIZ.json")
    audit.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return p


def _item_question(item: Any, index: int) -> tuple[Any, str | None]:
    """(QuizQuestion or None, the item's own id or None) for one raw bank item, read as the
    curriculum loader reads it (learning_system.curriculum_quiz): options that are numbers are
    text ("4"), a key written as digits is an index, and a numeric item (`"type": "numeric"`,
    its options possibly empty and its key -1) is audited as a numeric question — so the audit
    judges what the learner would be shown, never calls malformed what the loader presents."""
    from pydantic import ValidationError

    from learning_system.curriculum_quiz import key_index, number, option_text
    from tutor.gates.envelopes import QuizQuestion

    if not isinstance(item, dict):
        return None, None
    raw_id = item.get("id")
    own_id = raw_id if isinstance(raw_id, str) and raw_id else None
    kind = item.get("type", "mcq")
    numeric = kind == "numeric"
    raw_options = item.get("options", [] if numeric else None)
    options = [option_text(o) for o in raw_options] if isinstance(raw_options, list) else [None]
    correct = key_index(item.get("correct"))
    if (
        not isinstance(item.get("question"), str)
        or kind not in ("mcq", "numeric")
        or None in options
        or (correct is None and not (numeric and not options))
    ):
        return None, own_id
    try:
        q = QuizQuestion(
            id=own_id or f"item-{index}",
            type=kind,
            question=item["question"],
            options=[o for o in options if o is not None],
            correct_index=None if numeric else correct,
            answer=number(item.get("answer")),
            tolerance=number(item.get("tolerance")),
        )
    except ValidationError:
        return None, own_id
    return q, own_id


def key_is_single_longest(options: list[str], key: int) -> bool:
    lengths = [len(o.strip()) for o in options]
    if not 0 <= key < len(lengths):
        return False
    return all(n < lengths[key] for i, n in enumerate(lengths) if i != key)


def audit_bank(data: Any) -> dict[str, Any]:
    """The report for one quiz bank. Raises TutorError when `data` is not a quiz bank."""
    from tutor.errors import TutorError
    from tutor.gates.mcq import audit_batch, audit_item

    if isinstance(data, dict) and isinstance(data.get("questions"), list):
        raw_items = data["questions"]
    elif isinstance(data, list):
        raw_items = data
    else:
        raise TutorError('a quiz bank is a JSON list of items or {"questions": [...]}')

    items: list[dict[str, Any]] = []
    problems: dict[int, list[Any]] = defaultdict(list)  # index -> issues, for the plain output
    batches: dict[str, list[tuple[int, Any]]] = defaultdict(list)
    by_code: Counter[str] = Counter()
    longest = 0
    for index, raw in enumerate(raw_items):
        q, own_id = _item_question(raw, index)
        entry: dict[str, Any] = {"index": index, "id": own_id, "ok": True, "codes": []}
        items.append(entry)
        if q is None:
            entry["ok"] = False
            entry["codes"] = ["M00"]
            continue
        for issue in audit_item(q):
            _add(entry, issue)
            problems[index].append(issue)
        if q.correct_index is not None and key_is_single_longest(q.options, q.correct_index):
            longest += 1
        stage = raw.get("stage") if isinstance(raw.get("stage"), str) else ""
        batches[stage].append((index, q))
    for batch in batches.values():
        by_id: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for index, q in batch:
            by_id[q.id].append(items[index])
        seen: set[tuple[str, str | None]] = set()
        for issue in audit_batch([q for _, q in batch]):
            if (issue.id, issue.code) in seen:  # one issue per (id, code) reaches each entry:
                continue  # linear even when thousands of items share one id
            seen.add((issue.id, issue.code))
            for entry in by_id[issue.id]:
                _add(entry, issue)
                problems[entry["index"]].append(issue)
    for entry in items:
        by_code.update(entry["codes"])
    total = len(items)
    ok = sum(1 for e in items if e["ok"])
    summary = {
        "items": total,
        "ok": ok,
        "not_ok": total - ok,
        "by_code": dict(sorted(by_code.items())),
        "key_single_longest": longest,
        "key_single_longest_pct": round(100 * longest / total, 1) if total else 0.0,
        "length_leak_flagged": by_code.get("M04", 0),
    }
    return {"items": items, "summary": summary, "problems": dict(problems)}


MALFORMED = (
    "the item is malformed: it needs a question (text), 4 options (text or numbers) and an "
    'integer key `correct` (a numeric item: `"type": "numeric"` and a numeric `answer`)'
)


def plain_line(entry: dict[str, Any], issues: list[Any]) -> str:
    """One line per item, in words: `item 3 (id): ok`, or what is wrong and how to fix it."""
    label = f"item {entry['index']}" + (f" ({entry['id']})" if entry["id"] else "")
    if entry["codes"] == ["M00"] and not issues:
        return f"{label}: not ok — {MALFORMED} (M00)"
    if not issues:
        return f"{label}: ok"
    seen: set[tuple[str, str]] = set()
    parts = []
    for i in sorted(issues, key=lambda i: ("high", "medium", "low").index(i.severity)):
        if (i.code or "", i.problem) in seen:
            continue
        seen.add((i.code or "", i.problem))
        parts.append(f"{i.problem} — fix: {i.suggested_fix} ({i.code}, {i.severity})")
    verdict = "ok, with notes" if entry["ok"] else "not ok"
    return f"{label}: {verdict} — " + "; ".join(parts)


def _add(entry: dict[str, Any], issue: Any) -> None:
    if issue.code and issue.code not in entry["codes"]:
        entry["codes"].append(issue.code)
    if issue.severity in ("high", "medium"):
        entry["ok"] = False


def run(args: argparse.Namespace) -> int:
    from tutor.inputs import read_json_file

    data = read_json_file(args.quiz, "quiz bank")
    report = audit_bank(data)
    problems = report.pop("problems")
    summary = report["summary"]
    if args.json:
        print(dumps(report, indent=2))
    else:
        for entry in report["items"]:
            print(clean_text(plain_line(entry, problems.get(entry["index"], []))))
        codes = ", ".join(f"{c} {n}" for c, n in summary["by_code"].items()) or "none"
        print(
            f"summary: {summary['items']} items, {summary['ok']} ok, {summary['not_ok']} not ok; "
            f"codes: {codes}"
        )
        print(
            f"summary: the key is the single longest option in {summary['key_single_longest']} "
            f"items ({summary['key_single_longest_pct']}%); length leak flagged (M04) in "
            f"{summary['length_leak_flagged']}"
        )
    return 0 if summary["not_ok"] == 0 else 1
