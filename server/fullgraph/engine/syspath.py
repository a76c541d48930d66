"""A module's literal `sys.path` edits: the directories `sys.path.insert(0, ...)`, `sys.path.append(...)`,
`sys.path.extend([...])` and `site.addsitedir(...)` add, when what they add is written with literals and
`__file__` (`os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")`,
`str(Path(__file__).resolve().parents[1])`, `Path(__file__).parent / "lib"`, a module-level name bound to
one of these).  `sys`, `os.path`, `pathlib.Path` and `site` are known by the module's imports, never by
their spelling.  Nothing is run.

The result: (index, directory) in the order the statements appear, index 0 for an insert at the front,
1 for an insert further in, -1 for an append; the directory absolute when it comes from `__file__`, else
relative to the working directory (`os.getcwd()` is ".").
"""
from __future__ import annotations

import ast
import os
import re

_PATH_FUNCS = {"os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.join",
               "os.path.expanduser", "os.fspath", "os.getcwd", "pathlib.Path", "pathlib.PurePath",
               "pathlib.Path.cwd", "str"}

_EDIT_CALL = re.compile(r"path\s*\.\s*(?:insert|append|extend)\s*\(")


def sys_path_edits(tree: ast.Module, path: str, text: str) -> list[tuple[int, str]]:
    if "addsitedir" not in text and "from sys import" not in text and not _EDIT_CALL.search(text):
        return []  # no `<...>path.insert/append/extend(` anywhere: nothing to read
    return _Edits(os.path.abspath(path)).run(tree)


class _Edits:
    def __init__(self, path: str):
        self.file = path
        self.names: dict[str, str] = {"str": "str"}  # local name -> the dotted name it is bound to
        self.values: dict[str, str | None] = {}  # module-level names bound to a path
        self.out: list[tuple[int, str]] = []

    def run(self, tree: ast.Module) -> list[tuple[int, str]]:
        self.block(tree.body, top=True)
        return self.out

    def block(self, body: list[ast.stmt], top: bool) -> None:
        for s in body:
            if isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname:
                        self.names[a.asname] = a.name
                    else:
                        self.names[a.name.split(".")[0]] = a.name.split(".")[0]
            elif isinstance(s, ast.ImportFrom) and s.module and not s.level:
                for a in s.names:
                    self.names[a.asname or a.name] = f"{s.module}.{a.name}"
            elif isinstance(s, ast.Assign) and top and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                self.values[s.targets[0].id] = self.value(s.value)
            elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
                self.edit(s.value)
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.block(s.body, top=False)
            if isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    self.block(getattr(s, part, []), top)
                for h in getattr(s, "handlers", []):
                    self.block(h.body, top)

    def dotted(self, e: ast.expr) -> str | None:
        """The dotted name an expression refers to through the module's imports (`osp.join` -> os.path.join)."""
        if isinstance(e, ast.Name):
            return self.names.get(e.id)
        if isinstance(e, ast.Attribute):
            base = self.dotted(e.value)
            return f"{base}.{e.attr}" if base else None
        return None

    def edit(self, call: ast.Call) -> None:
        f = self.dotted(call.func)
        if f == "sys.path.insert" and len(call.args) == 2:
            at = call.args[0]
            index = at.value if isinstance(at, ast.Constant) and isinstance(at.value, int) else 1
            self.add(0 if index == 0 else 1 if index > 0 else -1, call.args[1])
        elif f in ("sys.path.append", "site.addsitedir") and len(call.args) == 1:
            self.add(-1, call.args[0])
        elif f == "sys.path.extend" and len(call.args) == 1 and isinstance(call.args[0], (ast.List, ast.Tuple)):
            for e in call.args[0].elts:
                self.add(-1, e)

    def add(self, index: int, e: ast.expr) -> None:
        d = self.value(e)
        if d is not None:
            self.out.append((index, os.path.normpath(d)))

    def value(self, e: ast.expr) -> str | None:
        """The path an expression evaluates to, if it is written with literals, `__file__` and path calls."""
        if isinstance(e, ast.Constant) and isinstance(e.value, str):
            return e.value
        if isinstance(e, ast.Name):
            if e.id == "__file__":
                return self.file
            return self.values.get(e.id)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div):  # Path / "lib"
            left, right = self.value(e.left), self.value(e.right)
            return os.path.join(left, right) if left is not None and right is not None else None
        if isinstance(e, ast.Attribute) and e.attr == "parent":
            base = self.value(e.value)
            return os.path.dirname(os.path.normpath(base)) if base is not None else None
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "parents" \
                and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, int) and e.slice.value >= 0:
            base = self.value(e.value.value)
            if base is None:
                return None
            base = os.path.normpath(base)
            for _ in range(e.slice.value + 1):
                base = os.path.dirname(base)
            return base
        if not isinstance(e, ast.Call) or e.keywords:
            return None
        if isinstance(e.func, ast.Attribute) and self.dotted(e.func) is None:  # a method of a Path
            if e.func.attr in ("resolve", "absolute", "expanduser") and not e.args:
                return self.value(e.func.value)
            if e.func.attr == "joinpath":
                return self.join(e.func.value, e.args)
            return None
        f = self.dotted(e.func)
        if f not in _PATH_FUNCS:
            return None
        if f in ("os.getcwd", "pathlib.Path.cwd"):
            return "." if not e.args else None
        if f == "os.path.join":
            return self.join(e.args[0], e.args[1:]) if e.args else None
        if len(e.args) != 1:
            return None
        arg = self.value(e.args[0])
        if arg is None:
            return None
        if f == "os.path.dirname":
            return os.path.dirname(arg)
        return arg  # abspath, realpath, normpath, Path(...), str(...): the same place

    def join(self, first: ast.expr, rest: list[ast.expr]) -> str | None:
        parts = [self.value(a) for a in (first, *rest)]
        return os.path.join(*parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
