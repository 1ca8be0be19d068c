"""The model layer: one Provider protocol, an OpenAI-compatible provider, an offline provider.

Nothing heavy is imported here; the `openai` SDK is imported only when a real provider first
makes a call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tutor.llm.provider import FAILURE_KINDS, ModelFailure, Provider

if TYPE_CHECKING:
    from tutor.llm.recorder import CallRecorder
    from tutor.llm.settings import ModelSettings

__all__ = ["FAILURE_KINDS", "ModelFailure", "Provider", "make_provider"]


def make_provider(
    settings: ModelSettings | None = None, recorder: CallRecorder | None = None
) -> Provider:
    """The provider the settings call for: offline when neither base_url nor a key is set. Its
    `verifier` is a separate provider when TUTOR_VERIFIER_* or `[verifier]` name another
    model."""
    from tutor.llm.settings import load_settings

    settings = settings or load_settings()
    if settings.offline:
        from tutor.llm.offline_provider import OfflineProvider

        return OfflineProvider(recorder)
    from tutor.llm.openai_provider import OpenAIProvider
    from tutor.llm.settings import load_verifier_settings

    provider = OpenAIProvider(settings, recorder)
    verifier = load_verifier_settings(settings)
    if verifier is not settings:  # a separate model verifies (TUTOR_VERIFIER_*, [verifier])
        provider.verifier = OpenAIProvider(verifier, recorder)
    return provider
