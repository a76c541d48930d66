"""Where each fix is offered and where it is not (the catalog's failures), version gating, imports."""
from __future__ import annotations

import pytest
from harness import check_code, dedent

from fullgraph.fixes import FIX_TITLES, FIXES, edits_for
from fullgraph.fixes.base import apply_edits
from fullgraph.rules import registry


def offered(code: str, code_id: str | None = None, **cfg) -> dict[str, list[str]]:
    """{finding "code@line": [fix ids]}, lines numbered as in `code` as written (a triple-quoted source
    starting with a newline has that empty line as line 1)."""
    shift = 2 if code.startswith("\n") else 1
    out = {}
    for f in check_code(dedent(code), **cfg):
        if code_id is None or f.code == code_id:
            out[f"{f.code}@{f.span.start.line + shift}"] = [r.id for r in f.fixes]
    return out


def fixed(code: str, fix_id: str, finding_code: str, **cfg) -> str:
    code = dedent(code)
    for f in check_code(code, **cfg):
        if f.code == finding_code and any(r.id == fix_id for r in f.fixes):
            from fullgraph.fixes.base import TextEdit

            return apply_edits(code, [TextEdit.from_data(d) for d in f.data["fix_edits"][fix_id]])
    raise AssertionError(f"{fix_id} not offered for {finding_code}: {offered(code, **cfg)}")


def test_every_rule_fix_id_exists():
    for r in registry.RULES:
        for fid in r.fixes:
            assert fid in FIXES and FIX_TITLES[fid], (r.code, fid)


def test_guard_not_offered_when_a_later_line_uses_the_value():
    o = offered("""
        import time
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            t0 = time.perf_counter()
            y = x.sin()
            return y, t0
        """)
    assert "guard" not in o["FG107@7"] and "split" in o["FG107@7"]


def test_guard_offered_when_the_value_is_unused():
    new = fixed("""
        import time
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            t0 = time.perf_counter()
            return x.sin()
        """, "guard", "FG107")
    assert "    if not torch.compiler.is_compiling():\n        t0 = time.perf_counter()\n" in new


def test_guard_not_offered_for_with_block_whose_names_are_used():
    o = offered("""
        import threading
        import torch
        LOCK = threading.Lock()

        @torch.compile(fullgraph=True)
        def f(x):
            with LOCK:
                y = x + 1
            return y
        """)
    assert "guard" not in o["FG110@8"]


def test_guard_not_offered_for_one_line_if_or_return():
    o = offered("""
        import os
        import torch

        @torch.compile(fullgraph=True)
        def f(x, verbose=True):
            if verbose: print(x)
            return x + os.getpid()
        """)
    assert "guard" not in o["FG101@7"] and "guard" not in o["FG110@8"]


def test_guard_reuses_torch_alias_and_adds_missing_import():
    src = """
        import torch as t

        @t.compile(fullgraph=True)
        def f(x):
            print(x)
            return x
        """
    assert "if not t.compiler.is_compiling():" in fixed(src, "guard", "FG101")
    src2 = """
        import warnings
        from torch import compile as tcompile

        @tcompile(fullgraph=True)
        def f(x):
            warnings.warn("slow")
            return x
        """
    new = fixed(src2, "guard", "FG104")
    assert new.startswith("import warnings\nfrom torch import compile as tcompile\nimport torch\n")
    assert "if not torch.compiler.is_compiling():" in new


def test_nonstrict_trace_never_for_side_effects_or_none():
    o = offered("""
        import torch

        def g(x):
            print("side effect")
            torch._dynamo.graph_break()
            return x.sin()

        def h(x):
            torch._dynamo.graph_break()

        @torch.compile(fullgraph=True)
        def f(x):
            h(x)
            return g(x)
        """, "FG201")
    assert all("nonstrict-trace" not in v for v in o.values()), o
    assert all("remove-graph-break" in v for v in o.values())


def test_nonstrict_trace_on_definition_when_called_from_another_file(tmp_path):
    (tmp_path / "helpers.py").write_text(dedent("""
        import torch

        def g(x):
            y = x.sin()
            torch._dynamo.graph_break()
            return y.sin()
        """))
    (tmp_path / "main.py").write_text(dedent("""
        import torch
        from helpers import g

        @torch.compile(fullgraph=True)
        def f(x):
            return g(x)
        """))
    from fullgraph.api import Workspace
    from fullgraph.config import Config

    ws = Workspace(Config(project_root=str(tmp_path)))
    (f,) = ws.check([tmp_path]).findings
    assert [r.id for r in f.fixes][:2] == ["remove-graph-break", "nonstrict-trace"]
    new = apply_edits((tmp_path / "helpers.py").read_text(), edits_for(ws, f, "nonstrict-trace"))
    assert "@torch._dynamo.nonstrict_trace\ndef g(x):" in new


def test_reorderable_only_for_plain_arguments_in_the_compiled_frame():
    o = offered("""
        import torch

        def helper(t):
            print("mean", t.mean())

        @torch.compile(fullgraph=True)
        def f(x: torch.Tensor):
            print("shape", x.shape)
            print("x", x)
            helper(x)
            return x
        """, "FG101")
    assert "reorderable-logging" not in o["FG101@9"]  # torch.Size argument: GB0296
    assert "reorderable-logging" in o["FG101@10"]
    assert "reorderable-logging" not in o["FG101@5"]  # in a callee: 2.13 drops the reordered print


def test_ignore_logging_versions():
    src = """
        import logging
        import torch
        logger = logging.getLogger(__name__)

        @torch.compile(fullgraph=True)
        def f(x):
            print("x")
            logger.info("y")
            logging.getLogger("z").info("z")
            return x
        """
    new = offered(src)
    assert "ignore-logging-function" in new["FG101@8"] and "ignore-logging-function" in new["FG102@9"]
    assert "ignore-logging-function" not in new["FG103@10"]  # getLogger returns a logger
    mid = offered(src, torch_version="2.8")
    assert "ignore-logging-function" not in mid["FG101@8"] and "ignore-logging-function" in mid["FG102@9"]
    assert "ignore_logger_methods.add(logger.info)" in fixed(src, "ignore-logging-function", "FG102",
                                                             torch_version="2.8")
    old = offered(src, torch_version="2.5")
    assert all("ignore-logging-function" not in v for v in old.values())


@pytest.mark.parametrize("version,absent", [("2.2", "guard"), ("2.6", "nonstrict-trace"), ("2.3", "custom-op")])
def test_version_gating(version, absent):
    src = """
        import torch
        import scipy.special

        def g(x):
            y = x.sin()
            torch._dynamo.graph_break()
            return y.sin()

        @torch.compile(fullgraph=True)
        def f(x):
            print(x)
            return torch.from_numpy(scipy.special.erf(g(x).numpy()))
        """
    now = {fid for v in offered(src).values() for fid in v}
    assert absent in now
    then = {fid for v in offered(src, torch_version=version).values() for fid in v}
    assert absent not in then


def test_list_argument_not_offered_when_caller_keeps_the_iterator():
    o = offered("""
        import torch

        @torch.compile(fullgraph=True)
        def f(xs):
            return next(xs) * 2

        it = iter([torch.ones(1), torch.ones(1)])
        a = f(it)
        b = next(it)
        """)
    assert all("list-argument" not in v for v in o.values()), o


def test_list_argument_call_sites():
    new = fixed("""
        import torch

        @torch.compile(fullgraph=True)
        def f(xs):
            return next(xs) * 2

        data = [torch.ones(1)]
        a = f(iter(data))
        b = f(iter(d for d in data))
        """, "list-argument", "FG403")
    assert "a = f(data)\n" in new and "b = f(list(d for d in data))\n" in new
    assert "def f(xs):\n    xs = iter(xs)\n    return next(xs) * 2\n" in new


def test_split_not_offered_for_conditionally_bound_live_variables():
    o = offered("""
        import torch

        @torch.compile(fullgraph=True)
        def f(x, flag: bool):
            if flag:
                y = x + 1
            torch.save(x, "/dev/null")
            return y
        """, "FG106")
    assert all("split" not in v for v in o.values()), o


def test_where_not_offered_for_python_bool_or_while():
    assert "torch-where" not in offered(registry.BY_CODE["FG301"].examples[3].code)["FG301@6"]
    assert "torch-where" not in offered(registry.BY_CODE["FG301"].examples[2].code)["FG301@6"]


def test_cond_not_offered_for_inplace_or_item_branches():
    o = offered("""
        import torch

        @torch.compile(fullgraph=True)
        def f(x: torch.Tensor):
            if x.sum() > 0:
                y = x.add_(1)
            else:
                y = x.sin()
            return y
        """, "FG301")
    assert "torch-cond" not in o["FG301@6"] and "torch-where" in o["FG301@6"]


def test_custom_op_not_offered_for_unused_results():
    o = offered("""
        import scipy.special
        import torch

        @torch.compile(fullgraph=True)
        def f(x):
            scipy.special.erf(x.numpy())
            return x
        """, "FG206")
    assert "custom-op" not in o["FG206@7"]


def test_custom_op_namespace_from_config():
    src = registry.BY_CODE["FG206"].examples[0].code
    new = fixed(src, "custom-op", "FG206", custom_op_namespace="myproj")
    assert 'custom_op("myproj::f_erf_op", mutates_args=())' in new


def test_fstring_not_offered_when_the_string_is_computed_with():
    o = offered(registry.BY_CODE["FG306"].examples[0].code, "FG306")
    assert all("fstring" not in v for v in o.values())


def test_suppress_is_safe_and_last():
    for f in check_code(registry.BY_CODE["FG101"].examples[0].code):
        assert f.fixes[-1].id == "suppress" and f.fixes[-1].safe


def test_validate_rejects_edits_that_do_not_parse(tmp_path):
    from fullgraph.api import Workspace
    from fullgraph.config import Config
    from fullgraph.fixes.base import FixContext, TextEdit
    from fullgraph.positions import Pos, Span

    p = tmp_path / "m.py"
    p.write_text("import torch\n\n\ndef f(x):\n    return x\n\n\ny = 1\n")
    ws = Workspace(Config(project_root=str(tmp_path)))
    ws.check([p])
    ctx = FixContext(ws)
    src = ctx.source(str(p.resolve()))

    def ok(*edits):
        return ctx.validate(src, list(edits))

    at = lambda line, col: Pos(line, col)  # noqa: E731
    assert ok(TextEdit(Span(at(4, 4), at(4, 12)), "return x + 1"))
    assert not ok(TextEdit(Span(at(4, 4), at(4, 12)), "return (x"))  # inside a function
    assert ok(TextEdit(Span(at(1, 0), at(1, 0)), "z = 2\n"))  # whole lines between statements
    assert not ok(TextEdit(Span(at(1, 0), at(1, 0)), "z = (\n"))
    assert ok(TextEdit(Span(at(3, 0), at(3, 0)), "@torch.no_grad()\n"))  # a decorator joins the def
    assert not ok(TextEdit(Span(at(7, 0), at(7, 0)), "@torch.no_grad()\n"))  # ... not an assignment
    assert not ok(TextEdit(Span(at(4, 0), at(7, 0)), "    return x\n  y = 1\n"))  # across statements: full parse
