"""The one root of every error that reaches the learner as a message, never a traceback."""


class LearningSystemError(Exception):
    """Bad input or a state the learner can act on; the message says what to do. `title` names
    the kind of problem (a front end shows it as the heading of the message)."""

    exit_code = 2
    title = "Problem"
