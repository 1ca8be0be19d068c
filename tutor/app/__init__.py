"""The Textual app: screens that render the engine's prompts and send the learner's actions.
It holds no tutoring logic. Nothing heavy is imported until `run_app` is called."""

from __future__ import annotations


def run_app(
    mode: str = "continue",
    *,
    curriculum: str | None = None,
    lesson: str | None = None,
    offline: bool = False,
    take_over: bool = False,
) -> int:
    from tutor import learner
    from tutor.app.app import TutorApp
    from tutor.config import store_path, tutor_home

    tutor_home()  # an unusable home is one line and exit 2 before any screen is drawn
    # so is a store that cannot be opened (damaged, not a tutor store, from a newer tutor); a
    # fresh home's store is created after the first paint, and a failure then is a message
    store = learner.open_store() if store_path().exists() else None
    app = TutorApp(
        mode=mode,
        curriculum=curriculum,
        lesson=lesson,
        offline=offline,
        take_over=take_over,
        store=store,
    )
    app.run()
    if app.start_error is not None:  # the first screen could not be drawn: one line, as above
        raise app.start_error
    return app.return_code or 0
