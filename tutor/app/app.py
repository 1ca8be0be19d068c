"""The tutor app: home, lessons and review as screens over the engine's sessions.

Blocking work (opening a session, every `act`, the Clerk, views, packets) runs in thread
workers; a failure in any of them lands in one handler here (`report_failure`), which shows the
error's title and message and never a traceback (see tutor.app.failures)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable
from pathlib import Path

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from learning_system.errors import LearningSystemError
from tutor.app.failures import Failure, ReportingScreen, describe

AFTER_FIRST_PAINT = 0.05  # seconds from Ready to the work that waits for the first paint
# the exit codes after SIGTERM and SIGHUP, as a shell reports a process a signal ended
ENDED_BY = {"SIGTERM": 128 + 15, "SIGHUP": 128 + 1}


class TutorApp(App[int]):
    CSS_PATH = Path(__file__).with_name("tutor.tcss")
    TITLE = "tutor"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [Binding("ctrl+q", "quit_saved", "quit", priority=True, show=False)]

    def __init__(
        self,
        mode: str = "continue",
        *,
        curriculum: str | None = None,
        lesson: str | None = None,
        offline: bool = False,
        take_over: bool = False,
        store=None,
    ) -> None:
        import os

        from tutor.app.look import learner_look

        look = learner_look()
        asked = look.no_colour and "NO_COLOR" not in os.environ
        if asked:  # Textual's own monochrome, which it sets from this variable as it starts
            os.environ["NO_COLOR"] = "1"
        try:
            super().__init__()
        finally:
            if asked:
                del os.environ["NO_COLOR"]
        if look.theme != self.theme:  # setting the theme restyles the app: only a change
            self.theme = look.theme
        self.look_problem = look.problem
        self.mode = mode
        self.curriculum_override = curriculum
        self.lesson_ref = lesson
        self.offline = offline
        self.take_over = take_over
        self._store = store
        self.curriculum = None
        self.model_notice: str | None = None
        self._loading = threading.Lock()
        self._opening = threading.Lock()
        self.start_error: LearningSystemError | None = None

    def get_driver_class(self) -> type[Driver]:
        """On Linux and macOS, Textual's driver with input that is not UTF-8 read as U+FFFD
        (tutor.app.driver); Textual's own elsewhere, or when $TEXTUAL_DRIVER names one."""
        import sys

        from textual import constants

        if constants.DRIVER is not None or sys.platform == "win32":
            return super().get_driver_class()
        from tutor.app.driver import TutorDriver

        return TutorDriver

    # the learner's world; nothing here imports a model client
    @property
    def store(self):
        """The store, opened on first use: before the first paint when there is one, after it
        (by the home screen's worker) when a fresh home's store has to be created."""
        with self._opening:
            if self._store is None:
                from tutor import learner

                self._store = learner.open_store()
            return self._store

    def first_summary(self):
        """What the first screen shows: the store's counts and paused lesson; for a fresh home
        (no store yet), nothing recorded under the curriculum chosen by the command."""
        from tutor.engine import home_summary

        if self._store is None:
            from tutor import learner
            from tutor.config import store_path

            if not store_path().exists():
                return home_summary.empty(learner.curriculum_path(None, self.curriculum_override))
        return home_summary.from_store(self.store, self.curriculum_root())

    def home_curriculum(self):
        """The curriculum as far as the home screen needs it: the one read whole for a lesson
        when there is one, else a fresh listing that reads only the lessons asked for."""
        if self.curriculum is not None:
            return self.curriculum
        from tutor import learner

        return learner.load(self.curriculum_root(), only=[])

    def curriculum_root(self) -> Path:
        from tutor import learner

        # a lesson started with --curriculum is resumed in its own curriculum
        return learner.continue_path(self.store, self.curriculum_override, self.lesson_ref)

    def load_curriculum(self):
        """The curriculum, read once (from whichever worker asks first)."""
        with self._loading:
            if self.curriculum is None:
                from tutor import learner

                self.curriculum = learner.load(self.curriculum_root())
            return self.curriculum

    def on_mount(self) -> None:
        from tutor.app.home import HomeScreen

        self.push_screen(HomeScreen())
        self._catch_terminate()
        if self.look_problem:
            self.notify(self.look_problem, title="Settings", severity="warning")
        if self.mode == "review":
            self.start_review()
        elif self.lesson_ref:
            self.start_lesson()

    def start_lesson(self) -> None:
        from tutor.app.session_screen import SessionScreen

        self.push_screen(SessionScreen("lesson"))

    def start_review(self) -> None:
        from tutor.app.session_screen import SessionScreen

        self.push_screen(SessionScreen("review"))

    def on_ready(self) -> None:
        # what is alive at first paint lives as long as the app: keep it out of the collector's
        # full passes, which otherwise stall the event loop while the learner types
        gc.freeze()
        # Ready comes when the first frame is handed to Textual's writer thread: give that
        # thread a moment to put it on the terminal before a worker competes for the GIL
        self.set_timer(AFTER_FIRST_PAINT, self._after_first_paint)

    def _after_first_paint(self) -> None:
        from tutor.app.home import HomeScreen

        for screen in self.screen_stack:
            if isinstance(screen, HomeScreen):
                screen.after_first_paint()
        self.run_worker(warm_up, thread=True, group="warm", exit_on_error=False)

    def on_unmount(self) -> None:
        self._catch_terminate(False)
        if self._store is not None:
            self._store.close()

    def _catch_terminate(self, catch: bool = True) -> None:
        """SIGTERM (`kill`, a shutdown) and SIGHUP (the terminal window closed, a dropped ssh
        connection) pause and quit as ctrl+q does, so the lesson is paused and the terminal
        restored instead of left in the app's modes. Only where the event loop can take
        signals (not on Windows, nor off the main thread)."""
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for name, code in ENDED_BY.items():
            number = getattr(signal, name, None)
            if number is None:
                continue
            try:
                if catch:
                    # handled among the app's messages, as a key would be
                    loop.add_signal_handler(number, self.call_later, self.quit_saved, code)
                else:
                    loop.remove_signal_handler(number)
            except (NotImplementedError, RuntimeError, ValueError):
                return

    def cannot_start(self, error: LearningSystemError) -> None:
        """The first screen cannot be drawn (the store fails as it is read): the app closes and
        `run_app` raises `error` for the command line to say in one line, never a traceback."""
        self.start_error = error
        self.exit(return_code=error.exit_code)

    def action_quit_saved(self) -> None:
        self.quit_saved()

    def action_help_quit(self) -> None:
        """ctrl+c when it has nothing to copy (Textual's copy in a text box or of a selection
        comes first): pause & quit, as ctrl+q, rather than nothing."""
        self.quit_saved()

    def quit_saved(self, return_code: int = 0) -> None:
        """Pause every open lesson or review (text typed and not sent is held) and quit; what
        each says of where it stopped is printed once the app has closed."""
        from tutor.app.session_screen import SessionScreen

        stopped = [s.stop_session() for s in self.screen_stack if isinstance(s, SessionScreen)]
        message = "\n".join(note for note in stopped if note) or None
        self.exit(0, return_code=return_code, message=message)

    # one place for every worker failure --------------------------------------------------
    @on(Worker.StateChanged)
    def worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.report_failure(event.worker, None)

    def report_failure(self, worker: Worker, screen: ReportingScreen | None) -> None:
        """Show what went wrong and what to do, then let the screen whose worker failed put
        itself right. Every worker failure of the app ends here, never in a traceback."""
        error = worker.error
        if error is None:
            return
        failure = self.show_failure(error)
        if screen is not None:
            screen.failed(worker.name, error, failure)

    def show_failure(self, error: BaseException) -> Failure:
        failure = describe(error)
        timeout = 6 if failure.severity == "warning" else 20
        self.notify(failure.text, title=failure.title, severity=failure.severity, timeout=timeout)
        return failure

    # the command palette ------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title != "Screenshot":  # Textual's goes to a Downloads folder
                yield command
        yield SystemCommand(
            "Screenshot", "save an SVG of the screen under your tutor home", self.screenshot
        )
        yield SystemCommand(
            "Continue", "resume the lesson, or start the next one", self.start_lesson
        )
        yield SystemCommand("Review", "due mistakes first, then due concepts", self.start_review)
        yield SystemCommand(
            "Status", "position, due counts, concepts, mastery, calibration", self.show_status
        )
        yield SystemCommand("Views", "write markdown views of your records", self.write_views)
        yield SystemCommand("Settings", "how steps are shown to you", self.show_learner_settings)
        yield SystemCommand(
            "Doctor", "settings, model endpoint, store, curriculum", self.show_doctor
        )
        yield SystemCommand(
            "Study packet",
            "compile a packet (markdown, html) for the current lesson's topic",
            self.write_packet,
        )

    def show_learner_settings(self) -> None:
        from tutor.app.learner_screen import LearnerScreen

        self.push_screen(LearnerScreen())

    def show_status(self) -> None:
        """The status over whatever screen is open (a lesson stays where it is)."""
        self.run_worker(self._status, thread=True, group="status", exit_on_error=False)

    def _status(self) -> None:
        from tutor.app.help import TextScreen
        from tutor.engine import home_summary

        text = home_summary.status_text(
            home_summary.with_curriculum(self.store, self.home_curriculum())
        )
        self.call_from_thread(self.push_screen, TextScreen("Status", text))

    def screenshot(self) -> None:
        # after the palette has closed, so the screen is what the learner was looking at
        self.set_timer(0.1, self._save_screenshot)

    def _save_screenshot(self) -> None:
        from datetime import datetime

        from tutor.config import tutor_home

        folder = Path(tutor_home()) / "screenshots"
        name = datetime.now().strftime("tutor-%Y-%m-%d-%H%M%S.svg")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            saved = self.save_screenshot(name, str(folder))
        except OSError as exc:
            self.notify(f"not saved: {exc}", title="Screenshot", severity="error", timeout=20)
            return
        self.notify(saved, title="Screenshot saved")

    def write_views(self) -> None:
        self.run_worker(self._write_views, thread=True, group="views", exit_on_error=False)

    def _write_views(self) -> None:
        from learning_system.views import write_views
        from tutor.config import tutor_home

        out = Path(tutor_home()) / "views"
        written = write_views(self.store, out)
        self.call_from_thread(self.notify, f"{len(written)} files in {out}", title="Views")

    def write_packet(self) -> None:
        self.run_worker(self._packet, thread=True, group="packet", exit_on_error=False)

    def _packet(self) -> None:
        from tutor.config import tutor_home
        from tutor.engine.study_packets import compile_packet

        curriculum = self.load_curriculum()
        latest = self.store.sessions.latest(curriculum=str(curriculum.root))
        lesson = curriculum.lesson(latest["lesson_id"]) if latest else curriculum.next_lesson(None)
        if lesson is None:
            raise LookupError("the curriculum has no lessons to compile a packet for")
        out = Path(tutor_home()) / "packets"
        result = compile_packet(
            {
                "topic": lesson.id,
                "goal": lesson.objectives[0] if lesson.objectives else lesson.title,
                "generation_option": "deterministic_outline",
                "exporters": ["markdown", "html"],
            },
            curriculum,
            self.store,
            out_dir=out,
        )
        self.call_from_thread(
            self.notify,
            f"{lesson.id} {lesson.title}: {result.packet_path or out}",
            title="Study packet",
        )

    def show_doctor(self) -> None:
        self.run_worker(self._doctor, thread=True, group="doctor", exit_on_error=False)

    def _doctor(self) -> None:
        from tutor.app.help import TextScreen
        from tutor.doctor_report import gather, render

        text = render(gather())
        self.call_from_thread(self.push_screen, TextScreen("Doctor", text))


def warm_up() -> None:
    """What a lesson's screens need, imported (and pygments' lexers for the teaching's code
    compiled) in a thread while the learner reads home, instead of on the event loop at the
    first lesson screen, code block or answer box."""
    import tutor.app.session_screen  # noqa: F401  the teaching, TextArea, Input, the engine's turns
    from tutor.app.teaching import warm

    warm()
