"""Errors that reach the learner as a one-line message, never a traceback."""


class TutorError(Exception):
    """A problem the learner can act on. The message says what to do."""

    exit_code = 2
