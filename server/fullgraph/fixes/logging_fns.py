"""Register logging-style callables in Dynamo's config sets (module-level registration lines).

- `ignore-logging-function`: `torch._dynamo.config.ignore_logging_functions.add(fn)` (torch >= 2.11):
  calls of fn become no-ops while compiled.  Works for print, warnings.warn, logging.info, Logger
  methods (the class's, for every logger, or a module-level logger's bound method) and module-level
  functions that return None (the guide's `bad_fn`).  On torch 2.6-2.10 only Logger methods can be
  registered, in `ignore_logger_methods`.
- `reorderable-logging`: `torch._dynamo.config.reorderable_logging_functions.add(fn)` for print and
  plain functions whose arguments are all tensors, constants or f-strings (site data `reorderable`):
  the call runs after the graph.
"""
from __future__ import annotations

import ast

import libcst as cst

from ..torchinfo import TorchVersion, VersionRange
from .base import Fix, FixContext, Offer, Source, give_up
from .names import find_function

IGNORE_SINCE = TorchVersion(2, 11, 0)
LOGGER_METHODS_SINCE = TorchVersion(2, 6, 0)


def _call_func_code(ctx: FixContext, f) -> str:
    src, frag = ctx.fragment_of(f)
    call = frag.node_at(f.span, cst.Call)
    if frag.span_of(call) != f.span:
        give_up("not a call")
    return frag.code(call.func).strip()


def _module_level_ref(src: Source, code: str) -> str:
    """`code` (a dotted name as written in the function) if it means the same at module level."""
    head = code.split(".")[0]
    if not all(p.isidentifier() for p in code.split(".")):
        give_up("not a dotted name")
    if head not in src.module_bindings():
        give_up("not a module-level import")
    return code


def after_statement_line(src: Source, name: str) -> int:
    """0-based line after the first top-level statement that binds `name`."""
    for first, last, node in src.top_level():
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return last + 1
        for t in targets:
            if isinstance(t, ast.Name) and t.id == name:
                return last + 1
    give_up(f"`{name}` is not defined at module level")


def registration(ctx: FixContext, src: Source, setname: str, ref: str, line: int, after_def: bool):
    tn, edits = ctx.torch_name(src)
    reg = f"{tn}._dynamo.config.{setname}.add({ref})"
    nl = src.newline
    if line == src.imports_end_line():
        text = nl + reg + nl
    elif after_def:
        text = nl + nl + reg + nl
    else:
        text = reg + nl
    return reg, edits + [src.line_insert(line, text)]


def _side_effect_only_wrapper(ctx: FixContext, f):
    """The module-level function the finding is in, if it only performs side effects and returns None."""
    if len(f.call_path) < 2:
        give_up("the side effect is in the compiled function itself")
    hit = ctx.project.function(f.call_path[-1].qualname)
    if hit is None:
        give_up()
    fs, mod = hit
    if mod.path != f.path or fs.class_qualname or fs.qualname != f"{mod.name}.{fs.name}":
        give_up("not a module-level function of this file")
    if fs.returns_value or fs.is_generator or fs.is_async or fs.compiled is not None:
        give_up("returns a value")
    src = ctx.source(f.path)
    fn = find_function(src.tree, fs.name_span.start.line)
    if fn is None:
        give_up()
    site_lines = {s.stmt.start.line for s in fs.sites if s.code.startswith("FG1")}
    for i, s in enumerate(fn.body):
        if isinstance(s, ast.Pass):
            continue
        if isinstance(s, ast.Return) and (s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None)):
            continue
        if i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            continue
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and s.lineno - 1 in site_lines:
            continue
        give_up("the function does more than side effects")
    return fs


class IgnoreLoggingFunction(Fix):
    id = "ignore-logging-function"
    title = "Register the function in `torch._dynamo.config.ignore_logging_functions` (skipped when compiled)"
    safe = False
    versions = VersionRange(since="2.6")

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if not f.call_path:
            give_up()
        src = ctx.source(f.path)
        new_api = not ctx.version < IGNORE_SINCE
        setname = "ignore_logging_functions" if new_api else "ignore_logger_methods"
        line = src.imports_end_line()
        after_def = False
        scope = "process-wide"
        if f.code == "FG102":
            func = _call_func_code(ctx, f)
            method = func.rsplit(".", 1)[-1]
            recv = f.data.get("receiver")
            owner, _, obj = recv.split("\x00")[0].rpartition(".") if recv else ("", "", "")
            if recv and owner == src.modname:
                ref = f"{obj}.{method}"
                line = after_statement_line(src, obj)
                scope = f"for the logger `{obj}`"
            elif recv:
                # a logger imported from another module: registered here, after the imports, as
                # this module names it (`logger.info`, `common.logger.debug`)
                ref = _module_level_ref(src, func)
                scope = f"for the logger `{obj}` of `{owner}`"
            else:
                base = src.ref("logging.Logger")
                if base is None:
                    give_up("logging is not imported at module level")
                ref = f"{base}.{method}"
                scope = "for every logger"
        elif not new_api:
            give_up("torch < 2.11 can only ignore logger methods")
        elif f.code in ("FG101", "FG103", "FG104"):
            func = _call_func_code(ctx, f)
            if func.endswith("getLogger"):
                give_up("getLogger returns a logger")
            if f.code == "FG101":
                if func != "print" or "print" in src.top_names():
                    give_up()
                ref = "print"
            else:
                ref = _module_level_ref(src, func)
        elif f.code == "FG106":
            fs = _side_effect_only_wrapper(ctx, f)
            ref = fs.name
            line = after_statement_line(src, fs.name)
            after_def = True
        else:
            give_up()
        reg, edits = registration(ctx, src, setname, ref, line, after_def)
        return Offer(f"Skip `{ref}` when compiled: `{reg}` (the call becomes a no-op in compiled code, {scope})",
                     edits)


class ReorderableLogging(Fix):
    id = "reorderable-logging"
    title = "Register the function in `torch._dynamo.config.reorderable_logging_functions` (runs after the graph)"
    safe = False
    versions = VersionRange(since="2.3")
    apis = ("torch._dynamo.config.reorderable_logging_functions",)
    # print(..., end=..., flush=True) reordered compiles up to 2.13 and breaks from 2.14.1 (the catalog's
    # fix print_kwargs/reorderable_logging_functions in data/knowledge-*.json)
    keywords_reorder = VersionRange(until="2.14")

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if not f.call_path or not f.data.get("reorderable"):
            give_up("arguments are not all tensors, constants or f-strings")
        if not self.keywords_reorder.contains(ctx.version):
            _, frag = ctx.fragment_of(f)
            if any(a.keyword is not None for a in frag.node_at(f.span, cst.Call).args):
                give_up("a reordered call with keyword arguments breaks from torch 2.14")
        if len(f.call_path) != 1:
            # torch 2.13 silently drops a reordered call made in an inlined callee (verified by the
            # fix oracle: nothing is printed), so only calls in the compiled function itself qualify
            give_up("the call is in a callee of the compiled function")
        src = ctx.source(f.path)
        func = _call_func_code(ctx, f)
        if f.code == "FG101":
            if func != "print" or "print" in src.top_names():
                give_up()
            ref = "print"
        elif f.code == "FG104":
            ref = _module_level_ref(src, func)
        else:
            give_up()
        reg, edits = registration(ctx, src, "reorderable_logging_functions", ref, src.imports_end_line(), False)
        return Offer(f"Run `{ref}` after the graph: `{reg}` (it then shows values after any later in-place "
                     "update; process-wide)", edits)
