"""The Scout: a lesson's sources gathered into a deterministic digest (SPEC §3)."""

from tutor.scout.digest import Digest, OutlineItem, Prereq, SourceEntry
from tutor.scout.scout import prepare, prepare_sync, primary_text

__all__ = [
    "Digest",
    "OutlineItem",
    "Prereq",
    "SourceEntry",
    "prepare",
    "prepare_sync",
    "primary_text",
]
