"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "aiefs"
RAM_DISK = Path("/dev/shm")
RAM_DISK_MIN_FREE = 1 << 30
# model settings a developer's shell may hold; tests set what they need themselves
MODEL_ENV = (
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "OPENAI_API_KEY",
    "TUTOR_BASE_URL",
    "TUTOR_MODEL",
    "TUTOR_API_KEY_ENV",
)


def pytest_configure(config) -> None:
    """No model settings are inherited from the shell running the tests (MODEL_ENV): a test, or
    a `tutor` process it starts, would otherwise reach whatever endpoint the developer uses.

    Temporary files (tmp_path, tempfile, and the `tutor` processes tests start) go to a RAM
    disk when there is one with room, unless TMPDIR or --basetemp says otherwise. The store
    commits every write with synchronous=FULL, and on a disk the fsyncs were most of the suite's
    time; on tmpfs they return at once. The files are the same real SQLite files (WAL, locks and
    all), and nothing a test can check needs the disk: a killed process's writes live in the
    page cache either way. pytest keeps its last three runs there, as it does in /tmp."""
    import os
    import tempfile

    for name in MODEL_ENV:
        os.environ.pop(name, None)
    if os.environ.get("TMPDIR") or config.option.basetemp:
        return
    try:
        fs = os.statvfs(RAM_DISK)
    except OSError:
        return
    if not os.access(RAM_DISK, os.W_OK | os.X_OK) or fs.f_bavail * fs.f_frsize < RAM_DISK_MIN_FREE:
        return
    os.environ["TMPDIR"] = str(RAM_DISK)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


@pytest.fixture(autouse=True)
def _plain_tutors_ended():
    """No `tutor --plain` process a test started outlives it, nor do its pipes; nor does an app
    a test started on a pseudo-terminal."""
    yield
    from plain_driver import Learner
    from terminal_driver import Terminal

    Learner.end_all()
    Terminal.end_all()


@pytest.fixture(scope="session")
def corpus_root() -> Path:
    """The real curriculum slice in `../shared/corpus/aiefs` (read-only: copy it to change it)."""
    if not (CORPUS / "phases").is_dir():
        pytest.skip(f"needs the reference corpus at {CORPUS} (a plain clone has none; CI has it)")
    return CORPUS


@pytest.fixture
def lesson_outcome(tmp_path):
    """A store with one finished lesson's answers (attempts, a mistake, session notes) and the
    pending ingest the engine would hand the Clerk: `(store, pending)`. Used by the Clerk and
    views tests."""
    from datetime import UTC, datetime, timedelta

    from learning_system import ledger
    from learning_system.ledger import Attempt, Mistake
    from learning_system.outcome import IngestConcept, PendingIngest, TaughtStep
    from learning_system.store import Store

    ended = datetime(2025, 3, 4, 10, 0, tzinfo=UTC)
    store = Store(tmp_path / "tutor.db")
    answers = [
        ("a1", "p1l01-dot-product", "correct", "sure"),
        ("a2", "p1l01-dot-product", "correct", "sure"),
        ("a3", "p1l01-vector-norm", "wrong", "sure"),
        ("a4", "p1l01-vector-norm", "idk", "no_idea"),
    ]
    for n, (aid, concept, outcome, confidence) in enumerate(answers):
        ledger.record_attempt(
            store,
            Attempt(
                id=aid,
                session_id="s1",
                lesson_id="P1 L01",
                concept_id=concept,
                item_id=f"q{n}",
                kind="probe",
                answer="b",
                outcome=outcome,
                confidence=confidence,
                created_at=ended - timedelta(minutes=30 - n),
            ),
        )
    ledger.record_mistake(
        store,
        Mistake(
            id="m1",
            attempt_id="a3",
            concept_id="p1l01-vector-norm",
            lesson_id="P1 L01",
            error_type="application",
            attribution="I squared the sum instead of summing squares",
            retest_early=True,
            item={"question": "What is the L2 norm of (3, 4)?"},
        ),
        when=ended - timedelta(minutes=27),
    )
    store.sessions.add_note(
        "s1:verdict", "s1", "verdict", {"dot products": "solid", "norms": "unknown"}
    )
    store.sessions.add_note("s1:plan", "s1", "plan", {"steps": ["Norms", "Dot product"]})
    pending = PendingIngest(
        id="ingest:s1",
        session_id="s1",
        lesson_id="P1 L01",
        lesson_title="Vectors and dot products",
        curriculum="builtin",
        concepts=[
            IngestConcept(
                id="p1l01-dot-product",
                name="Dot product",
                lesson_id="P1 L01",
                kind_hint="Learn",
                status_hint="held",
                evidence=["a1", "a2"],
            ),
            IngestConcept(
                id="p1l01-vector-norm",
                name="Computing a vector norm",
                lesson_id="P1 L01",
                kind_hint="Learn",
                language="Python",
                evidence=["a3", "a4"],
            ),
            IngestConcept(
                id="p1l01-notation", name="Vector notation", lesson_id="P1 L01", kind_hint="Learn"
            ),
        ],
        attempt_ids=["a1", "a2", "a3", "a4"],
        mistake_ids=["m1"],
        glossary={
            "norm": "The length of a vector.",
            "dot product": "The sum of the products of matching components.",
        },
        verdict={"dot products": "solid", "norms": "unknown"},
        plan=["Norms", "Dot product"],
        taught=[
            TaughtStep(
                step_id="st1",
                title="Norms",
                concept_id="p1l01-vector-norm",
                content="The L2 norm is the square root of the sum of squares.",
                sources=["docs/en.md", "https://example.org/norms"],
                receipt_ids=["rcpt-1"],
            ),
            TaughtStep(
                step_id="st2",
                title="Dot product",
                concept_id="p1l01-dot-product",
                content="Multiply matching components, then add the products.",
                sources=["docs/en.md"],
                receipt_ids=["rcpt-2"],
                unverified=["c2"],
            ),
        ],
        created_at=ended.isoformat(),
    )
    store.ingests.save(
        pending.id, pending.session_id, pending.lesson_id, pending.model_dump(mode="json")
    )
    yield store, pending
    store.close()


def write_tiny_curriculum(root: Path, links: list[tuple[str, str]]) -> Path:
    """A two-lesson curriculum of our own in `root`; lesson P1 L02 reads `links` (title, url)."""
    phase = root / "phases" / "01-basics"
    first = phase / "01-counting" / "docs"
    second = phase / "02-averages" / "docs"
    first.mkdir(parents=True, exist_ok=True)
    second.mkdir(parents=True, exist_ok=True)
    (first / "en.md").write_text(
        "# Counting Things\n\n> Every statistic starts with a count.\n\n**Type:** Learn\n"
        "**Language:** Python\n**Prerequisites:** None\n\n## Learning Objectives\n\n"
        "- Count distinct values in a list with a dictionary\n- Explain a frequency table\n\n"
        "## The Concept\n\nA frequency table maps each distinct value to the number of times it "
        "occurs, which is the first summary anyone makes of a fresh column of data.\n",
        encoding="utf-8",
    )
    reading = "\n".join(f"- [{title}]({url}) - a reference" for title, url in links)
    (second / "en.md").write_text(
        "# Averages and Spread\n\n> The mean tells you where, the spread tells you how sure.\n\n"
        "**Type:** Build\n**Languages:** Python, Julia\n"
        "**Prerequisites:** Phase 1, Lesson 01 (Counting)\n**Time:** ~30 minutes\n\n"
        "## Learning Objectives\n\n- Compute the arithmetic mean and the median of a sample\n"
        "- Explain why the variance squares its deviations\n\n## The Problem\n\n"
        "A single number that summarises a sample hides how much the values disagree with "
        "each other, and two samples with the same mean can behave very differently.\n\n"
        "## The Concept\n\n### Mean and median\n\nThe mean adds the values and divides by how "
        "many there are, while the median is the middle value once the sample is sorted.\n\n"
        "### Variance\n\nThe variance averages the squared deviations from the mean, so large "
        "deviations weigh more than small ones and signs cannot cancel out.\n\n"
        f"## Further Reading\n\n{reading}\n",
        encoding="utf-8",
    )
    glossary = root / "glossary"
    glossary.mkdir(exist_ok=True)
    (glossary / "terms.md").write_text(
        "# Glossary\n\n### Variance\n- **What it actually means:** The mean squared deviation "
        "of values from their mean.\n\n### Median\n- **What it actually means:** The middle "
        "value of a sorted sample.\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture
def srv():
    """A loopback server speaking the OpenAI chat-completions API, scripted per test."""
    from tutor.testing.model_server import ModelServer

    with ModelServer() as server:
        yield server


@pytest.fixture
def recorder():
    """Records model calls in memory."""
    from tutor.llm.recorder import MemoryRecorder

    return MemoryRecorder()


@pytest.fixture
def store(tmp_path):
    """A real store in a fresh SQLite file."""
    from learning_system.store import Store

    with Store(tmp_path / "tutor.db") as s:
        yield s


@pytest.fixture
def isolated_model_env(monkeypatch, tmp_path):
    """No model settings or keys from the machine; the tutor home in tmp_path."""
    from tutor.testing.fixtures import isolate_model_env

    isolate_model_env(monkeypatch, tmp_path / "home")


@pytest.fixture
async def provider(srv, recorder):
    """The OpenAI-compatible provider pointed at the loopback model server, fast settings."""
    from tutor.llm.openai_provider import OpenAIProvider
    from tutor.testing.fixtures import fast_settings

    provider = OpenAIProvider(fast_settings(srv.base_url), recorder)
    yield provider
    await provider.aclose()
