"""The graph model's closures and paths, on graphs built in the test."""

from __future__ import annotations

import pytest

from ctxsel.graph import DATA, DEP, BuildGraph, Node


def diamond() -> BuildGraph:
    # app -> utils -> core, app -> api -> core, tool -(data)-> core, lone
    g = BuildGraph("test")
    for nid in ["app", "utils", "api", "core", "tool", "lone"]:
        g.add_node(Node(nid, "lib", package=nid, srcs=(f"{nid}/{nid}.c",)))
    g.add_edge("app", "utils")
    g.add_edge("app", "api")
    g.add_edge("utils", "core")
    g.add_edge("api", "core")
    g.add_edge("tool", "core", DATA)
    return g


def test_rdeps_includes_roots_at_distance_zero_and_bounds_depth():
    g = diamond()
    assert g.rdeps(["core"]) == {"core": 0, "utils": 1, "api": 1, "tool": 1, "app": 2}
    assert g.rdeps(["core"], depth=1) == {"core": 0, "utils": 1, "api": 1, "tool": 1}
    assert g.rdeps(["core"], depth=0) == {"core": 0}
    assert g.rdeps(["lone"]) == {"lone": 0}
    assert g.rdeps(["missing"]) == {}


def test_deps_is_the_forward_closure():
    g = diamond()
    assert g.deps(["app"]) == {"app": 0, "utils": 1, "api": 1, "core": 2}


def test_path_is_shortest_and_deterministic():
    g = diamond()
    # both app->utils->core and app->api->core are shortest; sorted order picks api
    assert g.path("app", "core") == ["app", "api", "core"]
    assert g.path("core", "app") is None
    assert g.path("core", "core") == ["core"]
    assert g.paths_to(["core"])["app"] == ["app", "api", "core"]


def test_edge_types_accumulate():
    g = diamond()
    g.add_edge("tool", "core", DEP)
    assert g.edge_types("tool", "core") == frozenset({DATA, DEP})


def test_owners_of_file_and_packages():
    g = diamond()
    assert g.owners_of_file("api/api.c") == ["api"]
    assert g.owners_of_file("nope.c") == []
    assert g.nodes_in_package("app") == ["app"]


def test_find_cycle_reports_the_loop_and_terminates():
    g = diamond()
    assert g.find_cycle() is None
    g.add_edge("core", "app")
    cycle = g.find_cycle()
    assert cycle is not None and cycle[0] == cycle[-1]
    assert set(cycle) <= {"app", "utils", "api", "core"}
    # closures still terminate on a cyclic graph
    assert set(g.rdeps(["core"])) == {"core", "utils", "api", "tool", "app"}


def test_edge_to_unknown_node_is_rejected():
    g = diamond()
    with pytest.raises(KeyError):
        g.add_edge("app", "ghost")


def test_to_networkx_round_trip():
    g = diamond()
    nxg = g.to_networkx()
    assert set(nxg.successors("app")) == {"utils", "api"}
    assert nxg.edges["tool", "core"]["types"] == frozenset({DATA})
