"""Home: where the learner stands. The first paint shows what the store alone says (nothing for a
fresh home, whose store is created after it); one worker, started after the first paint, reads
the lessons the summary names and fills in the rest. No network, no model, no pydantic."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from rich.box import ROUNDED
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static
from textual.worker import get_current_worker

from learning_system.errors import LearningSystemError
from tutor.app.failures import ReportingScreen
from tutor.app.key_line import KeyLine
from tutor.app.menu import Menu
from tutor.app.text import safe
from tutor.engine import home_summary
from tutor.engine.calibration import CALIBRATION_DAYS, Calibration
from tutor.engine.home_summary import HomeSummary, RecordCounts

if TYPE_CHECKING:
    from tutor.app.app import TutorApp

BARS = "▁▂▃▄▅▆▇█"
CHOICES = [
    ("continue", "Continue the lesson", "enter"),
    ("review", "Review what is due", "r"),
    ("status", "Refresh status and records", "s"),
    ("settings", "Settings: how steps are shown", "p"),
    ("quit", "Quit", "q"),
]


def bars(values: Sequence[float], top: float | None = None) -> str:
    """A one-line bar chart: each value as a block from ▁ (zero) to █ (top)."""
    top = top if top is not None else max(values, default=0) or 1
    return "".join(
        BARS[max(0, min(len(BARS) - 1, int(v / top * (len(BARS) - 1) + 0.5)))] for v in values
    )


def calibration_text(c: Calibration) -> Text:
    """The calibration panel: the sure answers' hit rate first, then the concepts, then what
    to do about it."""
    head = Text.assemble((f"Calibration, {CALIBRATION_DAYS} days", "bold"), "  " + c.summary())
    concepts = c.concepts()
    lines = [head, *([safe(concepts)] if concepts else []), safe(c.advice(), "italic")]
    return Text("\n").join(lines)


def summary_view(s: HomeSummary, state: str, border: str) -> Group:
    """Everything above the menu, as one renderable (a widget per panel would cost the first
    paint their styles and layout): where the learner stands, what is due and the charts side by
    side, calibration, and the last lesson. `state`: the model's or offline, shown in the header."""
    head = Text.assemble(safe(s.curriculum, "bold"), *(("  ·  ", safe(state)) if state else ()))
    counts = s.counts
    rows = [("Due now", home_summary.due_now(counts.due_mistakes, counts.due_concepts))]
    statuses = ", ".join(f"{n} {k}" for k, n in sorted(counts.concepts.items())) or "none yet"
    rows.append(("Concepts", statuses))
    if counts.mastery is not None:
        rows.append(("Mastery", f"{counts.mastery:.2f} of 0.80 (advisory)"))
    width = max(len(label) for label, _ in rows)
    due = Text("\n").join(
        Text.assemble((label.ljust(width), "bold"), " ", value) for label, value in rows
    )
    charts = Text.assemble(
        ("Mastery, last 30 days", "bold"),
        " (advisory)\n",
        bars(counts.mastery_days, 0.8),
        "\n",
        ("Due, next 14 days", "bold"),
        f" ({sum(counts.due_days)} in all)\n",
        bars([float(n) for n in counts.due_days]),
    )
    panels = Table.grid(expand=True, padding=(0, 1))
    panels.add_column(ratio=1)
    panels.add_column(ratio=1)
    panels.add_row(*(Panel(part, box=ROUNDED, border_style=border) for part in (due, charts)))
    last = f"Last lesson: {s.last_lesson}" if s.last_lesson else "No lesson finished yet."
    return Group(
        head,
        safe(s.position),
        "",
        panels,
        Panel(calibration_text(counts.calibration), box=ROUNDED, border_style=border),
        safe(last, "dim"),
    )


class HomeScreen(ReportingScreen):
    BINDINGS = [
        Binding("enter", "choose('continue')", "continue"),
        Binding("r", "choose('review')", "review"),
        Binding("s", "choose('status')", "status"),
        Binding("p", "choose('settings')", "settings"),
        Binding("question_mark", "help", "help"),
        Binding("q", "choose('quit')", "quit"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="home-summary")
        yield Menu([(name, f"{label:<30} {key}") for name, label, key in CHOICES], id="home-menu")
        yield KeyLine()

    def __init__(self) -> None:
        super().__init__()
        self._counts: RecordCounts | None = None  # counted for the first paint, used once more
        self._painted = False  # the app's first paint is done: resuming refreshes the summary

    def on_mount(self) -> None:
        app = cast("TutorApp", self.app)
        try:
            summary = app.first_summary()
        except LearningSystemError as exc:
            app.cannot_start(exc)
            return
        self._counts = summary.counts
        self.show(summary)
        self.query_one(Menu).focus()

    def after_first_paint(self) -> None:
        """The curriculum and the rest of the summary, now that the first screen is shown."""
        self._painted = True
        if self.app.screen is self:
            self.refresh_summary()

    def on_screen_suspend(self) -> None:
        # a lesson or a review over home changes the records: the first paint's counts are
        # out of date, and home counts afresh when it is shown again
        self._counts = None

    def on_screen_resume(self) -> None:
        if self._painted:
            self.refresh_summary()

    @work(thread=True, exclusive=True, group="home", exit_on_error=False)
    def refresh_summary(self) -> None:
        app = self.app
        counts, self._counts = self._counts, None  # the first refresh keeps the first counts
        summary = home_summary.with_curriculum(
            app.store,  # type: ignore[attr-defined]
            app.home_curriculum(),  # type: ignore[attr-defined]
            counts,
        )
        if not get_current_worker().is_cancelled:  # a newer refresh has started: it shows
            app.call_from_thread(self.show, summary)

    def show(self, s: HomeSummary) -> None:
        notice = getattr(self.app, "model_notice", None)
        state = notice or ("offline" if getattr(self.app, "offline", False) else "")
        self.query_one("#home-summary", Static).update(
            summary_view(s, state, self.app.current_theme.primary)
        )

    def on_menu_picked(self, event: Menu.Picked) -> None:
        self.action_choose(event.choice)

    def action_choose(self, name: str) -> None:
        app = cast("TutorApp", self.app)
        if name == "continue":
            app.start_lesson()
        elif name == "review":
            app.start_review()
        elif name == "status":
            self.refresh_summary()
        elif name == "settings":
            app.show_learner_settings()
        elif name == "quit":
            app.exit(0)

    def action_help(self) -> None:
        from tutor.app.help import HelpScreen

        self.app.push_screen(
            HelpScreen(
                "home",
                [
                    ("enter", "continue the lesson (or start the next one)"),
                    ("r", "review what is due"),
                    ("s", "refresh the status"),
                    ("p", "settings: how steps are shown to you (also in ctrl+p)"),
                    ("ctrl+p", "commands: continue, review, status, views, doctor"),
                    ("q / ctrl+q", "quit"),
                    ("?", "this help"),
                ],
            )
        )
