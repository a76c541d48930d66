"""After an edit that only adds or removes blank lines (an Enter), the project moves its last results instead of
walking the roots again (engine/moved_results.py, engine/incremental.py's blank_lines_edit).  What the user sees must
be what a fresh workspace shows for the new text: the findings, the FG003 "could not follow" ones, the unfollowed
calls, the unresolved roots; and a blank line that means something to Python (inside a string, after a backslash)
is analysed again."""
from __future__ import annotations

import ast
import random
import sys
import zlib
from pathlib import Path

import pytest

from fullgraph.api import Workspace
from fullgraph.engine import incremental, project as project_mod
from fullgraph.positions import LineShift, Span

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from lsp_latency import model_file  # noqa: E402

CASES = sorted((ROOT / "bench" / "modules" / "cases").glob("*.py"))
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*.py"))


def _seen(ws: Workspace, path: str):
    """What the editor shows for `path` and the CLI lists, as text."""
    return repr((ws.findings_for([path], fixes=False), ws.unfollowed([path]), ws.project.unfollowed_calls(),
                 ws.project.unresolved_roots()))


def _blank_edit(lines: list[str], rng: random.Random) -> list[str]:
    lines = list(lines)
    blanks = [i for i, s in enumerate(lines) if not s.strip()]
    if blanks and rng.random() < 0.4:
        del lines[rng.choice(blanks)]
    else:
        i = rng.randrange(len(lines) + 1)
        lines[i:i] = rng.choice([["\n"], ["    \n"], ["\n", "\n"], ["        \n"]])
    return lines


@pytest.fixture
def moves(monkeypatch):
    """How many edits the project answered by moving its results (so that the tests cannot pass by never moving)."""
    count = []
    real = project_mod.moved

    def counted(*args):
        got = real(*args)
        count.append(got is not None)
        return got

    monkeypatch.setattr(project_mod, "moved", counted)
    return count


def _check(src: str, path: Path, steps: int, seed: int) -> None:
    rng = random.Random(seed)
    path.write_text(src)
    ws = Workspace()
    ws.set_text(str(path), src)
    _seen(ws, str(path))
    lines = src.splitlines(keepends=True)
    for step in range(steps):
        lines = _blank_edit(lines, rng)
        text = "".join(lines)
        ws.set_text(str(path), text)
        fresh = Workspace()
        fresh.set_text(str(path), text)
        assert _seen(ws, str(path)) == _seen(fresh, str(path)), f"{path.name} step {step}: results differ"


@pytest.mark.parametrize("case", CASES + EXAMPLES, ids=[c.stem for c in CASES + EXAMPLES])
def test_blank_lines_give_what_a_fresh_analysis_gives(case, tmp_path, moves):
    _check(case.read_text(), tmp_path / case.name, steps=6, seed=zlib.crc32(case.stem.encode()))


def test_most_blank_line_edits_of_real_modules_move_the_results(tmp_path, moves):
    for case in CASES[::4]:
        _check(case.read_text(), tmp_path / case.name, steps=4, seed=1)
    assert sum(moves) >= 0.6 * len(moves) and len(moves) >= 40


def test_an_enter_in_a_large_model_file_moves_every_finding(tmp_path, moves):
    _check(model_file(600), tmp_path / "model.py", steps=12, seed=5)
    assert len(moves) == 12 and all(moves)


STRINGS = '''import torch


@torch.compile(fullgraph=True)
def f(x):
    doc = """first
second"""
    if x.sum() > 0:
        print(doc)
    y = x + \\
        1
    return y
'''


@pytest.mark.parametrize("where,meaningful", [
    ('"""first', True),  # inside the triple-quoted string: its value changes
    ("x + \\", True),  # after a backslash: the logical line ends
    ("def f(x):", False),
    ("return y", False),
])
def test_a_blank_line_that_means_something_is_analysed_again(tmp_path, where, meaningful):
    lines = STRINGS.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if where in line) + 1
    new = lines[:at] + ["\n"] + lines[at:]
    text = "".join(new)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        assert meaningful
        return
    got = incremental.blank_lines_edit(lines, new, tree)
    assert (got is None) == meaningful
    if not meaningful:
        assert got == LineShift(at, 0, 1)
    path = tmp_path / "m.py"
    ws = Workspace()
    ws.set_text(str(path), STRINGS)
    _seen(ws, str(path))
    ws.set_text(str(path), text)
    fresh = Workspace()
    fresh.set_text(str(path), text)
    assert _seen(ws, str(path)) == _seen(fresh, str(path))


LINE_NAMED = """import torch


def evaluate(model, loader):
    total = 0.0
    for x in loader:
        out = model(x)
        total += out.sum().item()
        total += out.mean().item()
    return total


run_eval = torch.compile(evaluate)
"""


def test_a_text_naming_a_line_is_made_again(tmp_path, moves):
    """`only when the graph break at line 8 is fixed` names a line: those results are not moved but made again."""
    path = str(tmp_path / "m.py")
    ws = Workspace()
    ws.set_text(path, LINE_NAMED)
    assert any("line 8 " in (f.condition or "") for f in ws.findings_for([path], fixes=False))
    _seen(ws, path)
    ws.set_text(path, LINE_NAMED.replace("    total = 0.0\n", "    total = 0.0\n\n"))
    assert moves == [False]
    assert any("line 9 " in (f.condition or "") for f in ws.findings_for([path], fixes=False))


def test_a_line_shift_moves_what_is_below_and_drops_what_was_removed():
    s = LineShift(at=3, removed=2, added=0)
    assert s.span(Span.of(1, 0, 2, 4)) == Span.of(1, 0, 2, 4)
    assert s.span(Span.of(5, 1, 6, 2)) == Span.of(3, 1, 4, 2)
    assert s.span(Span.of(2, 1, 5, 2)) == Span.of(2, 1, 3, 2)
    assert s.span(Span.of(3, 0, 3, 0)) is None
    assert LineShift(at=3, removed=0, added=1).span(Span.of(3, 0, 3, 5)) == Span.of(4, 0, 4, 5)
