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
    from tutor.app.app import TutorApp
    from tutor.config import tutor_home

    tutor_home()  # an unusable home is one line and exit 2 before any screen is drawn
    app = TutorApp(
        mode=mode, curriculum=curriculum, lesson=lesson, offline=offline, take_over=take_over
    )
    app.run()
    return app.return_code or 0
