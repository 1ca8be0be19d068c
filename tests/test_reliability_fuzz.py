"""Issue 14: hostile input to `tutor gate check`, `tutor quiz audit` and `tutor curriculum
check` ends in a report or one line and exit 2 — never a traceback — and what they print carries
no terminal escapes. Hypothesis over envelopes, banks and curricula with a fixed budget, through
the real command line in-process (files on disk, `tutor.cli.main`)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutor.cli import main
from tutor.gates.samples import DIGEST, SAMPLES, fact_envelope, quiz_envelope

BUDGET = settings(
    max_examples=120,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)

RAW = "@@RAW@@"  # a leaf replaced, after encoding, by raw JSON text no encoder would write
RAW_FRAGMENTS = [
    "1" * 5000,
    "-" + "9" * 401,
    "1e999999",
    "[" * 3000 + "]" * 3000,
    '{"a":' * 2000 + "1" + "}" * 2000,
    "NaN",
    "Infinity",
    '"\\ud800"',
    '"\\udfff\\ud800x"',
    '"\\u001b]0;owned\\u0007"',
    '"\\u202e"',
]
HOSTILE_TEXT = st.sampled_from(
    [
        "\ud800",
        "a\udcffb",
        "\x1b[31mred\x1b[0m",
        "\x1b]8;;http://x\x07link\x1b]8;;\x07",
        "\u202egnp.exe",
        "\x9b2J",
        "\x00\x07\x7f",
        "[" * 500,
        "(" * 500,
        "#" * 300,
        "\n" * 50,
        "x" * 20000,
        "",
        " ",
        "…",
        RAW,
    ]
) | st.text(max_size=40)
LEAF = HOSTILE_TEXT | st.integers(-10, 10) | st.none() | st.booleans() | st.floats()
VALUE = st.recursive(
    LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(HOSTILE_TEXT, inner, max_size=4),
    max_leaves=10,
)
ESCAPES = ("\x1b", "\x9b", "\u202e", "\x07")


def mutate(data: st.DataObject, value: Any, depth: int = 0) -> Any:
    if isinstance(value, dict) and value and depth < 5:
        key = data.draw(st.sampled_from(sorted(value)))
        out = dict(value)
        choice = data.draw(st.integers(0, 5))
        if choice == 0:
            del out[key]
        elif choice == 1:
            out[key] = data.draw(VALUE)
        else:
            out[key] = mutate(data, value[key], depth + 1)
        return out
    if isinstance(value, list) and value and depth < 5:
        i = data.draw(st.integers(0, len(value) - 1))
        out = list(value)
        choice = data.draw(st.integers(0, 4))
        if choice == 0:
            out.extend([value[i]] * data.draw(st.integers(1, 300)))  # shared ids, big batches
        elif choice == 1:
            out[i] = data.draw(VALUE)
        else:
            out[i] = mutate(data, value[i], depth + 1)
        return out
    return data.draw(VALUE)


def encode(data: st.DataObject, value: Any) -> str:
    text = json.dumps(value, ensure_ascii=data.draw(st.booleans()), allow_nan=True)
    while f'"{RAW}"' in text:
        text = text.replace(f'"{RAW}"', data.draw(st.sampled_from(RAW_FRAGMENTS)), 1)
    if data.draw(st.integers(0, 9)) == 0:  # now and then, broken JSON too
        cut = data.draw(st.integers(0, len(text)))
        text = text[:cut] + data.draw(st.sampled_from(["", "\x00", "{", "\ud800", "]]]"]))
    return text


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def run(capsys, *argv: str) -> int:
    code = main(list(argv))  # anything but a report or a one-line refusal raises here
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), (code, err)
    for mark in ESCAPES:
        assert mark not in out and mark not in err, (mark, out[-300:], err)
    if code == 2:
        assert err.startswith("tutor: ") and err.count("\n") == 1, err
        if "--json" in argv and argv[:2] == ("gate", "check"):  # and JSON for a reader
            assert json.loads(out)["error"] == err.removeprefix("tutor: ").strip()
    return code


ENVELOPES = [fact_envelope().model_dump(mode="json"), quiz_envelope().model_dump(mode="json")]
for make in SAMPLES.values():
    _, receipts, _ = make("m")
    ENVELOPES += [r.envelope.model_dump(mode="json") for r in receipts]
DIGEST_DATA = DIGEST.model_dump(mode="json")


@BUDGET
@given(
    data=st.data(),
    which=st.integers(0, len(ENVELOPES) - 1),
    as_json=st.booleans(),
    with_digest=st.booleans(),
)
def test_gate_check_survives_hostile_envelopes(capsys, data, which, as_json, with_digest):
    with tempfile.TemporaryDirectory() as tmp:
        envelope = write(Path(tmp) / "e.json", encode(data, mutate(data, ENVELOPES[which])))
        argv = ["gate", "check", str(envelope)]
        if with_digest:
            digest = DIGEST_DATA if data.draw(st.booleans()) else mutate(data, DIGEST_DATA)
            argv += ["--digest", str(write(Path(tmp) / "d.json", encode(data, digest)))]
        run(capsys, *argv, *(["--json"] if as_json else []))


BANK = [
    {
        "id": f"q{n}",
        "stage": stage,
        "question": f"Which statement about item {n} holds?",
        "options": [f"first {n}", f"second {n}", f"third {n}", f"fourth {n}"],
        "correct": n % 4,
        "explanation": "because",
    }
    for n, stage in enumerate(["pre", "pre", "check", "post"])
]


@BUDGET
@given(data=st.data(), wrapped=st.booleans(), as_json=st.booleans())
def test_quiz_audit_survives_hostile_banks(capsys, data, wrapped, as_json):
    bank: Any = mutate(data, BANK)
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp) / "q.json", encode(data, {"questions": bank} if wrapped else bank))
        run(capsys, "quiz", "audit", str(path), *(["--json"] if as_json else []))


DOC_LINES = (
    st.sampled_from(
        [
            "# Title",
            "> motto",
            "**Type:** Build",
            "**Languages:** Python, and Julia",
            "**Prerequisites:** Phase 1, Lessons 04-05",
            "**Time:** ~75 minutes",
            "## Further Reading",
            "- [A page](https://example.org/a) - about it",
            "- https://example.org/b",
            "## The Concept",
            "```",
            "### Sub",
            "- **What it actually means:** a meaning",
            "## " + " " * 3000 + "x",
            "- [" + "[" * 3000,
            "**Time:** " + "9" * 500,
        ]
    )
    | HOSTILE_TEXT
)


@BUDGET
@given(
    data=st.data(),
    doc=st.lists(DOC_LINES, max_size=12),
    readme=HOSTILE_TEXT,
    glossary=st.lists(DOC_LINES, max_size=6),
    folder=st.sampled_from(["01-basics", "02-\x1b[31mred", "03-\u202eevil", "x"]),
    as_json=st.booleans(),
)
def test_curriculum_check_survives_hostile_curricula(
    capsys, data, doc, readme, glossary, folder, as_json
):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lesson = root / "phases" / "01-phase" / folder
        (lesson / "docs").mkdir(parents=True)
        write(root / "README.md", "# " + readme + "\n")
        write(lesson / "docs" / "en.md", "\n".join(doc))
        write(lesson / "quiz.json", encode(data, mutate(data, BANK)))
        (root / "glossary").mkdir()
        write(root / "glossary" / "terms.md", "## term\n" + "\n".join(glossary))
        run(capsys, "curriculum", "check", str(root), *(["--json"] if as_json else []))
