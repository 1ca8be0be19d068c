"""The plain front end: the tutor as a numbered line-mode dialogue on stdin/stdout, for screen
readers, dumb terminals and scripts. End of input pauses; everything answered is already saved.

It renders a prompt's data with its own key hints (`1/a  …`, `0/x  I don't know`) and reads
lines through `tutor.engine.parse`, the same reading the app uses."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TextIO

from learning_system.terminal import strip_terminal
from learning_system.text import has_surrogates, valid_text
from tutor.engine import parse
from tutor.engine.parse import Command, option_label
from tutor.engine.progress import Progress
from tutor.engine.protocol import TutorSession
from tutor.engine.turns import ERROR_TYPE_MEANING, ERROR_TYPES, Action, InvalidAction, Prompt
from tutor.engine.words import clip

WAIT_SAID = 1.0  # seconds of waiting on work begun earlier before it is said


class Paused(Exception):
    """The learner paused (or input ended, or a signal ended the dialogue: `exit_code` is then
    the shell's 128 + the signal's number)."""

    def __init__(self, exit_code: int = 0) -> None:
        super().__init__(exit_code)
        self.exit_code = exit_code


class _Signalled(BaseException):
    """A signal arrived: raised wherever the main thread is (in a model wait, say), so that no
    `except Exception` on the way holds it back, as KeyboardInterrupt is; `drive` makes it a
    pause."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.exit_code = 128 + number


@contextmanager
def signals_pause() -> Iterator[None]:
    """While the dialogue runs, ctrl+c, SIGTERM (`kill`, a shutdown) and SIGHUP (the terminal
    closed) pause it as `p` does, so the session is paused and its resume command said. Only on
    the main thread, where signals can be caught."""
    import signal

    def stop(number: int, _frame: object) -> None:
        raise _Signalled(number)

    names = ("SIGINT", "SIGTERM", "SIGHUP")
    numbers = [n for n in (getattr(signal, name, None) for name in names) if n is not None]
    try:
        before = {n: signal.signal(n, stop) for n in numbers}
    except ValueError:  # not the main thread
        before = {}
    try:
        yield
    except _Signalled as signalled:
        raise Paused(signalled.exit_code) from None
    finally:
        for n, handler in before.items():
            signal.signal(n, handler)


def render_markdown(text: str, width: int) -> str:
    """Markdown as plain text for a terminal: wrapped at words, code blocks kept with their
    indentation, headings marked `##`, a diagram block (```mermaid and the like) labelled as a
    diagram shown as its source, no colour or escape codes (Rich, without a terminal)."""
    import io

    from rich.console import Console
    from rich.markdown import CodeBlock, Heading, Markdown
    from rich.text import Text

    from tutor.engine.section_blocks import DIAGRAM_LANGS

    class _Heading(Heading):
        def __rich_console__(self, console, options):
            yield Text("#" * int(self.tag[1:]) + " ") + self.text

    class _CodeBlock(CodeBlock):
        def __rich_console__(self, console, options):
            kind = self.lexer_name.lower()
            if kind not in DIAGRAM_LANGS:
                yield from super().__rich_console__(console, options)
                return
            self.lexer_name = "text"
            yield Text(f"[diagram ({kind}), shown as its source:]")
            yield from super().__rich_console__(console, options)
            yield Text("[end of diagram]")

    class _Markdown(Markdown):
        elements = {
            **Markdown.elements,
            "heading_open": _Heading,
            "fence": _CodeBlock,
            "code_block": _CodeBlock,
        }

    buf = io.StringIO()
    console = Console(
        file=buf,
        width=width,
        color_system=None,
        force_terminal=False,
        no_color=True,
        highlight=False,
        emoji=False,
        markup=False,
    )
    console.print(_Markdown(strip_terminal(text), hyperlinks=False))
    return "\n".join(line.rstrip() for line in buf.getvalue().strip("\n").split("\n"))


def wrap_lines(text: str, width: int) -> str:
    """Each line longer than `width` wrapped at words, its continuation indented under it;
    shorter lines (tables, lists) as they are."""
    import textwrap

    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        lead = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(
            line,
            width,
            initial_indent="",
            subsequent_indent=lead + "  ",
            break_long_words=False,
            break_on_hyphens=False,
        ) or [line]
    return "\n".join(out)


def _width() -> int:
    import shutil

    return max(40, min(100, shutil.get_terminal_size((80, 24)).columns - 1))


def fit(text: str, stream: TextIO) -> str:
    """A text as it is written to `stream`: terminal escape sequences removed, never
    interpreted, and lines wider than the terminal (or $COLUMNS) wrapped at words, never cut
    mid-word — left whole on a pipe with no $COLUMNS, where a script reads each line whole."""
    import os

    text = valid_text(strip_terminal(text))
    wrapped = os.environ.get("COLUMNS") or _isatty(stream)
    return wrap_lines(text, _width()) if wrapped else text


class PlainIO:
    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.count = 0
        self._waiting = False  # the learner waits on the engine (not typing)
        self._told: set[str] = set()
        self._doing: str | None = None  # the engine's latest unfinished work
        # line editing and history when a person types at a terminal
        self.editing = (
            self.stdin is sys.stdin
            and self.stdout is sys.stdout
            and _isatty(self.stdin)
            and _isatty(self.stdout)
        )
        if self.editing:
            try:
                import readline  # noqa: F401  (input() gains editing and history)
            except ImportError:
                self.editing = False

    def progress(self, event: Progress) -> None:
        """What the engine is doing (a model draft, a verification), said once on stderr while
        the learner waits on it (work begun before the wait is said after WAIT_SAID seconds
        of it), never while they type. Called from any thread."""
        line = event.line()
        self._doing = None if event.finished else line
        if self._waiting and self._doing:
            self._tell(self._doing)

    def _tell(self, line: str) -> None:
        if line not in self._told:
            self._told.add(line)
            print(fit(f"  ⋯ {line}", sys.stderr), file=sys.stderr, flush=True)

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """The learner waits on the engine: its progress is said (`progress`)."""
        import threading

        def still_waiting() -> None:
            if self._waiting and (doing := self._doing):
                self._tell(doing)

        self._waiting, self._told = True, set()
        timer = threading.Timer(WAIT_SAID, still_waiting)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            self._waiting = False
            timer.cancel()

    def say(self, text: str = "") -> None:
        """Print a line. Curriculum text, fetched excerpts and the learner's own words all pass
        through here (`fit`)."""
        self.stdout.write(fit(text, self.stdout) + "\n")
        self.stdout.flush()

    def ask(self, label: str) -> str:
        """One line of input (with line editing and history at a terminal); end of input
        pauses."""
        if self.editing:
            try:
                return input(label)
            except EOFError:
                self.say()
                raise Paused from None
        self.stdout.write(label)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.say()
            raise Paused
        text = line.rstrip("\n")
        if has_surrogates(text):  # bytes that are not UTF-8: kept as U+FFFD, and said so
            text = valid_text(text)
            self.say("  (some of what you typed was not valid UTF-8; it is kept as \ufffd)")
        return text

    def show(self, prompt: Prompt) -> None:
        self.count += 1
        self.say()
        self.say(
            f"[{self.count}] {prompt.title}"
            + (
                f"  ({prompt.position})"
                if prompt.position
                and prompt.position.split(" · ")[-1].lower() not in prompt.title.lower()
                else ""
            )
        )
        if prompt.banner:
            self.say(f"!! {prompt.banner}")
        item = prompt.item
        if item is not None and prompt.kind in ("choice", "numeric", "text"):
            self.say(item.question)
            for n, option in enumerate(item.options):
                self.say(f"  {option_label(n)}  {option}")
            if item.type == "mcq":
                self.say("  0/x  I don't know")
            elif item.type == "numeric":
                self.say(
                    "  Work it on paper; reply with the final number, a unit after it is fine "
                    "(x: I don't know)."
                )
            else:
                self.say("  Answer in your own words (x: I don't know).")
        elif prompt.content and prompt.stage == "teach" and prompt.kind == "read":
            self.say(render_markdown(prompt.content, _width()))
        elif prompt.content:
            self.say(prompt.content)
        if prompt.kind == "error_type":
            for n, name in enumerate(ERROR_TYPES, 1):
                self.say(f"  {n} {name:<14} {ERROR_TYPE_MEANING[name]}")
        notes = [f"!! flag: {flag}" for flag in prompt.flags]
        if prompt.unverified:
            notes.insert(
                0,
                f"!! UNVERIFIED: {len(prompt.unverified)} part(s) of this screen could not be "
                "verified (no verifier ran or it failed, the program's own checks could not find "
                "them in the sources, or the grade is your own); treat them with care.",
            )
            notes[1:1] = [f"!!   unverified: {clip(c, 240)}" for c in prompt.unverified_claims]
        if prompt.sources:
            notes.insert(0, "sources: " + " · ".join(prompt.sources))
        for note in notes:
            self.say(note)

    def help(self, prompt: Prompt) -> None:
        self.say("Keys on this screen")
        for key, meaning in parse.keys_for(prompt):
            self.say(f"  {key:<12} {meaning}")
        if prompt.kind == "text":
            self.say("  /p           pause (a bare p here is an answer)")


def _label(prompt: Prompt) -> str:
    if prompt.kind == "read":
        return (
            "enter next · k skip · p pause · ? help > "
            if prompt.stage == "teach"
            else "enter next · p pause · ? help > "
        )
    if prompt.kind in ("choice", "numeric"):
        return "answer > "
    if prompt.kind == "text":
        return "your answer (x: I don't know · /p pause) > "
    if prompt.kind == "yes_no":
        return "y / n > "
    if prompt.kind == "error_type":
        return "1-4 > "
    return "> "


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _held_words(prompt: Prompt, held: Action) -> str:
    """A held answer as the learner gave it: the text, the option (number and words), the
    number."""
    if held.kind == "text":
        return held.text
    options = prompt.item.options if prompt.item is not None else []
    if held.value.isdigit() and int(held.value) < len(options):
        return f"{int(held.value) + 1}. {options[int(held.value)]}"
    return held.value


def read_action(
    io: PlainIO,
    prompt: Prompt,
    hold: Callable[[Action], None] | None = None,
    held: Action | None = None,
) -> Action:
    """Ask until the learner gives an action that fits this prompt. Raises Paused.

    Typed text that still needs its confidence tag is handed to `hold` (saved at once) before
    the tag is asked for; `held` is such text saved before a pause, offered back first."""
    while True:
        try:
            if held is not None:
                io.say(f"Your answer, saved before the pause: {_held_words(prompt, held)}")
                raw = io.ask("confidence for it (s sure, h hunch, n no idea), or a new answer > ")
                parsed = (
                    parse.with_confidence(held, raw)
                    if parse.confidence_of(raw)
                    else parse.parse(prompt, raw)
                )
                held = None
            else:
                parsed = parse.parse(prompt, io.ask(_label(prompt)))
            if isinstance(parsed, Command):
                if parsed.kind == "pause":
                    raise Paused
                io.help(prompt)
                continue
            if hold is not None and parse.wants_confidence(prompt, parsed):
                hold(parsed)  # the answer is in the store before the tag is asked for
            while parse.wants_confidence(prompt, parsed):
                tag = io.ask("confidence (s sure, h hunch, n no idea · p pause): ")
                if tag.strip().lower() in parse.PAUSE_WORDS | parse.SLASH_PAUSE:
                    raise Paused  # the answer is held already: offered back on resume
                try:
                    parsed = parse.with_confidence(parsed, tag)
                except InvalidAction as exc:
                    io.say(f"  {exc}")
            while parsed.kind == "error_type" and not parsed.text:
                try:
                    parsed = parsed.model_copy(
                        update={
                            "text": parse.attribution(io.ask("in your words, what happened? > "))
                        }
                    )
                except InvalidAction as exc:
                    io.say(f"  {exc}")
            if parsed.kind == "claim":  # said at every screen, the prior's too
                also = ": answer the question too" if prompt.kind != "read" else ""
                io.say(f"  Noted. The probe still checks it{also}.")
            return parsed
        except InvalidAction as exc:
            io.say(f"  {exc}")


def drive(io: PlainIO, session: TutorSession) -> Prompt:
    """Show prompts and feed the learner's actions until the session is done. Raises Paused
    (on a signal too: `signals_pause`)."""
    with signals_pause():
        try:
            return _drive(io, session)
        except _Signalled:  # it may have cut a line short: what follows starts afresh
            with suppress(OSError):
                io.say()
            raise


def _drive(io: PlainIO, session: TutorSession) -> Prompt:
    prompt = session.prompt
    while True:
        io.show(prompt)
        if prompt.kind == "done":
            return prompt
        hold = getattr(session, "hold", None)
        held = getattr(session, "held", None)
        while True:
            action = read_action(io, prompt, hold, held)
            held = None
            try:
                with io.waiting():
                    prompt = session.act(action)
                break
            except InvalidAction as exc:
                io.say(f"  {exc}")
