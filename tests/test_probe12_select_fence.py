"""select's markdown: a chunk's own backticks must not close its code fence (a README that
shows a ````markdown example, a test with a template literal of ``` runs)."""

from __future__ import annotations

import re

import pytest

from ctxsel.select import SelectRequest, select
from ctxsel.tokenize import count_tokens


def fenced_blocks(markdown: str) -> list[tuple[str, list[str]]]:
    """(opening fence, body lines) per block, closed the CommonMark way: the first later line
    that is only a backtick run at least as long as the opening one."""
    blocks, lines, i = [], markdown.split("\n"), 0
    while i < len(lines):
        opening = re.match(r"(`{3,})", lines[i])
        if not opening:
            i += 1
            continue
        fence, body, i = opening.group(1), [], i + 1
        while i < len(lines) and not re.fullmatch(rf"`{{{len(fence)},}}\s*", lines[i]):
            body.append(lines[i])
            i += 1
        blocks.append((fence, body))
        i += 1
    return blocks


@pytest.mark.parametrize("run", [3, 4, 7])
def test_a_chunk_with_backtick_runs_stays_inside_its_fence(tmp_path, run: int) -> None:
    ticks = "`" * run
    # the runs start their lines, where CommonMark would take them as a closing fence
    text = "\n".join(["def quoted_example():", '    """An example:', "", f"{ticks}python", "x = 1", ticks, '"""',
                      "    return 1", ""])
    (tmp_path / "quoted.py").write_text(text)
    budget = 400
    result = select(str(tmp_path), SelectRequest(query="quoted example", budget=budget))
    markdown = result.markdown()
    assert count_tokens(markdown) <= budget and result.packed.tokens <= budget
    blocks = fenced_blocks(markdown)
    assert len(blocks) == len(result.packed.blocks) == 1
    assert blocks[0][1] == result.packed.blocks[0].text.split("\n")  # the whole chunk, nothing after it
