"""gitignore / .ctxselignore rules against git itself (``git ls-files -o --exclude-standard``).

``IgnoreRules`` and ``_walk_files`` must ignore exactly what git ignores: the glob dialect
(``globs.GIT``), the line syntax (comments, trailing spaces, ``!``, ``/``) and the rule
semantics (last match wins; nothing under an ignored directory comes back; a nested
``.gitignore`` decides before its parents).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxsel.files import IgnoreRules, _read_ignore_file, _walk_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TRICKY_RULES = [
    "**/logs/",
    "a/**/b",
    "[!x]1",
    "[]a]2",
    "[z-a]3",
    "\\!bang",
    "trailing-space   ",
    "escaped\\ ",
    "esc2\\\\  ",
    "*.tmp",
    "!keep.tmp",
    "build/",
    "!build/keep.txt",
    "x/a**b",
    "q/***/f",
    "dir/*",
    "!dir/sub/",
    "unclosed[a",
    "tb\\",
    "/rooted.txt",
    "nested/deep/*.c",
    "*/mid/*.h",
    "foo//",
    "tab\t",
    "#comment",
    "\\#hash",
    "[[:digit:]]x",
    "star*",
    "!starkeep",
    "m/*",
    "!m/keep/",
    "m/keep/*.o",
    "y/**",
    "!y/z",
    "**/deep2",
    "lit/",
    "/anch/dir/",
    "*a*a*a*b",
    "c**/d",
    "e/f**",
]

TRICKY_FILES = [
    "logs/x", "p/logs/y", "p/logs", "a/b", "a/c/b", "a/c/d/b", "ab", "a1", "x1", "]2", "a2", "b2",
    "z3", "a3", "!bang", "bang", "trailing-space", "trailing-space ", "escaped ", "escaped",
    "esc2\\", "esc2\\ ", "f.tmp", "keep.tmp", "d/keep.tmp", "build/keep.txt", "build/other",
    "x/a/b", "x/ac/db", "x/acdb", "q/f", "q/r/f", "q/r/s/f", "dir/a", "dir/sub/b", "dir/sub2/c",
    "unclosed[a", "unclosed", "tb\\", "tb", "rooted.txt", "sub/rooted.txt", "nested/deep/x.c",
    "nested/deep/e/x.c", "k/mid/z.h", "k/l/mid/z.h", "mid/z.h", "foo/x", "foo", "tab\t", "tab",
    "#comment", "#hash", "1x", "ax", "starfish", "starkeep", "m/a", "m/keep/b.o", "m/keep/c.c",
    "y/z", "y/w", "y/z/q", "r/s/deep2", "deep2", "lit", "lit/inner", "w/lit", "anch/dir/f",
    "w/anch/dir/f", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac",
    "cd", "cx/d", "cx/y/d", "c/x/d", "e/fg/h", "e/f",
]


def _repo(tmp_path: Path, files: list[str], ignore_files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for rel in files:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_dir():
            target.write_text("x")
    for rel, text in ignore_files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _git_kept(root: Path) -> set[str]:
    proc = subprocess.run(["git", "-C", str(root), "ls-files", "-o", "--exclude-standard", "-z"],
                          capture_output=True, check=True)
    return {p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p}


def _all_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and ".git" not in p.relative_to(root).parts)


def _files_for(files: list[str]) -> list[str]:
    """Drop a file that is also a directory's name (``p/logs`` and ``p/logs/y``): the directory wins."""
    dirs = {f.rsplit("/", 1)[0] for f in files if "/" in f}
    dirs |= {d.rsplit("/", i)[0] for d in list(dirs) for i in range(1, d.count("/") + 1)}
    return [f for f in files if f not in dirs]


def test_tricky_rules_match_git(tmp_path: Path) -> None:
    files = _files_for(TRICKY_FILES)
    root = _repo(tmp_path, files, {".gitignore": "\n".join(TRICKY_RULES) + "\n"})
    rules = IgnoreRules(_read_ignore_file(root / ".gitignore"))
    ours = {f for f in _all_files(root) if not rules.ignored(f)}
    assert ours == _git_kept(root)


def test_ignored_parent_directory_wins_over_negation(tmp_path: Path) -> None:
    """git never looks inside an ignored directory: ``!build/keep.txt`` cannot re-include.
    (The old rules said build/keep.txt was not ignored.)"""
    root = _repo(tmp_path, ["build/keep.txt", "build/x"], {".gitignore": "build/\n!build/keep.txt\n"})
    assert _git_kept(root) == {".gitignore"}
    rules = IgnoreRules(["build/", "!build/keep.txt"])
    assert rules.ignored("build/keep.txt")


@pytest.mark.parametrize("rule, path", [
    ("x/a**b", "x/ac/db"),  # "**" inside a segment is "*" (old: crossed "/")
    ("a[b", "a[b"),  # an unclosed "[" matches nothing (old: a literal "[")
    ("tb\\", "tb\\"),  # a trailing "\" matches nothing (old: a literal "\")
    ("foo//", "foo/x"),  # one trailing "/" is the directory marker, "foo/" matches no directory (old: "foo/")
    ("esc2\\\\  ", "esc2\\ "),  # "\\" escapes a backslash, not the space after it
])
def test_rules_git_does_not_match(tmp_path: Path, rule: str, path: str) -> None:
    root = _repo(tmp_path, [path], {".gitignore": rule + "\n"})
    assert path in _git_kept(root)
    assert not IgnoreRules([rule]).ignored(path)


@pytest.mark.parametrize("rule, path", [
    ("[z-a]3", "z3"),  # wildmatch takes "z" as a member before it reads "-a" (old: matched nothing)
    ("c**/d", "cd"),  # git strips the literal start "c", so "**/" is a globstar
    ("c**/d", "cx/y/d"),
    ("q/***/f", "q/f"),  # a whole segment of three stars is "**" (old: needed one directory)
])
def test_rules_git_matches(tmp_path: Path, rule: str, path: str) -> None:
    root = _repo(tmp_path, [path], {".gitignore": rule + "\n"})
    assert path not in _git_kept(root)
    assert IgnoreRules([rule]).ignored(path)


def test_tab_is_not_trimmed(tmp_path: Path) -> None:
    """git trims trailing spaces only (the old rules stripped the tab and ignored "tab")."""
    root = _repo(tmp_path, ["tab\t", "tab"], {".gitignore": "tab\t\n"})
    assert _git_kept(root) == {".gitignore", "tab"}
    rules = IgnoreRules(_read_ignore_file(root / ".gitignore"))
    assert rules.ignored("tab\t") and not rules.ignored("tab")


def test_nested_gitignore_negation_walk_matches_git(tmp_path: Path) -> None:
    """A nested ``!keep.log`` re-includes what the root's ``*.log`` ignores (git asks the deepest
    file first); the walk used outside git used to OR the files together."""
    files = ["a.log", "sub/keep.log", "sub/b.log", "sub/deeper/keep.log", "other/keep.log", "sub/x.txt"]
    ignore = {".gitignore": "*.log\n", "sub/.gitignore": "!keep.log\nx.txt\n"}
    root = _repo(tmp_path, files, ignore)
    expected = _git_kept(root)
    shutil.rmtree(root / ".git")
    assert set(_walk_files(root)) == expected


ALPHABET = "ab*?[]!/\\-"


def _random_rule(rnd: random.Random) -> str:
    body = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(1, 6)))
    prefix = rnd.choice(["", "", "!", "/", "**/"])
    return prefix + body + rnd.choice(["", "", "/"])


def _random_path(rnd: random.Random) -> str:
    return "/".join("".join(rnd.choice("ab!-[]") for _ in range(rnd.randint(1, 3))) for _ in range(rnd.randint(1, 3)))


@pytest.mark.parametrize("seed", range(6))
def test_random_rules_match_git(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    rules_text = [_random_rule(rnd) for _ in range(25)]
    files = _files_for(sorted({_random_path(rnd) for _ in range(80)}))
    root = _repo(tmp_path, files, {".gitignore": "\n".join(rules_text) + "\n"})
    rules = IgnoreRules(_read_ignore_file(root / ".gitignore"))
    ours = {f for f in _all_files(root) if not rules.ignored(f)}
    assert ours == _git_kept(root), rules_text


def _scan(rules: IgnoreRules, path: str, is_dir: bool) -> bool | None:
    """The last matching rule, found by trying every rule: what the index must agree with."""
    from ctxsel.globs import GIT, glob_regex

    name = path.rsplit("/", 1)[-1]
    for rule in reversed(rules._rules):
        if rule.dir_only and not is_dir:
            continue
        if re.fullmatch(glob_regex(rule.pattern, dialect=GIT), name if rule.basename else path):
            return not rule.negated
    return None


@pytest.mark.parametrize("seed", range(3))
def test_rule_index_agrees_with_trying_every_rule(seed: int) -> None:
    """Many rules of every shape the index files differently (literal, ``*suffix``, literal
    segment, literal run, no literal at all, repeated globs): same verdict as a scan."""
    rnd = random.Random(seed)
    words = ["a", "b", "ab", "src", "x1", "lib", ".py", "-", "!"]

    def part() -> str:
        return "".join(rnd.choice(words + ["*", "?", "**", "[ab]", "[!a]", "\\a"]) for _ in range(rnd.randint(1, 3)))

    lines = []
    for _ in range(600):
        body = "/".join(part() for _ in range(rnd.randint(1, 3)))
        lines.append(rnd.choice(["", "", "!", "/"]) + body + rnd.choice(["", "", "/"]))
    rules = IgnoreRules(lines)
    for _ in range(1500):
        path = "/".join("".join(rnd.choice(words) for _ in range(rnd.randint(1, 2))) for _ in range(rnd.randint(1, 4)))
        is_dir = rnd.random() < 0.3
        assert rules.decide(path, is_dir) == _scan(rules, path, is_dir), path
