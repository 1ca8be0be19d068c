"""The part of a Scout digest the gates read: each source and the text that grounds it.
The Scout converts its digest to this; the gates never import the Scout."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict

from tutor.gates.text import normalise


class GateDigest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sources: dict[str, str]

    @cached_property
    def normalised_sources(self) -> dict[str, str]:
        """Each source's text normalised (text.normalise), computed once."""
        return {k: normalise(v) for k, v in self.sources.items()}

    def normalised(self, source: str) -> str | None:
        """The source's normalised text, or None when it is not a source of the digest."""
        return self.normalised_sources.get(source)

    def grounds(self, sources: list[str], part: str) -> bool:
        """`part` occurs in the text of one of `sources`, verbatim or once both are
        normalised."""
        texts = self.sources
        if any(part in texts[s] for s in sources if s in texts):
            return True
        wanted = normalise(part)
        norm = self.normalised_sources
        return any(wanted in norm[s] for s in sources if s in norm)


def digest_from_data(data: Any) -> GateDigest:
    """Read a GateDigest (`{"sources": {url: text}}`) or any digest-like JSON with
    `sources: [{url | file | path, excerpt, takeaways?}]`. Raises ValueError on anything else."""
    if not isinstance(data, dict) or "sources" not in data:
        raise ValueError("a digest is a JSON object with 'sources'")
    sources = data["sources"]
    if isinstance(sources, dict):
        return GateDigest.model_validate({"sources": sources})
    if not isinstance(sources, list):
        raise ValueError("'sources' must be an object or a list")
    out: dict[str, str] = {}
    for n, entry in enumerate(sources):
        if not isinstance(entry, dict):
            raise ValueError(f"source {n} is not an object")
        key = entry.get("url") or entry.get("file") or entry.get("path")
        if not isinstance(key, str) or not key:
            raise ValueError(f"source {n} has no url, file or path")
        parts: list[str] = []
        excerpt = entry.get("excerpt")
        if isinstance(excerpt, str):
            parts.append(excerpt)
        takeaways = entry.get("takeaways")
        if isinstance(takeaways, list):
            parts.extend(t for t in takeaways if isinstance(t, str))
        elif isinstance(takeaways, str):
            parts.append(takeaways)
        text = "\n\n".join(parts)
        out[key] = f"{out[key]}\n\n{text}" if key in out else text
    return GateDigest(sources=out)
