"""A module-level variable whose every assignment the analysis sees: its value is the constant it is
initialised to.  torch_geometric's `backend.use_segment_matmul = None` is read by `RGCNConv.forward`
(`if use_segment_matmul is None:` runs a heuristic that breaks the graph); nothing assigns it, so the
test is decided.

The value is known when, in the module that defines NAME, NAME is assigned once, at the top level, to a
literal (no `global NAME` in a function, no import, `del`, loop or other store of it, no `globals()`,
no `sys.modules[...]` replacement of the module, no star import), and no `.NAME = ` (or `.NAME += `,
`setattr(..., "NAME", ...)`) appears in any module the analysis loaded nor in any file of the package
that defines it.  Anything else: not known (the test stays a condition).
"""
from __future__ import annotations

import ast
import os
import re
from typing import Any

NOT_KNOWN = object()
_MAX_FILES = 3000  # a package larger than this is not searched: not known


def module_value(arr, q: str, near: str) -> Any:
    """The constant the module-level variable `q` (`pkg.mod.NAME`) holds, or NOT_KNOWN (memoised)."""
    memo = arr.c.memo.setdefault("globals_seen", {})
    if q not in memo:
        try:
            memo[q] = _value(arr, q, near)
        except (OSError, SyntaxError, ValueError, RecursionError):
            memo[q] = NOT_KNOWN
    return memo[q]


def _value(arr, q: str, near: str) -> Any:
    owner, _, name = q.rpartition(".")
    if not owner or not name.isidentifier():
        return NOT_KNOWN
    mod = arr.c.module(owner, near)
    if mod is None and arr.c.module_loader is not None:
        arr.r.lookup(q, near)  # loads a followed library's module
        mod = arr.c.module(owner, near)
    if mod is None or arr.source_of is None:
        return NOT_KNOWN
    text = arr.source_of(mod.path)
    if text is None:
        return NOT_KNOWN
    value = _initial_constant(ast.parse(text), text, name)
    if value is NOT_KNOWN:
        return NOT_KNOWN
    for path in searched_files(arr, mod.path):
        if name in stored_names(arr, path):
            return NOT_KNOWN
    return value


_STORE = re.compile(r"\.([A-Za-z_]\w*)\s*(?:=(?!=)|[-+*/%&|^@]=|//=|\*\*=|>>=|<<=)")  # `.NAME = `, `.NAME += `
_SETATTR = re.compile(r"""setattr\(\s*[^,()]*,\s*['"]([A-Za-z_]\w*)['"]""")  # setattr(x, "NAME", ...)


def stored_names(arr, path: str) -> frozenset:
    """The attribute names a file assigns (`.NAME = `) or sets by name (`setattr(x, "NAME", ...)`),
    memoised per file: one reading of a package serves every variable asked about."""
    memo = arr.c.memo.setdefault("globals_seen_files", {})
    if path not in memo:
        text = arr.source_of(path)
        memo[path] = frozenset() if text is None else \
            frozenset(m.group(1) for m in _STORE.finditer(text)) | frozenset(m.group(1) for m in _SETATTR.finditer(text))
    return memo[path]


def _initial_constant(tree: ast.Module, text: str, name: str) -> Any:
    """The literal NAME is assigned once at the top level of the module, when nothing else there rebinds it."""
    if "globals()" in text or "sys.modules[" in text:
        return NOT_KNOWN
    value = NOT_KNOWN
    stores = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return NOT_KNOWN
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return NOT_KNOWN
        if isinstance(node, (ast.Import, ast.ImportFrom)) and \
                any((a.asname or a.name.partition(".")[0]) == name for a in node.names):
            return NOT_KNOWN
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return NOT_KNOWN
    for stmt in tree.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
                stores += 1
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else \
            stmt.target if isinstance(stmt, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == name and isinstance(stmt.value, ast.Constant):
            value = stmt.value.value
    # (a store inside a function without `global` binds a local of its own: only the top level counts)
    return value if stores == 1 else NOT_KNOWN


def searched_files(arr, defining: str) -> list[str]:
    """The modules the analysis loaded and the files of the package that defines the variable."""
    paths = [m.path for m in list(arr.c.modules.values()) if getattr(m, "path", None)]
    root = os.path.dirname(os.path.abspath(defining))
    while os.path.isfile(os.path.join(os.path.dirname(root), "__init__.py")):
        root = os.path.dirname(root)
    if os.path.isfile(os.path.join(root, "__init__.py")):
        memo = arr.c.memo.setdefault("globals_seen_packages", {})
        if root not in memo:
            found: list[str] = []
            for d, dirs, files in os.walk(root):
                dirs[:] = [x for x in dirs if x != "__pycache__"]
                found.extend(os.path.join(d, f) for f in files if f.endswith(".py"))
                if len(found) > _MAX_FILES:
                    found = None
                    break
            memo[root] = found
        if memo[root] is None:
            raise ValueError("package too large to search")
        paths.extend(memo[root])
    return list(dict.fromkeys(paths))
