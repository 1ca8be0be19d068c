"""Study packets: deterministic, provenance-carrying packets compiled from the curriculum graph.

`compile_packet(request, curriculum, store=None, ...)` runs the nine stages of `STAGES` and
returns a `PacketResult`; the same request over the same curriculum (and ledger) gives a
byte-identical packet except `created_at`. No UI, no model client: a model-backed expansion is
handed in by the application as an `Expander`."""

from learning_system.packets.errors import (
    LearningCapabilityError,
    PacketError,
    PacketValidationError,
    RequestError,
)
from learning_system.packets.exporters import EXPORTERS
from learning_system.packets.graph import CurriculumGraph, build_graph, resolve_topic
from learning_system.packets.model import MODES, SCHEMA, Packet, PacketWarning
from learning_system.packets.pipeline import (
    STAGES,
    Expander,
    Exporter,
    PacketResult,
    compile_packet,
    invariants,
    packet_json,
    validate_packet,
)
from learning_system.packets.request import (
    CANONICAL_FIELDS,
    LearningRequest,
    normalize_request,
    request_hash,
)

__all__ = [
    "CANONICAL_FIELDS",
    "EXPORTERS",
    "MODES",
    "SCHEMA",
    "STAGES",
    "CurriculumGraph",
    "Expander",
    "Exporter",
    "LearningCapabilityError",
    "LearningRequest",
    "Packet",
    "PacketError",
    "PacketResult",
    "PacketValidationError",
    "PacketWarning",
    "RequestError",
    "build_graph",
    "compile_packet",
    "invariants",
    "normalize_request",
    "packet_json",
    "request_hash",
    "resolve_topic",
    "validate_packet",
]
