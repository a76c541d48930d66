"""Opaque-callee remedies (the guide's Strategy 2).

- `nonstrict-trace`: a pure tensor function containing a graph break (FG201 in a callee) is traced
  non-strictly: `torch._dynamo.nonstrict_trace(g)(x)` at the call site (or `@...nonstrict_trace` on
  its definition when the call is in another file); a `@torch.compiler.disable`'d pure function
  (FG202) gets `@torch.compiler.nonstrict_trace` instead.  A decorator takes the public
  `torch.compiler.nonstrict_trace` where the release has it (2.14.1 on: the collected `apis`), the
  private name before.  The call site keeps the private name on every release: called inside the
  compiled region, the public one is a function Dynamo skips (GB0007 on 2.15.0: the fix oracle,
  `python -m fullgraph.knowledge oracle 2.15.0`).  Never for code with side effects (the body
  runs on fake tensors at trace time and not at all at run time under aot_eager/inductor) nor for
  functions that return None (GB0251).
- `custom-op`: a call into a compiled extension or SciPy kernel (FG206) becomes a
  `torch.library.custom_op` with a `register_fake` whose output follows the first input.
"""
from __future__ import annotations

import ast
import re

import libcst as cst

from ..torchinfo import TorchVersion, VersionRange, api_exists
from . import names as N
from .base import Fix, FixContext, Offer, give_up


def _pure(ctx: FixContext, fs, mod, allowed: frozenset, depth: int = 0, seen=None) -> bool:
    """No sites but `allowed` in fs and the functions it calls (as far as the project resolves them)."""
    seen = seen if seen is not None else set()
    if fs.qualname in seen:
        return True
    seen.add(fs.qualname)
    if depth > 8 or any(s.code not in allowed for s in fs.sites):
        return False
    for e in fs.edges:
        for tfs, tmod in ctx.project.resolve_edge(e, mod):
            if not _pure(ctx, tfs, tmod, allowed, depth + 1, seen):
                return False
    return True


def _plain_function(fs, mod) -> bool:
    return fs.class_qualname is None and fs.qualname == f"{mod.name}.{fs.name}" and not fs.is_generator \
        and not fs.is_async


def nonstrict_trace_api(version: TorchVersion) -> str:
    """`compiler.nonstrict_trace` where the release has it (2.14.1 on), else `_dynamo.nonstrict_trace`."""
    return "compiler.nonstrict_trace" if api_exists("torch.compiler.nonstrict_trace", version) else \
        "_dynamo.nonstrict_trace"


class NonstrictTrace(Fix):
    id = "nonstrict-trace"
    title = "Trace the pure function non-strictly with `nonstrict_trace` (public from torch 2.14.1)"
    safe = False
    versions = VersionRange(since="2.7")
    apis = ("torch._dynamo.nonstrict_trace",)

    def supported(self, version: TorchVersion) -> bool:
        return self.versions.contains(version) and (
            api_exists("torch.compiler.nonstrict_trace", version) or super().supported(version))

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if f.code == "FG201":
            if len(f.call_path) < 2 or f.call_path[-1].call is None:
                give_up("the graph break is in the compiled function itself")
            hit = ctx.project.function(f.call_path[-1].qualname)
            if hit is None:
                give_up()
            fs, mod = hit
            allowed = frozenset({"FG201"})
            call_loc = f.call_path[-1].call
        elif f.code == "FG202":
            hit = ctx.project.function(f.data.get("callee", ""))
            if hit is None:
                give_up()
            fs, mod = hit
            allowed = frozenset({"FG201"})
            call_loc = None
        else:
            give_up()
        if not _plain_function(fs, mod):
            give_up("not a module-level function")
        if not fs.returns_value:
            give_up("nonstrict_trace cannot return None")
        if not _pure(ctx, fs, mod, allowed):
            give_up("the function has side effects")
        src = ctx.source(f.path)
        tn, edits = ctx.torch_name(src)
        api = f"{tn}.{nonstrict_trace_api(ctx.version)}"  # as a decorator, run before compiling
        if f.code == "FG201" and call_loc is not None and call_loc.path == f.path:
            frag = src.fragment_at(call_loc.span.start.line)
            call = frag.node_at(call_loc.span, cst.Call)
            func = frag.code(call.func).strip()
            if func.split(".")[-1] != fs.name or not all(p.isidentifier() for p in func.split(".")):
                give_up("the call does not name the function")
            inline = f"{tn}._dynamo.nonstrict_trace"  # the public name is skipped inside compiled code
            e = frag.replace_expr(call.func, f"{inline}({func})")
            return Offer(f"Trace `{fs.name}` non-strictly: `{inline}({func})(…)` (it must stay "
                         "pure: no side effects)", edits + [e])
        if mod.path != f.path:
            give_up("the function is in another file")
        frag = src.fragment_at(fs.name_span.start.line)
        defs = frag.nodes_covering(fs.name_span, cst.FunctionDef)
        if not defs:
            give_up()
        fdef = defs[0]
        new_deco = cst.Decorator(decorator=cst.parse_expression(api))
        if f.code == "FG202":
            decos = list(fdef.decorators)
            idx = [i for i, d in enumerate(decos) if re.search(r"(^|\.)disable\b", frag.code(d.decorator).strip())]
            if len(idx) != 1:
                give_up("disable decorator not found")
            i = idx[0]
            e = frag.replace_expr(decos[i].decorator, api)
            return Offer(f"Replace `@{frag.code(fdef.decorators[i].decorator).strip()}` on `{fs.name}` by "
                         f"`@{api}` (it must stay pure: no side effects)", edits + [e])
        if fdef.decorators:
            give_up("already decorated")
        e = frag.rewrite({fdef: fdef.with_changes(decorators=[new_deco])})
        return Offer(f"Decorate `{fs.name}` with `@{api}` (it must stay pure: no side "
                     "effects)", edits + [e])


_TO_TENSOR = ("from_numpy", "as_tensor", "tensor", "asarray")


def namespace_for(ctx: FixContext, modname: str) -> str:
    ns = getattr(ctx.ws.config, "custom_op_namespace", None)
    if ns:
        return ns
    ns = re.sub(r"[^0-9a-zA-Z_]", "_", modname.split(".")[-1] if modname else "").strip("_").lower()
    if not ns:
        ns = "fullgraph"
    if ns[0].isdigit():
        ns = "m_" + ns
    if ns in ("aten", "prim", "prims", "torch", "_c"):
        ns = ns + "_ops"
    return ns


class CustomOp(Fix):
    id = "custom-op"
    title = "Wrap the opaque call in a `torch.library.custom_op` with a `register_fake` (check the fake's shape)"
    safe = False
    versions = VersionRange(since="2.4")
    apis = ("torch.library.custom_op", "torch.library.register_fake")

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if not f.call_path:
            give_up()
        src, frag = ctx.fragment_of(f)
        call = frag.node_at(f.span, cst.Call)
        if frag.span_of(call) != f.span:
            give_up()
        callee = frag.code(call.func).strip()
        tn, edits = ctx.torch_name(src)
        expr = call
        p = frag.parent(call)
        if isinstance(p, cst.Arg):
            outer = frag.parent(p)
            oname = frag.code(outer.func).strip() if isinstance(outer, cst.Call) else ""
            if len(outer.args) == 1 and oname.split(".")[0] == tn and oname.split(".")[-1] in _TO_TENSOR:
                expr = outer
        elif not callee.split(".")[-1]:
            give_up()
        holder = frag.parent(expr)
        if isinstance(holder, cst.Expr):
            give_up("the result is unused: a side-effect-only op would be removed by aot_eager/inductor")
        fn = frag.enclosing_function(expr)
        if fn is None:
            give_up()
        fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line)
        if fn_ast is None:
            give_up()
        local = N.function_locals(fn_ast)
        e_code = frag.code(expr).strip()
        e_ast = N.parse_code(f"({e_code})")
        if N.has_any(e_ast, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield)):
            give_up()
        inputs = []
        for n in ast.walk(e_ast):
            if isinstance(n, ast.Name) and n.id in local and n.id not in inputs:
                inputs.append(n.id)
        if "self" in inputs or not inputs:
            give_up("the op's inputs must be tensors")
        ns = namespace_for(ctx, src.modname)
        nl = src.newline
        ind = src.indent_unit
        fname = fn.name.value
        body_only = [s for s in fn.body.body] if isinstance(fn.body, cst.IndentedBlock) else []
        if body_only and isinstance(body_only[0], cst.SimpleStatementLine) and \
                isinstance(body_only[0].body[0], cst.Expr) and \
                isinstance(body_only[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            body_only = body_only[1:]
        helper = (len(f.call_path) >= 2 and frag.module.body and frag.module.body[0] is fn and not fn.decorators
                  and len(body_only) == 1 and isinstance(body_only[0], cst.SimpleStatementLine)
                  and isinstance(body_only[0].body[0], cst.Return) and body_only[0].body[0].value is expr
                  and sorted(inputs) == sorted(N.params_of(fn_ast))
                  and not isinstance(fn.params.star_arg, (cst.Param, cst.ParamStar))
                  and fn.params.star_kwarg is None and not fn.params.kwonly_params
                  and not fn.params.posonly_params)
        taken = src.top_names()
        first = inputs[0]
        fake_note = f"the fake returns `{tn}.empty_like({first})`: check the output's shape and dtype"
        if helper:
            opname = fname
            qual = f"{ns}::{re.sub(r'[^0-9a-zA-Z_]', '_', fname)}"
            if qual in src.text:
                give_up("op name taken")
            new_params = []
            for prm in fn.params.params:
                ann = prm.annotation
                if ann is not None and not frag.code(ann.annotation).strip().endswith("Tensor"):
                    give_up("a parameter is not annotated as a tensor")
                new_params.append(prm.with_changes(annotation=cst.Annotation(cst.parse_expression(f"{tn}.Tensor"))))
            if fn.returns is not None and not frag.code(fn.returns.annotation).strip().endswith("Tensor"):
                give_up("does not return a tensor")
            deco = cst.Decorator(decorator=cst.parse_expression(
                f'{tn}.library.custom_op("{qual}", mutates_args=())'))
            new_fn = fn.with_changes(decorators=[deco], params=fn.params.with_changes(params=new_params),
                                     returns=cst.Annotation(cst.parse_expression(f"{tn}.Tensor")))
            fake_name = N.fresh(f"_{fname}_fake", taken)
            fake = cst.parse_statement(
                f"@{fname}.register_fake{nl}def {fake_name}({', '.join(N.params_of(fn_ast))}):{nl}"
                f"{ind}return {tn}.empty_like({first}){nl}").with_changes(
                leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
            new_mod = frag.module.with_changes(body=[new_fn, fake, *frag.module.body[1:]])
            e = frag.edit_to(new_mod.code)
            return Offer(f"Make `{fname}` a custom op `{qual}` with a fake ({fake_note})", edits + [e])
        base = re.sub(r"[^0-9a-zA-Z_]", "_", callee.split(".")[-1]).strip("_").lower() or "kernel"
        opname = N.fresh(f"{fname}_{base}_op", taken)  # one op per call site: bodies may differ
        qual = f"{ns}::{opname}"
        if qual in src.text:
            give_up("op name taken")
        sig = ", ".join(f"{a}: {tn}.Tensor" for a in inputs)
        code = (f'@{tn}.library.custom_op("{qual}", mutates_args=()){nl}'
                f"def {opname}({sig}) -> {tn}.Tensor:{nl}"
                f"{ind}return {e_code}{nl}{nl}{nl}"
                f"@{opname}.register_fake{nl}"
                f"def _{opname}_fake({', '.join(inputs)}):{nl}"
                f"{ind}return {tn}.empty_like({first}){nl}{nl}{nl}")
        if "\n" in e_code or "\r" in e_code:
            give_up("multi-line expression")
        # before the top-level statement (and the comments directly above it)
        line = frag.top_first
        while line > 0 and src.line(line - 1).lstrip().startswith("#"):
            line -= 1
        ins = src.line_insert(line, code)
        e = frag.replace_expr(expr, f"{opname}({', '.join(inputs)})")
        return Offer(f"Wrap `{short_call(callee)}` in a custom op `{qual}` ({fake_note})", edits + [ins, e])


def short_call(code: str) -> str:
    return code if len(code) <= 40 else code[:39] + "…"
