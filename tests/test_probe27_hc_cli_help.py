"""Session 27 probe: every ``--help`` names its values the way its text talks about them.

Old: typer's default metavars leaked into the help: ``--depth <int range>  Only tests within N
edges``, ``--repo <str>``, ``--budget <int range>``, ``--timeout <float range>``, ``-o <str>
Write to FILE`` -- the text spoke of N and FILE, the synopsis of Python types. Now each value
has a name (DIR, N, FILE, FORMAT, TOKENS, SECONDS ...).
"""

from __future__ import annotations

import re

import pytest

from ctxsel.cli import main

COMMANDS = ["owners", "blast-radius", "tests", "pre-commit", "graph", "mcp", "select", "index"]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_no_python_type_metavars(command: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*([command] if command else []), "--help"]) == 0
    text = capsys.readouterr().out
    assert not re.search(r"<(str|int|float)( range)?>", text), text


def test_the_values_the_text_names_are_the_metavars(capsys: pytest.CaptureFixture[str]) -> None:
    main(["tests", "--help"])
    tests_help = capsys.readouterr().out
    assert re.search(r"--depth N\s+Only tests within N edges", tests_help)
    main(["graph", "--help"])
    assert re.search(r"-o, --output FILE\s+Write to FILE", capsys.readouterr().out)
    main(["--help"])
    assert "--repo DIR" in capsys.readouterr().out
