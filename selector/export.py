"""Drawing a graph for people: Graphviz DOT, Mermaid, and one self-contained HTML page.

All three render one ``GraphView``: the nodes to draw, the edges between them and
each node's role: *changed* (a root of the blast radius), *affected* (depends on a
changed node) and *test*. The HTML page lays the graph out here, in Python (layers
by longest dependency chain, dependencies at the bottom, a few barycenter sweeps to
reduce crossings), and embeds the SVG with a little hand-written JavaScript for
zoom, search and "why is this affected" highlighting. It loads nothing from the
network, so it opens the same in a browser offline, in CI artifacts and in email.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Iterable

from .graph import BuildGraph, back_edges

CHANGED, AFFECTED, OTHER = "changed", "affected", "other"


@dataclass
class ViewNode:
    id: str
    kind: str
    role: str  # changed | affected | other
    is_test: bool = False
    distance: int | None = None
    path: list[str] = field(default_factory=list)  # to the changed node that put it here
    because: list[str] = field(default_factory=list)  # changed files (changed nodes only)


@dataclass
class GraphView:
    title: str
    nodes: list[ViewNode]
    edges: list[tuple[str, str, tuple[str, ...]]]  # dependent, dependency, edge types


def view_of_graph(graph: BuildGraph, ids: Iterable[str], title: str) -> GraphView:
    keep = sorted(set(ids))
    nodes = [ViewNode(n, graph.node(n).kind, OTHER, graph.node(n).is_test) for n in keep]
    return GraphView(f"{title}: whole graph", nodes, _edges(graph, set(keep)))


def view_of_radius(graph: BuildGraph, radius, tests: set[str], reasons: dict[str, list[str]], title: str) -> GraphView:
    """``radius`` is a ``workspace.BlastRadius``; roots are drawn as changed."""
    roots = set(radius.roots)
    nodes = [
        ViewNode(a.id, a.kind, CHANGED if a.id in roots else AFFECTED, a.id in tests or graph.node(a.id).is_test,
                 a.distance, a.path, reasons.get(a.id, []))
        for a in radius.affected
    ]
    return GraphView(f"blast radius of {title}", nodes, _edges(graph, {n.id for n in nodes}))


def _edges(graph: BuildGraph, keep: set[str]) -> list[tuple[str, str, tuple[str, ...]]]:
    return sorted(
        (src, dst, tuple(sorted(types)))
        for src in keep
        for dst in graph.dependencies(src)
        if dst in keep
        for types in [graph.edge_types(src, dst)]
    )


def render(view: GraphView, fmt: str) -> str:
    return {"dot": to_dot, "mermaid": to_mermaid, "html": to_html}[fmt](view)


# ---------------------------------------------------------------- DOT / Mermaid

COLORS = {CHANGED: ("#f8c9c4", "#b3261e"), AFFECTED: ("#fde3b5", "#b26a00"), OTHER: ("#eef0f2", "#6b7280")}
TEST_BORDER = "#1b7f3b"
SOFT_EDGES = {"dev", "peer", "optional", "implicit", "data"}


def _dot_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(view: GraphView) -> str:
    out = [
        "digraph ctxsel {",
        f"  label={_dot_str(view.title)}; labelloc=t; rankdir=TB;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        "  // fill: red = changed, orange = affected, grey = other; green double border = test",
    ]
    for n in view.nodes:
        fill, line = COLORS[n.role]
        attrs = [f"fillcolor={_dot_str(fill)}", f"color={_dot_str(TEST_BORDER if n.is_test else line)}"]
        if n.is_test:
            attrs.append("peripheries=2")
        tip = n.kind + (f", distance {n.distance}" if n.distance is not None else "")
        attrs.append(f"tooltip={_dot_str(tip)}")
        out.append(f"  {_dot_str(n.id)} [{', '.join(attrs)}];")
    for src, dst, types in view.edges:
        style = ' [style=dashed, label=' + _dot_str(",".join(types)) + "]" if set(types) <= SOFT_EDGES else ""
        out.append(f"  {_dot_str(src)} -> {_dot_str(dst)}{style};")
    out.append("}")
    return "\n".join(out) + "\n"


def _mermaid_label(s: str) -> str:
    return '"' + s.replace('"', "#quot;") + '"'


def to_mermaid(view: GraphView) -> str:
    ids = {n.id: f"n{i}" for i, n in enumerate(view.nodes)}
    out = ["---", f"title: {json.dumps(view.title)}", "---", "flowchart TD"]
    for n in view.nodes:
        label = _mermaid_label(n.id)
        out.append(f"  {ids[n.id]}([{label}])" if n.is_test else f"  {ids[n.id]}[{label}]")
    for src, dst, types in view.edges:
        arrow = "-.->" if set(types) <= SOFT_EDGES else "-->"
        out.append(f"  {ids[src]} {arrow} {ids[dst]}")
    for role, (fill, line) in COLORS.items():
        out.append(f"  classDef {role} fill:{fill},stroke:{line},color:#111")
    out.append(f"  classDef test stroke:{TEST_BORDER},stroke-width:3px")
    for role in (CHANGED, AFFECTED, OTHER):
        members = [ids[n.id] for n in view.nodes if n.role == role]
        if members:
            out.append(f"  class {','.join(members)} {role}")
    tests = [ids[n.id] for n in view.nodes if n.is_test]
    if tests:
        out.append(f"  class {','.join(tests)} test")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- layout

ROW_H, GAP_X, MARGIN, CHAR_W, BOX_H, MAX_PER_ROW = 70, 14, 24, 7.0, 30, 40


@dataclass
class Box:
    x: float
    y: float
    w: float


def layout(view: GraphView) -> dict[str, Box]:
    """Layers by longest dependency chain (dependencies at the bottom), ordered by barycenters."""
    ids = [n.id for n in view.nodes]
    deps: dict[str, list[str]] = {i: [] for i in ids}
    dependents: dict[str, list[str]] = {i: [] for i in ids}
    for src, dst, _ in view.edges:
        if src != dst:
            deps[src].append(dst)
            dependents[dst].append(src)
    layer = _layers(ids, deps, dependents)
    height = max(layer.values(), default=0)
    rows: list[list[str]] = []
    for lv in range(height, -1, -1):  # top row = highest layer (most dependent)
        members = sorted(i for i in ids if layer[i] == lv)
        rows.extend(members[k:k + MAX_PER_ROW] for k in range(0, len(members), MAX_PER_ROW))
    for sweep in range(4):  # barycenter: sit near the nodes you connect to in the row above/below
        order = range(1, len(rows)) if sweep % 2 == 0 else range(len(rows) - 2, -1, -1)
        for r in order:
            ref = r - 1 if sweep % 2 == 0 else r + 1
            pos = {n: k for k, n in enumerate(rows[ref])}

            def bary(n: str, pos=pos, idx={n: k for k, n in enumerate(rows[r])}) -> float:
                near = [pos[m] for m in deps[n] + dependents[n] if m in pos]
                return sum(near) / len(near) if near else idx[n]

            rows[r].sort(key=bary)
    boxes: dict[str, Box] = {}
    for r, members in enumerate(rows):
        x = MARGIN
        for n in members:
            w = max(60.0, len(n) * CHAR_W + 20)
            boxes[n] = Box(x, MARGIN + 40 + r * ROW_H, w)
            x += w + GAP_X
    return boxes


def _layers(ids: list[str], deps: dict[str, list[str]], dependents: dict[str, list[str]]) -> dict[str, int]:
    """Longest path to a node without dependencies; cycles are cut at their DFS back edges."""
    back = {(path[-1], target) for path, target in back_edges(ids, lambda n: sorted(set(deps[n])))}
    remaining = {i: len({d for d in deps[i] if (i, d) not in back}) for i in ids}
    layer = {i: 0 for i in ids}
    ready = [i for i in ids if remaining[i] == 0]
    while ready:
        cur = ready.pop()
        for up in set(dependents[cur]):
            if (up, cur) in back:
                continue
            layer[up] = max(layer[up], layer[cur] + 1)
            remaining[up] -= 1
            if remaining[up] == 0:
                ready.append(up)
    return layer


# ---------------------------------------------------------------- HTML

def to_html(view: GraphView) -> str:
    boxes = layout(view)
    width = max((b.x + b.w for b in boxes.values()), default=200) + MARGIN
    height = max((b.y for b in boxes.values()), default=0) + BOX_H + MARGIN
    esc = html.escape
    parts: list[str] = []
    for src, dst, types in view.edges:
        a, b = boxes[src], boxes[dst]
        x1, y1, x2, y2 = a.x + a.w / 2, a.y + BOX_H, b.x + b.w / 2, b.y
        if y2 <= y1:  # same row or upward (a cycle): route around
            y1, y2 = a.y + BOX_H / 2, b.y + BOX_H / 2
        mid = (y1 + y2) / 2
        dash = ' stroke-dasharray="4 3"' if set(types) <= SOFT_EDGES else ""
        parts.append(
            f'<path class="e" marker-end="url(#a)" data-s="{esc(src)}" data-d="{esc(dst)}"{dash} '
            f'd="M{x1:.1f},{y1:.1f} C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2:.1f}"><title>{esc(",".join(types))}</title></path>'
        )
    for n in view.nodes:
        bx = boxes[n.id]
        fill, line = COLORS[n.role]
        stroke = TEST_BORDER if n.is_test else line
        width_px = 3 if n.is_test else 1.2
        parts.append(
            f'<g class="n" data-id="{esc(n.id)}" transform="translate({bx.x:.1f},{bx.y:.1f})">'
            f'<rect width="{bx.w:.1f}" height="{BOX_H}" rx="{BOX_H / 2 if n.is_test else 6}" fill="{fill}" stroke="{stroke}" stroke-width="{width_px}"/>'
            f'<text x="{bx.w / 2:.1f}" y="{BOX_H / 2 + 4}" text-anchor="middle">{esc(n.id)}</text></g>'
        )
    data = {
        n.id: {"kind": n.kind, "role": n.role, "test": n.is_test, "distance": n.distance, "path": n.path, "because": n.because}
        for n in view.nodes
    }
    counts = {r: sum(1 for n in view.nodes if n.role == r) for r in (CHANGED, AFFECTED, OTHER)}
    tests = sum(1 for n in view.nodes if n.is_test)
    summary = f"{len(view.nodes)} nodes, {len(view.edges)} edges"
    if counts[CHANGED]:
        summary += f" · {counts[CHANGED]} changed · {counts[AFFECTED]} affected"
    summary += f" · {tests} tests"
    # "<" as \u003c: no node id can end the <script> or open an HTML comment ("<!--") inside it
    blob = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    return _PAGE.format(
        title=esc(view.title),
        summary=esc(summary),
        w=f"{width:.0f}",
        h=f"{height:.0f}",
        svg="\n".join(parts),
        data=blob,
        changed_fill=COLORS[CHANGED][0], changed_line=COLORS[CHANGED][1],
        affected_fill=COLORS[AFFECTED][0], affected_line=COLORS[AFFECTED][1],
        other_fill=COLORS[OTHER][0], other_line=COLORS[OTHER][1], test=TEST_BORDER,
    )


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ctxsel graph">
<title>{title}</title>
<style>
 body{{margin:0;font:13px/1.4 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#111;display:flex;flex-direction:column;height:100vh}}
 header{{padding:8px 12px;border-bottom:1px solid #ddd;display:flex;gap:16px;align-items:center;flex-wrap:wrap}}
 header h1{{font-size:15px;margin:0}} .sum{{color:#555}}
 .legend span{{display:inline-block;padding:1px 8px;margin-right:6px;border-radius:4px;border:1px solid}}
 #q{{padding:3px 6px;min-width:200px}}
 main{{flex:1;display:flex;min-height:0}} #wrap{{flex:1;overflow:hidden;cursor:grab;background:#fff}}
 aside{{width:320px;border-left:1px solid #ddd;padding:10px;overflow:auto;font-size:12px}} aside code{{word-break:break-all}}
 svg text{{font:11px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;pointer-events:none}}
 .e{{fill:none;stroke:#9aa1ab;stroke-width:1}} .n{{cursor:pointer}}
 .dim{{opacity:.15}} .hl rect{{stroke:#1d4ed8!important;stroke-width:3!important}} .e.hl{{stroke:#1d4ed8;stroke-width:2.5;opacity:1}}
</style></head><body>
<header><h1>{title}</h1><span class="sum">{summary}</span>
<span class="legend"><span style="background:{changed_fill};border-color:{changed_line}">changed</span><span style="background:{affected_fill};border-color:{affected_line}">affected</span><span style="background:{other_fill};border-color:{other_line}">other</span><span style="border:3px solid {test};border-radius:10px">test</span></span>
<input id="q" type="search" placeholder="find a node (Enter)"><span class="sum">wheel: zoom · drag: pan · click: why</span></header>
<main><div id="wrap"><svg id="g" xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 {w} {h}">
<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#9aa1ab"/></marker></defs>
<g id="vp">
{svg}
</g></svg></div><aside id="info"><p>Click a node to see why it is in the graph: the dependency path to the changed node and the files that changed.</p></aside></main>
<script type="application/json" id="data">{data}</script>
<script>
(function(){{
 var data=JSON.parse(document.getElementById('data').textContent);
 var svg=document.getElementById('g'), wrap=document.getElementById('wrap'), info=document.getElementById('info');
 var vb=svg.viewBox.baseVal, edges=[].slice.call(document.querySelectorAll('.e')), nodes={{}};
 [].forEach.call(document.querySelectorAll('.n'),function(g){{nodes[g.getAttribute('data-id')]=g;}});
 function esc(s){{return String(s).replace(/[&<>"]/g,function(c){{return {{'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}}[c];}});}}
 function clear(){{[].forEach.call(document.querySelectorAll('.dim,.hl'),function(x){{x.classList.remove('dim');x.classList.remove('hl');}});}}
 function show(id){{
  clear(); var d=data[id]; if(!d) return; var path=d.path&&d.path.length?d.path:[id], on={{}};
  path.forEach(function(p){{on[p]=1;}});
  Object.keys(nodes).forEach(function(k){{nodes[k].classList.add(on[k]?'hl':'dim');}});
  edges.forEach(function(e){{var s=e.getAttribute('data-s'),t=e.getAttribute('data-d');
   var i=path.indexOf(s); e.classList.add(i>=0&&path[i+1]===t?'hl':'dim');}});
  var root=data[path[path.length-1]]||{{}}, files=(root.because||[]);
  info.innerHTML='<h3><code>'+esc(id)+'</code></h3><p>'+esc(d.kind)+(d.test?' · test':'')+' · '+esc(d.role)+
   (d.distance!==null?' · distance '+d.distance:'')+'</p>'+(path.length>1?'<p><b>why</b>:<br>'+path.map(function(p){{return '<code>'+esc(p)+'</code>';}}).join(' &rarr;<br>')+'</p>':'')+
   (files.length?'<p><b>changed files</b>:<br>'+files.map(function(f){{return '<code>'+esc(f)+'</code>';}}).join('<br>')+'</p>':'');
 }}
 Object.keys(nodes).forEach(function(k){{nodes[k].addEventListener('click',function(ev){{ev.stopPropagation();show(k);}});
  var t=document.createElementNS('http://www.w3.org/2000/svg','title');t.textContent=k;nodes[k].appendChild(t);}});
 svg.addEventListener('click',clear);
 document.getElementById('q').addEventListener('keydown',function(ev){{
  if(ev.key!=='Enter') return; var q=this.value.toLowerCase(); if(!q) return clear();
  var hit=Object.keys(nodes).filter(function(k){{return k.toLowerCase().indexOf(q)>=0;}});
  if(!hit.length) return; show(hit[0]);
  var b=nodes[hit[0]].getBBox(), m=nodes[hit[0]].transform.baseVal.consolidate().matrix;
  vb.x=m.e+b.width/2-vb.width/2; vb.y=m.f-vb.height/2;
 }});
 wrap.addEventListener('wheel',function(ev){{ev.preventDefault();
  var r=svg.getBoundingClientRect(), k=ev.deltaY>0?1.15:1/1.15;
  var px=vb.x+(ev.clientX-r.left)/r.width*vb.width, py=vb.y+(ev.clientY-r.top)/r.height*vb.height;
  vb.width*=k; vb.height*=k; vb.x=px-(px-vb.x)*k; vb.y=py-(py-vb.y)*k;}},{{passive:false}});
 var drag=null; wrap.addEventListener('mousedown',function(ev){{drag=[ev.clientX,ev.clientY];wrap.style.cursor='grabbing';}});
 window.addEventListener('mouseup',function(){{drag=null;wrap.style.cursor='grab';}});
 window.addEventListener('mousemove',function(ev){{if(!drag) return; var r=svg.getBoundingClientRect(), s=Math.max(vb.width/r.width,vb.height/r.height);
  vb.x-=(ev.clientX-drag[0])*s; vb.y-=(ev.clientY-drag[1])*s; drag=[ev.clientX,ev.clientY];}});
}})();
</script></body></html>
"""
