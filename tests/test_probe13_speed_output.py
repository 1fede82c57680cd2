"""``blast-radius`` builds only what its format prints, and prints exactly what it printed before.

The "why" paths cost the sum of all depths (quadratic on a chain): ``--format labels``
prints none and ``--limit N`` prints N, so neither may build the paths of the whole
radius. The output itself must not change by a byte: every format, with and without
``--limit``/``--depth``, is compared with what the code before this change printed,
rebuilt here from its definition (the reference BFS of ``test_probe12_core_graph``
for the paths, ``json.dumps(indent=2)`` for the JSON, tab-separated rows for text).

``render.pretty_json`` must write exactly ``json.dumps(indent=2)`` (the stdlib's slow
pure-Python encoder) on any document, and fail the way it fails.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import json
import math
import random
from pathlib import Path

import pytest

from ctxsel import render
from ctxsel.cli import main
from ctxsel.graph import BuildGraph, Node
from test_probe12_core_graph import reference_paths
from toy_workspace import register

# ---------------------------------------------------------------- generated workspaces


def toy_nodes(shape: str, n: int) -> tuple[dict, list[str]]:
    """(toy.json nodes, the targets to ask about) for a chain, a fan-in or a layered DAG.

    Names are shuffled against their insertion order and a few nodes are tests, so
    sorting, tie-breaks and node kinds are exercised."""
    rng = random.Random(shape)
    nodes: dict[str, dict] = {}
    if shape == "chain":
        ids = [f"c{i:03d}" for i in range(n)]
        for i, nid in enumerate(ids):
            nodes[nid] = {"dir": "c", "deps": [ids[i - 1]] if i else []}
        targets = [ids[0]]
    elif shape == "fan-in":
        ids = [f"{rng.choice('abz')}{i:03d}" for i in range(n)]
        nodes["root"] = {"dir": "r"}
        for nid in ids:
            nodes[nid] = {"dir": "f", "deps": ["root"]}
        targets = ["root"]
    else:  # layered: each node on up to 3 nodes of the layer below, two roots
        below = ["base0", "base1"]
        for b in below:
            nodes[b] = {"dir": "b"}
        for layer in range(6):
            here = [f"{rng.choice('kmq')}{layer}n{i:02d}" for i in range(max(1, n // 6))]
            for nid in here:
                nodes[nid] = {"dir": f"l{layer}", "deps": rng.sample(below, min(3, len(below)))}
            below = here
        targets = ["base0", "base1"]
    for nid in rng.sample(sorted(nodes), max(1, len(nodes) // 7)):
        nodes[nid]["test"] = True
    return nodes, targets


def make_toy(root: Path, nodes: dict) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "toy.json").write_text(json.dumps({"nodes": nodes}))
    return root


def toy_graph(nodes: dict) -> BuildGraph:
    """The graph the toy adapter reads from ``nodes``."""
    g = BuildGraph("toy")
    for nid, spec in nodes.items():
        g.add_node(Node(nid, "test" if spec.get("test") else "lib"))
    for nid, spec in nodes.items():
        for d in spec.get("deps", ()):
            g.add_edge(nid, d)
    return g


def run(root: Path, capsys, *args: str) -> str:
    assert main(["--repo", str(root), "--adapter", "toy", "--quiet", "blast-radius", *args]) == 0
    return capsys.readouterr().out


def expected_output(nodes: dict, targets: list[str], fmt: str, limit: int | None, depth: int | None) -> str:
    """What blast-radius printed before: every path built, then cut to ``limit``."""
    g = toy_graph(nodes)
    paths = reference_paths(g, targets, depth)
    rows = sorted(((len(p) - 1, nid) for nid, p in paths.items()))
    affected = [{"id": nid, "kind": g.node(nid).kind, "distance": d, "path": paths[nid]} for d, nid in rows]
    body: dict = {"schema_version": 1, "adapter": "toy", "roots": sorted(targets), "affected": affected}
    if limit is not None and len(affected) > limit:
        body["truncated"] = len(affected) - limit
        del affected[limit:]
    if fmt == "json":
        return json.dumps(body, indent=2) + "\n"
    if fmt == "labels":
        return "".join(a["id"] + "\n" for a in affected)
    return "".join(f"{a['id']}\t{a['kind']}\t{a['distance']}\t{' -> '.join(a['path'][1:-1]) or '-'}\n" for a in affected)


SHAPES = ["chain", "fan-in", "layered"]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_format_prints_what_it_printed_before(shape, tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    nodes, targets = toy_nodes(shape, 40)
    root = make_toy(tmp_path / shape, nodes)
    for fmt in ("text", "json", "labels"):
        for limit in (None, 0, 1, 7, 1000):
            for depth in (None, 2):
                args = [*targets, "--format", fmt]
                args += ["--limit", str(limit)] if limit is not None else []
                args += ["--depth", str(depth)] if depth is not None else []
                assert run(root, capsys, *args) == expected_output(nodes, targets, fmt, limit, depth), (fmt, limit, depth)


@pytest.fixture
def path_counter(monkeypatch):
    """Records, per ``paths_to`` call, how many paths it built."""
    built: list[int] = []
    original = BuildGraph.paths_to

    def counting(self, roots, depth=None, only=None):
        answer = original(self, roots, depth, only)
        built.append(len(answer))
        return answer

    monkeypatch.setattr(BuildGraph, "paths_to", counting)
    return built


@pytest.mark.parametrize("shape", SHAPES)
def test_labels_build_no_path_and_limit_builds_only_the_paths_shown(shape, tmp_path, monkeypatch, capsys, path_counter):
    register(monkeypatch)
    nodes, targets = toy_nodes(shape, 60)
    root = make_toy(tmp_path / shape, nodes)
    run(root, capsys, *targets, "--format", "labels")
    assert path_counter == []  # before: every path of the radius
    for fmt in ("json", "text"):
        path_counter.clear()
        run(root, capsys, *targets, "--format", fmt, "--limit", "5")
        assert sum(path_counter) <= 5  # before: all 60+


def test_mcp_blast_radius_builds_only_the_paths_it_answers_with(tmp_path, monkeypatch, capsys, path_counter):
    from ctxsel.mcp_server import CtxselTools, GraphQuestion

    register(monkeypatch)
    nodes, targets = toy_nodes("chain", 50)
    root = make_toy(tmp_path / "chain", nodes)
    answer = CtxselTools(root, adapter="toy").blast_radius(GraphQuestion(targets=targets, limit=4))
    assert sum(path_counter) <= 4
    assert answer.document == json.loads(expected_output(nodes, targets, "json", 4, None))


# ---------------------------------------------------------------- pretty_json == json.dumps(indent=2)


class Colour(enum.IntEnum):
    RED = 1


class Tag(str):
    pass


class Row(dict):
    pass


class Items(list):
    pass


@dataclasses.dataclass
class Point:
    x: int
    label: str


def random_value(rng: random.Random, depth: int = 0):
    scalars = [
        lambda: rng.choice(["", "plain", "é ü ß", "中文", "emoji \U0001F600", "tab\tnew\nline", 'quote " back \\ slash',
                            "\x00\x1f\x7f", "lone \ud800 surrogate", "</script>", "\u2028\u2029"]),
        lambda: rng.randint(-10**20, 10**20),
        lambda: rng.choice([0.0, -0.0, 1.5, 1e300, -2.5e-300, 0.1 + 0.2, 3.0]),
        lambda: rng.choice([True, False, None]),
    ]
    if depth > 3 or rng.random() < 0.4:
        return rng.choice(scalars)()
    if rng.random() < 0.5:
        kind = rng.choice([list, tuple, Items])
        return kind(random_value(rng, depth + 1) for _ in range(rng.randint(0, 4)))
    keys = ["id", "path", "é", "", "a\nb", "kind", "\"q\""]
    return {rng.choice(keys) + str(i): random_value(rng, depth + 1) for i in range(rng.randint(0, 4))}


def same_as_json(value, allow_nan: bool = True, default=None) -> None:
    try:
        want = json.dumps(value, indent=2, allow_nan=allow_nan, default=default)
    except Exception as exc:  # noqa: BLE001 - the very exception json raises is the expectation
        with pytest.raises(type(exc)) as got:
            render.pretty_json(value, allow_nan=allow_nan, default=default)
        assert str(got.value) == str(exc)
        return
    assert render.pretty_json(value, allow_nan=allow_nan, default=default) == want


@pytest.mark.parametrize("seed", range(60))
def test_pretty_json_equals_json_dumps_on_random_documents(seed):
    rng = random.Random(seed)
    same_as_json(random_value(rng))
    same_as_json({"affected": [{"id": f"n{i}", "kind": "lib", "distance": i, "path": [f"n{i}", "é"]} for i in range(5)]})


@pytest.mark.parametrize("value", [
    {}, [], (), "", 0, None, True, [[]], {"a": {}}, [{}], {"a": []},
    {"k": [1, "two", 3.0, None, [], {}]}, ["a", "b", 1], [1, "a"],
    {"big": 10**30, "neg": -0.0, "tiny": 5e-324},
    {"enum": Colour.RED, "sub": Tag("x\u00e9"), "row": Row(a=1), "items": Items(["a", "b"])},
    collections.OrderedDict([("z", 1), ("a", 2)]),
    {3: "int key", 2.5: "float key", True: "bool", None: "none"},  # json turns them into strings
    {"nan": math.nan}, {"inf": [math.inf, -math.inf]},
])
def test_pretty_json_equals_json_dumps_on_awkward_values(value):
    same_as_json(value)
    same_as_json(value, allow_nan=False)


def test_pretty_json_fails_as_json_does():
    cycle: list = []
    cycle.append(cycle)
    same_as_json(cycle)
    loop: dict = {}
    loop["self"] = loop
    same_as_json({"x": loop})
    same_as_json({"object": object()})  # TypeError: not serialisable
    same_as_json([math.nan], allow_nan=False)  # ValueError
    same_as_json({(1, 2): "tuple key"})  # TypeError: keys must be str, int, ...


def test_to_json_default_handles_dataclasses_sets_and_tuples():
    payload = {"point": Point(1, "ä"), "set": {"b", "a"}, "frozen": frozenset({3, 1}), "tuple": ("x",), "deep": [Point(2, "\n")]}
    want = json.dumps({"schema_version": render.SCHEMA_VERSION, **payload}, indent=2, allow_nan=False, default=render._default)
    assert render.to_json(payload) == want
    assert json.loads(render.to_json(payload, compact=True)) == json.loads(want)
    with pytest.raises(ValueError):
        render.to_json({"x": math.inf})


@pytest.mark.parametrize("shape", SHAPES)
def test_tests_explain_builds_only_the_tests_paths_and_prints_them_as_before(shape, tmp_path, monkeypatch, capsys,
                                                                             path_counter):
    register(monkeypatch)
    nodes, targets = toy_nodes(shape, 60)
    root = make_toy(tmp_path / shape, nodes)
    assert main(["--repo", str(root), "--adapter", "toy", "--quiet", "tests", *targets, "--explain", "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert 0 < len(body["tests"]) < 30 and sum(path_counter) <= len(body["tests"])  # before: the whole radius
    want = reference_paths(toy_graph(nodes), targets)
    assert body["explain"] == [{"id": t, "path": want[t], "because": []} for t in body["tests"]]
