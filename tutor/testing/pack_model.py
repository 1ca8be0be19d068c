"""A deterministic pack-building model for the loopback server (tutor.testing.model_server):
answers `pack_extract` and `pack_review` requests from the units it is sent, so packs are built
with no network, the same every time.

    with ModelServer() as srv:
        srv.always(PackModel())                      # every unit covered: `ready`
        srv.always(PackModel(uncovered={"u2"}))      # `review_required`: a gap at u2
        srv.always(PackModel(evidence_to="a999"))    # `review_required`: evidence at no atom
        srv.always(PackModel(errors=3))              # three `error` atoms per part

`during(body)` runs on every request before the answer (to edit a source mid-build, or to check
that no store transaction is open). Other requests get 500. Run it alone for a try-out:
`python -m tutor.testing.pack_model` prints the base URL to set as TUTOR_BASE_URL."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from tutor.testing.model_server import Reply


def unmark(value: Any) -> Any:
    """`value` with every delimited (untrusted) string given back as it was."""
    inside = re.fullmatch(r"<(\w+)>(.*)</\1>", value, re.DOTALL) if isinstance(value, str) else None
    if inside:
        return inside.group(2)
    if isinstance(value, dict):
        return {k: unmark(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unmark(v) for v in value]
    return value


def request_data(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(task, data) of a chat request built by tutor.llm.skills."""
    payload = json.loads(body["messages"][1]["content"])
    return str(payload.get("task", "")), unmark(payload.get("data") or {})


@dataclass
class PackModel:
    uncovered: Collection[str] = ()  # unit ids the extract leaves uncovered
    evidence_to: str | None = None  # the atom the evidence proves (default: the first atom)
    errors: int = 0  # `error` atoms per part, on the part's first unit
    during: Callable[[dict[str, Any]], None] | None = None
    tasks: list[str] = field(default_factory=list)  # the tasks asked, in order

    def __call__(self, body: dict[str, Any]) -> Reply:
        if self.during is not None:
            self.during(body)
        task, data = request_data(body)
        self.tasks.append(task)
        if task == "pack_extract":
            return Reply.json({"atoms": self.extract(data["untrusted_units"])})
        if task == "pack_review":
            return Reply.json({"atoms": data["untrusted_draft"], "corrections": []})
        return Reply.error(500, f"the pack model answers pack requests only, not {task!r}")

    def extract(self, units: list[dict[str, str]]) -> list[dict[str, Any]]:
        atoms: list[dict[str, Any]] = []
        for unit in units:
            if unit["id"] in self.uncovered:
                continue
            first = unit["text"].strip().splitlines()[0][:200]
            kind = "case" if unit["text"].lstrip().startswith(("```", "~~~")) else "invariant"
            atoms.append(
                {"id": f"a{unit['id']}", "kind": kind, "text": first, "units": [unit["id"]]}
            )
        return [*atoms, *self.error_atoms(units), *self.evidence(units, atoms)]

    def error_atoms(self, units: list[dict[str, str]]) -> list[dict[str, Any]]:
        """`errors` common errors per part (`x<unit>_<n>`), each with symptom, cause and
        correction, on the part's first unit."""
        firsts: dict[str, str] = {}
        for unit in units:
            if unit["id"] not in self.uncovered:
                firsts.setdefault(unit.get("part", ""), unit["id"])
        return [
            {
                "id": f"x{unit}_{n}",
                "kind": "error",
                "text": f"Common error {n} about {part or 'this part'}.",
                "units": [unit],
                "symptom": f"answer {n} looks right at first sight",
                "cause": f"misreading {part or 'this part'} ({n})",
                "correction": "reread the rule in the lesson",
            }
            for part, unit in firsts.items()
            for n in range(1, self.errors + 1)
        ]

    def evidence(
        self, units: list[dict[str, str]], atoms: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """One evidence atom per part (`e1`, `e2`, …), on the part's first unit, proving the
        part's first atom (the first one proves `evidence_to` when it is set)."""
        out: list[dict[str, Any]] = []
        for unit in units:
            part = unit.get("part", "")
            if unit["id"] in self.uncovered or any(e["part"] == part for e in out):
                continue
            proved = [a["id"] for a in atoms if a["units"][0] in _ids(units, part)][:1]
            if not out and self.evidence_to:
                proved = [self.evidence_to]
            out.append({"part": part, "unit": unit["id"], "proves": proved or ["a0"]})
        return [
            {
                "id": f"e{n}",
                "kind": "evidence",
                "text": f"Explain in your own words what {e['part'] or 'this part'} says.",
                "units": [e["unit"]],
                "proves": e["proves"],
            }
            for n, e in enumerate(out, 1)
        ]


def _ids(units: list[dict[str, str]], part: str) -> set[str]:
    return {u["id"] for u in units if u.get("part", "") == part}


if __name__ == "__main__":
    import time

    from tutor.testing.model_server import ModelServer

    with ModelServer() as srv:
        srv.always(PackModel())
        print(f"TUTOR_BASE_URL={srv.base_url} TUTOR_MODEL=loopback-model", flush=True)
        while True:
            time.sleep(3600)
