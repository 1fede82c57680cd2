"""``ctxsel graph``: DOT, Mermaid and the self-contained HTML page, on the toy workspace."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

from ctxsel.cli import main
from ctxsel.export import _layers, layout, to_dot, to_html, to_mermaid, view_of_graph, view_of_radius
from ctxsel.graph import BuildGraph, Node
from toy_workspace import SPEC, git, make_repo, open_ws, register, write


def radius_view(tmp_path):
    root = make_repo(tmp_path / "ws")
    write(root, "core/core.c", "edit\n")
    ws = open_ws(root)
    cs = ws.changes(since="HEAD")
    radius = ws.blast_radius(roots=cs.nodes)
    tests = set(ws.adapter.test_nodes(ws.graph, radius.ids))
    return view_of_radius(ws.graph, radius, tests, cs.reasons, cs.description)


def test_radius_view_marks_changed_affected_and_tests(tmp_path):
    view = radius_view(tmp_path)
    roles = {n.id: (n.role, n.is_test) for n in view.nodes}
    assert roles == {"core": ("changed", False), "lib_a": ("affected", False), "app": ("affected", False),
                     "app_test": ("affected", True)}
    assert view.edges == [("app", "lib_a", ("dep",)), ("app_test", "app", ("dep",)), ("lib_a", "core", ("dep",))]


def test_dot_declares_every_node_and_edge_with_role_styles(tmp_path):
    dot = to_dot(radius_view(tmp_path))
    assert dot.startswith("digraph ctxsel {") and dot.rstrip().endswith("}")
    assert re.search(r'"core" \[fillcolor="#f8c9c4"', dot)          # changed
    assert re.search(r'"app_test" \[[^]]*peripheries=2', dot)         # test
    assert '"app" -> "lib_a";' in dot and '"lib_a" -> "core";' in dot
    if shutil.which("dot"):
        subprocess.run(["dot", "-Tsvg"], input=dot, text=True, check=True, capture_output=True, timeout=30)


def test_dot_and_mermaid_escape_awkward_ids():
    g = BuildGraph("t")
    g.add_node(Node('@scope/pkg "x"', "lib"))
    g.add_node(Node("//a:b\\c", "lib", is_test=True))
    g.add_edge("//a:b\\c", '@scope/pkg "x"', "dev")
    view = view_of_graph(g, list(g), "t")
    dot = to_dot(view)
    assert '"@scope/pkg \\"x\\""' in dot and '"//a:b\\\\c" -> "@scope/pkg \\"x\\"" [style=dashed' in dot
    mer = to_mermaid(view)
    assert 'n0(["//a:b\\c"])' in mer and 'n1["@scope/pkg #quot;x#quot;"]' in mer and "n0 -.-> n1" in mer


def test_mermaid_uses_safe_ids_and_classes(tmp_path):
    mer = to_mermaid(radius_view(tmp_path))
    assert "flowchart TD" in mer
    ids = dict(re.findall(r'^  (n\d+)[\[(]+"([^"]+)"', mer, re.M))
    back = {v: k for k, v in ids.items()}
    assert set(back) == {"core", "lib_a", "app", "app_test"}
    assert f"  {back['app']} --> {back['lib_a']}" in mer
    assert re.search(rf"class {back['core']} changed", mer)
    assert re.search(rf"class {back['app_test']} test", mer)


def test_html_is_self_contained_and_well_formed(tmp_path):
    page = to_html(radius_view(tmp_path))
    # nothing fetched at view time: no external scripts, styles, images or fonts
    assert not re.search(r'<(script|link|img|iframe)[^>]+(src|href)=', page)
    assert "@import" not in page and "url(http" not in page
    assert set(re.findall(r"https?://[^\s\"')]+", page)) <= {"http://www.w3.org/2000/svg"}
    svg = page[page.index("<svg"):page.index("</svg>") + 6]
    tree = ET.fromstring(svg)
    groups = [g for g in tree.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "n"]
    assert sorted(g.get("data-id") for g in groups) == ["app", "app_test", "core", "lib_a"]
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))
    assert data["app_test"]["path"] == ["app_test", "app", "lib_a", "core"]
    assert data["core"]["because"] == ["core/core.c"] and data["core"]["role"] == "changed"
    if shutil.which("node"):
        script = page[page.rindex("<script>") + 8:page.rindex("</script>")]
        js = tmp_path / "page.js"
        js.write_text(script)
        proc = subprocess.run(["node", "--check", str(js)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr


def test_layout_puts_dependencies_below_dependents_and_survives_cycles():
    g = BuildGraph("t")
    for n in ["a", "b", "c", "d"]:
        g.add_node(Node(n, "lib"))
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", "b")  # cycle
    g.add_edge("d", "c")
    view = view_of_graph(g, list(g), "t")
    boxes = layout(view)
    assert boxes["a"].y < boxes["b"].y and boxes["d"].y < boxes["c"].y
    layers = _layers(["a", "b", "c", "d"], {"a": ["b"], "b": ["c"], "c": ["b"], "d": ["c"]},
                     {"b": ["a", "c"], "c": ["b", "d"], "a": [], "d": []})
    assert set(layers) == {"a", "b", "c", "d"} and layers["a"] > layers["b"]
    page = to_html(view)
    assert page.count('class="n"') == 4


def test_cli_graph_whole_and_change_to_file(tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    root = make_repo(tmp_path / "ws")
    assert main(["--repo", str(root), "--adapter", "toy", "graph", "--format", "mermaid"]) == 0
    whole = capsys.readouterr().out
    assert all(f'"{n}"' in whole for n in SPEC["nodes"])
    write(root, "lib/b.c", "edit\n")
    git(root, "add", "-A")
    out = tmp_path / "g.html"
    assert main(["--repo", str(root), "--adapter", "toy", "graph", "--staged", "--format", "html", "-o", str(out)]) == 0
    page = out.read_text()
    assert 'data-id="lib_b"' in page and 'data-id="b_test"' in page and 'data-id="core"' not in page
    assert main(["--repo", str(root), "--adapter", "toy", "graph", "--format", "svg"]) == 2
    assert "unknown --format 'svg'" in capsys.readouterr().err


def test_html_data_block_cannot_be_closed_or_commented_out_by_a_node_id():
    """A node id is repository text (a Bazel target name may hold "<"): inside the page's
    JSON <script> it must neither end the block ("</script>") nor open a comment ("<!--")."""
    g = BuildGraph("t")
    hostile = "x<!--<script></script>"
    g.add_node(Node(hostile, "lib"))
    g.add_node(Node("y", "lib"))
    g.add_edge("y", hostile)
    page = to_html(view_of_graph(g, ["y", hostile], "t"))
    block = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in block
    assert hostile in json.loads(block)
