"""The hard errors of the packet compiler. Soft problems are `PacketWarning`s and never abort."""

from __future__ import annotations

from learning_system.errors import LearningSystemError
from learning_system.terminal import strip_terminal


class PacketError(LearningSystemError):
    """A study packet cannot be compiled; the message says why and what to do. The message may
    quote a request or a file, so it is stripped of terminal escapes and kept on one line."""

    title = "Cannot compile the study packet"

    def __init__(self, message: str = "") -> None:
        super().__init__(" ".join(strip_terminal(str(message)).split()))
        self.stage_log: list[str] = []  # the stages that ran before it (compile_packet sets it)


class RequestError(PacketError, ValueError):
    """A learning request is not usable as given (a required field missing, a wrong type)."""


class PacketValidationError(PacketError):
    """A cross-field invariant of the packet broke at assembly: a bug, never the learner's."""


class LearningCapabilityError(PacketError):
    """A capability the request needs is not available: an unknown mode, a topic the graph
    cannot resolve, a missing or incompatible domain or source pack."""
