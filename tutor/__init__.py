"""tutor: a keyboard-driven terminal tutor whose every claim, quiz and grade passes a gate."""

__version__ = "0.1.0"
