"""A number as a learner writes it, read one way for parsing, checking and grading.

`2,0` and `18,02` use a decimal comma; `1,234` and `12,345,678` group thousands (English
convention, so `1,234` is 1234); `1.204 x 10^24`, `6.022×10²³` and `1.204*10**24` are
scientific notation; `3/4` is a fraction of whole numbers; `75%` reads as 75 and as 0.75."""

from __future__ import annotations

import math
import re

_PLAIN = re.compile(r"[+-]?(\d+(?:,\d+)*(?:\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_TIMES_TEN = re.compile(
    r"(?:(?P<mantissa>.+?)[x×*·])?10"
    r"(?:(?:\^|\*\*)(?P<power>[+-]?\d+)|(?P<sup>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))",
    re.I,
)
_FRACTION = re.compile(r"([+-]?\d+)/(\d+)")
# the word after a number that makes it a percent: both readings are offered to the key
PERCENT = frozenset({"%", "percent", "pc"})


def _plain(text: str) -> float | None:
    """A number without a multiplier: commas group thousands only in 3-digit groups after a
    first group of 1-3 digits (not starting with 0); one comma before 1-2 or 4+ digits, or
    after a lone 0, with no dot, is a decimal comma; any other comma is refused."""
    m = _PLAIN.fullmatch(text)
    if m is None:
        return None
    whole = m.group(1).split(".")[0]
    groups = whole.split(",")
    if len(groups) > 1:
        grouped = (
            1 <= len(groups[0]) <= 3
            and groups[0][0] != "0"
            and all(len(g) == 3 for g in groups[1:])
        )
        if grouped:
            text = text.replace(",", "")
        elif len(groups) == 2 and "." not in m.group(1):
            text = text.replace(",", ".")
        else:
            return None
    value = float(text)
    return value if math.isfinite(value) else None


def _scientific(text: str) -> float | None:
    m = _TIMES_TEN.fullmatch(text)
    if m is None:
        return None
    power = m.group("power") or m.group("sup").translate(_SUPERSCRIPT)
    mantissa = _plain(m.group("mantissa")) if m.group("mantissa") else 1.0
    if mantissa is None:
        return None
    digits, _, exponent = repr(mantissa).partition("e")
    value = float(f"{digits}e{int(exponent or 0) + int(power)}")
    return value if math.isfinite(value) else None


def value(text: str) -> float | None:
    """The number `text` (without spaces, unit or percent sign) is, or None."""
    if fraction := _FRACTION.fullmatch(text):
        top, bottom = int(fraction.group(1)), int(fraction.group(2))
        return top / bottom if bottom else None
    return _scientific(text) if _TIMES_TEN.fullmatch(text) else _plain(text)


def readings(answer: str) -> tuple[float, ...]:
    """What a numeric answer as recorded (`2,0`, `1.204x10^24`, `75%`) may mean: one value, a
    percent's two (75 and 0.75), or none when it is not a number."""
    text = answer.replace(" ", "")
    percent = text.endswith("%")
    number = value(text.removesuffix("%"))
    if number is None:
        return ()
    return (number, number / 100) if percent else (number,)
