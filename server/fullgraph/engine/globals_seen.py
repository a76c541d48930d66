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

from .nodes import walk

NOT_KNOWN = object()
_MAX_FILES = 3000  # a package larger than this is not searched: not known


def module_value(arr, q: str, near: str) -> Any:
    """The constant the module-level variable `q` (`pkg.mod.NAME`) holds, or NOT_KNOWN (memoised)."""
    return arr.c.memoised("globals_seen", q, lambda: _value(arr, q, near), NOT_KNOWN)


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
    if stored_anywhere(arr, name, [mod.path]):
        return NOT_KNOWN
    return value


def stored_anywhere(arr, name: str, defining: list[str]) -> bool:
    """Does a module the analysis loaded, or a file of the packages of the modules `defining`, store the
    attribute `name` (`.NAME = `, `.NAME += `, `setattr(x, "NAME", ...)`)?  Memoised per name."""
    memo = arr.c.memo.setdefault("globals_seen_stores", {})
    key = (name, tuple(defining))
    if key not in memo:
        memo[key] = _stored_anywhere(arr, name, defining)
    return memo[key]


def _stored_anywhere(arr, name: str, defining: list[str]) -> bool:
    store, by_name = store_patterns(name)
    return any(store.search(text) or by_name.search(text) for text in texts_naming(arr, name, defining).values())


def store_patterns(name: str) -> tuple[re.Pattern, re.Pattern]:
    """The text of a store of the attribute `name`: `.NAME = `, `.NAME += ` (...); `setattr(x, "NAME", ...)`."""
    return (re.compile(r"\." + re.escape(name) + r"\s*(?:=(?!=)|[-+*/%&|^@]=|//=|\*\*=|>>=|<<=)"),
            re.compile(r"""setattr\(\s*[^,()]*,\s*['"]""" + re.escape(name) + r"""['"]"""))


def parsed(arr, path: str, text: str) -> ast.Module:
    """The module's syntax tree (Arrivals.tree, shared by the readers of library sources); raises SyntaxError when
    it does not parse (the reader's memo then says not known)."""
    tree = arr.tree(path, text)
    if tree is None:
        raise SyntaxError(path)
    return tree


def texts_naming(arr, name: str, defining: list[str]) -> dict[str, str]:
    """Path -> text of the modules the analysis loaded (as analysed: an editor's buffer may differ from the
    file) and of the files of the packages of the modules `defining` (read as bytes and searched for the
    name first: transformers' 2,900 files in 0.1 s) that hold `name`; memoised per generation (do not mutate)."""
    memo = arr.c.memo.setdefault("texts_naming", {})
    key = (name, tuple(defining))
    if key not in memo:  # (what cannot be read raises, for the caller's memo to say not known)
        # the files that name a part of `name` (`loss_function` for `_loss_function`) hold those that name it
        part = next((v for (n, d), v in memo.items() if d == key[1] and n in name), None)
        memo[key] = {p: t for p, t in part.items() if name in t} if part is not None else \
            _texts_naming(arr, name, defining)
    return memo[key]


def _texts_naming(arr, name: str, defining: list[str]) -> dict[str, str]:
    texts: dict[str, str] = {}
    loaded = {m.path for m in list(arr.c.modules.values()) if getattr(m, "path", None)}
    for path in loaded:
        text = arr.source_of(path)
        if text is not None and name in text:
            texts[path] = text
    # the package files holding the name, read once per session: installed code does not change while the user
    # edits a script (the reading was most of an edit's re-check of a transformers script)
    key = (name, tuple(defining))
    found = arr.package_texts.get(key)
    if found is None:
        raw = name.encode()
        found = {}
        for path in dict.fromkeys(p for d in defining for p in package_files(arr, d)):  # (each package once)
            with open(path, "rb") as fh:
                data = fh.read()
            if raw in data:
                found[path] = data.decode("utf-8", "replace")
        arr.package_texts[key] = found
    for path, text in found.items():
        if path not in loaded and path not in texts:
            texts[path] = text
    return texts


def _initial_constant(tree: ast.Module, text: str, name: str) -> Any:
    """The literal NAME is assigned once at the top level of the module, when nothing else there rebinds it."""
    if "globals()" in text or "sys.modules[" in text:
        return NOT_KNOWN
    value = NOT_KNOWN
    stores = 0
    for node in walk(tree):
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
        for node in walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
                stores += 1
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else \
            stmt.target if isinstance(stmt, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == name and isinstance(stmt.value, ast.Constant):
            value = stmt.value.value
    # (a store inside a function without `global` binds a local of its own: only the top level counts)
    return value if stores == 1 else NOT_KNOWN


def package_files(arr, defining: str) -> list[str]:
    """The `.py` files of the top-level package that holds the module `defining` (none for a module outside
    a package; ValueError for a package too large to search), memoised per package."""
    root = os.path.dirname(os.path.abspath(defining))
    while os.path.isfile(os.path.join(os.path.dirname(root), "__init__.py")):
        root = os.path.dirname(root)
    if not os.path.isfile(os.path.join(root, "__init__.py")):
        return []
    memo = arr.c.memo.setdefault("globals_seen_packages", {})
    if root not in memo:
        found: list[str] | None = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            found.extend(os.path.join(d, f) for f in files if f.endswith(".py"))
            if len(found) > _MAX_FILES:
                found = None
                break
        memo[root] = found
    if memo[root] is None:
        raise ValueError("package too large to search")
    return memo[root]
