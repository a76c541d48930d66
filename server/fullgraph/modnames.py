"""Module names: a file's dotted name, and the module a relative import names (pure helpers)."""
from __future__ import annotations

import os


def package_of(modname: str, is_package: bool) -> list[str]:
    """The package a module's relative imports start from, as name parts."""
    parts = modname.split(".")
    return parts if is_package else parts[:-1]


def absolute_module(package: list[str], module: str | None, level: int) -> str | None:
    """The module `from <level dots><module> import ...` names, from `package`; None if the dots go
    beyond the top-level package."""
    if not level:
        return module or ""
    if level - 1 >= len(package):
        return None
    base = package[:len(package) - (level - 1)]
    return ".".join([*base, module] if module else base)


def module_name_for(path: str, root: str | None = None) -> tuple[str, bool]:
    """Dotted module name from the file's package (parent dirs holding __init__.py)."""
    path = os.path.abspath(path)
    d, fname = os.path.split(path)
    stem = fname[:-3] if fname.endswith(".py") else fname.rsplit(".", 1)[0]
    is_pkg = stem == "__init__"
    parts = [] if is_pkg else [stem]
    while os.path.isfile(os.path.join(d, "__init__.py")):
        d, pkg = os.path.split(d)
        parts.insert(0, pkg)
        if not pkg:
            break
    return ".".join(p for p in parts if p) or stem, is_pkg


def namespace_names(path: str, modname: str, is_package: bool, root: str | None) -> list[str]:
    """The other names Python imports the module by when the directories above its top-level package (or
    module) have no `__init__.py` -- namespace packages -- from a search path entry at any of them up to
    `root` (a script's own directory, the project root, `src/`, a directory added to `sys.path`):
    `trainer/main.py` is also `trainer.main`.  Only directories that are identifiers count (not
    `site-packages` or `.venv`)."""
    if root is None:
        return []
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(modname.count(".") + (1 if is_package else 0)):
        d = os.path.dirname(d)  # the directory holding the top-level package
    root = os.path.abspath(root)
    out: list[str] = []
    name = modname
    while d != root and d.startswith(root + os.sep):
        d, base = os.path.split(d)
        if not base.isidentifier() or os.path.isfile(os.path.join(d, base, "__init__.py")):
            break
        name = f"{base}.{name}"
        out.append(name)
    return out
