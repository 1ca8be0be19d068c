"""A lesson's pack built in the background once the Scout has prepared the lesson, never on the
learner's clock: on a thread and event loop of its own, started after the lesson's first screen,
so no screen waits for it, and cancelled when the session closes (quitting never waits for a
model call; a cancelled build writes nothing and the next lesson start tries again).

A pack that is ready or needs review for the source as it is now is not rebuilt (`tutor dossier
build --force` does that). The session does not switch to a pack built while it runs: it keeps
the pack it started with (tutor/engine/session.py)."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from learning_system.curriculum import Curriculum, Lesson
    from learning_system.store import Store
    from tutor.dossier.build import BuildResult
    from tutor.llm.settings import ModelSettings

log = logging.getLogger(__name__)
KEPT = ("ready", "review_required")  # states of a current pack a background build leaves alone


class BackgroundBuild:
    """One lesson's pack build on its own thread; `cancel` stops it, `wait` is for tests and
    benches."""

    def __init__(
        self, store: Store, curriculum: Curriculum, lesson: Lesson, settings: ModelSettings
    ) -> None:
        self.result: BuildResult | None = None  # None: not needed, cancelled, or not finished
        self._loop = asyncio.new_event_loop()
        self._task = self._loop.create_task(self._build(store, curriculum, lesson, settings))
        self._thread = threading.Thread(target=self._run, name="tutor-pack-build", daemon=True)
        self._thread.start()

    async def _build(
        self, store: Store, curriculum: Curriculum, lesson: Lesson, settings: ModelSettings
    ) -> None:
        from tutor.dossier.build import build_pack
        from tutor.dossier.status import lesson_pack
        from tutor.dossier.units import lesson_source

        source = lesson_source(lesson, curriculum)
        if lesson_pack(store, source).state in KEPT:
            return
        self.result = await build_pack(store, source, lesson.title, settings)
        log.info("knowledge pack of %s: %s", lesson.id, self.result.state)

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            log.info("the background pack build was cancelled")
        except Exception as exc:  # background work: logged; the lesson never depends on it
            log.warning("the background pack build failed: %s: %s", type(exc).__name__, exc)
        finally:
            self._loop.close()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the build has ended within `timeout` seconds."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def cancel(self) -> None:
        """Stop the build (a model call in flight is abandoned) and wait for its thread."""
        try:
            self._loop.call_soon_threadsafe(self._task.cancel)
        except RuntimeError:  # the loop has already closed: the build had ended
            pass
        self._thread.join()


def build_after_scout(
    store: Store, curriculum: Curriculum, lesson: Lesson, provider: object
) -> BackgroundBuild | None:
    """Start the lesson's pack build when `provider` is a configured model; None otherwise."""
    from tutor.llm.settings import ModelSettings

    settings = getattr(provider, "settings", None)
    if not isinstance(settings, ModelSettings) or settings.offline:
        return None
    return BackgroundBuild(store, curriculum, lesson, settings)
