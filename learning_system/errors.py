"""Errors of the learning system that reach the learner as a one-line message."""


class LearningSystemError(Exception):
    """Bad input the learner can act on (a curriculum path, a store file); the message says
    what to do."""

    exit_code = 2
