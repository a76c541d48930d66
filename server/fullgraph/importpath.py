"""Where Python would find a module: the search path a script has, and Python's own path finder over it.

`importlib.machinery.PathFinder.find_spec(name, path)` locates a module in the given directories as the
interpreter does (regular packages, namespace packages, the first directory that has it wins) and runs
nothing: it lists directories.  A dotted name is found one level at a time, each in its parent package's
directories, never with `importlib.util.find_spec`, which imports the parents.
"""
from __future__ import annotations

import os
import sys
from importlib.machinery import PathFinder

_SITE_DIRS = ("site-packages", "dist-packages")


class ModuleFinder:
    """Python's path finder with a memo: (search path, dotted name) -> the module's source file.
    `forget()` when files may have appeared or gone."""

    def __init__(self) -> None:
        # (path, name) -> (origin, submodule directories); None: not found there
        self._specs: dict[tuple[tuple[str, ...], str], tuple[str | None, tuple[str, ...]] | None] = {}

        self._installed: dict[str, bool] = {}
        self.interpreter: tuple[str, ...] | None = None  # set by installed()

    def forget(self) -> None:
        self._specs.clear()

    def installed(self, top: str, project: str | None) -> bool:
        """The top-level name is one of the standard library or of an installed package: the interpreter
        running the analysis finds it on its own path (not counting the project's directories)."""
        hit = self._installed.get(top)
        if hit is None:
            if self.interpreter is None:
                here = os.path.realpath(os.getcwd())
                inside = (project.rstrip(os.sep) + os.sep) if project else None
                # (a virtual environment inside the project, `.venv/lib/python3.11/site-packages`, is installed
                # code all the same)
                self.interpreter = tuple(
                    p for p in (os.path.realpath(e) for e in sys.path if e)
                    if p != here and p != project and os.path.isdir(p) and
                    not (inside and p.startswith(inside) and os.path.basename(p) not in _SITE_DIRS))
            hit = top in sys.builtin_module_names or self._spec(top, self.interpreter) is not None
            self._installed[top] = hit
        return hit

    def find(self, name: str, path: tuple[str, ...]) -> str | None:
        """The .py file Python imports for `name` from the directories `path` (a package's `__init__.py`);
        None when it finds none there, or finds a namespace package, a compiled or a bytecode-only module."""
        spec = self._spec(name, path)
        if spec is None or spec[0] is None or not spec[0].endswith(".py"):
            return None
        return spec[0]

    def _spec(self, name: str, path: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]] | None:
        key = (path, name)
        if key in self._specs:
            return self._specs[key]
        parent, _, _ = name.rpartition(".")
        where: tuple[str, ...] | None = path
        if parent:
            up = self._spec(parent, path)
            where = up[1] if up is not None and up[1] else None
        found = None
        if where and all(part.isidentifier() for part in name.split(".")):
            try:
                # the last part only, in the parent's directories: a namespace package's spec under its full
                # name would look its parent up in sys.modules (it was never imported)
                spec = PathFinder.find_spec(name.rpartition(".")[2], list(where))
            except (ImportError, ValueError, OSError):
                spec = None
            if spec is not None:
                origin = spec.origin if spec.has_location else None
                found = (origin, tuple(spec.submodule_search_locations or ()))
        self._specs[key] = found
        return found


def top_directory(path: str, modname: str, is_package: bool) -> str:
    """The directory holding a module's top-level package (or the module itself): where its dotted name
    `modname` is found from."""
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(modname.count(".") + (1 if is_package else 0)):
        d = os.path.dirname(d)
    return d


def search_path(path: str, modname: str, is_package: bool, edits: list[tuple[int, str]], roots: list[str],
                extra: list[str], cwd: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The directories a module's imports are found in, first first, in two parts: those Python searches before
    the standard library and the installed packages, and those after.  Before: what the module's own
    `sys.path` edits insert (`edits`: (index, directory), index -1 for an append; a relative directory is
    taken from `cwd`), a top-level module's own directory (a script's `sys.path[0]`), the source `roots`
    (the project root and `src/`, where `python -m`, pytest and an editable install find the project) and
    the `extra` paths (PYTHONPATH).  After: the directory holding the module's top-level package, what the
    edits append, and last a module's own directory when it is inside a package (Python has it only when
    the file is run as a script).  Existing directories only, each once; a source root that is itself
    inside a package is none (its modules are found as that package's)."""
    def place(d: str) -> str | None:
        if not os.path.isabs(d):
            if cwd is None:
                return None
            d = os.path.join(cwd, d)
        return os.path.normpath(d)

    own = os.path.dirname(os.path.abspath(path))
    top = top_directory(path, modname, is_package)
    script = own == top and not is_package
    roots = [r for r in roots if not os.path.isfile(os.path.join(r, "__init__.py"))]
    ahead = [*(place(d) for i, d in reversed(edits) if i == 0), own if script else None,
             *(place(d) for i, d in reversed(edits) if i > 0), *roots, *extra]
    behind = [top, *(place(d) for i, d in edits if i < 0), None if script else own]
    seen: set[str] = set()

    def keep(ds: list[str | None]) -> tuple[str, ...]:
        out = []
        for d in ds:
            if d is not None and d not in seen and os.path.isdir(d):
                seen.add(d)
                out.append(d)
        return tuple(out)

    return keep(ahead), keep(behind)
