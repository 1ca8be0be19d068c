"""One screen for a lesson or a review: it renders the session's prompt and sends the learner's
keys to it as actions, read by `tutor.engine.parse` exactly as the line dialogue reads them.

The screen's stages follow the prompt: the Scout's sources while the lesson is prepared, the
prior, probe items (an option list, a number, a text area), results, the plan, teaching (gated
Markdown with its badges), a mistake, the lesson end. Every `act` runs in a thread worker."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from rich.table import Table as RichTable
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from learning_system.errors import LearningSystemError
from learning_system.session_lock import SessionBusy
from learning_system.store import SessionConflict
from tutor import learner
from tutor.app import prompt_table
from tutor.app.answer_box import AnswerArea, AnswerInput
from tutor.app.failures import Failure, ReportingScreen
from tutor.app.help import HelpScreen
from tutor.app.key_line import KeyLine
from tutor.app.messages import Notice, PromptReady, SessionOpened, WorkProgress
from tutor.app.teaching import Teaching, prepare
from tutor.app.text import clean, safe
from tutor.engine import parse
from tutor.engine.parse import Command, option_label
from tutor.engine.progress import Activity, Progress
from tutor.engine.turns import ERROR_TYPE_MEANING, ERROR_TYPES, Action, InvalidAction, Prompt
from tutor.engine.words import clip

if TYPE_CHECKING:
    from tutor.app.app import TutorApp
    from tutor.scout.digest import Digest

CONFIDENCE_LINE = "confidence:  s sure   h hunch   n no idea      (required)"
_KEYS = "1234abcd0xyn"  # and s, h

IN_YOUR_WORDS = "In your own words (x alone: I don't know). ctrl+s submits."
ATTRIBUTION_HINT = "optional words first (tab here): enter sends them with the kind marked"
CLAIM_HINT = "I already know … (enter notes it; the probe still checks · escape: back)"
UNVERIFIED_QUESTION = "◦ UNVERIFIED: only the program's own checks ran; no verifier confirmed it"


# in a text box q and ? are letters: these keys do there what q and ? do elsewhere
IN_A_BOX = {"q": "ctrl+q", "question_mark": "f1"}
APP_KEYS = {"p / q": "q"}  # the line dialogue's keys as the app has them


def _typed(key: str) -> bool:
    """A key a text box takes as a character (its bindings do nothing there)."""
    return len(key) == 1 or key == "question_mark"


def _teaches(prompt: Prompt) -> bool:
    return prompt.kind == "read" and prompt.stage == "teach" and bool(prompt.content)


def _key_bindings() -> list[Binding]:
    shown = {
        "1": "choose",
        "x": "I don't know",
        "s": "sure",
        "h": "hunch",
        "n": "no idea",
        "y": "yes",
    }
    no = Binding("n", "answer_no", "no")  # the same key as "no idea", shown on yes/no screens
    display = {"1": "1-4/a-d", "x": "0/x"}
    return [no] + [
        Binding(k, f"key('{k}')", shown.get(k, k), show=k in shown, key_display=display.get(k))
        for k in _KEYS + "sh"
    ]


class SessionScreen(ReportingScreen):
    BINDINGS = [
        Binding("enter", "next", "next"),
        Binding("t", "take_over", "take it over"),
        Binding("escape", "back", "back home"),
        Binding("k", "skip", "skip step"),
        Binding("ctrl+s", "submit", "submit"),
        Binding("question_mark", "help", "help"),
        Binding("f1", "help", "help"),
        Binding("q", "pause", "pause & quit"),
        Binding("ctrl+q", "pause", "pause & quit"),  # the app's; shown here while typing
        *_key_bindings(),
        Binding("i", "claim", "I know…"),
    ]

    def __init__(self, kind: str, opener: Callable[[Activity], Any] | None = None) -> None:
        """`kind` is "lesson" or "review"; `opener(activity)` opens the session (by default
        the learner's next lesson, or a review of what is due)."""
        super().__init__()
        self.kind = kind
        self.opener = opener
        self.session: Any = None
        self.prompt: Prompt | None = None
        self.pending: Action | None = None  # an answer waiting for its confidence tag
        self.busy = True
        self.scout: list[str] = []
        self.stage = "opening"  # opening, scout, prompt; failed: it could not be opened
        self.activity = Activity(self._post_progress)
        self.open_error: BaseException | None = None
        self.sending: Action | None = None  # the action the engine is saving
        self.unsaved: Action | None = None  # an action whose write failed, kept to send again
        self.stale = False  # a write failed mid-action: the session is reopened before the next
        self.typed_ahead: list[str] = []  # keys typed while busy, for the next answer box

    def _post_progress(self, progress: Progress) -> None:
        self.post_message(WorkProgress(progress))

    def _post_notice(self, line: str) -> None:
        self.post_message(Notice(line))

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield Static(id="title", classes="title")
            yield Static(id="position", classes="muted")
        yield VerticalScroll(id="body", can_focus=True)
        yield Static(id="confidence")
        yield Static(id="status", classes="muted")
        yield KeyLine()

    def on_mount(self) -> None:
        self.query_one("#title", Static).update(self._opening_title())
        self.open_session()

    def _opening_title(self) -> str:
        return "Preparing the lesson…" if self.kind == "lesson" else "Review"

    # workers ---------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, name="open")
    def open_session(self) -> None:
        session = self._open()
        if session is not None:
            self._prepare(session.prompt)
        self.post_message(SessionOpened(session))

    def _prepare(self, prompt: Prompt) -> None:
        """In the worker: what showing `prompt` would otherwise do on the event loop."""
        if _teaches(prompt):
            prepare(prompt.content, self.app.current_theme, self.app.get_css_variables())
        elif prompt.kind == "read" and prompt.table is not None:
            prompt_table.draw_ahead(prompt, self._body_widths())

    def _body_widths(self) -> tuple[int, int]:
        """The widths a widget in the body is drawn at, without and with its scroll bar (from
        the app's size: the body may not be laid out yet when a session opens)."""
        styles = self.query_one("#body", VerticalScroll).styles
        width = self.app.size.width - styles.gutter.width
        return width, width - styles.scrollbar_size_vertical

    def _open(self) -> Any:
        app: Any = self.app
        if self.opener is not None:
            return self.opener(self.activity)
        if self.kind == "review":
            from tutor.engine.runner import open_review

            return open_review(app.store, activity=self.activity, curriculum=app.load_curriculum())
        from tutor.engine.runner import open_session

        session = open_session(
            app.store,
            app.load_curriculum(),
            lesson_ref=app.lesson_ref,
            offline=app.offline,
            activity=self.activity,
            progress=self._post_notice,
            take_over=app.take_over,
        )
        app.lesson_ref = None
        app.take_over = False
        return session

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, name="send")
    def send(self, action: Action) -> None:
        if self.stale:
            # after a failed write the session may hold a half-made step: read it back from
            # the store, where the action is recorded once or not at all
            shown = self.prompt.message_id if self.prompt is not None else None
            old, self.activity = self.session, Activity(self._post_progress)
            if old is not None:
                old.close()
            self.session = self._open()
            self.stale = False
            if self.session is None or self.session.prompt.message_id != shown:
                self.post_message(SessionOpened(self.session))  # it was saved before it failed
                return
        prompt = self.session.act(action)
        self._prepare(prompt)
        self.post_message(PromptReady(prompt))

    # failures (the app's handler has shown the message) -------------------------------
    def failed(self, work: str, error: BaseException, failure: Failure) -> None:
        self.busy = False
        self.query_one("#status", Static).update("")
        if work == "open":
            self.call_later(self._open_failed, error, failure)
        elif work == "finish":
            self.query_one("#end", Static).update(
                safe(
                    f"Your answers are saved, but the lesson end could not be written "
                    f"({failure.title}: {failure.text}). It is written after your next lesson, "
                    "or by `tutor ingest`."
                )
            )
            self.query_one("#position", Static).update("lesson end · enter home · q quit")
        elif isinstance(error, InvalidAction):
            self.pending = None  # what was typed stays on the screen
            self.query_one("#confidence", Static).update("")
        elif isinstance(error, SessionConflict):  # taken over: nothing more is written here
            self.query_one("#status", Static).update(
                safe("✗ Not saved: another tutor has this lesson now · q quits", "bold")
            )
        else:  # not saved: the answer (and its confidence tag) stays, to be sent again
            self.unsaved, self.stale = self.sending, True
            self.query_one("#status", Static).update(
                safe("✗ Not saved · your answer is kept · enter saves it", "bold")
            )
        self.refresh_bindings()

    async def _open_failed(self, error: BaseException, failure: Failure) -> None:
        self.stage, self.open_error = "failed", error
        keys = "enter: try again · escape: back home · q: quit"
        if self._held_elsewhere():
            keys = (
                "t: take the lesson over here (the other tutor stops at its next answer; "
                "nothing answered is lost) · " + keys
            )
        self.query_one("#title", Static).update(safe(failure.title, "bold"))
        self.query_one("#position", Static).update("")
        await self._body(Static(safe(failure.text)), Static(safe(keys), classes="muted"))
        self.refresh_bindings()

    def _held_elsewhere(self) -> bool:
        return self.kind == "lesson" and isinstance(self.open_error, SessionBusy)

    async def _reopen(self, take_over: bool = False) -> None:
        cast("TutorApp", self.app).take_over = take_over
        self.stage, self.open_error, self.busy = "opening", None, True
        self.query_one("#title", Static).update(self._opening_title())
        await self.show_text("taking the lesson over…" if take_over else "opening it again…")
        self.refresh_bindings()
        self.open_session()

    @work(thread=True, exclusive=True, group="engine", exit_on_error=False, name="finish")
    def finish_lesson(self) -> None:
        from tutor.engine.runner import after_lesson

        app: Any = self.app
        end = after_lesson(app.store, app.load_curriculum(), self.session)
        self.app.call_from_thread(self.show_end, end.lines())

    # messages from workers -------------------------------------------------------------
    @on(WorkProgress)
    async def progress(self, event: WorkProgress) -> None:
        p = event.progress
        if p.what.startswith("sources: "):
            self.scout.append(p.what.removeprefix("sources: "))
            if self.stage == "opening":
                await self.show_scout(waiting=not p.finished)
        self.query_one("#status", Static).update(safe("⋯ " + p.line()))

    @on(Notice)
    def notice(self, event: Notice) -> None:
        if "unreachable" in event.text:
            cast("TutorApp", self.app).model_notice = "model unreachable — running offline"
        self.notify(clean(event.text), title="tutor", timeout=8)

    @on(SessionOpened)
    async def opened(self, event: SessionOpened) -> None:
        gc.freeze()  # the session's long-lived objects (a model client among them): see app
        self.session = event.session
        if self.session is None:
            await self.show_text(
                "You have finished this curriculum. Review keeps it fresh: press q, then r."
            )
            self.busy = False
            return
        self.query_one("#title", Static).update(safe(self.session.title, "bold"))
        digest = getattr(self.session, "digest", None)
        resumed = getattr(self.session, "resumed", False)
        if digest and not resumed and digest.sources:
            self.stage = "scout"
            self.busy = False
            await self.show_scout(waiting=False, digest=digest)
            return
        await self.show_prompt(self.session.prompt)

    @on(PromptReady)
    async def ready(self, event: PromptReady) -> None:
        await self.show_prompt(event.prompt)

    # rendering -------------------------------------------------------------------------
    async def _body(self, *widgets) -> None:
        body = self.query_one("#body", VerticalScroll)
        await body.remove_children()
        await body.mount_all(widgets)
        body.scroll_home(animate=False)

    async def show_text(self, text: str) -> None:
        await self._body(Static(safe(text)))

    async def show_scout(self, waiting: bool, digest: Digest | None = None) -> None:
        table = RichTable(box=None, padding=(0, 1), expand=True)
        table.add_column("source", ratio=3, overflow="fold")
        table.add_column("status", ratio=1)
        table.add_column("reason", ratio=2, overflow="fold")
        if digest:
            for s in digest.sources:
                table.add_row(
                    safe(("primary · " if s.kind == "primary" else "") + (s.title or s.url)),
                    safe(s.status),
                    safe(s.reason or ""),
                )
        else:
            for line in self.scout:
                status, _, rest = line.partition(" ")
                url, _, reason = rest.strip().partition(" — ")
                table.add_row(safe(url), safe(status), safe(reason))
        hint = (
            "fetching the lesson's sources… enter: start without waiting for the rest"
            if waiting
            else "enter: start the lesson"
        )
        self.query_one("#position", Static).update("sources")
        if digest:
            self.query_one("#status", Static).update("")
        pack = getattr(self.session, "pack_start", None) if digest else None
        await self._body(
            Static(safe("The lesson's sources", "bold")),
            Static(table),
            *(Static(safe(line), classes="muted") for line in (pack.lines if pack else [])),
            Static(safe(hint), classes="muted"),
        )
        self.refresh_bindings()

    async def show_prompt(self, prompt: Prompt) -> None:
        self.stage = "prompt"
        self.prompt = prompt
        self.pending = None
        self.busy = False
        self.query_one("#status", Static).update("")
        self.query_one("#confidence", Static).update("")
        self.query_one("#title", Static).update(safe(prompt.title, "bold"))
        self.query_one("#position", Static).update(safe(prompt.position))
        widgets: list = []
        if prompt.banner:
            widgets.append(Static(safe("⚠ " + prompt.banner), classes="banner"))
        item = prompt.item
        if item is not None and prompt.kind in ("choice", "numeric", "text"):
            widgets.append(Static(safe(item.question), classes="question"))
            if prompt.kind == "choice":
                options = [
                    Option(Text.assemble((f"{option_label(n)}  ", "bold"), safe(o)), id=str(n))
                    for n, o in enumerate(item.options)
                ]
                options.append(Option(Text.assemble(("0/x  ", "bold"), "I don't know"), id="idk"))
                widgets.append(OptionList(*options, id="options"))
                if prompt.stage == "probe":
                    widgets.append(Static("answers are revealed after the batch", classes="muted"))
            elif prompt.kind == "numeric":
                widgets.append(
                    Static(
                        "Work it on paper; enter the final number, a unit after it is fine "
                        "(x: I don't know).",
                        classes="muted",
                    )
                )
                widgets.append(AnswerInput(placeholder="the final number", id="answer"))
            else:
                widgets.append(Static(IN_YOUR_WORDS, classes="muted"))
                widgets.append(AnswerArea(id="answer", soft_wrap=True))
        elif _teaches(prompt):
            widgets.append(Teaching(prompt.content, id="teaching"))
        elif prompt.kind == "read" and prompt.table is not None:
            first = prompt.content.split("\n", 1)[0].strip().removeprefix("[").removesuffix("]")
            widgets.append(Static(safe(first, "bold")))
            widgets.append(Static(prompt_table.drawn(prompt)))
            if prompt.table.note:
                widgets.append(Static(safe(prompt.table.note), classes="muted"))
        elif prompt.content:
            widgets.append(Static(safe(prompt.content)))
        if prompt.kind == "text" and item is None:
            widgets.append(Static(IN_YOUR_WORDS, classes="muted"))
            widgets.append(AnswerArea(id="answer", soft_wrap=True))
        if prompt.kind == "yes_no":
            widgets.append(Static(Text.assemble(("y", "bold"), " yes    ", ("n", "bold"), " no")))
        if prompt.kind == "error_type":
            widgets.append(
                OptionList(
                    *[
                        Option(
                            Text.assemble((f"{n}  {name:<14}", "bold"), ERROR_TYPE_MEANING[name]),
                            id=str(n),
                        )
                        for n, name in enumerate(ERROR_TYPES, 1)
                    ],
                    id="options",
                )
            )
            widgets.append(AnswerInput(placeholder=ATTRIBUTION_HINT, id="attribution"))
        if prompt.unverified and prompt.stage != "teach":
            # questions and grades the checks could not verify (offline: the semantic quiz
            # rules; a question a model wrote): one quiet badge, not an alarm
            widgets.append(Static(UNVERIFIED_QUESTION, classes="muted"))
        elif prompt.unverified:
            widgets.append(
                Static(
                    safe(
                        f"⚠ {len(prompt.unverified)} part(s) UNVERIFIED — they could not be "
                        "verified against the sources; treat them with care."
                        + "".join(f"\n  · {clip(c, 240)}" for c in prompt.unverified_claims)
                    ),
                    classes="unverified",
                )
            )
        elif prompt.kind == "read" and prompt.stage == "teach" and not prompt.banner:
            widgets.append(Static("✓ verified against its sources", classes="verified"))
        widgets.extend(Static(safe(f"flag: {f}"), classes="flag") for f in prompt.flags)
        if prompt.sources:
            widgets.append(Static(safe("sources: " + " · ".join(prompt.sources)), classes="muted"))
        if prompt.kind == "done":
            widgets.append(Static("", id="end"))
        await self._body(*widgets)
        for listed in self.query("#options").results(OptionList):
            listed.highlighted = None  # Enter picks nothing until a key, arrow or click does
        typed, self.typed_ahead = "".join(self.typed_ahead), []
        self._offer_back(prompt)
        if typed and self.query("#answer"):
            self._type_into(self.query_one("#answer"), typed)
        self.call_after_refresh(self._focus_input)
        self.refresh_bindings()
        if prompt.kind == "done" and self.kind == "lesson":
            self.busy = True
            self.query_one("#status", Static).update("⋯ writing your records")
            self.finish_lesson()

    def _offer_back(self, prompt: Prompt) -> None:
        """An answer given at this prompt and held when the learner stopped: typed text back in
        its box; a choice or a number chosen again, waiting for its confidence tag."""
        held = getattr(self.session, "held", None)
        if held is None:
            return
        if prompt.kind == "text" and self.query("#answer"):
            self._type_into(self.query_one("#answer"), held.text)
            said = "What you typed before you stopped is back in the box: ctrl+s submits it."
        elif prompt.kind in ("choice", "numeric") and held.kind == "answer":
            self._pick(held, hold=False)
            given = held.value if prompt.kind == "numeric" else option_label(int(held.value))
            said = (
                f"Your answer from before you stopped ({given}) waits for its confidence: s, h, n."
            )
        else:
            return
        self.notify(said, title="Your answer")

    def _focus_input(self) -> None:
        if self.pending is not None:  # the confidence keys are read on the body
            return
        for selector in ("#answer", "#options", "#body"):
            found = self.query(selector)
            if found:
                found.first().focus()
                return

    def show_end(self, lines: list[str]) -> None:
        self.busy = False
        self.query_one("#status", Static).update("")
        self.query_one("#end", Static).update(safe("\n".join(lines)))
        self.query_one("#position", Static).update("lesson end · enter home · q quit")
        self.refresh_bindings()

    # keys --------------------------------------------------------------------------------
    def refresh_bindings(self) -> None:
        super().refresh_bindings()
        for line in self.query(KeyLine):
            line.show_keys()

    def typing(self) -> bool:
        """A text box has the focus: the keys that are characters go into it."""
        return isinstance(self.focused, (Input, TextArea))

    def key_shown(self, binding: Binding) -> bool:
        """Whether the footer shows `binding` now: while a text box has the focus, not the
        keys it types (q, ?, the letters) but ctrl+q and f1; elsewhere q and ?, not those."""
        if binding.key in IN_A_BOX.values():
            return self.typing()
        return not (self.typing() and _typed(binding.key))

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_descendant_blur(self) -> None:
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        p = self.prompt
        if action in ("help", "pause"):
            return True
        if action == "back" and self.query("#claim"):
            return True
        if action in ("take_over", "back"):
            return self.stage == "failed" and (action == "back" or self._held_elsewhere())
        if self.stage in ("scout", "failed"):
            return action == "next"
        if p is None or self.busy:
            return False if action in ("next", "skip", "submit", "key", "claim") else None
        if action == "next":
            return p.kind in ("read", "done") or self.unsaved is not None
        if action == "skip":
            return p.kind == "read" and p.stage == "teach"
        if action == "claim":
            return p.kind in ("read", "choice") and self.pending is None
        if action == "submit":
            return p.kind == "text"
        if action == "key":  # the footer shows the keys that mean something here
            key = str(parameters[0])
            if key in "shn":
                return self.pending is not None
            if key == "1":
                return p.kind in ("choice", "error_type")
            if key == "x":
                return p.kind == "choice"
            if key == "y":
                return p.kind == "yes_no"
        if action == "answer_no":
            return p.kind == "yes_no" and self.pending is None
        return True

    def _act(self, action: Action) -> None:
        if self.busy or self.session is None:
            return
        self.busy, self.sending, self.unsaved = True, action, None
        self.query_one("#status", Static).update("⋯ saving your answer")
        self.refresh_bindings()
        self.send(action)

    async def action_next(self) -> None:
        if self.stage == "scout":
            await self.show_prompt(self.session.prompt)
            return
        if self.stage == "opening":
            self.activity.skip_waiting()
            return
        if self.stage == "failed":
            await self._reopen()
            return
        if self.unsaved is not None:
            self._act(self.unsaved)
            return
        if self.prompt is not None and self.prompt.kind == "done" and not self.busy:
            self.dismiss()
            return
        if self.prompt is not None and self.prompt.kind == "read":
            self._act(Action(kind="next"))

    async def action_take_over(self) -> None:
        if self._held_elsewhere():
            await self._reopen(take_over=True)

    def action_back(self) -> None:
        if self.query("#claim"):
            self.query_one("#claim").remove()
            self._focus_input()
        elif self.stage == "failed":
            self.dismiss()

    async def action_claim(self) -> None:
        """A box for "I already know X", below the prompt: the engine notes the claim and the
        probe still checks it (as `i know X` in the line dialogue)."""
        if self.query("#claim"):
            self.query_one("#claim").focus()
            return
        box = AnswerInput(placeholder=CLAIM_HINT, id="claim")
        await self.query_one("#body", VerticalScroll).mount(box)
        box.focus()
        box.scroll_visible()

    def _claim(self, text: str) -> None:
        assert self.prompt is not None
        self.query_one("#claim").remove()
        if not text.strip():
            self._focus_input()
            return
        parsed = parse.parse(self.prompt, "i know " + text)
        if isinstance(parsed, Action) and parsed.kind == "claim":
            also = "" if self.prompt.kind == "read" else " The probe still checks it: answer too."
            self.notify(f"Noted: you know {parsed.text}.{also}", title="I already know")
            self._act(parsed)

    def on_key(self, event: events.Key) -> None:
        """Keys typed before the answer box has focus — while the engine works, or while the
        box mounts — go into the box instead of nowhere (q and ? still pause and help)."""
        if not event.is_printable or event.character is None or self.pending is not None:
            return
        boxes = self.query("#answer")
        if boxes and not self.busy and not boxes.first().has_focus:
            self._type_into(boxes.first(), event.character)
        elif self.busy and self.stage != "failed" and event.key not in ("q", "question_mark"):
            self.typed_ahead.append(event.character)
        else:
            return
        event.stop()
        event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        """Text pasted while no box has focus goes where typed keys go (into the box, or kept
        for it while the engine works), cleaned and whole, so it keeps its place among them."""
        boxes = self.query("#answer")
        if self.busy and self.stage != "failed":
            self.typed_ahead.append(clean(event.text))
        elif boxes and not self.busy:
            self._type_into(boxes.first(), clean(event.text))
        else:
            return
        event.stop()

    def _type_into(self, box: Any, text: str) -> None:
        if isinstance(box, TextArea):
            box.insert(text)
        else:
            box.insert_text_at_cursor(text)
        box.focus()

    def action_skip(self) -> None:
        if self.prompt is not None and self.prompt.kind == "read" and self.prompt.stage == "teach":
            self._act(Action(kind="skip"))

    def action_answer_no(self) -> None:
        self.action_key("n")

    def action_key(self, key: str) -> None:
        p = self.prompt
        if p is None or self.busy:
            return
        try:
            if self.pending is not None and key in "shn":
                self._act(parse.with_confidence(self.pending, key))
            elif p.kind == "choice":
                self._pick(parse.parse(p, key))
            elif p.kind == "yes_no" and key in "yn":
                self._act(Action(kind="yes_no", value=key))
            elif p.kind == "error_type" and key in "1234abcd":  # as the footer's 1-4/a-d says
                self._error_type(str("1234abcd".index(key) % 4 + 1))
        except InvalidAction as exc:
            self.notify(str(exc), severity="warning")

    def _pick(self, parsed: Action | Command, hold: bool = True) -> None:
        assert self.prompt is not None
        if isinstance(parsed, Command):
            return
        if parsed.kind == "answer" and parsed.value != "idk":
            options = self.query("#options")
            if options:
                options.first(OptionList).highlighted = int(parsed.value)
        if parse.wants_confidence(self.prompt, parsed):
            if hold and self.session is not None and not self.stale:
                self._hold(parsed)
            self.pending = parsed
            # the answer named in words beside the tags it waits for: not by colour alone
            given = f"your answer {parsed.value}"
            if self.prompt.kind == "choice" and parsed.value.isdigit():
                given = f"your answer {option_label(int(parsed.value))}"
            elif self.prompt.kind == "text":
                given = "your written answer"
            line = f"{given} · {CONFIDENCE_LINE}"
            self.query_one("#confidence", Static).update(safe(line, "bold"))
            self.query_one("#body", VerticalScroll).focus()
            self.refresh_bindings()
            return
        self._act(parsed)

    def _hold(self, parsed: Action) -> None:
        """An answer saved before its confidence is given; when that write fails the answer is
        still on the screen and its confidence saves it."""
        try:
            self.session.hold(parsed)
        except LearningSystemError as exc:
            cast("TutorApp", self.app).show_failure(exc)

    def _error_type(self, key: str) -> None:
        """The kind of slip, sent at once with the words in the box (which may be empty)."""
        self.query_one("#options", OptionList).highlighted = int(key) - 1
        words = parse.attribution(self.query_one("#attribution", Input).value)  # too long: refused
        self._act(Action(kind="error_type", value=key, text=words))

    @on(OptionList.OptionSelected, "#options")
    def option_chosen(self, event: OptionList.OptionSelected) -> None:
        p = self.prompt
        if p is None or self.busy:
            return
        if p.kind == "choice":
            self._pick(
                parse.parse(
                    p, "x" if event.option.id == "idk" else str(int(event.option.id or 0) + 1)
                )
            )
        elif p.kind == "error_type":
            self._error_type(event.option.id or "1")

    @on(Input.Submitted)
    def input_submitted(self, event: Input.Submitted) -> None:
        p = self.prompt
        if p is None or self.busy:
            return
        try:
            if event.input.id == "claim":
                self._claim(event.value)
                return
            if p.kind == "error_type":
                chosen = self.query_one("#options", OptionList).highlighted
                if chosen is None:
                    self.notify("choose the kind of slip: 1-4", severity="warning")
                    return
                self._error_type(str(chosen + 1))
                return
            self._pick(parse.parse(p, event.value))
        except InvalidAction as exc:
            self.notify(str(exc), severity="warning")

    def action_submit(self) -> None:
        p = self.prompt
        if p is None or p.kind != "text" or self.busy:
            return
        text = self.query_one("#answer", TextArea).text
        try:
            parsed = parse.parse(p, text)
            if isinstance(parsed, Command):  # "/p" typed as the whole answer
                self.action_pause()
                return
            self._pick(parsed)
        except InvalidAction as exc:
            self.notify(str(exc), severity="warning")

    def action_help(self) -> None:
        if self.prompt is None:
            keys = [("enter", "start without waiting for slow sources"), ("q", "quit")]
        else:
            keys = [(APP_KEYS.get(k, k), m) for k, m in parse.keys_for(self.prompt)]
            keys.append(("ctrl+q", "pause & quit from anywhere, a text box too; place saved"))
            keys.append(("f1", "this help from anywhere, a text box too"))
            if self.prompt.kind == "text":
                keys.insert(1, ("ctrl+s", "submit the text"))
            if self.prompt.kind == "choice":
                keys.insert(1, ("↑ ↓ enter", "choose with the arrows, or click"))
            if self.prompt.kind in ("read", "choice") and self.pending is None:
                keys = [k for k in keys if k[0] != "i know X"]
                keys.insert(-1, ("i", "I already know X: noted, and the probe still checks it"))
        self.app.push_screen(HelpScreen(self.prompt.title if self.prompt else "lesson", keys))

    def action_pause(self) -> None:
        cast("TutorApp", self.app).action_quit_saved()

    def stop_session(self) -> str | None:
        """Stop the engine's work, keep text typed and not yet sent, and mark the lesson paused.
        Returns what to print once the app has closed: where the learner stopped and the command
        that comes back, or why the pause could not be written (a full disk, a lesson taken
        over) — the lesson resumes from its log alike."""
        self.activity.cancel()
        if self.session is None:
            return None
        try:
            if self.session.done:
                return None
            self._hold_typed()
            self.session.pause()
            return self._where_stopped()
        except LearningSystemError as exc:
            return f"{exc.title}: {exc}"
        finally:
            self.session.close()

    def _hold_typed(self) -> None:
        """A written answer still in its box (not sent, not held yet) is saved to come back."""
        boxes, p, hold = self.query("#answer"), self.prompt, getattr(self.session, "hold", None)
        if not boxes or p is None or p.kind != "text" or hold is None:
            return
        text = getattr(boxes.first(), "text", "")
        if text.strip() and self.pending is None and not self.busy:
            hold(Action(kind="text", text=text))

    def _where_stopped(self) -> str:
        where = self.prompt.position if self.prompt is not None else "the start"
        if self.kind == "review":
            return f"Review paused at {where}. Run `tutor review` to go on."
        app: Any = self.app
        come_back = learner.resume_command(app.store, app.curriculum_root())
        return (
            f"Paused at {where}. Everything you answered is saved; "
            f"run `{come_back}` to pick up here."
        )
