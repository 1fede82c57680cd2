"""A loaded .bzl's lists and dicts are frozen; a list's ``+=`` changes it in place (session 26).

Measured with Bazel 4.2.3, ``bazel query --keep_going 'kind(rule, //...)'`` (exit 3):

- Bazel freezes a module's values when its evaluation ends. Changing one later is "trying to
  mutate a frozen list value" (or dict): in a .bzl loading it, the .bzl fails and so does every
  package loading that ("Extension file has errors": no target); in a BUILD file, or in a
  function a BUILD file calls, the file stops there and keeps the targets made before it.
  Every changing method counts, even one that changes nothing (``D.update({})``, ``E.clear()``
  of an empty list, ``L.extend([])``, ``x += []``, ``D["k"] = 1`` of the same value), but
  ``D.pop(absent, default)`` and ``D.setdefault(present, x)`` are reads. Copies (``list(L)``,
  ``L + [...]``) and lists a .bzl function makes when called are not frozen, nor is what a
  module changes while it is still being evaluated.
- ``a += [...]`` on a list extends that list: ``b = a; a += ["x"]`` makes ``len(b)`` 1.

Static mode had no frozen values: it kept ``//frozen:a``, ``//mid:after``, ``//aug:a``...
(targets Bazel does not have) and named ``//alias:n0`` what Bazel names ``//alias:n1``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree
from ctxsel.workspace import Workspace
from oracles import require

FILES: dict[str, str] = {
    "WORKSPACE": 'workspace(name = "w")\n',
    "m/BUILD": "",
    "m/a.bzl": ('L = ["x"]\nE = []\nD = {"k": 1}\nED = {}\nN = {"inner": [1]}\n'
                "def get():\n    return L\ndef fresh():\n    return []\ndef add_to(x):\n    x.append(1)\n    return x\n"
                'def set_k():\n    D["k"] = 2\ndef extend_default(srcs = []):\n    srcs += ["x"]\n    return srcs\n'),
    # a .bzl changing a loaded list fails, and every package loading it has no target
    "frozen/b.bzl": 'load("//m:a.bzl", "L")\nL.append(1)\nX = 1\n',
    "frozen/BUILD": 'load(":b.bzl", "X")\ncc_library(name = "a")\n',
    # a BUILD file stops at the change (directly or in a function it calls): targets before it stay
    "mid/BUILD": 'load("//m:a.bzl", "D")\ncc_library(name = "before")\nD["k"] = 2\ncc_library(name = "after")\n',
    "call/BUILD": 'load("//m:a.bzl", "set_k")\ncc_library(name = "before")\nset_k()\ncc_library(name = "after")\n',
    "nested/BUILD": 'load("//m:a.bzl", "N")\nN["inner"].append(2)\ncc_library(name = "a")\n',
    "aug/BUILD": 'load("//m:a.bzl", "get")\nx = get()\nx += ["y"]\ncc_library(name = "a")\n',
    "default/BUILD": 'load("//m:a.bzl", "extend_default")\nextend_default()\ncc_library(name = "a")\n',
    **{f"{pkg}/BUILD": f'load("//m:a.bzl", "L", "E", "D", "ED")\n{stmt}\ncc_library(name = "a")\n' for pkg, stmt in {
        "upd_empty": "D.update({})",
        "clear_empty": "ED.clear()",
        "lclear_empty": "E.clear()",
        "ext_empty": "L.extend([])",
        "aug_empty": "x = L\nx += []",
        "set_same": 'D["k"] = 1',
        "lset": 'L[0] = "x"',
        "pop_present": 'D.pop("k")',
        "sd_absent": 'D.setdefault("new", 5)',
        # reads: these keep their target
        "popd": 'D.pop("missing", None)',
        "sd": 'D.setdefault("k", 5)',
    }.items()},
    # what is not frozen: a function's fresh list, copies, a module changing its own values
    "fresh/BUILD": 'load("//m:a.bzl", "fresh", "add_to")\nx = add_to(fresh())\ncc_library(name = "a" + str(len(x)))\n',
    "copy/BUILD": 'load("//m:a.bzl", "L")\nx = list(L)\nx.append("z")\ny = L + ["q"]\ny.append(1)\ncc_library(name = "a" + str(len(x)) + str(len(y)))\n',
    "self/b.bzl": "X = []\nX.append(1)\ndef f():\n    X.append(2)\n",
    "self/BUILD": 'load(":b.bzl", "X", "f")\ncc_library(name = "a" + str(len(X)))\nf()\ncc_library(name = "after")\n',
    # += extends the list in place
    "alias/BUILD": 'a = []\nb = a\na += ["x"]\ncc_library(name = "n" + str(len(b)))\n',
    "tuple/BUILD": 'a = (1,)\nb = a\na += (2,)\ncc_library(name = "n" + str(len(b)))\n',
    "use/BUILD": 'cc_library(name = "u", deps = ["//mid:before", "//alias:n1"])\n',
}

#: Bazel 4.2.3 on FILES
RULES = {
    "//mid:before", "//call:before", "//popd:a", "//sd:a", "//fresh:a1", "//copy:a23", "//self:a1",
    "//alias:n1", "//tuple:n1", "//use:u",
}


def _rules(ws: Workspace) -> set[str]:
    return {i for i in ws.graph if ws.adapter.reportable(ws.graph, i)}


def test_changing_a_frozen_value_stops_the_file(tmp_path: Path) -> None:
    """Old: also //frozen:a, //mid:after, //call:after, //nested:a, //aug:a, //default:a, the
    nine ``<pkg>:a`` of the changing methods, //self:after, and //alias:n0 for //alias:n1."""
    ws = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="static", use_cache=False)
    assert _rules(ws) == RULES
    assert set(ws.blast_radius(["//mid:before"]).ids) == {"//mid:before", "//use:u"}
    stopped = next(w for w in ws.warnings if "Bazel stops a file on" in w)
    assert stopped.startswith("static: 17 error(s)") and "a change to a loaded .bzl's list or dict" in stopped, stopped
    assert "aug/BUILD:3: trying to mutate a frozen list value" in stopped, stopped


@pytest.mark.oracle
def test_bazel_freezes_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RULES as Bazel 4.2.3 answers them (tool mode: one ``bazel query --keep_going``)."""
    monkeypatch.setenv("CTXSEL_BAZEL", require("oracle-bazel4"))
    tool = Workspace.open(write_tree(tmp_path, FILES), adapter="bazel", source="tool", use_cache=False)
    assert _rules(tool) == RULES
