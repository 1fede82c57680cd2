"""pnpm 12: dependency specs earlier probes did not cover, against ``pnpm --filter``.

Each case is one package ``p/d<i>`` depending on the workspace package ``a`` (or on the
root) with one spec; compared is which ``d<i>`` pnpm and ctxsel count as dependents.
The ``MEASURED_*`` lists pin pnpm 12.4.2's answers so the tests also fail without pnpm.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsfixtures import open_ws, pnpm_filter, radius_dirs
from oracles import which

pytestmark = pytest.mark.oracle

#: ``ROOT`` is replaced by the workspace's absolute path
PATH_SPECS = [
    "../a", "./../a", "../a/", "..//a", "../a/b/..", "../x/../a", "../../p/a", "ROOT/p/a", "link:ROOT/p/a",
    "file:ROOT/p/a", "workspace:ROOT/p/a", "link:///ROOTNS/p/a", "workspace:///ROOTNS/p/a",
    "workspace:a@../a", "workspace:b@../a", "workspace:a@link:../a", "workspace:file:../a", "workspace:link:../a",
    # no link
    "link:..\\a", "file:..\\a", "..\\a", "x/../../a", "FILE:../a", "file://../a", "file:/../a", "~/../a", "../a ",
    "npm:../a", "workspace:/../a", "../%61",
]
MEASURED_NO_LINK = PATH_SPECS[PATH_SPECS.index("link:..\\a"):]
#: exact ``version`` strings: a spec equal to the package's version links even when neither is semver
EXACT = {"v10": "1.0", "veq": "=1.0.0", "vsp": "1.0.0 ", "vlatest": "latest", "vempty": ""}
#: names an alias may start with (``workspace:<name>@*``)
ALIAS_NAMES = {"p/one": "1", "p/v1": "v1", "p/caret": "^a"}


def write(root: Path, rel: str, manifest: dict) -> None:
    (root / rel).mkdir(parents=True, exist_ok=True)
    (root / rel / "package.json").write_text(json.dumps(manifest))


def spec_root(root: Path, dependencies: list[tuple[str, str]], settings: str = "") -> Path:
    """``p/a`` (1.0.0) and ``p/d<i>`` with ``{name: spec}`` = ``dependencies[i]``."""
    root.mkdir(parents=True)
    write(root, "", {"name": "root", "version": "0.0.0"})
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*']\n" + settings)
    write(root, "p/a", {"name": "a", "version": "1.0.0"})
    for i, (name, spec) in enumerate(dependencies):
        spec = spec.replace("ROOTNS", str(root).lstrip("/")).replace("ROOT", str(root))
        write(root, f"p/d{i}", {"name": f"d{i}", "dependencies": {name: spec}})
    return root


def linking(dirs: set[str], dependencies: list[tuple[str, str]]) -> list[str]:
    return sorted(dependencies[int(d[3:])][1] for d in dirs if d.startswith("p/d"))


def test_path_specs_link_like_pnpm(tmp_path: Path) -> None:
    """Bare ``../a`` and absolute paths link (also after ``workspace:`` and ``workspace:a@``);
    backslashes, case-changed protocols and hosts do not. ctxsel linked ``link:..\\a`` and
    none of ``../a``, ``/abs/p/a``, ``workspace:a@../a``, ``workspace:link:../a``."""
    deps = [("a", s) for s in PATH_SPECS]
    root = spec_root(tmp_path / "ws", deps)
    ours = linking(radius_dirs(open_ws(root, "pnpm"), "a"), deps)
    assert ours == sorted(set(PATH_SPECS) - set(MEASURED_NO_LINK))
    if which("pnpm"):
        assert ours == linking(pnpm_filter(root, "...a"), deps)


def test_bare_relative_path_to_the_root_links_the_root(tmp_path: Path) -> None:
    """``"root": "../../"`` from ``p/d0`` is the root project (pnpm 12: ``...{.}`` lists p/d0)."""
    deps = [("root", "../../"), ("root", "link:../../"), ("root", ".."), ("root", "x/..")]
    root = spec_root(tmp_path / "ws", deps)
    ours = linking(radius_dirs(open_ws(root, "pnpm"), "root"), deps)
    assert ours == ["../../", "link:../../"]
    if which("pnpm"):
        assert ours == linking(pnpm_filter(root, "...{.}"), deps)


@pytest.mark.parametrize("plain", [False, True], ids=["workspace", "linkWorkspacePackages"])
def test_a_spec_equal_to_the_version_string_links(tmp_path: Path, plain: bool) -> None:
    """``workspace:1.0`` links a package at version ``1.0`` (not semver) -- pnpm compares the
    strings before any range -- and so do ``workspace:latest`` on ``latest`` and ``workspace:``
    on ``""``. Under ``linkWorkspacePackages`` a plain spec does too, unless pnpm reads it as a
    tag (``latest``, ``""``). ctxsel linked none of them."""
    root = tmp_path / "ws"
    root.mkdir()
    write(root, "", {"name": "root", "version": "0.0.0"})
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 't/*']\n" + ("linkWorkspacePackages: true\n" if plain else ""))
    cells = [(t, v if ok else "1.0.0") for t, v in EXACT.items() for ok in (True, False)]
    for t, v in EXACT.items():
        write(root, f"t/{t}", {"name": t, "version": v})
    for i, (t, spec) in enumerate(cells):
        write(root, f"p/d{i}", {"name": f"d{i}", "dependencies": {t: spec if plain else f"workspace:{spec}"}})
    ws = open_ws(root, "pnpm")
    ours = {t: sorted(d for d in radius_dirs(ws, t) if d.startswith("p/")) for t in EXACT}
    want_links = [t for t in EXACT if not plain or t in ("v10", "veq", "vsp")]
    assert ours == {t: [f"p/d{cells.index((t, EXACT[t]))}"] if t in want_links else [] for t in EXACT}
    if which("pnpm"):
        assert ours == {t: sorted(d for d in pnpm_filter(root, f"...{t}") if d.startswith("p/")) for t in EXACT}


def test_an_alias_may_start_with_a_digit_or_v(tmp_path: Path) -> None:
    """``workspace:1@*`` and ``workspace:v1@*`` link the packages named ``1`` and ``v1``
    (ctxsel read them as ranges); ``workspace:^a@*`` names ``^a``."""
    deps = [("x", f"workspace:{name}@*") for name in ALIAS_NAMES.values()]
    root = spec_root(tmp_path / "ws", deps)
    for rel, name in ALIAS_NAMES.items():
        write(root, rel, {"name": name, "version": "1.0.0"})
    ws = open_ws(root, "pnpm")
    ids = {n.package: n.id for n in ws.graph.nodes()}
    ours = {rel: linking(radius_dirs(ws, ids[rel]), deps) for rel in ALIAS_NAMES}
    assert ours == {rel: [f"workspace:{name}@*"] for rel, name in ALIAS_NAMES.items()}
    if which("pnpm"):
        assert ours == {rel: linking(pnpm_filter(root, "...{" + rel + "}"), deps) for rel in ALIAS_NAMES}


#: range -> the versions (of 1.0.0 and 2.0.0) pnpm 12.4.2 links it to, plain and after ``workspace:``
ODD_RANGES = {
    "^": [], ">=": [], "~>": [], "=": [], "||": [], "1 ||": ["1.0.0"], "^0.9 || 1 ||": ["1.0.0"],
    "1.0.0 || foo": ["1.0.0"], "2 || ^1": ["1.0.0", "2.0.0"],
}
#: after ``workspace:``: ``^`` and the empty spec are ``*``, a blank one is no range
WORKSPACE_ONLY = {"^": ["1.0.0", "2.0.0"], "": ["1.0.0", "2.0.0"], " ": []}


@pytest.mark.parametrize("prefix", ["", "workspace:"], ids=["linkWorkspacePackages", "workspace"])
def test_empty_alternatives_and_bare_operators_are_no_range(tmp_path: Path, prefix: str) -> None:
    """pnpm drops empty and unreadable ``||`` alternatives and reads a lone operator as no
    range; ctxsel read ``^``, ``>=``, ``||`` and ``1 ||`` as ``*`` (node-semver's reading)
    and ``1.0.0 || foo`` as no range."""
    cases = {**ODD_RANGES, **(WORKSPACE_ONLY if prefix else {})}
    root = tmp_path / "ws"
    root.mkdir()
    write(root, "", {"name": "root", "version": "0.0.0"})
    (root / "pnpm-workspace.yaml").write_text("packages: ['p/*', 't/*']\nlinkWorkspacePackages: true\n")
    write(root, "t/one", {"name": "one", "version": "1.0.0"})
    write(root, "t/two", {"name": "two", "version": "2.0.0"})
    deps: list[tuple[str, str]] = []
    for rng in cases:
        for name in ("one", "two"):
            write(root, f"p/d{len(deps)}", {"name": f"d{len(deps)}", "dependencies": {name: prefix + rng}})
            deps.append((name, prefix + rng))
    ws = open_ws(root, "pnpm")

    def answer(dirs_of: dict[str, set[str]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {rng: [] for rng in cases}
        for version, name in (("1.0.0", "one"), ("2.0.0", "two")):
            for d in dirs_of[name]:
                if d.startswith("p/d"):
                    out[deps[int(d[3:])][1][len(prefix):]].append(version)
        return out

    ours = answer({name: radius_dirs(ws, name) for name in ("one", "two")})
    assert ours == cases
    if which("pnpm"):
        assert ours == answer({name: pnpm_filter(root, f"...{name}") for name in ("one", "two")})


#: spec -> links (pnpm 12.4.2): spaces and tabs are blanks, other white space is part of the spec
BLANK_SPECS = {
    "workspace:*\t": True, "workspace:\t^1.0.0": True, "workspace: ^1.0.0 ": True, "\t^1.0.0": True, "1 ||\t2": True,
    "workspace:*\r": False, "workspace:^1.0.0\n": False, "workspace:\x0b*": False, "workspace:\u3000*": False,
    "^1.0.0\n": False, "^1.0.0\xa0": False, "*\n": False, "^1.0.0\r\n": False,
}


def test_only_spaces_and_tabs_are_blanks_in_a_spec(tmp_path: Path) -> None:
    """ctxsel trimmed with Python's ``str.strip`` and ``\\s``: ``workspace:*\\n`` and
    ``^1.0.0\\xa0`` linked; pnpm reads the newline and the no-break space as part of the spec."""
    deps = [("a", s) for s in BLANK_SPECS]
    root = spec_root(tmp_path / "ws", deps, "linkWorkspacePackages: true\n")
    ours = linking(radius_dirs(open_ws(root, "pnpm"), "a"), deps)
    assert ours == sorted(s for s, links in BLANK_SPECS.items() if links)
    if which("pnpm"):
        assert ours == linking(pnpm_filter(root, "...a"), deps)
