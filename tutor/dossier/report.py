"""What `tutor dossier` prints: a progress line per built lesson and the status table, both
within 80 columns."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tutor.dossier.build import BuildResult
from tutor.dossier.status import LessonPack

WIDTH = 80
STATES = ("ready", "review_required", "failed", "stale")
BAR = 20
OFFLINE = (
    "no model is configured, so no knowledge pack is built; lessons teach from their digest "
    "(set TUTOR_BASE_URL or an API key, see `tutor doctor`)"
)


def _fit(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def progress_line(done: int, total: int, result: BuildResult) -> str:
    filled = BAR * done // max(total, 1)
    bar = "#" * filled + "-" * (BAR - filled)
    tokens = result.tokens_in + result.tokens_out
    line = (
        f"[{bar}] {done}/{total} {result.lesson_id} {result.state} "
        f"({tokens:,} tokens, {result.seconds:.1f} s)"
    )
    return _fit(line) + "".join(f"\n{_fit('  ' + why)}" for why in _why(result))


def _why(result: BuildResult) -> list[str]:
    """Why a build did not end ready, in a line: its error, or its first problem (and how many
    more `tutor dossier status` lists)."""
    from tutor.output import clean_text

    if result.error:
        return [" ".join(clean_text(result.error).split())]
    if result.state == "review_required" and result.problems:
        more = len(result.problems) - 1
        extra = f" (and {more} more: `tutor dossier status`)" if more else ""
        return [" ".join(clean_text(result.problems[0]).split()) + extra]
    return []


def summary_line(results: list[BuildResult]) -> str:
    counts = {s: sum(r.state == s for r in results) for s in STATES}
    shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    return f"{len(results)} lesson{'s' * (len(results) != 1)}: {shown or 'nothing built'}"


def age(built_at: str | None, now: datetime | None = None) -> str:
    if built_at is None:
        return "-"
    seconds = ((now or datetime.now(UTC)) - datetime.fromisoformat(built_at)).total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{max(int(seconds), 0)}s"


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def status_table(rows: list[tuple[LessonPack, str]], now: datetime | None = None) -> str:
    """One line per lesson (its pack state, gaps needing review, tokens, age, title), then the
    problems of each lesson whose pack needs review, and failures' errors."""
    lines = [f"{'LESSON':<8} {'STATE':<15} {'GAPS':>4} {'TOKENS':>7} {'AGE':>4}  TITLE"]
    for pack, title in rows:
        gaps = str(len(pack.problems)) if pack.state == "review_required" else "-"
        tokens = _tokens(pack.tokens) if pack.built_at else "-"
        state = "not built" if pack.state == "none" else pack.state
        lines.append(
            _fit(
                f"{pack.lesson_id:<8} {state:<15} {gaps:>4} {tokens:>7} "
                f"{age(pack.built_at, now):>4}  {title}"
            )
        )
    for pack, _ in rows:
        if pack.state == "review_required":
            lines += ["", f"{pack.lesson_id} needs review:"]
            lines += [_fit(f"  - {p}") for p in pack.problems]
        elif pack.state == "failed" and pack.error:
            lines += ["", _fit(f"{pack.lesson_id} failed: {pack.error}")]
    return "\n".join(lines)


GAPS_SHOWN = 5  # blocking gaps the sources screen lists
BUILDING = "building it in the background for your next session"
BUILD_IT = "`tutor dossier build` builds it"


def pack_lines(pack: LessonPack, notice: str | None = None, later: str = "") -> list[str]:
    """What the app's sources screen says of the lesson's pack: its state (with `later`: what
    will make it, when it is not ready) and, when it needs review, its blocking gaps only (the
    other problems are counted, `tutor dossier status` has them all); then the lesson's notice,
    if any."""
    state = "not built" if pack.state == "none" else pack.state
    said = [notice] if notice else []
    if pack.state == "none" and said:
        return said
    if pack.state != "review_required":
        return [f"knowledge pack: {state}" + (f" ({later})" if later else ""), *said]
    gaps = [p for p in pack.problems if p.startswith("gap: ")]
    rest = len(pack.problems) - len(gaps)
    head = f"knowledge pack: review_required — {len(gaps)} blocking gap{'s' * (len(gaps) != 1)}"
    head += f" and {rest} other problem{'s' * (rest != 1)}" if rest else ""
    lines = [head + "; taught from the digest", *(_short_gap(g) for g in gaps[:GAPS_SHOWN])]
    if len(gaps) > GAPS_SHOWN:
        lines.append(f"  … and {len(gaps) - GAPS_SHOWN} more: `tutor dossier status`")
    return lines + said


_GAP = re.compile(r"gap: unit (\S+) \((\S+) lines (\d+)-(\d+), (.+)\) is covered by no atom")


def _short_gap(problem: str) -> str:
    """A gap as one short line: its section, lines and unit (the file is the lesson's)."""
    found = _GAP.fullmatch(problem)
    if found is None:
        return f"  {problem}"
    unit, path, start, end, section = found.groups()
    lines = f"line {start}" if start == end else f"lines {start}-{end}"
    return f"  gap: {section} ({lines} of {path.rsplit('/', 1)[-1]}, {unit})"
