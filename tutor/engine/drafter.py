"""With a model: teaching drafts and isomorphic re-probes, prepared in the background while the
learner reads, so step boundaries rarely wait on the model. Every draft is then gated."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tutor.gates.text import normalise


class StepDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1)
    claims: list[str] = Field(min_length=1)


class IsomorphicItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    options: list[str]
    correct_index: int


class Drafter:
    def __init__(self, provider, workers: int = 2) -> None:
        self.provider = provider
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tutor-prep")
        self._futures: dict[str, Future] = {}

    def prefetch(self, key: str, work: Callable[[], Any]) -> None:
        if key not in self._futures:
            self._futures[key] = self._pool.submit(work)

    def take(self, key: str) -> Any:
        future = self._futures.pop(key, None)
        if future is None:
            return None
        try:
            return future.result()
        except Exception:
            return None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _call(self, skill: str, data: dict[str, Any], schema: type[BaseModel], purpose: str):
        from tutor.llm.provider import ModelFailure

        try:
            return asyncio.run(self.provider.structured(skill=skill, data=data, schema=schema,
                                                        purpose=purpose))
        except ModelFailure:
            return None

    def draft(self, step: dict[str, Any], compiled: dict[str, Any]) -> dict[str, Any] | None:
        """A fresh explanation of the step from its excerpts; None → teach the compiled step."""
        made = self._call("tutor", {
            "task": "teach_step", "step": step["title"],
            "untrusted_excerpts": compiled["excerpt"], "sources": compiled["sources"],
        }, StepDraft, "teach")
        if made is None:
            return None
        text = normalise(made.content)
        claims = [c for c in made.claims if normalise(c) in text]
        if not claims:
            return None
        return {"content": made.content, "claims": claims, "sources": compiled["sources"],
                "excerpt": compiled["excerpt"]}

    def isomorphic(self, item) -> dict[str, Any] | None:
        made = self._call("tutor", {
            "task": "isomorphic_item", "untrusted_item": item.question,
            "untrusted_reference": item.reference,
        }, IsomorphicItem, "reprobe")
        if made is None or len(made.options) != 4 or not 0 <= made.correct_index < 4:
            return None
        return {"id": item.id + "-iso", "lesson_id": item.lesson_id, "type": "mcq",
                "question": made.question, "options": made.options,
                "correct_index": made.correct_index, "reference": item.reference,
                "bloom": item.bloom, "stage": item.stage}
