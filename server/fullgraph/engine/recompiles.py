"""Recompilation hazards, read from a module's syntax tree (rules/recompile.py turns them into findings).

A compiled function without a graph break can still be compiled again and again: Dynamo guards on what
it specialised (a Python int, an `nn.Module`'s int attribute, a global, a list's length, a tensor's
shape) and compiles again when a guard fails.  What changes from call to call is visible in the source
around the calls of the compiled object: the loop that calls it, the values it passes, the names and
attributes rebound between calls.  This module records, per module (ModuleSummary.recompiles), plain
tuples the project's walk reads:

- ``("compile", span, label, fullgraph, target)``: a `torch.compile(...)` call or `@torch.compile` decorator,
  found by its name whether or not the analysis resolves what it compiles;
- ``("call", compile_span, code, span, info)``: for the compiled object of the compile call at
  `compile_span`, what makes a guard fail at `span` (an argument of a call in a loop, a rebinding in that
  loop, where the loop makes a tensor of a new size, the compile call itself); `code` its rule, `info` a
  dict (argument, type, every: on every call until the recompile limit, ...);
- ``("attr", method_qualname, attr, span, type)``: `self.<attr> += ...` in a method, the attribute a
  Python int or float set in `__init__`;
- ``("global", name, span, type, where)``: a module-level literal rebound at run time (in a loop of the top
  level, `where` "", or in the function `where` that declares it `global`, or an item of a module-level dict);
- ``("closure", outer_qualname, name, span)``: `nonlocal name` rebound in a function nested in `outer`;
- ``("reads", function_qualname, names)`` / ``("free", function_qualname, names)``: the module-level names
  / the closure variables a function reads (only when something rebinds one).

Facts checked against Dynamo 2.13 (tests/test_rules_recompile.py, and the recompile catalog
tests/recompiles): a Python int or float argument that changes recompiles once, then is dynamic (automatic
dynamic shapes), unless the code needs its exact value (`range(n)`, an `if`), and on every call under
dynamic=False; a bool or str for each value; an int attribute of an nn.Module and an int global on every
call (a float one once); a closure variable once, or every value when specialised; a list's length for
every new length; a tensor's size once (every size under dynamic=False; `mark_dynamic`/dynamic=True: none);
a dtype, requires_grad or grad mode once per value.  A new lambda, nn.Module or equal dict per call and a
torch.compile call of the same function inside a loop do not recompile (the cache is on the code object);
a lambda whose defaults change, a dict whose numbers change, a closure over changing values compiled per
step do.
"""
from __future__ import annotations

import ast
import re
from typing import Callable

from ..positions import Span, split_lines
from .nodes import children, holds_line, walk

# torch factories whose positional arguments are the shape
_SHAPED = {"randn", "rand", "zeros", "ones", "empty", "arange", "randperm", "full", "eye", "linspace"}
_RESHAPE = {"view", "reshape", "expand", "repeat", "narrow", "new_zeros", "new_ones", "new_empty"}
_SCHEDULE = {"get_last_lr", "get_lr"}
_GRAD_MODES = {"torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled"}
_MUTATE_LIST = {"append", "extend", "insert", "pop", "remove", "clear"}

INT, FLOAT, BOOL, STR, TENSOR, LIST, DICT = "int", "float", "bool", "str", "tensor", "list", "dict"
OBJ = "object"  # a new object per call whose contents change (a lambda's defaults, a dict, a partial)
SCALARS = (INT, FLOAT, BOOL, STR)


def scan(tree: ast.Module, span: Callable[[ast.AST], Span], modname: str, text: str | None = None) -> list[tuple]:
    """The module's recompilation facts (see the module's docstring).  One walk of the statements finds
    what the rest needs (classes, `global`/`nonlocal` statements, compile decorators), and of the
    expressions only in a module whose text spells `torch.compile` (compile calls); most modules stop there."""
    out: list[tuple] = []
    classes: list[ast.ClassDef] = []
    has_global = has_nonlocal = False
    compile_calls = _spelled_compile_calls(tree, text)
    for n in compile_calls:
        out.append(("compile", span(n), ast.unparse(n), _fullgraph(n), ast.unparse(n.args[0]) if n.args else ""))
    # the lines of every torch.compile call: outside loops, a statement without one holds nothing to look at
    compile_lines = sorted({n.lineno for n in compile_calls})
    for n in _module_stmts(tree):
        t = type(n)
        if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            for d in n.decorator_list:
                if _is_compile(d) or (isinstance(d, ast.Call) and _is_compile(d.func)):
                    out.append(("compile", span(d), "@" + ast.unparse(d),
                                _fullgraph(d) if isinstance(d, ast.Call) else False, n.name))
        elif t is ast.ClassDef:
            classes.append(n)
        elif t is ast.Global:
            has_global = True
        elif t is ast.Nonlocal:
            has_nonlocal = True
    any_compile = bool(out)
    if any_compile:
        for c in classes:
            out.extend(_object_attrs(c, span))
    glob_types = _const_types(tree.body)
    class_nodes: dict[str, ast.ClassDef] = {}
    scopes = list(_scopes(tree, modname, class_nodes))
    inits = _init_types(scopes, classes) if classes else {}
    by_class_name = {q.rpartition(".")[2]: v for q, v in inits.items()}
    reads_by_class = _AttrReads(classes) if any_compile else {}
    outer = _compiled_names(tree.body, span)
    varied_calls: set[str] = set()  # functions called in a loop with an argument that changes
    scanners: list = []
    try:
        _scan_scopes(out, scopes, tree, span, inits, by_class_name, reads_by_class, glob_types, outer,
                     varied_calls, scanners, any_compile, (has_global, _dict_items_set(glob_types, text)),
                     has_nonlocal, class_nodes, compile_lines)
        if any(r[0] == "global" for r in out):  # what reads the rebound globals
            module_names = _module_assigned(tree.body) & {r[1] for r in out if r[0] == "global"}
            lines = _lines(text)
            spelled = re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, sorted(module_names))))
            for qual, node, _, _ in scopes:
                if node is not tree and module_names and (lines is None or spelled.search(
                        "\n".join(lines[node.lineno - 1:node.end_lineno]))):
                    reads = _reads(node, module_names)
                    if reads:
                        out.append(("reads", qual, frozenset(reads)))
        if any_compile and any(r[0] == "closure" for r in out):
            out.extend(_closures_compiled(out, scopes, tree, span))
        if any(r[0] == "closure" for r in out):  # what reads the rebound closure variables
            for qual, node, _, _ in scopes:
                if node is not tree and ".<locals>." in qual:
                    free = {n.id for n in _own_nodes(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} \
                        - _local_names(node)
                    if free:
                        out.append(("free", qual, frozenset(free)))
    finally:
        for fn in _MEMO.pop(id(tree), ()):
            fn.__dict__.pop("_fg_own", None)
            fn.__dict__.pop("_fg_local", None)
    return out


_COMPILE_CALL = re.compile(r"torch\s*\.\s*compile(?:r\s*\.\s*compile)?\s*\(")


def _spelled_compile_calls(tree: ast.Module, text: str | None) -> list[ast.Call]:
    """The `torch.compile(...)` calls (as _is_compile names them), in the order ast.walk meets them.  With the
    text, only the top-level statements holding a line that spells one are walked (most modules spell none;
    most that do, in a docstring)."""
    if text is None:
        nodes = walk(tree)
    else:
        lines = {text.count("\n", 0, m.start()) + 1 for m in _COMPILE_CALL.finditer(text)}
        if not lines:
            return []
        if _lone_cr(text):  # (lines counted at "\n" only)
            nodes = walk(tree)
        else:
            spelled = sorted(lines)
            held = [s for s in tree.body if holds_line(s, spelled)]
            nodes = walk(ast.Module(body=held, type_ignores=[]))
    return [n for n in nodes if type(n) is ast.Call and _is_compile(n.func)]


def _lone_cr(text: str) -> bool:
    """Does a "\\r" end a line by itself (then lines are not counted at "\\n")?"""
    return "\r" in text and text.count("\r") != text.count("\r\n")


def _lines(text: str | None) -> list[str] | None:
    """The text's lines as ast numbers them (from 1: lines[n - 1]), or None when not known."""
    return None if text is None else split_lines(text)


def _dict_items_set(glob_types: dict, text: str | None) -> bool:
    """May a function set an item of a module-level dict (`CONFIG["scale"] = s`)?  Not when the text never
    subscripts one of them."""
    names = [k for k, v in glob_types.items() if v == DICT]
    if not names:
        return False
    if text is None:
        return True
    for name in names:  # (one pattern per name: led by a literal, the search skips to it; `\b(?:a|b)` crawls)
        for m in re.finditer(re.escape(name) + r"\s*\[[^\]\n]*\]\s*=(?!=)", text):
            i = m.start()
            if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
                return True
    return False


def _declares_global(fn: ast.AST) -> bool:
    """Does the function's own body (its nested statements, not nested functions) hold a `global` statement?"""
    return any(isinstance(s, ast.Global) for s in _body_stmts(fn))


# functions whose own nodes were memoised during a scan (dropped at its end), per tree
_MEMO: dict[int, list] = {}


def _scan_scopes(out, scopes, tree, span, inits, by_class_name, reads_by_class, glob_types, outer,
                 varied_calls, scanners, any_compile, globals_change, has_nonlocal, class_nodes,
                 compile_lines) -> None:
    """`class_nodes`: class qualname -> its node; `compile_lines`: the lines of the module's torch.compile calls
    (sorted)."""
    memo = _MEMO.setdefault(id(tree), [])
    module_defs = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    class_defs = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    for qual, node, body, cls in scopes:
        if node is not tree:
            memo.append(node)
        fn = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if fn is not None:
            if cls is not None and inits.get(cls):
                out.extend(_attr_updates(fn, qual, cls, inits, span))
            if cls is not None and any_compile and cls in class_nodes and holds_line(class_nodes[cls], compile_lines, decorators=False):
                out.extend(_grown_self_lists(fn, class_nodes[cls], span))  # (its `__init__` compiles something)
            if (globals_change[0] and _declares_global(fn)) or globals_change[1]:
                out.extend(_global_rebinds(fn, qual, glob_types, span))
            if has_nonlocal:
                out.extend(_nonlocal_rebinds(fn, qual, span))
        if fn is not None and not any_compile:
            continue  # nothing compiled in this module: no call of a compiled object to look around
        if fn is None and not any_compile and not any(isinstance(x, (ast.For, ast.While, ast.AsyncFor))
                                                      for x in tree.body):
            continue
        if fn is not None and not holds_line(fn, compile_lines, decorators=False) and \
                not any(type(s) in _LOOPS for s in _body_stmts(fn)):
            continue  # no loop of its own, no torch.compile call: nothing the walk below would find
        compiled = dict(outer) if fn is not None else {}
        own = _compiled_names(body, span)
        if fn is not None:
            for name in _local_names(fn) - set(own):
                compiled.pop(name, None)  # shadowed
        compiled.update(own)
        declared = _declared(fn) if fn is not None and glob_types else ()
        consts = glob_types if fn is None else {**{k: v for k, v in glob_types.items() if k in declared},
                                                 **_const_types(body)}
        sc = _Loops(out, compiled, span, consts, body, by_class_name, reads_by_class, varied_calls,
                    module_level=fn is None, node=node, fn=fn)
        sc.module_defs = module_defs
        sc.class_defs = class_defs
        sc.compile_lines = compile_lines
        sc.module_body = tree.body
        sc.run()
        scanners.append(sc)
    for sc in scanners:
        sc.compiles_per_call(varied_calls)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _is_compile(e: ast.AST) -> bool:
    return _dotted(e) in ("torch.compile", "torch.compiler.compile")


def _fullgraph(call: ast.Call):
    for kw in call.keywords:
        if kw.arg == "fullgraph" and isinstance(kw.value, ast.Constant):
            return bool(kw.value.value)
    return False if not any(kw.arg == "fullgraph" for kw in call.keywords) else None


# ---- scopes and names ---------------------------------------------------------------------------
def _scopes(tree: ast.Module, modname: str, class_nodes: dict | None = None):
    """(qualname, node, body, class qualname) of the module and every function, as the analyzer names them;
    each class's qualname -> its node into `class_nodes`.  Kept on each top-level statement (`_fg_scopes`, with
    the module's name they were made under): an editor buffer's new text keeps the statements it did not change
    (engine/incremental.py), and a keystroke scanned every function of the module for them.  (The statement
    itself is not kept in what it holds, a reference cycle the workers' collector-free runs would keep.)"""
    yield modname, tree, tree.body, None
    for s in tree.body:
        if type(s) not in _COMPOUND:
            continue
        got = s.__dict__.get("_fg_scopes")
        if got is None or got[0] != modname:
            classes: dict = {}
            scopes = [(q, None if node is s else node, body, cls)
                      for q, node, body, cls in _scopes_in([s], modname, None, False, classes)]
            got = s.__dict__["_fg_scopes"] = (modname, scopes, {q: None if c is s else c for q, c in classes.items()})
        if class_nodes is not None:
            class_nodes.update((q, s if c is None else c) for q, c in got[2].items())
        for q, node, body, cls in got[1]:
            yield q, s if node is None else node, body, cls


def _scopes_in(body, prefix, cls, in_function, class_nodes):
    # (a module-level function, not a closure calling itself: that closure's cycle would keep the module's
    # syntax tree alive until a garbage collection, and the workers run without one)
    for s in body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            q = f"{prefix}.<locals>.{s.name}" if in_function else f"{prefix}.{s.name}"
            yield q, s, s.body, cls
            yield from _scopes_in(s.body, q, None, True, class_nodes)
        elif isinstance(s, ast.ClassDef):
            q = f"{prefix}.<locals>.{s.name}" if in_function else f"{prefix}.{s.name}"
            if class_nodes is not None:
                class_nodes[q] = s
            yield from _scopes_in(s.body, q, q, False, class_nodes)
        elif type(s) in _COMPOUND:
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(s, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], (ast.stmt, ast.excepthandler)):
                    yield from _scopes_in([x for h in sub for x in (h.body if isinstance(h, ast.excepthandler) else [h])],
                                          prefix, cls, in_function, class_nodes)


def _module_assigned(body: list[ast.stmt]) -> set[str]:
    """Names the module's top level assigns a value to (not functions, classes or imports)."""
    out: set[str] = set()
    for s in body:
        for n in walk(s) if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


def _const_types(body: list[ast.stmt]) -> dict[str, str]:
    """name -> its type for `name = <literal>` among these statements (not inside functions)."""
    out: dict[str, str] = {}
    for s in body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            t = _literal_type(s.value)
            if t is None and isinstance(s.value, (ast.List, ast.ListComp)):
                t = LIST
            elif t is None and isinstance(s.value, ast.Dict):
                t = DICT
            if t is not None:
                out.setdefault(s.targets[0].id, t)
    return out


def _declared(fn: ast.AST) -> set[str]:
    return {n for s in _own_nodes(fn) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names}


def _literal_type(e: ast.AST) -> str | None:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
    if isinstance(e, ast.Constant):
        if isinstance(e.value, bool):
            return BOOL
        if isinstance(e.value, int):
            return INT
        if isinstance(e.value, float):
            return FLOAT
        if isinstance(e.value, str):
            return STR
    return None


def _local_names(fn: ast.AST) -> set[str]:
    got = fn.__dict__.get("_fg_local")
    if got is None:
        got = fn.__dict__["_fg_local"] = _locals(fn)
    return got


def _locals(fn: ast.AST) -> set[str]:
    out = {a.arg for a in walk(fn.args) if isinstance(a, ast.arg)}
    glob: set[str] = set()
    for n in _own_nodes(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            glob.update(n.names)
    return out - glob


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not of the functions and classes it defines (memoised for one scan)."""
    got = fn.__dict__.get("_fg_own")
    if got is not None:
        return got
    got = []
    stack = list(fn.body)
    while stack:
        n = stack.pop()
        got.append(n)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(children(n))
    fn.__dict__["_fg_own"] = got
    return got


def _reads(fn: ast.AST, module_names: set[str]) -> set[str]:
    local = _local_names(fn)
    return {n.id for n in _own_nodes(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id in module_names and n.id not in local}


def _compiled_names(body: list[ast.stmt], span) -> dict[str, tuple]:
    """name -> (compile call span, dynamic= as written (None: not given), the compiled expression) for
    `name = torch.compile(...)` and `@torch.compile` functions among these statements (any depth, not
    inside functions)."""
    out: dict[str, tuple] = {}
    for s in _stmts(body):
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and len(s.targets) == 1 \
                and isinstance(s.targets[0], ast.Name) and _is_compile(s.value.func):
            out[s.targets[0].id] = (span(s.value), _dynamic(s.value), s.value.args[0] if s.value.args else None)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in s.decorator_list:
                if _is_compile(d) or (isinstance(d, ast.Call) and _is_compile(d.func)):
                    out[s.name] = (span(d), _dynamic(d) if isinstance(d, ast.Call) else None, ast.Name(s.name))
    return out


def _dynamic(call: ast.Call):
    for kw in call.keywords:
        if kw.arg == "dynamic" and isinstance(kw.value, ast.Constant):
            return kw.value.value
    return None


def _stmts(body: list[ast.stmt], into_defs: bool = False) -> list[ast.stmt]:
    """Statements, nested blocks included (`match` cases too; a `try`'s handlers after its other blocks), not
    inside function or class bodies unless `into_defs` (then every statement of a module: not its expressions,
    a fraction of the nodes)."""
    out: list[ast.stmt] = []
    _collect_stmts(body, into_defs, out)
    return out


def _module_stmts(tree: ast.Module) -> list[ast.stmt]:
    """_stmts(tree.body, into_defs=True), each top-level statement's kept on it (`_fg_stmts`, without itself: see
    _scopes)."""
    out: list[ast.stmt] = []
    for s in tree.body:
        out.append(s)
        if type(s) not in _COMPOUND:
            continue
        got = s.__dict__.get("_fg_stmts")
        if got is None:
            got = s.__dict__["_fg_stmts"] = _stmts([s], into_defs=True)[1:]
        out.extend(got)
    return out


def _body_stmts(fn: ast.AST) -> list[ast.stmt]:
    """_stmts(fn.body), kept on the function's node (`_fg_body_stmts`; see _scopes)."""
    got = fn.__dict__.get("_fg_body_stmts")
    if got is None:
        got = fn.__dict__["_fg_body_stmts"] = _stmts(fn.body)
    return got


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# the statements that hold statements (any other is a leaf: most of a module's statements)
_COMPOUND = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                       getattr(ast, "TryStar", ast.Try), ast.Match, *_DEFS})


def _collect_stmts(body: list[ast.stmt], into_defs: bool, out: list) -> None:
    for s in body:
        out.append(s)
        t = type(s)
        if t not in _COMPOUND or (not into_defs and t in _DEFS):
            continue
        if t is ast.Match:
            for c in s.cases:
                _collect_stmts(c.body, into_defs, out)
            continue
        _collect_stmts(s.body, into_defs, out)
        if t is ast.If or t is ast.For or t is ast.AsyncFor or t is ast.While:
            _collect_stmts(s.orelse, into_defs, out)
        elif t is ast.Try or t.__name__ == "TryStar":  # (handlers last)
            _collect_stmts(s.orelse, into_defs, out)
            _collect_stmts(s.finalbody, into_defs, out)
            for h in s.handlers:
                _collect_stmts(h.body, into_defs, out)


# ---- module attributes and globals --------------------------------------------------------------
def _init_types(scopes: list, classes: list) -> dict[str, dict[str, str]]:
    """class qualname -> {attr: "int"/"float"} for `self.<attr> = <number>` in `__init__` (`scopes`: the
    module's, as _scopes gives them); a class also sees its bases' (named in the same module)."""
    out: dict[str, dict[str, str]] = {}
    for q, node, body, cls in scopes:
        if cls is None or not isinstance(node, ast.FunctionDef) or node.name != "__init__":
            continue
        got = out.setdefault(cls, {})
        for attr, t in _number_attrs(node):
            got.setdefault(attr, t)
    bases = {c.name: [b.id for b in c.bases if isinstance(b, ast.Name)] for c in classes}
    by_name = {q.rpartition(".")[2]: q for q in out}
    for q in list(out):
        for b in bases.get(q.rpartition(".")[2], ()):
            for k, v in out.get(by_name.get(b, ""), {}).items():
                out[q].setdefault(k, v)
    return out


def _number_attrs(init: ast.FunctionDef) -> list[tuple[str, str]]:
    """(attr, "int"/"float") of each `self.<attr> = <number>` in an `__init__`, in order (kept on its node,
    `_fg_number_attrs`: see _scopes)."""
    got = init.__dict__.get("_fg_number_attrs")
    if got is None:
        got = []
        for s in _body_stmts(init):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]):
                t = _literal_type(s.value)
                if t in (INT, FLOAT):
                    got.append((s.targets[0].attr, t))
        init.__dict__["_fg_number_attrs"] = got
    return got


def _attr_reads(classes: list) -> dict[str, set[str]]:
    """class name -> the `self.<attr>` its methods other than `__init__` read."""
    out: dict[str, set[str]] = {}
    for c in classes:
        got = out.setdefault(c.name, set())
        for m in c.body:
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name != "__init__":
                got.update(n.attr for n in walk(m) if isinstance(n, ast.Attribute) and _self_attr(n)
                           and isinstance(n.ctx, ast.Load))
    return out


class _AttrReads:
    """_attr_reads(classes), each class's read when first asked for (a keystroke in a large file scanned every
    method of every class for what a call in a loop seldom asks)."""

    def __init__(self, classes: list):
        self.classes = classes
        self.names = {c.name for c in classes}
        self.memo: dict[str, set[str]] = {}

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def __getitem__(self, name: str) -> set[str]:
        got = self.memo.get(name)
        if got is None:
            got = self.memo[name] = _attr_reads([c for c in self.classes if c.name == name])[name]
        return got


def _self_attr(e: ast.AST) -> bool:
    return isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self"


def _attr_updates(fn: ast.AST, qual: str, cls: str, inits: dict, span) -> list[tuple]:
    """`self.<attr> += k` / `self.<attr> = self.<attr> + k` of a number attribute set in `__init__`."""
    if fn.name == "__init__":
        return []
    types = inits.get(cls) or {}
    out = []
    for s in _stmts(fn.body):
        if isinstance(s, ast.AugAssign) and _self_attr(s.target) and s.target.attr in types:
            out.append(("attr", qual, s.target.attr, span(s), types[s.target.attr]))
        elif isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]) \
                and s.targets[0].attr in types and isinstance(s.value, ast.BinOp) \
                and any(_self_attr(x) and x.attr == s.targets[0].attr for x in (s.value.left, s.value.right)):
            out.append(("attr", qual, s.targets[0].attr, span(s), types[s.targets[0].attr]))
    return out


def _global_rebinds(fn: ast.AST, qual: str, glob_types: dict, span) -> list[tuple]:
    """A function that declares `global G` (G a module-level literal) and assigns G other than a literal, or
    sets an item of a module-level dict (`CONFIG["scale"] = s`) to something that is not a literal."""
    stmts = list(_stmts(fn.body))
    declared = {n for s in stmts if isinstance(s, ast.Global) for n in s.names}
    out = []
    for s in stmts:
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id in declared \
                and s.target.id in glob_types:
            out.append(("global", s.target.id, span(s), glob_types[s.target.id], qual))
        elif isinstance(s, ast.Assign) and len(s.targets) == 1:
            t = s.targets[0]
            if isinstance(t, ast.Name) and t.id in declared and t.id in glob_types and _literal_type(s.value) is None:
                out.append(("global", t.id, span(s), glob_types[t.id], qual))
            elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                    and glob_types.get(t.value.id) == DICT and _literal_type(s.value) is None \
                    and t.value.id not in _local_names(fn):
                out.append(("global", t.value.id, span(s), DICT, qual))
    return out


def _grown_self_lists(fn: ast.AST, cls: ast.ClassDef, span) -> list[tuple]:
    """A method that appends to `self.<list>` and passes it to `self.<compiled>(...)`, an attribute `__init__`
    sets to torch.compile(...): the list is one longer on every call of the method."""
    init = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
    if init is None or fn is init:
        return []
    compiled = {}
    for s in _stmts(init.body):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]) \
                and isinstance(s.value, ast.Call) and _is_compile(s.value.func):
            compiled[s.targets[0].attr] = span(s.value)
    if not compiled:
        return []
    nodes = _own_nodes(fn)
    grown = {n.func.value.attr for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr in ("append", "extend", "insert") and _self_attr(n.func.value)}
    grown -= {t.attr for n in nodes if isinstance(n, ast.Assign) for t in n.targets if _self_attr(t)}
    out = []
    for n in nodes:
        if isinstance(n, ast.Call) and _self_attr(n.func) and n.func.attr in compiled:
            for i, a in enumerate(n.args):
                if _self_attr(a) and a.attr in grown:
                    out.append(("call", compiled[n.func.attr], "FG604", span(a),
                                {"key": i, "arg": ast.unparse(a), "type": LIST, "every": True, "call": ast.unparse(n.func),
                                 "why": f"`{fn.name}` appends to it on every call", "dynamic": None}))
    return out


def _object_attrs(cls: ast.ClassDef, span) -> list[tuple]:
    """A plain object (not an nn.Module) that compiles one of its own methods (`self.ema =
    torch.compile(self.ema_update)`) and, in another method, sets an attribute that method reads to a Python
    number that changes (`self.momentum = f(step)`, `self.step += 1`): Dynamo guards on the value (`self.momentum
    == 0.99`) and compiles again; once, then the number is dynamic, or for every new value when the compiled code
    needs it exactly (`range(self.n)`, an `if`, a slice bound)."""
    if any(_dotted(b).rpartition(".")[2] == "Module" for b in cls.bases):
        return []  # an nn.Module's int attributes: FG601
    methods = {m.name: m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    compiled: dict[str, tuple] = {}  # attribute -> (compile span, compiled method)
    for m in methods.values():
        for s in _stmts(m.body):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]) \
                    and isinstance(s.value, ast.Call) and _is_compile(s.value.func) and s.value.args \
                    and _self_attr(s.value.args[0]) and s.value.args[0].attr in methods:
                compiled[s.targets[0].attr] = (span(s.value), methods[s.value.args[0].attr])
    if not compiled:
        return []
    init = methods.get("__init__")
    init_types: dict[str, str] = {}
    if init is not None:
        defaults = dict(zip([a.arg for a in init.args.args][::-1], init.args.defaults[::-1]))
        for s in _stmts(init.body):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]):
                v = defaults.get(s.value.id) if isinstance(s.value, ast.Name) else s.value
                t = _literal_type(v) if v is not None else None
                init_types.setdefault(s.targets[0].attr, t or "?")
    out = []
    for cattr, (cspan, target) in compiled.items():
        reads = {n.attr for n in walk(target) if _self_attr(n) and isinstance(n.ctx, ast.Load)}
        calls_it = {m.name for m in methods.values() if m.name != "__init__" and any(
            isinstance(n, ast.Call) and _self_attr(n.func) and n.func.attr == cattr for n in walk(m))}
        if not calls_it:
            continue
        for m in methods.values():
            if m.name == "__init__" or m is target:
                continue
            params = {a.arg for a in m.args.args[1:] + m.args.kwonlyargs + m.args.posonlyargs}
            for s in _stmts(m.body):
                if isinstance(s, ast.AugAssign) and _self_attr(s.target) and s.target.attr in reads:
                    attr, typ = s.target.attr, init_types.get(s.target.attr)
                elif isinstance(s, ast.Assign) and len(s.targets) == 1 and _self_attr(s.targets[0]) \
                        and s.targets[0].attr in reads and _literal_type(s.value) is None:
                    attr = s.targets[0].attr
                    names = {n.id for n in walk(s.value) if isinstance(n, ast.Name)}
                    if not names & params and not any(_self_attr(n) and n.attr == attr for n in walk(s.value)):
                        continue  # set from what does not change here (`self.momentum = self.base`)
                    typ = _number_type(s.value, init_types.get(attr))
                else:
                    continue
                if typ not in (INT, FLOAT):
                    continue
                fixed = _needs_exact(target, attr)
                out.append(("call", cspan, "FG601", span(s),
                            {"attr": attr, "type": typ, "every": typ == INT and fixed is not None, "outside": True,
                             "object": True, "module": "self", "method": target.name, "specialised": fixed,
                             "setter": m.name}))
    return out


def _number_type(e: ast.AST, known: str | None) -> str | None:
    """int/float of an expression that computes a Python number (`1 - (1 - self.base) * (math.cos(...) + 1) / 2`),
    None when it may be a tensor (a torch call in it) or the analysis cannot tell."""
    if known in (INT, FLOAT):
        return known
    if any(isinstance(n, ast.Attribute) and _dotted(n).startswith(("torch.", "np.", "numpy.")) for n in walk(e)):
        return None
    if any(isinstance(n, ast.Call) and _dotted(n.func).startswith("math.") for n in walk(e)) \
            or (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "float"):
        return FLOAT
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in ("int", "len", "round"):
        return INT
    return None


def _needs_exact(fn: ast.AST, attr: str) -> str | None:
    """How a method uses `self.<attr>` so that Dynamo needs its exact value (`range(self.n)`, an `if`, a slice)."""
    how = _exact_use(walk(fn), lambda n: _self_attr(n) and n.attr == attr)
    return {"range": f"`range()` over `self.{attr}`", "branch": f"a branch on `self.{attr}`",
            "slice": f"a slice bound `self.{attr}`"}.get(how)


def _exact_use(nodes, is_value: Callable[[ast.AST], bool]) -> str | None:
    """Which use among `nodes` makes Dynamo need a value's exact number ("range": `range(v)`, "branch": an
    `if`/`while`/conditional expression on it, "slice": a slice bound), the value being the nodes
    `is_value` accepts; the first met, or None."""
    def uses(e: ast.AST) -> bool:
        return any(is_value(n) for n in walk(e))

    for n in nodes:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range" and any(uses(a) for a in n.args):
            return "range"
        if isinstance(n, (ast.If, ast.While, ast.IfExp)) and uses(n.test):
            return "branch"
        if isinstance(n, ast.Slice) and any(b is not None and uses(b) for b in (n.lower, n.upper)):
            return "slice"
    return None


def _closures_compiled(out: list, scopes: list, tree: ast.Module, span) -> list[tuple]:
    """A compiled function taken from what a module-level function returns (`step, deeper = make_stepper()`,
    then `torch.compile(step)`), whose sibling rebinds (`nonlocal`) a variable it reads: the compile call's
    hazard, for when the analysis does not resolve what is compiled."""
    rebound: dict[str, list] = {}
    for r in out:
        if r[0] == "closure":
            rebound.setdefault(r[1].rpartition(".")[2], []).append(r)
    defs = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = []
    for _, _, body, _ in scopes:
        for cspan, _, target in _compiled_names(body, span).values():
            if not isinstance(target, ast.Name):
                continue
            for s in _stmts(body):
                if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Call)
                        and isinstance(s.value.func, ast.Name) and s.value.func.id in rebound):
                    continue
                names = [t for x in s.targets for t in (x.elts if isinstance(x, ast.Tuple) else [x])]
                if not any(isinstance(t, ast.Name) and t.id == target.id for t in names):
                    continue
                outer = defs.get(s.value.func.id)
                for rec in rebound[s.value.func.id]:
                    readers = [f for f in walk(outer) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                               and f is not outer and rec[2] not in _declared(f)
                               and any(isinstance(n, ast.Name) and n.id == rec[2] for n in _own_nodes(f))] \
                        if outer is not None else []
                    if readers:
                        typ = _const_types(outer.body).get(rec[2], "value")
                        found.append(("call", cspan, "FG603", rec[3],
                                      {"name": rec[2], "type": typ, "every": False, "closure": True}))
    return found


def _nonlocal_rebinds(fn: ast.AST, qual: str, span) -> list[tuple]:
    """`nonlocal x; x += 1` in a nested function: ("closure", the sibling functions reading x, ...)."""
    if ".<locals>." not in qual:
        return []
    stmts = list(_stmts(fn.body))
    declared = {n for s in stmts if isinstance(s, ast.Nonlocal) for n in s.names}
    if not declared:
        return []
    outer = qual.rpartition(".<locals>.")[0]
    out = []
    for s in stmts:
        target = s.target if isinstance(s, ast.AugAssign) else s.targets[0] \
            if isinstance(s, ast.Assign) and len(s.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id in declared:
            out.append(("closure", outer, target.id, span(s)))
    return out


# ---- the loops around calls of a compiled object ------------------------------------------------
class _Loops:
    """Walks one scope's statements with the loops around them; at a call of a compiled object inside a
    loop, what changes per iteration among what the call passes and what the loop rebinds."""

    def __init__(self, out: list, compiled: dict, span, consts: dict, body: list, classes: dict, reads: dict,
                 varied_calls: set, module_level: bool, node: ast.AST, fn):
        self.out = out
        self.compiled = compiled  # name -> (compile span, dynamic, compiled expression)
        self.span = span
        self.consts = consts  # name -> type of its literal value before the loops
        self.body = body
        self.classes = classes  # class name -> {attr: type} set in __init__
        self.reads = reads  # class name -> attributes its methods (not __init__) read
        self.varied_calls = varied_calls
        self.module_level = module_level
        self.node = node
        self._defs: dict | None = None
        self.fn = fn
        self.instances: dict[str, str] = {}  # name -> class name (`net = Warmup()`)
        self.instance_calls: dict[str, ast.Call] = {}  # name -> the call that made it
        self.module_defs: dict = {}
        self.class_defs: dict = {}
        self.module_body: list = []
        self.compile_lines: list[int] | None = None  # the module's torch.compile calls' lines (None: not known)
        self.row_values: dict[str, list] = {}  # loop variable -> the dict literals it runs over
        for s in _stmts(body):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name):
                self.instances[s.targets[0].id] = s.value.func.id
                self.instance_calls[s.targets[0].id] = s.value
        self.grad_calls: list = []  # (compiled name, the grad-mode `with` around the call or None, outer loop)
        self.compile_loops: list = []  # (compile call, loops) of torch.compile calls inside loops
        self._marked_names: set[str] | None = None
        self.made: dict = {}  # span of an assignment in a loop -> the value it assigns
        self._in_helper: set[int] = set()  # helpers being read (no recursion)

    @property
    def defs(self) -> dict:
        """The functions defined in this scope, at any depth, by name."""
        if self._defs is None:
            self._defs = {s.name: s for s in walk(self.node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return self._defs

    def run(self) -> None:
        if self.module_level:
            self._module_loops()
        self._block(self.body, [])

    def _module_loops(self) -> None:
        """A module-level name rebound in a loop of the top level (`for i in ...: SCALE = i`)."""
        self._top_loops(self.body, [])

    def _top_loops(self, body, outer) -> None:
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                var = self._varying(s, outer)
                env = {k: v for _, e in outer for k, v in e.items()} | var
                for t in _stmts(s.body):
                    if isinstance(t, ast.Assign) and len(t.targets) == 1 and isinstance(t.targets[0], ast.Name) \
                            and t.targets[0].id in self.consts:
                        k = self._kind(t.value, env)
                        if k is not None and k[1]:
                            self.out.append(("global", t.targets[0].id, self.span(t), self.consts[t.targets[0].id], ""))
                    elif isinstance(t, ast.AugAssign) and isinstance(t.target, ast.Name) \
                            and t.target.id in self.consts:
                        self.out.append(("global", t.target.id, self.span(t), self.consts[t.target.id], ""))
                    elif isinstance(t, ast.Assign) and len(t.targets) == 1 and isinstance(t.targets[0], ast.Subscript) \
                            and isinstance(t.targets[0].value, ast.Name) \
                            and self.consts.get(t.targets[0].value.id) == DICT:
                        k = self._kind(t.value, env)
                        if k is not None and k[1]:
                            self.out.append(("global", t.targets[0].value.id, self.span(t), DICT, ""))
                self._top_loops(s.body, [*outer, (s, var)])
            else:
                for field in ("body", "orelse", "finalbody"):
                    sub = getattr(s, field, None)
                    if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                        self._top_loops(sub, outer)

    def _block(self, body: list[ast.stmt], loops: list, grad: ast.stmt | None = None) -> None:
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                self._block(s.body, [*loops, (s, self._varying(s, loops))], grad)
                self._block(s.orelse, loops, grad)
                if not loops:
                    self._grad_modes()
                continue
            if isinstance(s, ast.With) and loops and any(
                    isinstance(i.context_expr, ast.Call) and _dotted(i.context_expr.func) in _GRAD_MODES
                    for i in s.items):
                self._block(s.body, loops, s)
                continue
            if not loops and self.compile_lines is not None and not holds_line(s, self.compile_lines, decorators=False):
                calls = ()  # (outside loops only a torch.compile call is looked at)
            else:
                calls = self._calls(s)
            for call in calls:
                if _is_compile(call.func):
                    self._compile_call(call, loops)
                elif loops and isinstance(call.func, ast.Name) and call.func.id in self.compiled:
                    self.grad_calls.append((call.func.id, grad, loops[0][0]))
                    self._call(call, loops)
                elif loops and isinstance(call.func, ast.Name):
                    env = self._env(loops)
                    if any((k := self._kind(a, env)) is not None and k[1] for a in call.args):
                        self.varied_calls.add(call.func.id)
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(s, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    self._block(sub, loops, grad)
            for h in getattr(s, "handlers", ()) or ():
                self._block(h.body, loops, grad)

    def _grad_modes(self) -> None:
        """The same compiled object called in a loop both inside `with torch.no_grad():` and outside it."""
        calls, self.grad_calls = self.grad_calls, []
        for name, grad, loop in calls:
            if grad is None:
                continue
            if any(n == name and g is None and lp is loop for n, g, lp in calls):
                root_span = self.compiled[name][0]
                rec = ("call", root_span, "FG609", self.span(grad.items[0].context_expr),
                       {"prop": "grad_mode", "call": name, "every": False,
                        "arg": ast.unparse(grad.items[0].context_expr)})
                if rec not in self.out:
                    self.out.append(rec)

    @staticmethod
    def _env(loops: list) -> dict:
        env: dict[str, tuple] = {}
        for _, v in loops:
            env.update(v)
        return env

    def _calls(self, s: ast.stmt):
        stack = [v for f, v in ast.iter_fields(s) if f not in ("body", "orelse", "finalbody", "handlers")]
        while stack:
            n = stack.pop()
            if isinstance(n, list):
                stack.extend(n)
                continue
            if not isinstance(n, ast.AST) or isinstance(n, (ast.Lambda, ast.stmt)):
                continue
            if isinstance(n, ast.Call):
                yield n
            stack.extend(children(n))

    # what a loop changes: name -> (type, description of the change, span of the assignment or None)
    def _varying(self, loop: ast.stmt, outer: list) -> dict[str, tuple]:
        env = self._env(outer)
        var: dict[str, tuple] = {}
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            it = loop.iter
            line = loop.lineno
            why = f"the loop variable of line {line}"
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                    and isinstance(loop.target, ast.Name):
                var[loop.target.id] = (INT, why, None)
            elif isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
                    and isinstance(loop.target, ast.Tuple) and loop.target.elts \
                    and isinstance(loop.target.elts[0], ast.Name):
                var[loop.target.elts[0].id] = (INT, f"the loop counter of line {line}", None)
                if len(loop.target.elts) == 2 and isinstance(loop.target.elts[1], ast.Name) and it.args:
                    # `for i, t in enumerate(timesteps)`: the items of a list this scope builds
                    elem = self._elements(it.args[0])
                    if elem is not None:
                        var[loop.target.elts[1].id] = (elem, why, None)
            elif isinstance(it, ast.Name) and isinstance(loop.target, ast.Name) \
                    and (elem := self._elements(it)) is not None:
                var[loop.target.id] = (elem, why, None)  # `for stage in schedule:`
            elif isinstance(it, ast.Name) and isinstance(loop.target, ast.Name) \
                    and (rows := self._rows(it.id)) is not None:
                self.row_values[loop.target.id] = rows  # `for req in REQUESTS:` (a list of dict literals)
                var[loop.target.id] = ("row", why, None)
            elif isinstance(it, (ast.List, ast.Tuple)) and isinstance(loop.target, ast.Tuple) and it.elts \
                    and all(isinstance(e, ast.Tuple) and len(e.elts) == len(loop.target.elts) for e in it.elts):
                for i, t in enumerate(loop.target.elts):  # `for batch, seq in ((4, 10), (6, 10)):`
                    column = [e.elts[i] for e in it.elts]
                    types = {_literal_type(c) for c in column}
                    if isinstance(t, ast.Name) and len(types) == 1 and types <= set(SCALARS) \
                            and len({ast.unparse(c) for c in column}) > 1:
                        var[t.id] = (types.pop(), why, None)
            elif isinstance(it, (ast.List, ast.Tuple)) and isinstance(loop.target, ast.Name) and it.elts:
                types = {_literal_type(e) for e in it.elts}
                if len(types) == 1 and types <= set(SCALARS):
                    var[loop.target.id] = (types.pop(), why, None)
                elif all(isinstance(e, (ast.List, ast.Tuple)) for e in it.elts) \
                        and len({len(e.elts) for e in it.elts}) > 1:
                    var[loop.target.id] = (LIST, why, None)
                elif all(isinstance(e, ast.Attribute) and _dotted(e.value) == "torch" for e in it.elts):
                    var[loop.target.id] = ("dtype", why, None)  # `for dtype in (torch.float32, ...)`
        env.update(var)
        for _ in range(2):  # names assigned in the loop from what changes (in order, twice: `lr = lr * g`)
            for s in _stmts(loop.body):
                if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                    t = self.consts.get(s.target.id) or (env.get(s.target.id) or (None,))[0]
                    if t in (INT, FLOAT) and s.target.id not in var:  # `lr *= 0.9`
                        var[s.target.id] = (t, f"updated at line {s.lineno}", None)
                        env[s.target.id] = var[s.target.id]
                elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                    name = s.targets[0].id
                    got = self._grows(s.value, name) or self._kind(s.value, env)
                    if got is not None and not got[1] and self.consts.get(name) in SCALARS \
                            and any(isinstance(n, ast.Name) and n.id == name for n in walk(s.value)):
                        got = (got[0], True)  # `lr = lr * 0.9`, `flag = not flag`: a new value each iteration
                    if got is not None and got[1]:
                        if name not in var or var[name][2] is not None:
                            why = f"assigned at line {s.lineno}"
                            if got[0] == TENSOR and isinstance(s.value, ast.Call) and self._helper(s.value.func):
                                why = (f"returned by `{ast.unparse(s.value.func)}()`, whose size changes from call to "
                                       f"call (line {s.lineno})")
                            var[name] = (got[0], why, self.span(s))
                            env[name] = var[name]
                            self.made[var[name][2]] = s.value
                    elif name in var and var[name][2] is not None and var[name][2].start.line < s.lineno \
                            and not (isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)
                                     and s.value.func.id in self.compiled):
                        # assigned again from what does not change, or what the analysis does not know
                        # (`tokens = F.pad(tokens, (0, 16 - n))`): the last assignment decides; not the result of
                        # the compiled call itself (`patch = jitter(patch)`: the call reads the varying value first)
                        del var[name]
                        env.pop(name, None)
                elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) \
                        and isinstance(s.value, ast.Call) \
                        and (rets := self._returns(s.value, env)) is not None and len(rets) == len(s.targets[0].elts):
                    for t, r in zip(s.targets[0].elts, rets):  # `x, edges, batch = random_batch(g)`
                        if isinstance(t, ast.Name) and r and t.id not in var:
                            var[t.id] = (TENSOR, (f"returned by `{ast.unparse(s.value.func)}()`, whose size changes "
                                                  f"from call to call (line {s.lineno})"), self.span(s))
                            env[t.id] = var[t.id]
                            self.made[var[t.id][2]] = s.value
                elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) \
                        and isinstance(s.value, ast.Tuple) and len(s.value.elts) == len(s.targets[0].elts):
                    for t, v in zip(s.targets[0].elts, s.value.elts):  # `n_way, k_shot = 2 + e % 9, 2`
                        got = self._kind(v, env)
                        if isinstance(t, ast.Name) and got is not None and got[1] and t.id not in var:
                            var[t.id] = (got[0], f"assigned at line {s.lineno}", None)
                            env[t.id] = var[t.id]
                elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
                        and isinstance(s.value.func, ast.Attribute) and s.value.func.attr in _MUTATE_LIST \
                        and isinstance(s.value.func.value, ast.Name) and s.value.func.attr != "clear":
                    name = s.value.func.value.id
                    if name not in var and not self._made_in(name, loop):
                        var[name] = (LIST, f"grown at line {s.lineno}", None)
                        env[name] = var[name]
        return var

    def _rows(self, name: str) -> list[ast.Dict] | None:
        """The dict literals of a list literal `name` is bound to (in this scope or at the module's top level)."""
        for body in (self.body, self.module_body):
            for s in body:
                if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                        and s.targets[0].id == name:
                    v = s.value
                    if isinstance(v, (ast.List, ast.Tuple)) and len(v.elts) > 1 \
                            and all(isinstance(x, ast.Dict) for x in v.elts):
                        return v.elts
                    return None
        return None

    def _elements(self, e: ast.AST) -> str | None:
        """The type of the items of a list this scope builds from numbers (`schedule = [0, 0, 1, 1]`,
        `timesteps = [total - i * k for i in range(n)]`), if their values differ."""
        if not isinstance(e, ast.Name):
            return None
        for s in _stmts(self.body):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and s.targets[0].id == e.id:
                v = s.value
                if isinstance(v, (ast.List, ast.Tuple)) and v.elts:
                    types = {_literal_type(x) for x in v.elts}
                    if len(types) == 1 and types <= set(SCALARS) and len({ast.unparse(x) for x in v.elts}) > 1:
                        return types.pop()
                elif isinstance(v, ast.ListComp) and len(v.generators) == 1 \
                        and isinstance(v.generators[0].target, ast.Name) and isinstance(v.generators[0].iter, ast.Call) \
                        and isinstance(v.generators[0].iter.func, ast.Name) and v.generators[0].iter.func.id == "range":
                    var = v.generators[0].target.id
                    k = self._kind(v.elt, {var: (INT, "", None)})
                    if k is not None and k[1] and k[0] in (INT, FLOAT):
                        return k[0]
                    if any(isinstance(n, ast.Name) and n.id == var for n in walk(v.elt)):
                        return "value"  # changes with the index; its type shows where it is used (`float(t)`)
                return None
        return None

    @staticmethod
    def _grows(value: ast.AST, name: str) -> tuple[str, bool] | None:
        """`idx = torch.cat([idx, nxt], dim=1)`: a tensor that grows each iteration."""
        if isinstance(value, ast.Call) and _dotted(value.func) in ("torch.cat", "torch.concat", "torch.hstack",
                                                                   "torch.vstack", "torch.column_stack") \
                and value.args and isinstance(value.args[0], (ast.List, ast.Tuple)) \
                and any(isinstance(x, ast.Name) and x.id == name for x in value.args[0].elts):
            return TENSOR, True
        return None

    def _made_in(self, name: str, loop: ast.stmt) -> bool:
        """`name` is assigned afresh inside the loop (a new list each iteration)."""
        return any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                   for s in _stmts(loop.body))

    def _length_changes(self, sl: ast.Slice, env: dict) -> bool:
        """A slice whose bounds change and whose length may: not `top:top + size` with `size` fixed (a crop at a
        random offset keeps its size; Dynamo does not guard on the offset)."""
        lo, hi = sl.lower, sl.upper
        if not any(b is not None and self._changes(b, env) for b in (lo, hi)):
            return False
        if lo is not None and hi is not None:
            d = ast.dump(lo)
            if isinstance(hi, ast.BinOp) and isinstance(hi.op, ast.Add) and \
                    any(ast.dump(x) == d and not self._changes(y, env)
                        for x, y in ((hi.left, hi.right), (hi.right, hi.left))):
                return False  # `top:top + size`
            if isinstance(lo, ast.BinOp) and isinstance(lo.op, ast.Sub) and ast.dump(lo.left) == ast.dump(hi) \
                    and not self._changes(lo.right, env):
                return False  # `end - size:end`
        return True

    def _changes(self, e: ast.AST, env: dict) -> bool:
        return any(isinstance(n, ast.Name) and n.id in env for n in walk(e))

    def _kind(self, e: ast.AST, env: dict) -> tuple[str, bool] | None:
        """(type, changes per iteration) of an expression, where the loop's names are `env`."""
        t = _literal_type(e)
        if t is not None:
            return t, False
        if isinstance(e, ast.Attribute) and _dotted(e).startswith("torch."):
            return "torch-constant", False  # `torch.float32`
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id][0], True
            if e.id in self.consts:
                return self.consts[e.id], False
            return None
        if isinstance(e, ast.BinOp):
            a, b = self._kind(e.left, env), self._kind(e.right, env)
            if isinstance(e.op, ast.Mult) and a is not None and b is not None and LIST in (a[0], b[0]):
                other = b if a[0] == LIST else a
                return (LIST, other[1]) if other[0] == INT else None
            if a is None or b is None or a[0] not in (INT, FLOAT, BOOL) or b[0] not in (INT, FLOAT, BOOL):
                return None
            if FLOAT in (a[0], b[0]) or isinstance(e.op, ast.Div):
                return FLOAT, a[1] or b[1]
            return INT, a[1] or b[1]
        if isinstance(e, ast.UnaryOp):
            if isinstance(e.op, ast.Not):
                return BOOL, self._changes(e.operand, env)
            return self._kind(e.operand, env)
        if isinstance(e, (ast.Compare, ast.BoolOp)):
            return BOOL, self._changes(e, env)
        if isinstance(e, ast.IfExp):
            a, b = self._kind(e.body, env), self._kind(e.orelse, env)
            if a is not None and b is not None and a[0] == b[0]:
                return a[0], a[1] or b[1] or self._changes(e.test, env)
            return None
        if isinstance(e, ast.Lambda):
            parts = [*e.args.defaults, *[d for d in e.args.kw_defaults if d is not None], e.body]
            return OBJ, any(self._changes(x, env) for x in parts)
        if isinstance(e, ast.Dict):
            return DICT, any(v is not None and self._changes(v, env) for v in e.values)
        if isinstance(e, ast.Call):
            return self._call_kind(e, env)
        if isinstance(e, ast.Subscript):
            if isinstance(e.value, ast.Call) and isinstance(e.value.func, ast.Attribute) \
                    and e.value.func.attr in _SCHEDULE:
                return FLOAT, True  # `sched.get_last_lr()[0]`
            if isinstance(e.value, (ast.Tuple, ast.List)) and e.value.elts:  # `("mean", "max")[i % 2]`
                types = {_literal_type(x) for x in e.value.elts}
                if len(types) == 1 and types <= set(SCALARS):
                    return types.pop(), self._changes(e.slice, env)
                return None
            if isinstance(e.value, ast.Name) and e.value.id in self.row_values and e.value.id in env \
                    and isinstance(e.slice, ast.Constant):
                # `req["temperature"]` over a list of dict literals: that key's values
                vals = [v for d in self.row_values[e.value.id] for k, v in zip(d.keys, d.values)
                        if isinstance(k, ast.Constant) and k.value == e.slice.value]
                types = {_literal_type(v) for v in vals}
                if len(vals) == len(self.row_values[e.value.id]) and len(types) == 1 and types <= set(SCALARS):
                    return types.pop(), len({ast.unparse(v) for v in vals}) > 1
                return None
            base = self._kind(e.value, env)
            sl = e.slice
            if isinstance(sl, ast.Slice) or (isinstance(sl, ast.Tuple) and any(isinstance(x, ast.Slice) for x in sl.elts)):
                slices = [x for x in (sl.elts if isinstance(sl, ast.Tuple) else [sl]) if isinstance(x, ast.Slice)]
                if any(self._length_changes(x, env) for x in slices):
                    return (LIST, True) if base is not None and base[0] == LIST else (TENSOR, True)
            return None
        if isinstance(e, (ast.ListComp, ast.GeneratorExp)) and len(e.generators) == 1:
            it = e.generators[0].iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
                return LIST, any(self._changes(a, env) for a in it.args)
            return None
        if isinstance(e, (ast.List, ast.Tuple)):
            return LIST, False
        return None

    def _call_kind(self, e: ast.Call, env: dict) -> tuple[str, bool] | None:
        f = e.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        args = [self._kind(a, env) for a in e.args]
        changes = any(self._changes(a, env) for a in [*e.args, *(k.value for k in e.keywords)])
        if isinstance(f, ast.Name) and name in ("int", "float") and len(e.args) == 1 and _torch_random(e.args[0]):
            return (INT if name == "int" else FLOAT), True  # `n = int(torch.randint(3, 9, (1,)))`: a new number per call
        if isinstance(f, ast.Attribute) and name == "item" and not e.args and _torch_random(f.value):
            return FLOAT, True  # `torch.rand(()).item()`
        if isinstance(f, ast.Name) and name in ("float", "int", "round", "abs", "min", "max", "len", "bool", "str"):
            if name == "len":
                return INT, changes
            if name in ("float", "bool", "str"):
                return {"float": FLOAT, "bool": BOOL, "str": STR}[name], changes
            if name in ("min", "max", "abs") and args and all(a is not None and a[0] in (INT, FLOAT) for a in args):
                return (FLOAT if FLOAT in {a[0] for a in args} else INT), changes
            return (INT if name in ("int", "round") else None), changes
        if name in ("tuple", "list") and isinstance(f, ast.Name) and len(e.args) == 1:
            inner = self._kind(e.args[0], env)
            return (LIST, inner[1]) if inner is not None and inner[0] == LIST else None
        if isinstance(f, ast.Attribute) and _dotted(f.value) == "math":
            return FLOAT, changes
        if isinstance(f, ast.Attribute) and name in ("randint", "random", "uniform", "choice", "randrange") \
                and _dotted(f.value) not in ("torch", "np", "numpy"):
            return (INT if name in ("randint", "randrange") else FLOAT if name != "choice" else None), True
        if isinstance(f, ast.Attribute) and _dotted(f.value) == "torch":
            props = [k for k in e.keywords if k.arg in ("dtype", "requires_grad") and self._changes(k.value, env)]
            if props and name in _SHAPED | {"randint", "tensor", "as_tensor"}:
                return f"tensor-{props[0].arg}", True  # a dtype or requires_grad that changes per iteration
            if name in _SHAPED:
                shape = e.args if name != "full" else e.args[:1]
                sizes = [x for a in shape for x in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])]
                if name == "randint":
                    sizes = [x for a in e.args[2:3] for x in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])]
                return TENSOR, any(self._changes(x, env) for x in sizes)
            if name == "randint":
                sizes = [x for a in e.args[2:3] + [k.value for k in e.keywords if k.arg == "size"]
                         for x in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])]
                return TENSOR, any(self._changes(x, env) for x in sizes)
            return None
        if isinstance(f, ast.Attribute) and name in _RESHAPE:
            return TENSOR, changes
        rets = self._returns(e, env)
        if rets is not None and len(rets) == 1 and rets[0]:
            return TENSOR, True  # `patch = crop(img)`: a helper that returns a tensor of a size it draws per call
        callee = _dotted(f).rpartition(".")[2]
        if changes and callee and (callee[0].isupper() or callee in ("partial", "dict", "SimpleNamespace")) \
                and _dotted(f).split(".")[0] not in ("torch", "nn", "F"):
            # a new object per iteration built from what changes (`Settings(repeats=n)`, `partial(f, k=h)`)
            return OBJ, True
        return None

    # ---- what a helper called in the loop returns
    def _helper(self, f: ast.AST):
        """The function a call in the loop runs, when this module defines it: a module-level function
        (`random_batch(g)`) or the `__call__` of an instance of a module-level class (`crop(img)`, `crop =
        RandomResizedCrop()`); with whether it is a method.  Not a compiled object."""
        if not isinstance(f, ast.Name) or f.id in self.compiled:
            return None
        if f.id in self.module_defs and (self.fn is None or f.id not in _local_names(self.fn)):
            fn = self.module_defs[f.id]
            if not any(_is_compile(d) or (isinstance(d, ast.Call) and _is_compile(d.func)) for d in fn.decorator_list):
                return fn, False
            return None
        cls = self.class_defs.get(self.instances.get(f.id, ""))
        if cls is not None:
            fn = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__call__"), None)
            if fn is not None:
                return fn, True
        return None

    def _returns(self, call: ast.Call, env: dict) -> list[bool] | None:
        """Per returned value of a helper this module defines (`x, edges, batch = random_batch(g)`), whether it
        is a tensor whose size the helper draws anew on each call: from `random`/`rng.randint`/
        `int(torch.randint(...))`, or from an argument that changes in the caller's loop.  None when the call
        is not of such a helper, or its return statements disagree."""
        got = self._helper(call.func)
        if got is None:
            return None
        fn, method = got
        if id(fn) in self._in_helper:
            return None
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args][1 if method else 0:]
        seed: dict[str, tuple] = {}
        for i, a in enumerate(call.args):
            k = self._kind(a, env) if not isinstance(a, ast.Starred) else None
            if k is not None and k[1] and i < len(params):
                seed[params[i]] = (k[0], "an argument that changes", None)
        for kw in call.keywords:
            k = self._kind(kw.value, env)
            if kw.arg in params and k is not None and k[1]:
                seed[kw.arg] = (k[0], "an argument that changes", None)
        self._in_helper.add(id(fn))
        try:
            return self._helper_returns(fn, seed)
        finally:
            self._in_helper.discard(id(fn))

    def _varies(self, e: ast.AST, env: dict, grown: set[str]) -> bool:
        """A tensor whose size changes from call to call (`grown`: lists of such tensors)."""
        if isinstance(e, ast.Call) and _dotted(e.func) in ("torch.cat", "torch.concat", "torch.stack") and e.args:
            parts = e.args[0].elts if isinstance(e.args[0], (ast.List, ast.Tuple)) else [e.args[0]]
            return any((isinstance(p, ast.Name) and p.id in grown) or self._varies(p, env, grown) for p in parts)
        k = self._kind(e, env)
        return k is not None and k[0] == TENSOR and k[1]

    def _helper_returns(self, fn: ast.AST, seed: dict) -> list[bool] | None:
        env = dict(seed)
        grown: set[str] = set()  # lists of tensors of drawn sizes (`xs.append(torch.randn(n, 8))`)

        def varies(e) -> bool:
            return self._varies(e, env, grown)

        nodes = [n for n in _stmts(fn.body)]
        rets: list[ast.Return] = []
        for _ in range(2):
            for s in nodes:
                if isinstance(s, ast.Assign) and len(s.targets) == 1:
                    t = s.targets[0]
                    if isinstance(t, ast.Name):
                        if varies(s.value):
                            env[t.id] = (TENSOR, "", None)
                        else:
                            k = self._kind(s.value, env)
                            if k is not None and k[1] and k[0] in (INT, FLOAT):
                                env[t.id] = (k[0], "", None)
                    elif isinstance(t, ast.Tuple) and isinstance(s.value, ast.Tuple) and len(t.elts) == len(s.value.elts):
                        for x, v in zip(t.elts, s.value.elts):
                            k = self._kind(v, env)
                            if isinstance(x, ast.Name) and k is not None and k[1] and k[0] in (INT, FLOAT, TENSOR):
                                env[x.id] = (k[0], "", None)
                elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                        and s.value.func.attr in ("append", "extend", "insert") and isinstance(s.value.func.value, ast.Name) \
                        and s.value.args and varies(s.value.args[-1]):
                    grown.add(s.value.func.value.id)
        for n in _own_nodes(fn):
            if isinstance(n, ast.Return) and n.value is not None:
                rets.append(n)
        if not rets:
            return None
        out = None
        for r in rets:
            vals = r.value.elts if isinstance(r.value, ast.Tuple) else [r.value]
            got = [varies(v) for v in vals]
            if out is not None and len(out) != len(got):
                return None
            out = got if out is None else [a or b for a, b in zip(out, got)]
        return out

    # ---- at a call of the compiled object
    def _marked(self) -> set[str]:
        """Names this scope passes to mark_dynamic / maybe_mark_dynamic."""
        if self._marked_names is None:
            self._marked_names = {n.args[0].id for s in self.body for n in walk(s)
                                  if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name))
                                  and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id)
                                  in ("mark_dynamic", "maybe_mark_dynamic", "mark_unbacked")
                                  and n.args and isinstance(n.args[0], ast.Name)}
        return self._marked_names

    def _why(self, a: ast.AST, env: dict) -> str:
        for n in walk(a):
            if isinstance(n, ast.Name) and n.id in env:
                return f"`{n.id}`: {env[n.id][1]}"
        return "it is made anew in the loop"

    def _call(self, call: ast.Call, loops: list) -> None:
        root_span, dynamic, target = self.compiled[call.func.id]
        env = self._env(loops)
        loop_line = loops[-1][0].lineno
        items = [(i, a) for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)]
        items += [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
        for key, a in items:
            k = self._kind(a, env)
            if k is None or not k[1] or self._param_unused(target, key):
                continue
            typ = k[0]
            if dynamic is True and typ in (INT, FLOAT, TENSOR):
                continue  # dynamic=True: numbers and sizes are dynamic from the first compile
            if typ == TENSOR and isinstance(a, ast.Name) and a.id in self._marked():
                continue  # torch._dynamo.mark_dynamic(x, 0)
            info = {"key": key, "arg": ast.unparse(a), "type": typ, "why": self._why(a, env), "loop": loop_line,
                    "call": ast.unparse(call.func), "dynamic": dynamic}
            at = self.span(a)
            if typ in SCALARS:
                fixed = self._specialised(target, key)
                if fixed:
                    info["specialised"] = fixed
                every = typ in (INT, FLOAT) and (dynamic is False or fixed is not None)
                self.out.append(("call", root_span, "FG602", at, {**info, "every": every}))
            elif typ == LIST:
                self.out.append(("call", root_span, "FG604", at, {**info, "every": True}))
            elif typ == TENSOR:
                # where the tensor of a new size is made, when the loop makes it (`x = torch.randn(n, 8)`)
                made = env.get(a.id) if isinstance(a, ast.Name) else None
                code = "FG605" if dynamic is False else "FG606"
                where = made[2] if made is not None and made[2] is not None else at
                dims = self._dims(self.made.get(where), env) if where is not at else []
                self.out.append(("call", root_span, code, where, {**info, "every": dynamic is False, "dims": dims,
                                                                   "assigned": where is not at}))
            elif typ.startswith("tensor-"):
                made = env.get(a.id) if isinstance(a, ast.Name) else None
                where = made[2] if made is not None and made[2] is not None else at
                self.out.append(("call", root_span, "FG609", where, {**info, "every": False, "prop": typ[7:]}))
            elif typ in (OBJ, DICT):
                # a lambda's defaults are guarded as constants: every new value (checked on 2.13); what its
                # closure reads and a dict's numbers become dynamic after one recompile
                lam = isinstance(a, ast.Lambda) and any(
                    self._changes(d, env) for d in [*a.args.defaults, *(x for x in a.args.kw_defaults if x)])
                self.out.append(("call", root_span, "FG607", at, {**info, "every": lam, "lambda": lam}))
        self._rebound_in_loop(call, loops, root_span, target)

    def _target_fn(self, target):
        """The compiled function as this module defines it (for `torch.compile(Model())`: `Model.forward`), with
        whether its first parameter is `self`; None when not visible."""
        if isinstance(target, ast.Name):
            fn = self.defs.get(target.id) or self.module_defs.get(target.id)
            if fn is not None:
                return fn, False
            target = self.instance_calls.get(target.id)  # `model = Model(); torch.compile(model)`
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id in self.class_defs:
            fwd = next((m for m in self.class_defs[target.func.id].body
                        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == "forward"), None)
            if fwd is not None:
                return fwd, True
        return None

    def _param_unused(self, target, key) -> bool:
        """The compiled function (visible here) never reads the parameter the argument binds: Dynamo installs
        no guard on a value it does not read (checked on 2.13: an unused int, str, dynamic=False or not)."""
        got = self._target_fn(target)
        if got is None:
            return False
        fn, method = got
        a = fn.args
        if a.vararg is not None or a.kwarg is not None:
            return False
        params = [x.arg for x in a.posonlyargs + a.args][1 if method else 0:]
        name = key if isinstance(key, str) else params[key] if isinstance(key, int) and key < len(params) else None
        if name is None:
            return False
        return not any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in walk(fn))

    def _specialised(self, target, key) -> str | None:
        """How the compiled function (a function of this module) uses the parameter an argument binds so
        that Dynamo needs its exact value: `range(n)`, an `if`/`while` on it, a slice bound.  Such a number
        never becomes dynamic: every new value recompiles."""
        fn = self.defs.get(target.id) if isinstance(target, ast.Name) else None
        if fn is None:
            fn = self.module_defs.get(target.id) if isinstance(target, ast.Name) else None
        if fn is None:
            return None
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        name = key if isinstance(key, str) else params[key] if isinstance(key, int) and key < len(params) else None
        if name is None:
            return None
        how = _exact_use(_own_nodes(fn), lambda n: isinstance(n, ast.Name) and n.id == name)
        return {"range": f"range({name})", "branch": f"a branch on `{name}`",
                "slice": f"a slice bound `{name}`"}.get(how)

    def _dims(self, value, env: dict) -> list[int]:
        """The dimensions whose size changes, of a tensor made by `torch.randn(n, 8)`, `x[:, :n]` or
        `torch.cat([x, y], dim=1)`."""
        if isinstance(value, ast.Call) and _dotted(value.func) in ("torch.cat", "torch.concat"):
            dim = next((k.value for k in value.keywords if k.arg == "dim"), value.args[1] if len(value.args) > 1 else None)
            if dim is None:
                return [0]
            return [dim.value] if isinstance(dim, ast.Constant) and isinstance(dim.value, int) and dim.value >= 0 else []
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and _dotted(value.func.value) == "torch":
            name = value.func.attr
            if name == "randint":
                shape = value.args[2:3] + [k.value for k in value.keywords if k.arg == "size"]
            elif name in _SHAPED and name not in ("arange", "linspace", "randperm", "eye"):
                shape = value.args[:1] if name == "full" else value.args
            else:
                return []
            sizes = [x for a in shape for x in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])]
            return [i for i, x in enumerate(sizes) if self._changes(x, env)]
        if isinstance(value, ast.Subscript):
            items = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            if all(isinstance(x, ast.Slice) for x in items):
                return [i for i, x in enumerate(items) if self._length_changes(x, env)]
        return []

    def _rebound_in_loop(self, call: ast.Call, loops: list, root_span, target) -> None:
        """In the loops around the call: an attribute of the compiled module set from what changes
        (`model.k = i`, `net.step += 1`), its mode switched (`model.eval()` / `model.train()`), a variable the
        compiled nested function reads rebound (its closure)."""
        env = self._env(loops)
        outer_loop = loops[0][0]
        fn = self.defs.get(target.id) if isinstance(target, ast.Name) else None
        module = {call.func.id} | ({target.id} if isinstance(target, ast.Name) and fn is None else set())
        free = set()
        if fn is not None and not self.module_level:
            free = {n.id for n in _own_nodes(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} \
                - _local_names(fn)
        attr_types: dict[str, str] = {}
        read: set[str] | None = None  # None: the class is not known here
        for m in module:
            cls = self.instances.get(m, "")
            attr_types.update(self.classes.get(cls, {}))
            if cls in self.reads:
                read = (read or set()) | self.reads[cls]
        modes = []
        for s in _stmts(outer_loop.body):
            t = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else \
                s.target if isinstance(s, ast.AugAssign) else None
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in module \
                    and (read is None or t.attr in read):
                k = self._kind(s.value, env) if isinstance(s, ast.Assign) else None
                typ = k[0] if k is not None and k[1] else attr_types.get(t.attr) if isinstance(s, ast.AugAssign) else None
                if typ in (INT, FLOAT, BOOL):
                    # `unseen`: the module's class is not defined here (another file, or a wrapper such as
                    # DDP rebinding the name): the rule keeps the fact only if the compiled module's class,
                    # as the project resolves it, reads the attribute (Dynamo guards only on what it reads)
                    self.out.append(("call", root_span, "FG601", self.span(s),
                                     {"attr": t.attr, "type": typ, "every": typ == INT, "outside": True,
                                      "module": t.value.id, **({"unseen": True} if read is None else {})}))
            elif isinstance(t, ast.Name) and t.id in free:
                k = self._kind(s.value, env) if isinstance(s, ast.Assign) else (env.get(t.id) or (None,))[:1] + (True,)
                if k is not None and k[1] and k[0] in SCALARS + (LIST,):
                    self.out.append(("call", root_span, "FG603", self.span(s),
                                     {"name": t.id, "type": k[0], "every": False, "closure": True}))
            elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
                    and s.value.func.attr in ("eval", "train") and isinstance(s.value.func.value, ast.Name) \
                    and s.value.func.value.id in module:
                modes.append(s)
        if len(modes) > 1 or any(m.value.func.attr == "train" and m.value.args and self._changes(m.value.args[0], env)
                                 for m in modes):
            evals = [m for m in modes if m.value.func.attr == "eval"]
            for m in evals or modes[:1]:  # the switch away from the default (training) mode
                self.out.append(("call", root_span, "FG601", self.span(m.value),
                                 {"attr": "training", "type": BOOL, "every": False, "outside": True,
                                  "module": m.value.func.value.id, "mode": True}))

    # ---- torch.compile inside a loop, or in a function called per step
    def _compile_call(self, call: ast.Call, loops: list) -> None:
        self.compile_loops.append((call, loops))

    def compiles_per_call(self, varied_calls: set) -> None:
        """A torch.compile call that makes a new compiled object whose captured values change: compiling a
        closure made from what changes (`torch.compile(make_update(lr))`), with a backend defined in the
        loop, or compiling a nested function reading a parameter of a function called with what changes."""
        for call, loops in self.compile_loops:
            env = self._env(loops)
            target = call.args[0] if call.args else None
            why = None
            if loops and isinstance(target, ast.Call) and any(self._changes(a, env) for a in
                                                             [*target.args, *(k.value for k in target.keywords)]):
                why = f"`{ast.unparse(target)}` makes a new function whose captured values change"
            elif loops and isinstance(target, ast.Lambda) and self._changes(target.body, env):
                why = "the lambda captures what the loop changes"
            elif loops and any(kw.arg == "backend" and isinstance(kw.value, ast.Name) and kw.value.id in
                               {d.name for d in _stmts(loops[-1][0].body)
                                if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))} for kw in call.keywords):
                why = "its backend is a new function each iteration"
            elif not loops and self.fn is not None and self.fn.name in varied_calls and isinstance(target, ast.Name) \
                    and target.id in self.defs and self.defs[target.id] is not self.fn:
                params = {a.arg for a in walk(self.fn.args) if isinstance(a, ast.arg)}
                inner = self.defs[target.id]
                reads = {n.id for n in _own_nodes(inner) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                if reads & params:
                    why = (f"`{self.fn.name}` is called with a value that changes and compiles `{target.id}`, which "
                           f"reads its parameter `{min(reads & params)}`")
            if why is not None:
                sp = self.span(call)
                self.out.append(("call", sp, "FG608", sp, {"why": why, "every": False,
                                                           "loop": loops[-1][0].lineno if loops else None}))


def _torch_random(e: ast.AST) -> bool:
    """A call of a torch random factory (`torch.randint(3, 9, (1,))`): its values are new on every call."""
    return isinstance(e, ast.Call) and _dotted(e.func) in ("torch.randint", "torch.rand", "torch.randn",
                                                          "torch.normal", "torch.multinomial", "torch.poisson")


def _dotted(e: ast.AST) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return f"{_dotted(e.value)}.{e.attr}"
    return ""
