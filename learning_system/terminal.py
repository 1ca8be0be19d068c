"""Untrusted text made inert for a terminal: no escape sequences, no control characters."""

from __future__ import annotations

import re

# An escape sequence: OSC/DCS/SOS/PM/APC strings up to their terminator (BEL or ST), CSI with
# parameters, or a two-character escape. The 8-bit forms (C1 introducers) are included.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]{0,4096}(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -/]*[0-~]?"
)
# C0 controls but tab and newline, DEL, C1 controls, bidirectional overrides, the BOM.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufeff]")


def strip_terminal(text: str) -> str:
    """`text` without escape sequences or control characters; line breaks become `\\n`."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", _ESCAPE_SEQUENCE.sub("", text))
