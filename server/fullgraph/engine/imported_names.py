"""Modules imported by a name given at run time: `model = importlib.import_module(model_name)`.

The analyzer (engine/calls.py) reads `importlib.import_module("pkg.mod")` as `import pkg.mod`; for a name held by
a parameter of the function, never rebound in it, it makes a reference to the module that parameter names
(`ref_by_param`), and for any other name one to a module it cannot tell (`UNDECIDED`).  What a compile call
reached through such a reference compiles (`classifier = torch.compile(model.get_model(...))`) is decided here,
for the project: the names every call of the function passes for that parameter, as string literals, or leaves
at its literal default (`targets`).  A name the analysis cannot tell is never guessed: the compile call is then
reported as not followed, as one through `importlib.import_module` (engine/roots.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - types only: the analyzer (engine/calls.py) imports this module
    from .resolve import Resolver

_HEAD = "importlib.import_module("
UNDECIDED = _HEAD + "?)"  # a module whose name the analysis does not see


def ref_by_param(function_q: str, param: str) -> str:
    """The reference to the module a parameter of a function names (a value's `q`)."""
    return f"{_HEAD}{function_q}:{param})"


def is_imported_by_name(target: str) -> bool:
    return target.startswith(_HEAD)


def targets(r: Resolver, target: str, near: str) -> list[str] | None:
    """`target` (a compiled root's qualified name) with the module imported by name replaced by each module the
    calls give it (`importlib.import_module(use.train:name).get_model` -> `pointnet2_cls_ssg.get_model`); None when
    the name is not decided."""
    inner, sep, rest = target[len(_HEAD):].partition(")")
    if not sep or inner == "?":
        return None
    function_q, _, param = inner.rpartition(":")
    key = ("imported_names", function_q, param, near)
    memo = r.c.memo  # per generation of the project's contents
    if key not in memo:
        memo[key] = _names_passed(r, function_q, param, near)
    names = memo[key]
    if not names:
        return None
    return [name + rest for name in names]


def _names_passed(r: Resolver, function_q: str, param: str, near: str) -> list[str] | None:
    """The module names the calls of the function pass for `param` (a string literal, a name a `for` takes from a
    literal tuple or list of them, or the parameter's literal default), in order; None when one call passes
    anything else, when *args/**kwargs may carry it, or when no call is seen."""
    hit = r.function(function_q, near)
    if hit is None:
        return None
    fs, fmod = hit
    if getattr(fmod, "library", False) or fs.is_method or param not in fs.params:
        return None
    index = fs.params.index(param)
    positional = index < fs.positional
    out: list[str] = []
    seen_call = False
    r.c.all_bodies()
    for mod in list(r.c.modules.values()):
        for cs in mod.call_sites:
            if cs.is_method_call or cs.target.rpartition(".")[2] != fs.name:
                continue
            called = r.function(cs.target, mod.path)
            if called is None or called[0] is not fs:
                continue
            seen_call = True
            passed = dict(cs.vals)
            if "**" in passed or "*fwd" in passed or "**fwd" in passed:
                return None
            got = passed.get(param, passed.get(index) if positional else None)
            if got is None:
                values = (fs.defaults[param],) if param in fs.defaults else ()
            elif got[0] == "const":
                values = (got[1],)
            elif got[0] == "one_of":
                values = got[1]
            else:
                return None
            if not values or not all(isinstance(v, str) and v and not v.startswith(".") for v in values):
                return None
            out.extend(v for v in values if v not in out)
    return out if seen_call else None
