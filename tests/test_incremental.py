"""An editor buffer's re-analysis takes what an edit did not touch from the last analysis
(engine/incremental.py).  Whatever it reuses, the result must be what a fresh analysis of the new text
gives: after random edits of real modules (typing, replacing a name, commenting a line out, adding and
removing lines, half-typed syntax), the summary equals a fresh one field for field, the syntax tree
equals `ast.parse`'s node for node, and the findings (with the variants of functions called with tensors)
equal a fresh workspace's."""
from __future__ import annotations

import ast
import copy
import dataclasses
import random
import re
import sys
import zlib
from pathlib import Path

import pytest

from fullgraph.api import Workspace
from fullgraph.engine import incremental, suppressions
from fullgraph.engine.nodes import extent
from fullgraph.engine.module import ModuleAnalyzer
from fullgraph.modnames import module_name_for
from fullgraph.rules.registry import RULESET
from fullgraph.positions import Pos, Span

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from lsp_latency import model_file  # noqa: E402

CASES = sorted((ROOT / "bench" / "modules" / "cases").glob("*.py"))
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


def _edit(lines: list[str], rng: random.Random) -> list[str]:
    """One edit of the kind people make while typing (the text may stop parsing)."""
    lines = list(lines)
    i = rng.randrange(len(lines))
    line = lines[i]
    body, end = line.rstrip("\r\n"), line[len(line.rstrip("\r\n")):] or "\n"
    kind = rng.choice(["type", "type", "type", "name", "name", "comment", "newline", "delete", "junk", "import"])
    if kind == "type":  # a character at the end of a line (a space keeps it parsing; a letter may not)
        lines[i] = body + rng.choice(" x0)") + end
    elif kind == "name":  # one name replaced by another name of the module
        names = _NAME.findall("".join(lines))
        spots = list(_NAME.finditer(body))
        if spots and names:
            m = rng.choice(spots)
            lines[i] = body[:m.start()] + rng.choice(names) + body[m.end():] + end
    elif kind == "comment":
        indent = len(body) - len(body.lstrip())
        lines[i] = body[:indent] + "# " + body[indent:] + end
    elif kind == "newline":
        lines.insert(i, "\n")
    elif kind == "delete" and len(lines) > 1:
        del lines[i]
    elif kind == "junk":  # half-typed code
        lines[i] = body + rng.choice([" (", ":", " = ", "'"]) + end
    elif kind == "import":  # a change of what the module's names are
        lines.insert(rng.randrange(1, len(lines)), rng.choice(["import os\n", "from torch import nn as torch\n",
                                                               "print = None\n"]))
    return lines


def _fresh(path: str, text: str):
    return ModuleAnalyzer(path, text, *module_name_for(path), recover=True, rules=RULESET).run()


def _check_file(src: str, path: Path, steps: int, seed: int, findings_every: int) -> int:
    """Edit `src` `steps` times; after each, the incremental analysis must equal a fresh one.  Returns
    how many analyses reused something (so that the test cannot pass by never reusing)."""
    rng = random.Random(seed)
    path.write_text(src)
    ws = Workspace()
    ws.set_text(str(path), src)
    lines = src.splitlines(keepends=True)
    reused = 0
    for step in range(steps):
        new = _edit(lines, rng)
        text = "".join(new)
        memo = ws._memos.get(str(path))
        got = ws.set_text(str(path), text)
        want = _fresh(str(path), text)
        assert got == want, f"{path.name} step {step}: summaries differ after the edit"
        fresh_memo = ws._memos.get(str(path))
        if want.syntax_error is not None:  # the memo of the last text that parsed stays for the next edit
            assert fresh_memo is memo
        elif memo is not None:
            reused += any(u is memo.units.get(k) for k, u in fresh_memo.units.items())
        if fresh_memo is not memo:  # the tree kept for the next edit is the text's
            assert ast.dump(fresh_memo.tree, include_attributes=True) == \
                ast.dump(ast.parse(text), include_attributes=True), f"{path.name} step {step}: syntax trees differ"
        if step % findings_every == 0:
            other = Workspace()
            other.set_text(str(path), text)
            assert repr(ws.findings_for([str(path)], fixes=False)) == \
                repr(other.findings_for([str(path)], fixes=False)), f"{path.name} step {step}: findings differ"
        if want.syntax_error is None:  # the next edit starts from the last text that parsed
            lines = new
    return reused


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_incremental_equals_fresh_on_real_modules(case, tmp_path):
    _check_file(case.read_text(), tmp_path / case.name, steps=12, seed=zlib.crc32(case.stem.encode()), findings_every=3)


def test_incremental_equals_fresh_on_a_large_model_file_and_reuses(tmp_path, monkeypatch):
    moved = []
    real = incremental.shifted
    monkeypatch.setattr(incremental, "shifted", lambda unit, d: moved.append(d) or real(unit, d))
    reused = _check_file(model_file(400), tmp_path / "model.py", steps=60, seed=3, findings_every=5)
    assert reused >= 20  # most edits keep most of the module: its units are taken from the memo
    assert len(moved) >= 20  # and after a line added or removed, those below it, moved


def test_reparse_keeps_untouched_statements_and_falls_back_when_unsure():
    src = "import torch\n\n\ndef f(x):\n    return x + 1\n\n\ndef g(x):\n    return x * 2\n"
    lines = incremental.split(src)
    tree = ast.parse(src)
    memo = incremental.Memo(lines, tree, [extent(s) for s in tree.body], (), {})
    # a keystroke inside g: f's node is the memo's, g's is new, and the whole equals a fresh parse
    edited = src.replace("x * 2", "x * 3")
    new = incremental.reparse(memo, incremental.split(edited), "m.py")
    assert new is not None and new.body[1] is tree.body[1] and new.body[2] is not tree.body[2]
    assert ast.dump(new, include_attributes=True) == ast.dump(ast.parse(edited), include_attributes=True)
    # an unfinished block, an opened string: parsed whole by the caller
    assert incremental.reparse(memo, incremental.split(src.replace("    return x * 2", "    return (x")), "m.py") is None
    assert incremental.reparse(memo, incremental.split(src.replace("\n\n\ndef g", "\n'''\n\ndef g")), "m.py") is None
    # an indented line between two functions belongs to the first: not parsed on its own
    assert incremental.reparse(memo, incremental.split(src.replace("\n\n\ndef g", "\n    y = 2\n\ndef g")), "m.py") is None
    # a line added in f: g's node moves down with it (in place: the memo cannot serve again)
    added = src.replace("    return x + 1\n", "    y = x\n    return y + 1\n")
    new = incremental.reparse(memo, incremental.split(added), "m.py")
    assert new is not None and new.body[2] is tree.body[2] and memo.spent
    assert ast.dump(new, include_attributes=True) == ast.dump(ast.parse(added), include_attributes=True)
    assert incremental.reparse(memo, incremental.split(added), "m.py") is None


WRITES_ELSEWHERE = '''import torch
import torch.nn as nn

model = nn.Linear(4, 4)
compiled = torch.compile(model, fullgraph=True)


def train(x):
    import torch._dynamo
    torch._dynamo.config.capture_scalar_outputs = True
    torch._logging.set_logs()
    return compiled(x, 3)


def other(x):
    return x + 1
'''


def test_a_reused_statement_adds_again_what_its_functions_added_elsewhere(tmp_path):
    """`train` adds a call to a root the module's top level made, an import and a Dynamo setting to the
    module's sets: taken from the memo (an edit in `other`), it must add them again."""
    path = str(tmp_path / "train.py")
    ws = Workspace()
    first = ws.set_text(path, WRITES_ELSEWHERE)
    assert first.roots[0].calls and "torch._dynamo" in first.imports and first.dynamo_config
    memo = ws._memos[path]
    edited = WRITES_ELSEWHERE.replace("return x + 1", "return x + 2")
    got = ws.set_text(path, edited)
    train = next(u for k, u in ws._memos[path].units.items() if "def train" in k[2])
    assert any(train is u for u in memo.units.values())  # taken from the memo, not analysed again
    assert got == _fresh(path, edited)
    assert got.roots[0].calls == first.roots[0].calls and got.imports == first.imports
    assert got.dynamo_config == first.dynamo_config


def test_a_suppression_marker_in_any_case_next_to_text_that_is_not_ascii():
    """The marker is looked for case-insensitively before anything is tokenized (in the lower-cased bytes)."""
    for marker in ("FullGraph: ignore[FG101]", "FULLGRAPH: IGNORE", "fullGRAPH: ignore[fg101, fg102]"):
        text = f"x = 'ünïcödé 😀 中文'\nprint(x)  # {marker}\n"
        got = suppressions.read(text, text.splitlines(), ast.parse(text))
        assert list(got) == [1] and got == suppressions.read(text, text.splitlines(), None)
    text = "x = 'ünïcödé: FULLGRAPH'\nprint(x)  # fullgraph ignore\n"
    assert suppressions.read(text, text.splitlines(), ast.parse(text)) == {}


def test_suppression_comments_are_read_from_their_statements_as_from_the_whole_file():
    """In a module that parses, only the statements holding "fullgraph:" are tokenized
    (engine/suppressions.py): the same
    suppressions as tokenizing the whole file, whether the text is in a comment (at the end of a line,
    on a line of its own between statements) or in a string (a docstring, which suppresses nothing)."""
    rng = random.Random(5)
    lines = model_file(60).splitlines(keepends=True)
    for _ in range(25):
        i = rng.randrange(len(lines))
        body = lines[i].rstrip("\n")
        if '"""' in body:  # a docstring's text
            lines[i] = body.replace('"""', '"""# fullgraph: ignore[FG102] ', 1) + "\n"
        elif not body.rstrip().endswith("\\"):
            lines[i] = body + rng.choice(["  # fullgraph: ignore[FG101]", "  # FULLGRAPH: IGNORE"]) + "\n"
        if rng.random() < 0.3:
            lines.insert(i, "# fullgraph: ignore[FG301]\n")
    text = "".join(lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        pytest.fail("the sprinkled text should parse")
    lines = text.splitlines()
    whole = suppressions.read(text, lines, None)
    assert suppressions.read(text, lines, tree) == whole
    assert len(whole) >= 10 and not any(lines[n].lstrip().startswith('"""') for n in whole)


def _every_span_moved(x, d: int):
    """The oracle for incremental.shifted: every Span anywhere in `x` (and the ints of the two fields
    that hold lines, `block` and `decorator_lines`) `d` lines down."""
    if isinstance(x, Span):
        return Span(Pos(x.start.line + d, x.start.col), Pos(x.end.line + d, x.end.col))
    if isinstance(x, (tuple, list, set, frozenset)):
        return type(x)(_every_span_moved(i, d) for i in x)
    if isinstance(x, dict):
        return {k: _every_span_moved(v, d) for k, v in x.items()}
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        new = copy.copy(x)
        for f in dataclasses.fields(x):
            v = getattr(x, f.name)
            if f.name == "block":
                v = None if v is None else v + d
            elif f.name == "decorator_lines":
                v = [n + d for n in v]
            else:
                v = _every_span_moved(v, d)
            object.__setattr__(new, f.name, v)
        return new
    return x


@pytest.mark.parametrize("source", ["cases", "model"])
def test_a_moved_statement_has_every_position_moved(source):
    """incremental.shifted knows which summary fields hold positions: it must move exactly what a
    shift of every Span found anywhere moves, on every unit of real modules."""
    texts = [c.read_text() for c in CASES] if source == "cases" else [model_file(200)]
    seen = 0
    for text in texts:
        an = ModuleAnalyzer("m.py", text, "m", remember=True, rules=RULESET)
        an.run()
        if an.memo is None:
            continue
        for unit in an.memo.units.values():
            moved = incremental.shifted(unit, 7)
            if moved is None:
                continue
            seen += 1
            assert moved == _every_span_moved(unit, 7)
            assert moved != unit or not (unit.functions or unit.classes or unit.lists)
    assert seen >= (20 if source == "cases" else 5)


UNDO = '''import torch
import torch.nn as nn

SCALE = 2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def scale(self, h, k):
        if (h > 0).any():
            print("positive")
        return h * k

    def forward(self, x):
        return self.scale(self.lin(x), SCALE)


model = torch.compile(Block(), fullgraph=True)
'''


def _findings_with_fixes(ws, path):
    return [(f.code, f.span, f.message, [x.title for x in f.fixes], f.data.get("fix_edits"))
            for f in ws.findings_for([path], fixes=True)]


def test_enter_then_undo_gives_the_findings_and_fixes_of_the_first_text(tmp_path):
    """A new line moves the statements below it in the kept syntax tree; undoing it brings back the
    first text, whose tree, fix sources and variants were kept by its hash: they must not be served
    with the moved positions."""
    path = str(tmp_path / "block.py")
    ws = Workspace()
    ws.set_text(path, UNDO)
    first = _findings_with_fixes(ws, path)
    assert any(f[0] == "FG301" for f in first) and any(f[3] for f in first)  # a variant's break, a fix
    memo = ws._memos[path]
    ws.set_text(path, UNDO.replace("SCALE = 2\n", "SCALE = 2\n# a new line\n"))  # a line above the class
    assert memo.spent  # the class's statement was moved in place, not parsed again
    _findings_with_fixes(ws, path)
    ws.set_text(path, UNDO)  # Ctrl+Z
    assert _findings_with_fixes(ws, path) == first
    # the same with an edit parsed whole in between (the moved nodes are not moved back then) and the
    # variants' memo emptied (it is bounded): what was kept for the first text's tree must not serve
    ws.set_text(path, UNDO.replace("SCALE = 2\n", "SCALE = 2\n# a new line\n"))
    ws.set_text(path, "#\n" + UNDO.replace("SCALE = 2\n", "SCALE = 2\n# a new line\n"))
    ws.set_text(path, UNDO)
    ws.project.arrivals.variants.clear()
    assert _findings_with_fixes(ws, path) == first


def test_only_the_buffers_edited_last_keep_their_syntax_tree(tmp_path):
    """A memo's syntax tree is most of its memory: only the last few buffers' are kept.  A buffer edited
    again after that parses whole, and still takes its unchanged statements' analyses from the memo."""
    ws = Workspace()
    text = model_file(120)
    paths = [str(tmp_path / f"m{i}.py") for i in range(5)]
    for p in paths:
        ws.set_text(p, text)
    assert [ws._memos[p].tree is not None for p in paths] == [False, False, True, True, True]
    old = ws._memos[paths[0]]
    edited = text.replace("h = F.gelu(self.fc1(x))", "h = F.gelu(self.fc1(x)) ", 1)
    got = ws.set_text(paths[0], edited)
    assert got == _fresh(paths[0], edited)
    new = ws._memos[paths[0]]
    assert new.tree is not None and sum(u is old.units.get(k) for k, u in new.units.items()) >= len(new.units) - 1


def test_a_class_sees_the_names_bound_above_it_not_the_modules_last(tmp_path):
    """Found by the random edits: the module's names at the end are the same in both texts, but the
    class's base is resolved with what `torch` is bound to *above* the class, which moved."""
    below = ("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
             "from torch import nn as torch\n")
    above = ("import torch\nfrom torch import nn as torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
             "        return x\n\n\n\n")
    path = str(tmp_path / "m.py")
    ws = Workspace()
    ws.set_text(path, below)
    got = ws.set_text(path, above)
    assert got == _fresh(path, above)
    assert got.classes["m.M"].bases == ["torch.nn.nn.Module"]


def test_a_keystroke_that_breaks_the_syntax_reuses_the_other_statements(tmp_path, monkeypatch):
    """A half-typed call: the text does not parse, the block holding it is blanked (as a fresh analysis
    does), and the rest keeps its analyses: the statements whose functions read nothing the blanking
    changed are not analysed again, and the variants' base analysis takes the recovered tree instead of
    recovering the text a second time."""
    from fullgraph.engine.analyzer import FunctionAnalyzer

    path = str(tmp_path / "model.py")
    text = model_file(300)
    ws = Workspace()
    ws.set_text(path, text)
    ws.findings_for([path], fixes=False)
    total = len(ws.project.modules[path].functions)
    broken = text.replace("h = F.gelu(self.fc1(x))", "h = F.gelu(self.fc1(x) (", 1)
    parses, analysed = [], []
    real_parse, real_fn = ast.parse, FunctionAnalyzer.analyze_function
    monkeypatch.setattr(ast, "parse", lambda *a, **k: parses.append(len(a[0])) or real_parse(*a, **k))
    monkeypatch.setattr(FunctionAnalyzer, "analyze_function", lambda self: analysed.append(1) or real_fn(self))
    got = ws.set_text(path, broken)
    findings = ws.findings_for([path], fixes=False)
    monkeypatch.undo()
    assert got.syntax_error is not None and got == _fresh(path, broken)
    other = Workspace()
    other.set_text(path, broken)
    assert repr(findings) == repr(other.findings_for([path], fixes=False))
    # the edited region (it fails), the whole text (it fails: its error is reported), the recovered text's
    # region (its broken block blanked): one parse of the whole text
    assert len(parses) <= 3 and sum(n > len(broken) / 2 for n in parses) == 1
    assert len(analysed) < total / 3
