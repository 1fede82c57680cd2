"""``ctxsel owners`` and ``--owner`` scoping, end to end on small repositories built in tmp_path."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import write_tree as write

from ctxsel.adapters.base import Adapter
from ctxsel.graph import BuildGraph, Node
from ctxsel.workspace import Workspace

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def validate(body: dict, schema: str) -> None:
    """The output matches its published JSON Schema (selector/schemas/<name>.json)."""
    jsonschema = pytest.importorskip("jsonschema")
    from ctxsel.render import json_schema

    jsonschema.validate(body, json_schema(schema))


def git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, timeout=30)


GITHUB_FILE = """\
* @global
/docs/ @doctocat
/apps/ @octocat
/apps/github
*.js @js-owner #inline comment
!negated @nobody
"""


@pytest.fixture
def plain_repo(tmp_path: Path) -> Path:
    """A git repository with no build system at all: ``owners`` must still work."""
    write(tmp_path, {
        ".github/CODEOWNERS": GITHUB_FILE,
        "CODEOWNERS": "* @ignored-because-github-reads-.github-first\n",
        "docs/a.md": "", "docs/deep/b.md": "", "apps/web/x.py": "", "apps/github/y.py": "",
        "src/app.js": "", "node_modules/dep/index.py": "",
    })
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    if shutil.which("git"):
        git_init(tmp_path)
    return tmp_path


def test_owners_json(cli, plain_repo):
    proc = cli("--repo", str(plain_repo), "owners", "docs/deep/b.md", "/apps/github/y.py", "src/app.js",
               "not/yet/created.js", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["schema_version"] == 1
    assert body["codeowners"] == ".github/CODEOWNERS" and body["syntax"] == "github"
    assert body["owners"] == {
        "docs/deep/b.md": ["@doctocat"],
        "apps/github/y.py": [],
        "src/app.js": ["@js-owner"],
        "not/yet/created.js": ["@js-owner"],
    }
    assert body["rules"]["docs/deep/b.md"] == [{"line": 2, "pattern": "/docs/", "section": None}]
    validate(body, "owners")
    # the malformed line is reported with file:line and the rest of the file applies
    assert ".github/CODEOWNERS:6:" in proc.stderr


def test_owners_text_from_a_subdirectory(cli, plain_repo):
    proc = cli("owners", "a.md", "deep", cwd=plain_repo / "docs")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["docs/a.md\t@doctocat", "docs/deep\t@doctocat"]


@needs_git
def test_unowned_uses_git_ls_files(cli, plain_repo):
    proc = cli("--repo", str(plain_repo), "-q", "owners", "--unowned", ".", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["unowned"] == ["apps/github/y.py"]  # node_modules is git-ignored
    validate(body, "owners")
    proc = cli("--repo", str(plain_repo), "-q", "owners", "--unowned", "docs")
    assert proc.returncode == 0 and proc.stdout == ""


def test_unowned_without_git_walks_and_skips_node_modules(cli, tmp_path):
    write(tmp_path, {
        "CODEOWNERS": "/src/ @team\n",
        "src/a.py": "", "lib/b.py": "", "node_modules/x/c.py": "", ".git-not-a-repo": "",
    })
    proc = cli("--repo", str(tmp_path), "owners", "--unowned", ".")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [".git-not-a-repo", "CODEOWNERS", "lib/b.py"]


def test_gitlab_location_and_override(cli, tmp_path):
    write(tmp_path, {".gitlab/CODEOWNERS": "* @all\n[Docs] @docs-team\ndocs/\n", "docs/a.md": ""})
    proc = cli("--repo", str(tmp_path), "owners", "docs/a.md", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["syntax"] == "gitlab" and body["owners"] == {"docs/a.md": ["@all", "@docs-team"]}
    write(tmp_path, {"other/OWNERS.txt": "docs/ @github-style\n"})
    proc = cli("--repo", str(tmp_path), "owners", "docs/a.md", "--codeowners", str(tmp_path / "other/OWNERS.txt"),
               "--codeowners-syntax", "github", "--format", "json")
    assert json.loads(proc.stdout)["owners"] == {"docs/a.md": ["@github-style"]}


def test_missing_codeowners_is_a_user_error(cli, tmp_path):
    proc = cli("--repo", str(tmp_path), "owners", "x.py")
    assert proc.returncode == 2
    assert "no CODEOWNERS file" in proc.stderr and "Traceback" not in proc.stderr
    proc = cli("--repo", str(tmp_path), "owners", "x.py", "--codeowners-syntax", "svn")
    assert proc.returncode == 2 and "svn" in proc.stderr
    proc = cli("--repo", str(tmp_path), "owners")
    assert proc.returncode == 2 and "--unowned" in proc.stderr


# ---------------------------------------------------------------- --owner through the API
class FakeAdapter(Adapter):
    """Just enough adapter to hold a hand-made graph (no build tool involved)."""

    name = "fake"

    @classmethod
    def detect(cls, root: Path) -> bool:
        return False

    def load_static(self, tracker):  # pragma: no cover - the graph is given
        raise NotImplementedError

    def load_tool(self, tracker):  # pragma: no cover
        raise NotImplementedError

    def test_command(self, tests: list[str]) -> list[str]:
        return ["fake-test", *tests]


def fake_workspace(root: Path) -> Workspace:
    """core <- api <- web; each has a test target; core's tests are owned by @core via srcs."""
    g = BuildGraph("fake", str(root))
    g.add_node(Node("//core:core", "lib", "core", srcs=("core/core.py",)))
    g.add_node(Node("//core:test", "test", "core", srcs=("core/core_test.py",), is_test=True))
    g.add_node(Node("//api:api", "lib", "api", srcs=("api/api.py",)))
    g.add_node(Node("//api:test", "test", "api", is_test=True))  # no srcs: owned through api/BUILD
    g.add_node(Node("//web:test", "test", "web", srcs=("web/web_test.py",), is_test=True))
    g.add_edge("//core:test", "//core:core")
    g.add_edge("//api:api", "//core:core")
    g.add_edge("//api:test", "//api:api")
    g.add_edge("//web:test", "//api:api")
    return Workspace(root, FakeAdapter(root), g)


def test_workspace_tests_filtered_by_owner(tmp_path):
    write(tmp_path, {
        "CODEOWNERS": "* @platform\n/core/ @core\n/api/BUILD @api-team\n/web/ @Web-Team\n",
        "api/BUILD": "",
    })
    ws = fake_workspace(tmp_path)
    everything = ws.tests(roots=["//core:core"])
    assert everything.tests == ["//api:test", "//core:test", "//web:test"]
    assert everything.dropped_by_owner is None and "dropped_by_owner" not in everything.as_json()

    mine = ws.tests(roots=["//core:core"], owners=["@core"])
    assert mine.tests == ["//core:test"] and mine.dropped_by_owner == 2
    assert mine.argv == ["fake-test", "//core:test"]
    assert mine.as_json()["dropped_by_owner"] == 2

    # owned through the package's BUILD file (no srcs); owner names compare without case and '@'
    assert ws.tests(roots=["//core:core"], owners=["api-team", "@web-team"]).tests == ["//api:test", "//web:test"]

    radius = ws.blast_radius(roots=["//core:core"], owners=["@core"])
    assert radius.ids == ["//core:core", "//core:test"] and radius.dropped_by_owner == 3


def test_workspace_unknown_owner_warns(tmp_path):
    write(tmp_path, {"CODEOWNERS": "/core/ @core\n"})
    sel = fake_workspace(tmp_path).tests(roots=["//core:core"], owners=["@croe"])
    assert sel.tests == [] and sel.dropped_by_owner == 3
    assert any("@croe" in w for w in sel.warnings)


@needs_git
def test_workspace_below_the_git_top_level(tmp_path):
    # CODEOWNERS at the repository top, the build workspace in a subdirectory: its
    # workspace-relative paths are prefixed before matching.
    git_init(tmp_path)
    write(tmp_path, {".github/CODEOWNERS": "/mono/core/ @core\n/mono/web/ @web\n"})
    ws = fake_workspace(write(tmp_path / "mono", {"core/core.py": ""}))
    assert ws.tests(roots=["//core:core"], owners=["@web"]).tests == ["//web:test"]
    report = ws.owners_of(["core/core.py", "web/x.js"])
    assert report.owners == {"mono/core/core.py": ["@core"], "mono/web/x.js": ["@web"]}


# ---------------------------------------------------------------- --owner on the CLI, real adapter
PNPM_FILES = {
    "package.json": json.dumps({"name": "root", "private": True}),
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
    "packages/core/package.json": json.dumps({"name": "core", "version": "1.0.0", "scripts": {"test": "t"}}),
    "packages/ui/package.json": json.dumps(
        {"name": "ui", "version": "1.0.0", "scripts": {"test": "t"}, "dependencies": {"core": "workspace:*"}}),
    "packages/app/package.json": json.dumps(
        {"name": "app", "version": "1.0.0", "scripts": {"test": "t"}, "dependencies": {"ui": "workspace:*"}}),
    ".github/CODEOWNERS": "* @platform\n/packages/ui/ @acme/design\n/packages/app/ @acme/product\n",
}


@pytest.fixture
def pnpm_repo(tmp_path: Path) -> Path:
    pytest.importorskip("ctxsel.adapters.js.pnpm", reason="the pnpm adapter is not importable")
    return write(tmp_path, PNPM_FILES)


def test_cli_tests_owner_narrows(cli, pnpm_repo):
    base = ("--repo", str(pnpm_repo), "--adapter", "pnpm", "--source", "static", "--no-cache")
    proc = cli(*base, "tests", "core", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tests"] == ["app", "core", "ui"]

    proc = cli(*base, "tests", "core", "--owner", "@acme/design", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["tests"] == ["ui"] and body["dropped_by_owner"] == 2
    assert body["command"] == "pnpm --filter ui test"
    validate(body, "tests")

    proc = cli(*base, "tests", "core", "--owner", "@acme/design", "--owner", "@acme/product")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == ["app", "ui"]
    assert "1 test dropped (not owned by @acme/design, @acme/product)" in proc.stderr

    proc = cli(*base, "blast-radius", "core", "--owner", "@platform", "--format", "json")
    body = json.loads(proc.stdout)
    assert [a["id"] for a in body["affected"]] == ["core"] and body["dropped_by_owner"] == 2
    validate(body, "blast-radius")


def test_cli_owner_without_codeowners_is_a_user_error(cli, pnpm_repo):
    (pnpm_repo / ".github/CODEOWNERS").unlink()
    proc = cli("--repo", str(pnpm_repo), "--adapter", "pnpm", "--source", "static", "--no-cache",
               "tests", "core", "--owner", "@x")
    assert proc.returncode == 2 and "no CODEOWNERS file" in proc.stderr


def test_cli_tests_owner_on_the_bazel_fixture(cli, tmp_path, fixtures_dir):
    pytest.importorskip("ctxsel.adapters.bazel", reason="the Bazel adapter is not importable")
    repo = tmp_path / "bazel-basic"
    shutil.copytree(fixtures_dir / "bazel-basic", repo, ignore=shutil.ignore_patterns(".ctxsel"))  # never write into fixtures/
    write(repo, {".github/CODEOWNERS": "* @org/platform\n/core/ @org/core\n/app/ @alice\n"})
    base = ("--repo", str(repo), "--source", "static", "--no-cache")
    everything = json.loads(cli(*base, "tests", "//core:core", "--format", "json").stdout)["tests"]
    assert {"//app:app_test", "//core:core_test"} <= set(everything)

    proc = cli(*base, "tests", "//core:core", "--owner", "@org/core", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["tests"] == [t for t in everything if t.startswith("//core:")]
    assert body["dropped_by_owner"] == len(everything) - len(body["tests"])
    validate(body, "tests")

    proc = cli(*base, "tests", "//core:core", "--owner", "@alice", "--format", "command")
    assert proc.stdout.strip() == "bazel test -- " + " ".join(t for t in everything if t.startswith("//app:"))
