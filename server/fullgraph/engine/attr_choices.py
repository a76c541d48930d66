"""Which module class an attribute of self holds, by what the object's construction passes.

`__init__` often picks the class of a submodule by a flag (`if sparse: self.ffn = Routed() else: self.ffn =
Dense()`, `self.ffn = Routed() if config.moe else Dense()`): ClassSummary.attrs holds both classes, and
ClassSummary.choices records, per assignment, the class with the atoms of the tests that hold where `__init__`
makes it.  An atom is (kind, name, test, polarity), test and polarity as summary.Cond's, kind:

- "init": an `__init__` parameter never rebound (`if sparse:`), name its name;
- "field": a field of one (`if config.moe:`), name "<parameter>.<field>";
- "self": an attribute of self (`if self.is_sparse:`, `if self.config.moe:`), name as a "self" Cond atom's.

Tests of anything else record no atom (the class is made under a condition not known: it may be held).

The walk (engine/walk.py) follows `self.<attr>(...)` into a class only when one of its assignments may run for the
object on the walk's path: an atom that is false for what the object's construction passes, certainly (not by
default only), drops the assignment (`excluded`).  Nothing is dropped when nothing is known: a construction the
program does not show, a value the analysis cannot tell, or a class the attribute gets some other way.
"""
from __future__ import annotations

import ast

from . import conditions_evaluated as C
from .conditions_recorded import COMPARISONS
from .values import SELF_MADE

_NO_ATOMS: tuple = ()


# ---- recording (the analyzer, on `self.<attr> = <instance>`) ---------------------------------------------------
def enclosing_tests(fn: ast.AST, stmt: ast.stmt) -> list[tuple[ast.expr, bool]]:
    """The tests of the `if`s of the function `fn` around its statement `stmt`, each with whether `stmt` is in its
    body (True) or its else branch (False); [] when `stmt` is not found."""
    out: list[tuple[ast.expr, bool]] = []
    block = getattr(fn, "body", None)
    while isinstance(block, list):
        nxt = None
        for s in block:
            if s is stmt:
                return out
            if not _holds_line(s, stmt):
                continue
            if isinstance(s, ast.If):
                in_body = _in_block(s.body, stmt)
                out.append((s.test, in_body))
                nxt = s.body if in_body else s.orelse
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return []
            else:  # for / while / with / try: their blocks hold under no test of theirs
                for f in ("body", "orelse", "finalbody", "handlers"):
                    b = getattr(s, f, None)
                    if isinstance(b, list) and _in_block(b, stmt):
                        nxt = b if f != "handlers" else None
                        if f == "handlers":
                            nxt = next((h.body for h in b if _in_block(h.body, stmt)), None)
                        break
            break
        block = nxt
    return []


def _holds_line(s: ast.stmt, stmt: ast.stmt) -> bool:
    return s.lineno <= stmt.lineno <= (s.end_lineno or s.lineno)


def _in_block(block: list, stmt: ast.stmt) -> bool:
    return any(_holds_line(s, stmt) for s in block)


def test_atoms(test: ast.expr, holds: bool, flag) -> tuple:
    """The atoms that hold where `test` is `holds` (an `and`'s operands in its body, an `or`'s negated in its else
    branch); `flag(node)` -> (kind, name) of a flag as the module's docstring lists, or None."""
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) == holds:
            return tuple(a for v in test.values for a in test_atoms(v, holds, flag))
        return ()
    a = _atom(test, flag)
    if a is None:
        return ()
    return (a if holds else a[:3] + (not a[3],),)


def _atom(node: ast.expr, flag) -> tuple | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        a = _atom(node.operand, flag)
        return a[:3] + (not a[3],) if a else None
    test, want = "truth", True
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.comparators[0], ast.Constant):
        op, right = node.ops[0], node.comparators[0].value
        if isinstance(op, (ast.Is, ast.IsNot)) and right is None:
            test, want = "none", isinstance(op, ast.Is)
        elif type(op) in COMPARISONS and isinstance(right, (int, float, str, bool)):
            test = ("cmp", COMPARISONS[type(op)], right)
        else:
            return None
        node = node.left
    elif isinstance(node, ast.Compare):
        return None
    f = flag(node)
    return (*f, test, want) if f else None


def add_choice(choices: dict, attr: str, classes, atoms: tuple) -> None:
    """Record that an assignment makes `self.<attr>` one of `classes` where `atoms` hold (ClassSummary.choices)."""
    old = choices.get(attr, ())
    new = tuple((q, atoms) for q in classes if (q, atoms) not in old)
    if new:
        choices[attr] = old + new


# ---- deciding (the walk) ---------------------------------------------------------------------------------------
def decide(arr, read, class_q: str, attr: str, near: str) -> dict:
    """{class: None} for the classes `self.<attr>` of an instance of `class_q` cannot hold (every assignment of
    them has an atom known false for the object `read`, the walk's Arrivals.self_attr_reader, reads), {class:
    conditions} for those it holds only where a flag differs from its default (conditions_evaluated.describe
    texts: a finding there is conditional); classes it may hold otherwise are not in it."""
    r = arr.r
    entries = [(cs, cmod, q, atoms) for cs, cmod in r.mro(class_q, near) for q, atoms in cs.choices.get(attr, ())]
    if not any(atoms for *_, atoms in entries) or \
            any(t.startswith(SELF_MADE) for cs, _ in r.mro(class_q, near) for t in cs.attrs.get(attr, ())):
        return {}  # (no test known; or a class a method returns, which the entries do not name)
    out: dict = {}
    held: set[str] = set()
    for cs, cmod, q, atoms in entries:
        if q in held:
            continue
        results = [(a, _result(arr, read, cs, cmod, a)) for a in atoms]
        if any(res == "false" for _, res in results):
            out.setdefault(q, None)
        elif any(res == "default" for _, res in results):
            if out.get(q) is None:
                out[q] = tuple(dict.fromkeys(C.describe(_described(a)) for a, res in results if res == "default"))
        else:
            held.add(q)
            out.pop(q, None)
    return out


def _described(atom: tuple) -> tuple:
    """The Cond atom worded as `atom` (conditions_evaluated.describe): a parameter, a field, an attribute of self."""
    kind, name, test, want = atom
    return ("self" if kind == "self" else "param", name, test, want)


def _result(arr, read, cs, cmod, atom: tuple) -> str:
    """"false" (certainly), "default" (false with a flag's default value only) or "true" (holds, or not known)."""
    kind, name, test, want = atom
    got = _value(arr, read, cs, cmod, kind, name)
    if got is None or got[0] is C.UNKNOWN or (isinstance(got[0], C.Choices) and any(
            o[0] is C.UNKNOWN for o in got[0].options)):
        return "true"  # (a value the analysis does not know: both classes, as before)
    return C.holds(got, test, want)


def _value(arr, read, cs, cmod, kind: str, name: str) -> tuple | None:
    """(value, certainty) of an atom's flag for the object, None when not known."""
    if kind == "self" and "." in name:  # `self.config.moe`: the field of the object every construction passes
        base, _, field = name.partition(".")
        held = read(base)
        if held is not None and isinstance(held[0], C.Instance) and held[0].q not in ("", "?") and \
                held[1] == C.KNOWN and "." not in field:
            got = arr.field_value(held[0].q, field, cmod.path)
            if got is not None:
                return got
        return read(name)
    if kind == "self":
        return read(name) if name != "training" else None
    init_value = getattr(read, "init_value", None)
    if init_value is None:
        return None
    param, _, field = name.partition(".")
    init = arr.r.function(cs.methods.get("__init__", ""), cmod.path)
    if init is None or param not in init[0].params:
        return None
    desc = ("init_param", param, init[0].defaults[param]) if param in init[0].defaults else ("init_param", param)
    got = init_value(cs, cmod, desc)
    if kind == "init" or got is None:
        return got if kind == "init" else None
    obj, how = got
    if not isinstance(obj, C.Instance) or obj.q in ("", "?") or how != C.KNOWN:
        return None
    return arr.field_value(obj.q, field, cmod.path)
