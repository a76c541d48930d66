"""Fixes keep the file: comments, blank lines, CRLF, tabs, non-ASCII, encodings, permissions; they are
idempotent; `--fix` converges in one run; `--diff` writes nothing; edits are code-point ranges."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness import check_code, dedent

from fullgraph.api import Workspace
from fullgraph.config import Config
from fullgraph.fixes import edits_for
from fullgraph.fixes.base import TextEdit, apply_edits
from fullgraph.rules import registry


def _findings(path: Path, **cfg):
    ws = Workspace(Config(project_root=str(path.parent), **cfg))
    return ws, ws.check([path]).findings


def _apply(path: Path, code: str, fix_id: str) -> str:
    ws, fs = _findings(path)
    text = path.read_bytes().decode("utf-8")
    for f in fs:
        if f.code == code and any(r.id == fix_id for r in f.fixes):
            return apply_edits(text, edits_for(ws, f, fix_id))
    raise AssertionError(f"{fix_id} not offered: {[(f.code, [r.id for r in f.fixes]) for f in fs]}")


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "fullgraph", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


CRLF_TABS = (
    "# -*- coding: utf-8 -*-\r\n"
    '"""Module docstring: données."""\r\n'
    "import torch\r\n"
    "\r\n"
    "\r\n"
    "@torch.compile(fullgraph=True)\r\n"
    "def f(x):\r\n"
    "\t# compute\r\n"
    "\tdonnées = x * 2  # é\r\n"
    "\r\n"
    "\t# report it\r\n"
    '\tprint("résumé 😀", données)  # trailing comment\r\n'
    "\treturn données + 1\r\n"
)


def test_crlf_tabs_comments_non_ascii_survive(tmp_path):
    p = tmp_path / "m.py"
    p.write_bytes(CRLF_TABS.encode("utf-8"))
    new = _apply(p, "FG101", "guard")
    assert "\n" not in new.replace("\r\n", "")  # every line still ends with CRLF
    assert new == CRLF_TABS.replace(
        '\t# report it\r\n\tprint("résumé 😀", données)  # trailing comment\r\n',
        '\t# report it\r\n\tif not torch.compiler.is_compiling():\r\n'
        '\t\tprint("résumé 😀", données)  # trailing comment\r\n')
    ast.parse(new)


def test_edits_are_code_point_ranges(tmp_path):
    p = tmp_path / "m.py"
    p.write_bytes(CRLF_TABS.encode("utf-8"))
    ws, fs = _findings(p)
    (f,) = [f for f in fs if f.code == "FG101"]
    (e,) = edits_for(ws, f, "suppress")
    line = CRLF_TABS.split("\r\n")[e.range.start.line]
    # the comment goes after the code points of the line, not its UTF-8 bytes
    assert e.range.start.col == len(line) and e.range.end == e.range.start
    assert e.new_text == "  # fullgraph: ignore[FG101]"
    # the LSP data carries the same ranges
    assert f.data["fix_edits"]["suppress"][0]["range"] == e.range


def test_suppress_multiline_statement_and_merge(tmp_path):
    p = tmp_path / "m.py"
    p.write_text(dedent('''
        import logging
        import torch

        logger = logging.getLogger(__name__)


        @torch.compile(fullgraph=True)
        def f(x):
            print(
                """multi
        line""",
                x,
            )
            logger.info("x")  # fullgraph: ignore[FG101]
            return x
        '''))
    new = _apply(p, "FG101", "suppress")
    assert '\n    )  # fullgraph: ignore[FG101]\n' in new
    p.write_text(new)
    assert not [f for f in _findings(p)[1] if f.code == "FG101" and f.span.start.line == 8]
    merged = _apply(p, "FG102", "suppress")
    assert 'logger.info("x")  # fullgraph: ignore[FG101, FG102]\n' in merged
    p.write_text(merged)
    assert not [f for f in _findings(p)[1] if f.code == "FG102"]


def _sources():
    out = []
    for r in registry.RULES:
        for i, ex in enumerate(r.examples):
            if ex.breaks and r.fixes:
                out.append(pytest.param(ex.code, id=f"{r.code}-{i}"))
    from fix_fixtures.cases import CASES

    out += [pytest.param(c, id=n) for n, (c, _, _) in CASES.items()]
    return out


@pytest.mark.parametrize("code", _sources())
def test_fixes_are_idempotent_and_touch_only_what_they_must(code, tmp_path):
    for f in check_code(code, tmp_path):
        for ref in f.fixes:
            edits = [TextEdit.from_data(d) for d in f.data["fix_edits"][ref.id]]
            new = apply_edits(code, edits)
            ast.parse(new)
            # lines before the first edit and after the last are untouched
            first = min(e.range.start.line for e in edits)
            assert new.splitlines()[:first] == code.splitlines()[:first]
            old_tail = code.splitlines()[max(e.range.end.line for e in edits) + 1:]
            assert new.splitlines()[len(new.splitlines()) - len(old_tail):] == old_tail
            # applying it again: the finding is gone, or the fix is no longer offered for it
            own = code.splitlines()[f.span.start.line].strip()
            for g in check_code(new, tmp_path):
                if g.code == f.code and new.splitlines()[g.span.start.line].strip() == own:
                    assert ref.id not in [r.id for r in g.fixes], \
                        f"{ref.id} offered again after applying it"


MANY = {
    "pkg/__init__.py": "",
    "pkg/model.py": dedent('''
        """Many findings in one tree."""
        import copy
        import math
        import time

        import torch

        from pkg.util import helper


        @torch.compile(fullgraph=True)
        def f(x):
            print("a", x)
            print("b", x)
            y = copy.deepcopy(x)
            time.sleep(0)
            torch._dynamo.graph_break()
            z = x * math.exp(y.sum())
            torch.save(z, "/dev/null")
            return helper(z)


        @torch.compile(fullgraph=True)
        def g(xs):
            a = next(xs)
            b = next(xs)
            return a + b


        out = g(iter([torch.ones(1), torch.ones(1)]))
        '''),
    "pkg/util.py": dedent('''
        import torch


        def helper(t):
            y = t.sin()
            torch._dynamo.graph_break()
            return y.cos()
        '''),
}


def _write_tree(root: Path) -> None:
    for rel, text in MANY.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.mark.parametrize("flags", [("--fix",), ("--fix", "--unsafe-fixes")])
def test_fix_converges_in_one_run(tmp_path, flags):
    _write_tree(tmp_path)
    r = _cli("check", ".", *flags, "--format", "json", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    for rel in MANY:
        ast.parse((tmp_path / rel).read_text())
    # nothing left to fix: a second run changes nothing
    before = {rel: (tmp_path / rel).read_bytes() for rel in MANY}
    again = _cli("check", ".", *flags, "--diff", cwd=tmp_path)
    assert "+++ " not in again.stdout, again.stdout
    assert {rel: (tmp_path / rel).read_bytes() for rel in MANY} == before
    import json

    doc = json.loads(r.stdout)
    for d in doc["diagnostics"]:
        applicable = [x for x in d["fixes"] if x["id"] != "suppress" and (x["safe"] or "--unsafe-fixes" in flags)]
        assert not applicable, d
    if "--unsafe-fixes" in flags:
        assert not doc["diagnostics"], [(d["code"], d["range"]) for d in doc["diagnostics"]]


def test_diff_writes_nothing(tmp_path):
    _write_tree(tmp_path)
    before = {rel: ((tmp_path / rel).read_bytes(), (tmp_path / rel).stat().st_mtime_ns) for rel in MANY}
    r = _cli("check", ".", "--diff", "--unsafe-fixes", cwd=tmp_path)
    assert r.returncode == 1
    assert "--- a/pkg/model.py\n+++ b/pkg/model.py\n" in r.stdout
    assert "-    torch._dynamo.graph_break()\n" in r.stdout
    assert {rel: ((tmp_path / rel).read_bytes(), (tmp_path / rel).stat().st_mtime_ns) for rel in MANY} == before
    assert not [p for p in tmp_path.rglob("*.fgtmp")]


def test_fix_keeps_encoding_bom_and_permissions(tmp_path):
    latin = ("# -*- coding: latin-1 -*-\nimport torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n"
             "    torch._dynamo.graph_break()  # café\n    return x\n")
    p = tmp_path / "latin.py"
    p.write_bytes(latin.encode("latin-1"))
    os.chmod(p, 0o640)
    bom = "import torch\n\n\n@torch.compile(fullgraph=True)\ndef g(x):\n    torch._dynamo.graph_break()\n    return x\n"
    q = tmp_path / "bom.py"
    q.write_bytes(b"\xef\xbb\xbf" + bom.encode("utf-8"))
    r = _cli("check", ".", "--fix", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert p.read_bytes() == ("# -*- coding: latin-1 -*-\nimport torch\n\n\n@torch.compile(fullgraph=True)\n"
                              "def f(x):\n    return x\n").encode("latin-1")
    assert (p.stat().st_mode & 0o777) == 0o640
    assert q.read_bytes().startswith(b"\xef\xbb\xbf") and b"graph_break" not in q.read_bytes()
    assert "fixed 2 findings" in r.stderr


def test_fix_paths_api_counts_and_writes_atomically(tmp_path):
    from io import StringIO

    from fullgraph.fixes.apply import fix_paths

    _write_tree(tmp_path)
    ws = Workspace(Config(project_root=str(tmp_path)))
    res = ws.check([tmp_path])
    out = StringIO()
    n = fix_paths(ws, res, unsafe=False, diff=True, out=out)
    assert n >= 3 and out.getvalue().startswith("--- a/")
    assert (tmp_path / "pkg/model.py").read_text() == MANY["pkg/model.py"]
    ws2 = Workspace(Config(project_root=str(tmp_path)))
    n2 = fix_paths(ws2, ws2.check([tmp_path]), unsafe=False, diff=False, out=StringIO())
    assert n2 == n
    assert (tmp_path / "pkg/model.py").read_text() != MANY["pkg/model.py"]


# Fixes inside methods parse only the method (inside a stand-in `class _:` header), not the whole
# class; the edits must land on the file's own lines and leave the rest of the class untouched.
METHODS = (
    "import scipy.special\r\n"
    "import torch\r\n"
    "\r\n"
    "\r\n"
    "class Net(torch.nn.Module):\r\n"
    "\t\"\"\"A module whose methods are fixed one by one.\"\"\"\r\n"
    "\r\n"
    "\tdef __init__(self):\r\n"
    "\t\tsuper().__init__()\r\n"
    "\t\tself.lin = torch.nn.Linear(4, 4)\r\n"
    "\r\n"
    "\t# the docstring below runs at column 0: this method is parsed with its class\r\n"
    "\tdef describe(self):\r\n"
    "\t\treturn '''net:\r\n"
    "linear 4x4'''\r\n"
    "\r\n"
    "\t@torch.no_grad()\r\n"
    "\tdef clean(self, h):  # 温度 🔥\r\n"
    "\t\tif h.isnan().any():\r\n"
    "\t\t\th = torch.nan_to_num(h)\r\n"
    "\t\treturn h\r\n"
    "\r\n"
    "\tdef erf(self, h):\r\n"
    "\t\ty = scipy.special.erf(h.numpy())\r\n"
    "\t\treturn torch.from_numpy(y)\r\n"
    "\r\n"
    "\tdef forward(self, x):\r\n"
    "\t\th = self.clean(self.lin(x))\r\n"
    "\t\tprint(self.describe())\r\n"
    "\t\treturn self.erf(h)\r\n"
    "\r\n"
    "\r\n"
    "model = torch.compile(Net(), fullgraph=True)\r\n"
)


def test_fixes_in_methods_edit_only_the_method(tmp_path):
    from fullgraph.fixes.base import Source

    src = Source("m.py", METHODS, "m")
    clean_line = METHODS.split("\r\n").index("\tdef clean(self, h):  # 温度 🔥")
    assert src.fragment_at(clean_line + 2).first == clean_line - 1  # the method (with its decorator)
    describe_line = METHODS.split("\r\n").index("\tdef describe(self):")
    assert src.fragment_at(describe_line + 1).first == 4  # the whole class: a line runs at column 0
    p = tmp_path / "m.py"
    p.write_bytes(METHODS.encode("utf-8"))
    new = _apply(p, "FG301", "torch-where")
    assert new == METHODS.replace(
        "\t\tif h.isnan().any():\r\n\t\t\th = torch.nan_to_num(h)\r\n",
        "\t\th = torch.where(h.isnan().any(), torch.nan_to_num(h), h)\r\n")
    new = _apply(p, "FG101", "guard")
    assert new == METHODS.replace(
        "\t\tprint(self.describe())\r\n",
        "\t\tif not torch.compiler.is_compiling():\r\n\t\t\tprint(self.describe())\r\n")
    # the custom op goes before the class (top level), the call is replaced inside the method
    new = _apply(p, "FG206", "custom-op")
    ast.parse(new)
    head, _, rest = new.partition("class Net(torch.nn.Module):")
    assert '@torch.library.custom_op("m::erf_erf_op", mutates_args=())\r\n' in head
    assert "\t\ty = erf_erf_op(h)\r\n" in rest and "custom_op" not in rest
    assert "\n" not in new.replace("\r\n", "")
