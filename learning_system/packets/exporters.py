"""Exporters: pure functions from a packet to files. The same packet gives byte-equal files;
only the bundle's YAML copy of the packet carries `created_at`.

- `markdown`: `lesson.md`
- `bundle`: `bundle/` with `packet.yaml`, `manifest.json`, `lesson.md`, `concept_map.json`,
  `provenance.json`, `warnings.json`, and the folders `exports/` and `assets/`
- `html`: `packet.html`, one self-contained page that loads nothing from the network
- `notebook`: `notebook.ipynb`, a Jupyter notebook of the code links

Text from the learner's ledger is escaped as markdown text; curriculum section text is the
curriculum's own markdown, with terminal escapes already stripped when the graph was read."""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from learning_system.packets.model import (
    CodeLinkView,
    ConceptMap,
    ConceptMapEdge,
    ConceptMapNode,
    Packet,
    Provenance,
)
from learning_system.views import md_code, md_document, md_inline, md_text

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

NOTEBOOK_LANGUAGES = frozenset({"python", "py", "python3", "ipython", "pycon"})


def _json(data: Any) -> bytes:
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def _where(prov: Provenance) -> str:
    if prov.line_start is None:
        return prov.source_path
    if prov.line_end in (None, prov.line_start):
        return f"{prov.source_path}:{prov.line_start}"
    return f"{prov.source_path}:{prov.line_start}-{prov.line_end}"


def _titles(packet: Packet) -> dict[str, str]:
    return {n.id: f"{n.lesson_id} {n.title}" for n in packet.body.nodes}


# markdown ---------------------------------------------------------------------------------------
def render_markdown(packet: Packet) -> str:
    body = packet.body
    req = packet.request.canonical
    names = _titles(packet)
    out: list[str] = [
        f"# Study packet: {md_inline(req.topic)}",
        "",
        f"Goal: {md_inline(req.goal)}",
        "",
        f"Packet `{packet.packet_id}` · mode {body.mode} · for {md_inline(req.audience)} at "
        f"{md_inline(req.depth)} depth · curriculum {md_inline(packet.source.curriculum)} · "
        f"graph `{packet.source.graph_hash[:16]}`",
        "",
        "## Reading order",
        "",
    ]
    roles = {n.id: n for n in body.nodes}
    for n, node_id in enumerate(body.reading_order, 1):
        node = roles[node_id]
        out.append(f"{n}. {md_inline(names[node_id])} ({node.role}) — `{_where(node.provenance)}`")
    if body.outline is not None:
        o = body.outline
        out += ["", "## Learning goal", "", md_text(o.learning_goal)]
        if o.objectives:
            out += [""] + [
                f"- {md_inline(x.text)} — `{_where(x.provenance)}`" for x in o.objectives
            ]
        out += ["", "## Prerequisites", ""]
        out += [f"- {md_inline(names[i])}" for i in o.prerequisites] or ["- none"]
        out += ["", "## Core path", ""]
        out += [f"{n}. {md_inline(names[i])}" for n, i in enumerate(o.core_path, 1)]
        for title, branches in (
            ("Implementation branches", o.implementation_branches),
            ("Derivation branches", o.derivation_branches),
        ):
            if branches:
                out += ["", f"## {title}", ""]
                out += [
                    f"- {md_inline(names[s.node_id])} § {md_inline(s.title)} — "
                    f"`{_where(s.provenance)}`"
                    for s in branches
                ]
    if body.anthology is not None:
        for chapter in body.anthology:
            out += ["", f"## {md_inline(names[chapter.node_id])}"]
            for s in chapter.sections:
                out += [
                    "",
                    f"{'#' * (s.level + 1)} {md_inline(s.title)}",
                    "",
                    f"*Source: `{_where(s.provenance)}`*",
                ]
                if s.text:
                    out += ["", md_document(s.text, top=1)]
    if body.pitfall_guide is not None:
        out += ["", "## Pitfalls"]
        for e in body.pitfall_guide:
            out += ["", f"### {md_inline(e.symptom)}", "", f"Lesson: {md_inline(names[e.node_id])}"]
            if e.cause:
                out += ["", f"Cause: {md_text(e.cause)}"]
            if e.correction:
                out += ["", f"Correction: {md_text(e.correction)}"]
            if e.diagnostics:
                out += ["", "Diagnostics:", ""] + [f"- {md_inline(d)}" for d in e.diagnostics]
            if e.corrective_nodes:
                out += [
                    "",
                    "Revisit: " + "; ".join(md_inline(names[i]) for i in e.corrective_nodes),
                ]
            out += ["", "Source: " + ", ".join(f"`{_where(p)}`" for p in e.provenance)]
    elif body.pitfalls:
        out += ["", "## Pitfalls", ""]
        out += [
            f"- {md_inline(p.symptom)} ({p.origin}) — "
            + ", ".join(f"`{_where(x)}`" for x in p.provenance)
            for p in body.pitfalls
        ]
    if body.generated_sections:
        out += ["", "## Generated sections"]
        for g in body.generated_sections:
            mark = " (UNVERIFIED)" if g.unverified else ""
            out += [
                "",
                f"### {md_inline(g.title)}{mark}",
                "",
                md_text(g.content),
                "",
                f"*{g.origin}, checked by {g.verifier}, receipt `{g.receipt_id}`; sources: "
                + ", ".join(f"`{_where(p)}`" for p in g.provenance)
                + "*",
            ]
    if body.code_links:
        out += ["", "## Code", ""]
        out += [
            f"- `{md_inline(c.language)}` {md_inline(names[c.node_id])} § "
            f"{md_inline(c.section)} — `{_where(c.provenance)}`"
            for c in body.code_links
        ]
    if body.references:
        out += ["", "## References", ""]
        for r in body.references:
            title = md_inline(r.title)
            link = f"[{title}](<{r.url}>)" if r.url.startswith(("http://", "https://")) else title
            out.append(f"- {link} — {md_inline(names[r.node_id])}, `{_where(r.provenance)}`")
    if packet.warnings:
        out += ["", "## Warnings", ""]
        out += [f"- {w.severity} `{w.code}`: {md_inline(w.message)}" for w in packet.warnings]
    return "\n".join(out).rstrip() + "\n"


def export_markdown(packet: Packet) -> dict[str, bytes]:
    return {"lesson.md": render_markdown(packet).encode("utf-8")}


# bundle -----------------------------------------------------------------------------------------
def concept_map(packet: Packet) -> ConceptMap:
    if packet.body.outline is not None:
        return packet.body.outline.concept_map
    body = packet.body
    return ConceptMap(
        nodes=[ConceptMapNode(id=n.id, label=n.title, role=n.role) for n in body.nodes],
        edges=[
            ConceptMapEdge(source=e.source, target=e.target, kind=e.kind)
            for e in body.edges
            if e.kind in ("requires", "next")
        ],
    )


def provenance_records(packet: Packet) -> list[dict[str, Any]]:
    """Every view of the packet with where it comes from, one record per source."""
    body = packet.body
    out: list[dict[str, Any]] = []

    def add(view: str, view_id: str, prov: Provenance) -> None:
        out.append({"view": view, "id": view_id, **prov.model_dump(mode="json")})

    for n in body.nodes:
        add("node", n.id, n.provenance)
    for e in body.edges:
        add("edge", e.id, e.provenance)
    for p in body.pitfalls:
        for prov in p.provenance:
            add("pitfall", p.id, prov)
    for c in body.code_links:
        add("code_link", c.id, c.provenance)
    for r in body.references:
        add("reference", r.id, r.provenance)
    if body.outline is not None:
        for s in body.outline.implementation_branches + body.outline.derivation_branches:
            add("branch", f"{s.node_id}:{s.provenance.line_start}", s.provenance)
    if body.anthology is not None:
        for chapter in body.anthology:
            for s in chapter.sections:
                add("section", f"{s.node_id}:{s.provenance.line_start}", s.provenance)
    for g in body.generated_sections:
        for prov in g.provenance:
            add("generated_section", g.id, prov)
    for pack in packet.source.packs:
        out.append(
            {
                "view": "pack",
                "id": f"{pack.kind}:{pack.name}",
                "node_id": None,
                "edge_id": None,
                "source_path": pack.file,
                "line_start": None,
                "line_end": None,
                "sha256": pack.sha256,
            }
        )
    return out


def packet_yaml(packet: Packet) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when it is there
    return yaml.dump(
        packet.data(),
        Dumper=dumper,
        sort_keys=True,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )


def export_bundle(packet: Packet) -> dict[str, bytes]:
    files: dict[str, bytes] = {
        "lesson.md": render_markdown(packet).encode("utf-8"),
        "concept_map.json": _json(concept_map(packet).model_dump(mode="json")),
        "provenance.json": _json(provenance_records(packet)),
        "warnings.json": _json([w.model_dump(mode="json") for w in packet.warnings]),
    }
    manifest = {
        "schema": packet.schema_version,
        "packet_id": packet.packet_id,
        "content_hash": packet.content_hash(),
        "files": [
            {
                "path": "packet.yaml",
                "sha256": None,
                "note": "the packet; holds created_at, so its bytes change per compile",
            }
        ]
        + [{"path": p, "sha256": hashlib.sha256(d).hexdigest()} for p, d in sorted(files.items())],
        "folders": ["assets/", "exports/"],
    }
    files["manifest.json"] = _json(manifest)
    files["packet.yaml"] = packet_yaml(packet).encode("utf-8")
    out = {f"bundle/{p}": d for p, d in sorted(files.items())}
    out["bundle/assets/"] = b""
    out["bundle/exports/"] = b""
    return out


# html -------------------------------------------------------------------------------------------
_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.5;color:#1d1d1f}code,pre{font-family:ui-monospace,monospace}"
    "pre{background:#f4f4f4;padding:.6rem;overflow-x:auto}.src{color:#666;font-size:.85em}"
    ".warn{color:#8a4b00}.unverified{color:#a00;font-weight:bold}"
)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # no raw HTML and no images: the page stays inert and loads nothing
    return MarkdownIt("commonmark", {"html": False}).disable("image")


def _md_html(text: str) -> str:
    html_text: str = _markdown().render(text)
    return html_text


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _src(prov: Provenance) -> str:
    return f'<span class="src">{_e(_where(prov))}</span>'


def render_html(packet: Packet) -> str:
    body = packet.body
    req = packet.request.canonical
    names = _titles(packet)
    nodes = {n.id: n for n in body.nodes}
    h: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        f"<title>Study packet: {_e(req.topic)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Study packet: {_e(req.topic)}</h1>",
        f"<p>Goal: {_e(req.goal)}</p>",
        f'<p class="src">Packet {_e(packet.packet_id)} · mode {_e(body.mode)} · curriculum '
        f"{_e(packet.source.curriculum)} · graph {_e(packet.source.graph_hash[:16])}</p>",
        "<h2>Reading order</h2><ol>",
    ]
    h += [
        f"<li>{_e(names[i])} ({_e(nodes[i].role)}) {_src(nodes[i].provenance)}</li>"
        for i in body.reading_order
    ]
    h.append("</ol>")
    if body.outline is not None:
        o = body.outline
        h.append(f"<h2>Learning goal</h2><p>{_e(o.learning_goal)}</p>")
        if o.objectives:
            h.append(
                "<ul>"
                + "".join(f"<li>{_e(x.text)} {_src(x.provenance)}</li>" for x in o.objectives)
                + "</ul>"
            )
        h.append(
            "<h2>Prerequisites</h2><ul>"
            + ("".join(f"<li>{_e(names[i])}</li>" for i in o.prerequisites) or "<li>none</li>")
            + "</ul>"
        )
        h.append(
            "<h2>Core path</h2><ol>"
            + "".join(f"<li>{_e(names[i])}</li>" for i in o.core_path)
            + "</ol>"
        )
        for title, branches in (
            ("Implementation branches", o.implementation_branches),
            ("Derivation branches", o.derivation_branches),
        ):
            if branches:
                h.append(
                    f"<h2>{title}</h2><ul>"
                    + "".join(
                        f"<li>{_e(names[s.node_id])} § {_e(s.title)} {_src(s.provenance)}</li>"
                        for s in branches
                    )
                    + "</ul>"
                )
    if body.anthology is not None:
        for chapter in body.anthology:
            h.append(f"<h2>{_e(names[chapter.node_id])}</h2>")
            for s in chapter.sections:
                level = min(s.level + 1, 6)
                h.append(f"<h{level}>{_e(s.title)}</h{level}><p>{_src(s.provenance)}</p>")
                if s.text:
                    h.append(_md_html(s.text))
    if body.pitfall_guide is not None:
        h.append("<h2>Pitfalls</h2>")
        for e in body.pitfall_guide:
            h.append(f"<h3>{_e(e.symptom)}</h3><p>Lesson: {_e(names[e.node_id])}</p>")
            if e.cause:
                h.append(f"<p>Cause: {_e(e.cause)}</p>")
            if e.correction:
                h.append(f"<p>Correction: {_e(e.correction)}</p>")
            if e.diagnostics:
                h.append("<ul>" + "".join(f"<li>{_e(d)}</li>" for d in e.diagnostics) + "</ul>")
            h.append("<p>" + " ".join(_src(p) for p in e.provenance) + "</p>")
    elif body.pitfalls:
        h.append(
            "<h2>Pitfalls</h2><ul>"
            + "".join(
                f"<li>{_e(p.symptom)} ({_e(p.origin)}) "
                + " ".join(_src(x) for x in p.provenance)
                + "</li>"
                for p in body.pitfalls
            )
            + "</ul>"
        )
    if body.generated_sections:
        h.append("<h2>Generated sections</h2>")
        for g in body.generated_sections:
            mark = ' <span class="unverified">UNVERIFIED</span>' if g.unverified else ""
            h.append(
                f'<h3>{_e(g.title)}{mark}</h3><p>{_e(g.content)}</p><p class="src">'
                f"{_e(g.origin)}, checked by {_e(g.verifier)}, receipt {_e(g.receipt_id)}"
                "</p>"
            )
    if body.code_links:
        h.append("<h2>Code</h2>")
        for c in body.code_links:
            h.append(
                f"<p>{_e(names[c.node_id])} § {_e(c.section)} {_src(c.provenance)}</p>"
                f"<pre><code>{_e(c.text)}</code></pre>"
            )
    if body.references:
        h.append("<h2>References</h2><ul>")
        for r in body.references:
            title = _e(r.title)
            if r.url.startswith(("http://", "https://")):
                title = f'<a href="{_e(r.url)}" rel="noreferrer noopener">{title}</a>'
            h.append(f"<li>{title} {_src(r.provenance)}</li>")
        h.append("</ul>")
    if packet.warnings:
        h.append(
            "<h2>Warnings</h2><ul>"
            + "".join(
                f'<li class="warn">{_e(w.severity)} {_e(w.code)}: {_e(w.message)}</li>'
                for w in packet.warnings
            )
            + "</ul>"
        )
    h.append("</body></html>")
    return "\n".join(h) + "\n"


def export_html(packet: Packet) -> dict[str, bytes]:
    return {"packet.html": render_html(packet).encode("utf-8")}


# notebook ---------------------------------------------------------------------------------------
def _cell_id(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:12]


def _source(text: str) -> list[str]:
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def render_notebook(packet: Packet) -> dict[str, Any]:
    names = _titles(packet)
    req = packet.request.canonical
    cells: list[dict[str, Any]] = [
        {
            "cell_type": "markdown",
            "id": _cell_id(packet.packet_id, "title"),
            "metadata": {},
            "source": _source(
                f"# Study packet: {md_inline(req.topic)}\n\nGoal: {md_inline(req.goal)}"
                f"\n\nPacket `{packet.packet_id}`: the code of its lessons, in reading "
                "order, each with its source."
            ),
        }
    ]
    by_node: dict[str, list[CodeLinkView]] = {}
    for c in packet.body.code_links:
        by_node.setdefault(c.node_id, []).append(c)
    for node_id in packet.body.reading_order:
        links = by_node.get(node_id, [])
        if not links:
            continue
        cells.append(
            {
                "cell_type": "markdown",
                "id": _cell_id(packet.packet_id, node_id),
                "metadata": {},
                "source": _source(f"## {md_inline(names[node_id])}"),
            }
        )
        for c in links:
            note = f"*{md_inline(c.section)}* — `{_where(c.provenance)}`"
            if c.language in NOTEBOOK_LANGUAGES:
                cells.append(
                    {
                        "cell_type": "markdown",
                        "id": _cell_id(c.id, "note"),
                        "metadata": {},
                        "source": _source(note),
                    }
                )
                cells.append(
                    {
                        "cell_type": "code",
                        "execution_count": None,
                        "id": _cell_id(c.id),
                        "metadata": {},
                        "outputs": [],
                        "source": _source(c.text),
                    }
                )
            else:
                cells.append(
                    {
                        "cell_type": "markdown",
                        "id": _cell_id(c.id),
                        "metadata": {},
                        "source": _source(f"{note}\n\n{md_code(c.text, c.language)}"),
                    }
                )
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "packet_id": packet.packet_id,
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def export_notebook(packet: Packet) -> dict[str, bytes]:
    return {
        "notebook.ipynb": (
            json.dumps(render_notebook(packet), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        ).encode("utf-8")
    }


EXPORTERS: dict[str, Callable[[Packet], dict[str, bytes]]] = {
    "bundle": export_bundle,
    "html": export_html,
    "markdown": export_markdown,
    "notebook": export_notebook,
}
