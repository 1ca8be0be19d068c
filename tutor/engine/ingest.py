"""Moved to `learning_system.outcome` (shared by the engine and the Clerk); kept so older
imports keep working."""

from learning_system.outcome import IngestConcept, PendingIngest, TaughtStep

__all__ = ["IngestConcept", "PendingIngest", "TaughtStep"]
