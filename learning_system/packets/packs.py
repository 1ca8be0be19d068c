"""Domain and source packs: YAML descriptors (`domain_pack.yaml`, `source_pack.yaml`, or a folder
holding one) recorded in a packet's provenance. A descriptor is data: it is read with a safe
YAML loader, checked against a closed set of keys, and never imported or run as code."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from learning_system.packets.errors import LearningCapabilityError
from learning_system.packets.model import PLUGIN_API, PackRecord
from learning_system.terminal import strip_terminal

PackKind = Literal["domain", "source"]
FILE_NAMES = {"domain": "domain_pack.yaml", "source": "source_pack.yaml"}


class PackDescriptor(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    version: str = "0"
    plugin_api: str = PLUGIN_API
    kind: PackKind | None = None
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


def descriptor_file(path: Path | str, kind: PackKind) -> Path:
    """The descriptor a path names: the file itself, or `<kind>_pack.yaml` in a folder."""
    given = Path(path).expanduser()
    if given.is_dir():
        inside = given / FILE_NAMES[kind]
        if inside.is_file():
            return inside
        alt = given / FILE_NAMES[kind].replace(".yaml", ".yml")
        if alt.is_file():
            return alt
        raise LearningCapabilityError(
            f"the {kind} pack folder '{path}' holds no {FILE_NAMES[kind]}"
        )
    if not given.is_file():
        raise LearningCapabilityError(
            f"the {kind} pack '{path}' does not exist; give a "
            f"{FILE_NAMES[kind]} or a folder holding one"
        )
    return given


def load_pack(path: Path | str, kind: PackKind) -> PackRecord:
    """Read and check one pack descriptor. Raises LearningCapabilityError when it is missing,
    unreadable, not a descriptor, or made for another plugin API."""
    import yaml

    file = descriptor_file(path, kind)
    try:
        raw = file.read_bytes()
        data = yaml.safe_load(raw.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        reason = " ".join(strip_terminal(str(exc)).split())[:200]
        raise LearningCapabilityError(f"cannot read the {kind} pack '{file}': {reason}") from None
    if not isinstance(data, dict):
        raise LearningCapabilityError(f"the {kind} pack '{file}' is not a YAML mapping")
    try:
        descriptor = PackDescriptor.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise LearningCapabilityError(
            f"the {kind} pack '{file}' is not a pack descriptor: {where}: {first['msg']}"
        ) from None
    if descriptor.kind is not None and descriptor.kind != kind:
        raise LearningCapabilityError(
            f"'{file}' describes a {descriptor.kind} pack, not a {kind} pack"
        )
    if descriptor.plugin_api.split(".")[0] != PLUGIN_API:
        raise LearningCapabilityError(
            f"the {kind} pack '{descriptor.name}' needs plugin API {descriptor.plugin_api}; "
            f"this compiler offers {PLUGIN_API}"
        )
    return PackRecord(
        kind=kind,
        name=strip_terminal(descriptor.name),
        version=descriptor.version,
        plugin_api=descriptor.plugin_api,
        file=file.name,
        sha256=hashlib.sha256(raw).hexdigest(),
        description=strip_terminal(descriptor.description),
        tags=sorted({strip_terminal(t).strip().lower() for t in descriptor.tags if t.strip()}),
        sources=[strip_terminal(s) for s in descriptor.sources],
    )
