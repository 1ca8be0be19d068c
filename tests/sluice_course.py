"""A one-lesson course of our own for the choice tests: "The Sluice", whose concept section is
given, with one leaky bank item (its key among one-word distractors)."""

from __future__ import annotations

import json
from pathlib import Path


def sluice_course(
    tmp_path: Path,
    concept: str,
    key: str = "It lets water through at a rate set by its height",
    question: str = "What does the gate of a sluice do when it is raised?",
    item_id: str = "sluice-gate",
    explanation: str = "Raising the gate opens a gap under it.",
) -> Path:
    """The course's root: one lesson whose document's concept section is `concept`, and whose
    bank holds one item with `key` among "Rust", "Wood" and "Mud"."""
    folder = tmp_path / "course" / "phases" / "01-p" / "01-the-sluice"
    (folder / "docs").mkdir(parents=True)
    doc = "# The Sluice\n\n> Water on demand.\n\n## The Concept\n\n" + concept + "\n"
    (folder / "docs" / "en.md").write_text(doc, encoding="utf-8")
    bank = [
        {
            "id": item_id,
            "stage": "post",
            "question": question,
            "options": ["Rust", key, "Wood", "Mud"],
            "correct": 1,
            "explanation": explanation,
        }
    ]
    (folder / "quiz.json").write_text(json.dumps(bank), encoding="utf-8")
    return tmp_path / "course"
