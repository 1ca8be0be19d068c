"""What a gate's model verifier is sent: the envelope's evidence, each piece once.

A fact check sends each claim once (the claims are the draft's asserting sentences, so the
draft is not sent again beside them) and, of the reference excerpt, only the spans that bear on
some claim, each once: a claim names its spans by id (`see`) instead of repeating them. Other
gates send their envelope without empty fields, its `gate` (the request's task names it) or, in
a quiz audit whose every question has its level, `bloom_levels`. Every free-text string is
Untrusted (delimited by the prompt builder); the offline checks still run on the whole envelope
(tutor.gates.floor).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tutor.llm.skills import Untrusted

if TYPE_CHECKING:
    from tutor.gates.envelopes import Envelope, FactCheckEnvelope

# Envelope keys whose values are structure, not text; every other string is marked untrusted.
STRUCTURAL_KEYS = frozenset(
    {
        "gate",
        "id",
        "type",
        "purpose",
        "target_bloom",
        "error_type",
        "batch_id",
        "bloom_levels",
        "kind",
        "see",
    }
)
SPANS_PER_CLAIM = 2
EXCERPT_BUDGET = 800  # characters of excerpt spans in one fact check (about 200 tokens)
_WORD = re.compile(r"[a-z0-9]{3,}")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_STOP = frozenset("the and for are with that this from its into than then does you your".split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def excerpt_spans(excerpt: str) -> list[str]:
    """The excerpt's paragraphs, the units a claim cites."""
    return [p.strip() for p in _PARAGRAPH.split(excerpt) if p.strip()]


def cited_spans(claims: list[str], excerpt: str) -> tuple[list[str], list[list[int]]]:
    """(the spans sent, each once; per claim, the indexes into them of the spans that share
    most words with it). Spans are kept in the excerpt's order, within EXCERPT_BUDGET."""
    spans = excerpt_spans(excerpt)
    vocab = [_words(s) for s in spans]
    wanted: list[list[int]] = []
    for claim in claims:
        own = _words(claim)
        scored = sorted(((len(own & v), -i) for i, v in enumerate(vocab) if own & v), reverse=True)
        wanted.append([-i for _, i in scored[:SPANS_PER_CLAIM]])
    kept: list[int] = []
    used = 0
    for rank in range(SPANS_PER_CLAIM):  # every claim's best span first, then its second
        for picks in wanted:
            if rank < len(picks) and picks[rank] not in kept:
                if used + len(spans[picks[rank]]) > EXCERPT_BUDGET and kept:
                    continue
                kept.append(picks[rank])
                used += len(spans[picks[rank]])
    order = sorted(kept)
    index = {span: n for n, span in enumerate(order)}
    return [spans[i] for i in order], [[index[i] for i in p if i in index] for p in wanted]


def fact_check_data(envelope: FactCheckEnvelope) -> dict[str, Any]:
    texts, cites = cited_spans([c.claim for c in envelope.claims], envelope.reference_excerpt)
    return {
        "gate": "fact_check",
        "context": Untrusted(envelope.context),
        "excerpt": [{"id": f"e{n + 1}", "text": Untrusted(t)} for n, t in enumerate(texts)],
        "claims": [
            {"id": c.id, "claim": Untrusted(c.claim), "see": [f"e{n + 1}" for n in cited]}
            for c, cited in zip(envelope.claims, cites, strict=True)
        ],
    }


def envelope_data(envelope: Envelope) -> dict[str, Any]:
    """The envelope as prompt data: the evidence once, free text Untrusted, no empty fields."""
    if envelope.gate == "fact_check":
        return fact_check_data(envelope)

    def mark(value: Any, key: str | None) -> Any:
        if isinstance(value, dict):
            return {k: mark(v, k) for k, v in value.items() if v not in (None, [], "")}
        if isinstance(value, list):
            return [mark(v, key) for v in value]
        if isinstance(value, str) and key not in STRUCTURAL_KEYS:
            return Untrusted(value)
        return value

    marked: dict[str, Any] = mark(envelope.model_dump(mode="json", exclude={"gate"}), None)
    if envelope.gate == "quiz_audit" and envelope.concept:
        marked["concept"] = envelope.concept  # the program's concept id, not outside text
    if envelope.gate == "quiz_audit" and all(q.target_bloom for q in envelope.questions_json):
        marked.pop("bloom_levels", None)  # each question carries its own
    return marked
