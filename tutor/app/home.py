"""Home: where the learner stands. The first paint shows what the store alone says (nothing for a
fresh home, whose store is created after it); one worker, started after the first paint, reads
the lessons the summary names and fills in the rest. No network, no model, no pydantic."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tutor.app.failures import ReportingScreen
from tutor.app.key_line import KeyLine
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


def bars(values: list[float], top: float | None = None) -> str:
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
        with Vertical(id="home"):
            yield Static(id="home-header", classes="title")
            yield Static(id="home-position")
            with Horizontal(id="home-panels"):
                yield Static(id="home-due", classes="panel")
                yield Static(id="home-charts", classes="panel")
            yield Static(id="home-calibration", classes="panel")
            yield OptionList(
                *[Option(f"{label:<30} {key}", id=name) for name, label, key in CHOICES],
                id="home-menu",
            )
            yield Static(id="home-last", classes="muted")
        yield KeyLine()

    def __init__(self) -> None:
        super().__init__()
        self._counts: RecordCounts | None = None  # counted for the first paint, used once more
        self._painted = False  # the app's first paint is done: resuming refreshes the summary

    def on_mount(self) -> None:
        app = self.app
        summary = app.first_summary()  # type: ignore[attr-defined]
        self._counts = summary.counts
        self.show(summary)
        self.query_one("#home-menu", OptionList).focus()

    def after_first_paint(self) -> None:
        """The curriculum and the rest of the summary, now that the first screen is shown."""
        self._painted = True
        if self.app.screen is self:
            self.refresh_summary()

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
        app.call_from_thread(self.show, summary)

    def show(self, s: HomeSummary) -> None:
        notice = getattr(self.app, "model_notice", None)
        state = notice or ("offline" if getattr(self.app, "offline", False) else "")
        head = Text.assemble(safe(s.curriculum, "bold"), *(("  ·  ", safe(state)) if state else ()))
        self.query_one("#home-header", Static).update(head)
        self.query_one("#home-position", Static).update(safe(s.position))
        counts = s.counts
        rows = [("Due now", f"{counts.due_mistakes} mistakes · {counts.due_concepts} concepts")]
        statuses = ", ".join(f"{n} {k}" for k, n in sorted(counts.concepts.items())) or "none yet"
        rows.append(("Concepts", statuses))
        if counts.mastery is not None:
            rows.append(("Mastery", f"{counts.mastery:.2f} of 0.80 (advisory)"))
        width = max(len(label) for label, _ in rows)
        due = Text("\n").join(
            Text.assemble((label.ljust(width), "bold"), " ", value) for label, value in rows
        )
        self.query_one("#home-due", Static).update(due)
        charts = Text.assemble(
            ("Mastery, last 30 days", "bold"),
            " (advisory)\n",
            bars(counts.mastery_days, 0.8),
            "\n",
            ("Due, next 14 days", "bold"),
            f" ({sum(counts.due_days)} in all)\n",
            bars([float(n) for n in counts.due_days]),
        )
        self.query_one("#home-charts", Static).update(charts)
        self.query_one("#home-calibration", Static).update(calibration_text(counts.calibration))
        self.query_one("#home-last", Static).update(
            safe(f"Last lesson: {s.last_lesson}" if s.last_lesson else "No lesson finished yet.")
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(event.option.id or "")

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
