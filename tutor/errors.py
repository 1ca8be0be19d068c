"""Errors of the tutor application. They share the learning system's root, so each front end
handles every learner-facing error in one place."""

from learning_system.errors import LearningSystemError


class TutorError(LearningSystemError):
    """A problem the learner can act on. The message says what to do."""

    title = "Cannot continue"


class Cancelled(TutorError):
    """The learner quit while the engine was working; what was answered is saved."""

    title = "Stopped"
