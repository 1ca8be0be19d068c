"""Hostile curricula, generated: a course from `course_maker` with one lesson made hostile —
for the containment tests and `bench/hostile.py`. Each writer returns the curriculum root and
the id of the lesson it changed."""

from __future__ import annotations

import json
from pathlib import Path

from tutor.testing.course_maker import write_course

BRACKET_LINE_CHARS = 1_000_000  # just under the 1 MiB document cap
BANK_ITEMS = 10_000
# what a renderer must never pass through: raw HTML (inside unpaired backticks too), script
# links as inline links, reference definitions and autolinks
HOSTILE_MARKDOWN = "\n".join(
    [
        "The `gear <img src=x onerror=alert(1)> turns.",
        "",
        "<script>alert(2)</script>",
        "",
        '<div onclick="alert(3)">a block of raw HTML</div>',
        "",
        "See [the manual][m], [the page](javascript:alert(4)) and <javascript:alert(5)>.",
        "",
        "[m]: javascript:alert(1)",
        "",
        "![a picture](vbscript:msgbox(6)) and [data](data:text/html;base64,PHNjcmlwdD4=)",
    ]
)


def _course(root: Path) -> tuple[Path, Path]:
    write_course(root, phases=1, lessons=2, items=6)
    folder = next(p for p in sorted((root / "phases").glob("*/*")) if p.is_dir())
    return root, folder


def bracket_line_course(root: Path, chars: int = BRACKET_LINE_CHARS) -> tuple[Path, str]:
    """Lesson P1 L01 has a section whose one line is `chars` characters of `[`…`]`."""
    root, folder = _course(root)
    doc = folder / "docs" / "en.md"
    half = chars // 2
    line = "[" * half + "]" * (chars - half)
    doc.write_text(
        doc.read_text(encoding="utf-8") + "\n## Brackets\n\n" + line + "\n", encoding="utf-8"
    )
    return root, "P1 L01"


def big_bank_course(root: Path, items: int = BANK_ITEMS) -> tuple[Path, str]:
    """Lesson P1 L01's quiz bank has `items` distinct questions (within the 4 MiB cap)."""
    root, folder = _course(root)
    bank = []
    for n in range(items):
        options = [f"It turns part {n} slowly", f"It holds {n}", f"It cools {n}", f"It lifts {n}"]
        bank.append(
            {
                "id": f"bulk-{n}",
                "stage": "pre" if n % 3 == 0 else "post",
                "question": f"What does part number {n} of the machine do?",
                "options": options,
                "correct": 0,
                "explanation": f"Part {n} turns slowly.",
            }
        )
    (folder / "quiz.json").write_text(json.dumps({"questions": bank}), encoding="utf-8")
    return root, "P1 L01"


def hostile_markdown_course(root: Path) -> tuple[Path, str]:
    """Lesson P1 L01's text, objectives and a bank item carry raw HTML and script links."""
    root, folder = _course(root)
    doc = folder / "docs" / "en.md"
    text = doc.read_text(encoding="utf-8").replace(
        "## Learning Objectives\n\n",
        "## Learning Objectives\n\n- Read <img src=x onerror=alert(7)> safely\n",
        1,
    )
    doc.write_text(text + "\n## Hostile\n\n" + HOSTILE_MARKDOWN + "\n", encoding="utf-8")
    bank_path = folder / "quiz.json"
    bank = json.loads(bank_path.read_text(encoding="utf-8"))
    first = bank["questions"][0]
    first["question"] = "Which `tag <img src=y onerror=alert(8)> is safe?"
    first["explanation"] = "[m]: javascript:alert(9)\n\n<script>alert(10)</script>"
    bank_path.write_text(json.dumps(bank), encoding="utf-8")
    return root, "P1 L01"
