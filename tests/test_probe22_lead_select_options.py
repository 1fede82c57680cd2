"""Session 22 (helper hd's findings): ``select`` takes the change selectors of the other commands.

Old: ``select`` declared its own ``--since/--base/--head/--staged/--files`` with other help texts
(``--files`` "repeatable" though ``a,b`` also works; no REF/A/B metavars), and a co-change reason
read "changes with seed in 1 commits". Now the options are the shared ones and the reason counts.
"""

from __future__ import annotations

from conftest import run_cli
from ctxsel.ranking import rank_files


def test_select_help_shows_the_shared_change_selectors() -> None:
    select_help = run_cli("select", "--help").stdout
    radius_help = run_cli("blast-radius", "--help").stdout
    for line in ("--since REF", "--base A", "--head B", "--files F"):
        assert line in select_help and line in radius_help, line
    assert "repeat, or a,b,c" in select_help


def test_a_count_reason_agrees_in_number() -> None:
    ranked = rank_files({"a.ts": 1, "b.ts": 12, "c.ts": 2.5}, "changes with seed in {value} commit{s}")
    assert {p: reason for p, _, reason in ranked} == {
        "a.ts": "changes with seed in 1 commit",
        "b.ts": "changes with seed in 12 commits",
        "c.ts": "changes with seed in 2.50 commits",
    }
