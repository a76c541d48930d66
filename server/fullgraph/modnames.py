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
