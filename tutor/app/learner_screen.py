"""The learner's settings (`[learner]` in settings.toml): presentations to include, density, the
app's theme and how the tutor is operated. Saved at once; they shape steps not yet shown, and the
theme shows at once (no colour, from the next start)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tutor.app.text import safe
from tutor.engine.projection import PRESENTATIONS

DENSITY = {
    1: "the essentials",
    2: "the whole section",
    3: "all of it, drafts in full",
}
FLAGS = (("s", "screen_reader"), ("n", "no_colour"), ("m", "reduced_motion"))


class LearnerScreen(ModalScreen[None]):
    BINDINGS = [
        *(Binding(str(n), f"present({n - 1})", show=False) for n in range(1, 6)),
        Binding("d", "density", "density", show=False),
        Binding("t", "theme", "theme", show=False),
        *(Binding(key, f"flag('{name}')", show=False) for key, name in FLAGS),
        Binding("enter,w", "save", "save", show=True),
        Binding("escape,q", "close", "close", show=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        from tutor.learner_settings import load_learner

        self.settings = load_learner()
        self.theme_before = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="help"):
            yield Static(safe("Your settings · how steps are shown", "bold"), classes="title")
            yield Static(id="learner-state")
            yield Static(
                "1-5 include a presentation · d density · t theme · s screen reader · "
                "n no colour · m reduced motion · enter save · esc close\nThey change how steps "
                "not yet shown are presented, never what they teach.",
                classes="muted",
            )

    def on_mount(self) -> None:
        self.theme_before = self.app.theme
        self._show()

    def _show(self) -> None:
        s = self.settings
        lines = [
            f"{n}  [{'x' if p in s.presentations else ' '}] {p}"
            + ("  (the section's text is shown either way)" if p == "prose" else "")
            for n, p in enumerate(PRESENTATIONS, 1)
        ]
        lines.append(f"d  density {s.density} of 3 · {DENSITY[s.density]}")
        lines.append(f"t  theme {s.theme}")
        lines += [f"{key}  [{'x' if getattr(s, name) else ' '}] {name}" for key, name in FLAGS]
        self.query_one("#learner-state", Static).update(safe("\n".join(lines)))

    def action_present(self, index: int) -> None:
        chosen = list(self.settings.presentations)
        p = PRESENTATIONS[index]
        chosen = [c for c in chosen if c != p] if p in chosen else [*chosen, p]
        self.settings = self.settings.model_copy(update={"presentations": chosen})
        self._show()

    def action_density(self) -> None:
        self.settings = self.settings.model_copy(update={"density": self.settings.density % 3 + 1})
        self._show()

    def action_theme(self) -> None:
        from tutor.app.look import THEMES

        names = list(THEMES)
        chosen = names[(names.index(self.settings.theme) + 1) % len(names)]
        self.settings = self.settings.model_copy(update={"theme": chosen})
        self.app.theme = THEMES[chosen]  # seen at once; escape puts the old one back
        self._show()

    def action_flag(self, name: str) -> None:
        self.settings = self.settings.model_copy(update={name: not getattr(self.settings, name)})
        self._show()

    def action_save(self) -> None:
        from tutor.learner_settings import save_learner

        save_learner(self.settings)
        self.notify("Saved: steps not yet shown follow them.", title="Settings")
        self.dismiss()

    def action_close(self) -> None:
        self.app.theme = self.theme_before
        self.dismiss()
