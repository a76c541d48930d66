"""Random draws Dynamo can trace (FG108).

Dynamo replays Python's `random.uniform`, `random.randint` and `random.randrange` (the values are
drawn from the same generator, in the same order, as in eager), but skips `random.random` and cannot
trace NumPy's generators.  The values become tensors in the graph, so a draw used as a Python number
(an `if`, `int()`, a slice) still breaks: these fixes give up there, except for the `if` that selects
between two values, which becomes a `torch.where`.

A replayed *float* draw is not offered: under the inductor backend (the default) torch 2.13 on CPU
computes with a garbage value (`x * random.uniform(0, 1)` gives ~1e34; eager and aot_eager are right),
found by the fix oracle's inductor run.  Integer draws compile correctly on every backend.

- `random-where` (unsafe: evaluates both branches): `if random.random() < p: return a` / `return b`
  -> `return torch.where(torch.as_tensor(torch.rand(()) < p), a, b)` (a float draw moves to torch's
  generator, a NumPy integer draw to Python's: another stream, and the title says so).
- `torch-rand` (unsafe: another random stream): a float draw -> `torch.rand(())` (scaled for
  `uniform(a, b)`), which every backend computes right.
- `numpy-random` (unsafe: another random stream): NumPy's global generator -> Python's for integer
  draws (`np.random.randint(a, b)` -> `random.randrange(a, b)`), torch's for arrays
  (`np.random.permutation(n)` -> `torch.rand(n).argsort()`, `np.random.rand(d0, d1)` ->
  `torch.rand(d0, d1, dtype=torch.float64)`): a tensor instead of an ndarray.
"""
from __future__ import annotations

import ast

import libcst as cst

from ..torchinfo import VersionRange
from . import names as N
from .base import Fix, FixContext, Offer, Replacer, give_up, short, walk
from .branch import branch_of, is_literal, replace_node
from .simple import Guard

# verified on torch 2.13: random.uniform/randint/randrange traced and replayed, random.random skipped
DYNAMO_RANDOM = VersionRange(since="2.13")
# draws of one float: Dynamo replays Python's, but inductor (2.13, CPU) computes with a wrong value
FLOAT_DRAWS = frozenset({"random.random", "random.uniform", "numpy.random.rand", "numpy.random.random",
                         "numpy.random.random_sample", "numpy.random.sample", "numpy.random.uniform",
                         "numpy.random.normal", "numpy.random.randn"})
_PY_CONSUMERS = frozenset({"int", "round", "range", "len", "bool", "math.floor", "math.ceil"})


def _call(ctx: FixContext, f):
    src, frag = ctx.fragment_of(f)
    call = frag.node_at(f.span, cst.Call)
    if frag.span_of(call) != f.span:
        give_up("not the reported call")
    func = frag.code(call.func).strip()
    parts = func.split(".")
    if not all(p.isidentifier() for p in parts):
        give_up()
    q = src.module_bindings().get(parts[0])
    if q is None:
        give_up("not a module-level import")
    qual = ".".join([q, *parts[1:]])
    return src, frag, call, func, qual


def _args(call) -> tuple[list, dict]:
    pos, kw = [], {}
    for a in call.args:
        if a.star:
            give_up("*args")
        if a.keyword is not None:
            kw[a.keyword.value] = a.value
        elif kw:
            give_up()
        else:
            pos.append(a.value)
    return pos, kw


def _condition_owner(frag, call):
    """The if/while/conditional expression/assert/bool operation whose test holds `call`, else None."""
    child = call
    for a in frag.ancestors(call):
        if isinstance(a, (cst.If, cst.While, cst.IfExp)) and a.test is child:
            return a
        if isinstance(a, (cst.BooleanOperation, cst.Assert)) or \
                (isinstance(a, cst.UnaryOperation) and isinstance(a.operator, cst.Not)):
            return a
        if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return None
        child = a
    return None


def _used_as_python_number(ctx, src, frag, call) -> bool:
    """The drawn value ends up in a condition, int(), range() or a slice (it is a tensor in the graph)."""
    if _condition_owner(frag, call) is not None:
        return True
    p = frag.parent(call)
    if isinstance(p, cst.Arg):
        outer = frag.parent(p)
        if isinstance(outer, cst.Call) and frag.code(outer.func).strip() in _PY_CONSUMERS:
            return True
    if any(isinstance(a, (cst.SubscriptElement, cst.Slice)) for a in frag.ancestors(call)):
        return True
    stmt = next((a for a in frag.ancestors(call) if isinstance(a, cst.SimpleStatementLine)), None)
    small = stmt.body[0] if stmt is not None and len(stmt.body) == 1 else None
    names: set[str] = set()
    if isinstance(small, cst.Assign):
        for t in small.targets:
            if not isinstance(t.target, cst.Name):
                return True  # unpacked or stored on an object: followed no further
            names.add(t.target.value)
    if not names:
        return False
    fn = frag.enclosing_function(call)
    fn_ast = N.find_function(src.tree, frag.span_of(fn).start.line) if fn is not None else None
    if fn_ast is None:
        return True
    for n in ast.walk(fn_ast):
        tests = []
        if isinstance(n, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tests = [n.test]
        elif isinstance(n, ast.BoolOp):
            tests = n.values
        elif isinstance(n, ast.Call) and ast.unparse(n.func) in _PY_CONSUMERS:
            tests = n.args
        elif isinstance(n, ast.Slice):
            tests = [x for x in (n.lower, n.upper, n.step) if x is not None]
        for t in tests:
            if N.loads(t) & names:
                return True
    return False


def _py_draw(src, frag, call, qual: str) -> tuple[str, bool]:
    """(code of the same draw with Python's random module, whether the stream changes)."""
    pos, kw = _args(call)
    rnd = next((local for local, q in src.module_bindings().items() if q == "random"), None)
    code = lambda n: frag.code(n).strip()  # noqa: E731
    if qual in FLOAT_DRAWS:
        give_up("a replayed float draw is miscompiled by inductor on torch 2.13 (module docstring)")
    if qual in ("random.randint", "random.randrange"):
        return code(call), False
    if rnd is None:
        give_up("`random` is not imported")  # numpy draws: added import kept out of this fix
    if qual == "numpy.random.randint" and "size" not in kw and "dtype" not in kw and 1 <= len(pos) <= 2 and \
            set(kw) <= {"high"}:
        args = [code(p) for p in pos] + ([code(kw["high"])] if "high" in kw else [])
        return f"{rnd}.randrange({', '.join(args)})", True
    give_up("no Python draw for this call")


def _torch_float_draw(frag, call, qual: str, tn: str) -> str:
    """The same kind of float draw from torch's generator: `torch.rand(())`, `(a + (b - a) * torch.rand(()))`."""
    pos, kw = _args(call)
    draw = f"{tn}.rand(())"
    if qual in ("random.random", "numpy.random.rand", "numpy.random.random", "numpy.random.random_sample",
                "numpy.random.sample") and not pos and not kw:
        return draw
    if qual in ("random.uniform", "numpy.random.uniform") and len(pos) == 2 and not kw:
        lo, hi = (frag.code(p).strip() for p in pos)
        return f"({lo} + ({hi} - {lo}) * {draw})"
    give_up("not a draw of one float in [0, 1) or [a, b)")


class TorchRand(Fix):
    """A float draw (`random.random()`, `random.uniform(a, b)`, NumPy's scalar `rand()`/`uniform(a, b)`)
    -> torch's generator: `torch.rand(())`, `a + (b - a) * torch.rand(())`.  A 0-d float32 tensor that
    Dynamo puts in the graph (every backend computes it right), drawn from another stream than the
    original; under inductor compiled code draws other numbers than eager (its own generator)."""

    id = "torch-rand"
    title = "Draw with torch's generator: `torch.rand(())` (another random stream; a tensor)"
    safe = False

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag, call, func, qual = _call(ctx, f)
        if qual not in FLOAT_DRAWS:
            give_up("not a float draw")
        if _used_as_python_number(ctx, src, frag, call):
            give_up("the value is used as a Python number: it still breaks")
        tn, edits = ctx.torch_name(src)
        new = _torch_float_draw(frag, call, qual, tn)
        e = frag.replace_expr(call, new)
        return Offer(f"Use `{short(new, 40)}` instead of `{short(func, 24)}()` (torch's generator: another random "
                     "stream, a 0-d tensor; compiled with inductor it draws other numbers than eager)", edits + [e])


class RandomWhere(Fix):
    id = "random-where"
    title = "Select with `torch.where` on the random draw (evaluates both branches)"
    safe = False
    versions = DYNAMO_RANDOM

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag, call, func, qual = _call(ctx, f)
        owner = _condition_owner(frag, call)
        if not isinstance(owner, (cst.If, cst.IfExp)):
            give_up("the draw is not the condition of an if")
        tn, edits = ctx.torch_name(src)
        if qual in FLOAT_DRAWS:  # torch's generator: a replayed float draw is miscompiled by inductor
            draw, changes = _torch_float_draw(frag, call, qual, tn), "torch's generator instead"
        else:
            draw, other = _py_draw(src, frag, call, qual)
            changes = "Python's generator instead of NumPy's" if other else ""
        test = owner.test.visit(Replacer({call: cst.parse_expression(draw)}))
        if any(isinstance(n, cst.Call) and n is not call and _is_draw(src, frag, n) for n in walk(owner.test)):
            give_up("several draws in the condition")
        cond = f"{tn}.as_tensor({' '.join(frag.module.code_for_node(test).split())})"
        _src, _frag, _fn, br = branch_of(src, frag, owner, cond)
        for _, _, _, tn_, en_ in br.pairs:
            if any(n is not None and (is_literal(n) and not isinstance(n, (cst.Integer, cst.Float)))
                   for n in (tn_, en_)):
                give_up("not tensor values")
            if (tn_ is None or is_literal(tn_)) and (en_ is None or is_literal(en_)):
                give_up("both values are Python constants")
        new = replace_node(frag, br, lambda a, b: f"{tn}.where({cond}, {a}, {b})")
        stream = f" ({changes})" if changes else ""
        return Offer(f"Select with `{tn}.where({short(cond, 36)}, …)`{stream} (evaluates both branches; they must "
                     "be tensors of the same shape and dtype)", edits + [e for e in new if e is not None])


def _is_draw(src, frag, call) -> bool:
    func = frag.code(call.func).strip()
    parts = func.split(".")
    q = src.module_bindings().get(parts[0], "")
    return (q == "random" or q == "numpy") and len(parts) >= 2 and ("random" in parts[:-1] or q == "random")


class NumpyRandom(Fix):
    id = "numpy-random"
    title = "Draw with Python's or torch's generator instead of NumPy's (another random stream)"
    safe = False
    versions = DYNAMO_RANDOM

    def offer(self, ctx: FixContext, f) -> Offer | None:
        src, frag, call, func, qual = _call(ctx, f)
        if not qual.startswith("numpy.random."):
            give_up("not numpy.random")
        if _used_as_python_number(ctx, src, frag, call):
            give_up("the value is used as a Python number: it still breaks")
        pos, kw = _args(call)
        tn, edits = ctx.torch_name(src)
        code = lambda n: frag.code(n).strip()  # noqa: E731
        name = qual.rsplit(".", 1)[-1]
        if name == "permutation" and len(pos) == 1 and not kw and isinstance(pos[0], (cst.Integer, cst.Name,
                                                                                       cst.Attribute, cst.BinaryOperation,
                                                                                       cst.Subscript)):
            if not _int_like(frag, pos[0]):
                give_up("permutation of an array")
            new = f"{tn}.rand({code(pos[0])}).argsort()"  # torch.randperm: inductor (2.13, CPU) fails on it
            what = "a tensor instead of an ndarray"
        elif name in ("rand", "randn") and pos and not kw:
            new = f"{tn}.{name}({', '.join(code(p) for p in pos)}, dtype={tn}.float64)"
            what = "a float64 tensor instead of an ndarray"
        else:
            rnd = next((local for local, q in src.module_bindings().items() if q == "random"), None)
            if rnd is None:
                rnd = "random"
                if "random" in src.top_names():
                    give_up("`random` names something else")
                edits = edits + [src.line_insert(src.imports_end_line(), "import random" + src.newline)]
            new, _ = _py_draw_with(src, frag, call, qual, rnd)
            what = "Python's generator"
        e = frag.replace_expr(call, new)
        return Offer(f"Use `{short(new, 40)}` instead of `{short(func, 24)}()` ({what}: another random stream than "
                     "NumPy's, traced by Dynamo)", edits + [e])


def _int_like(frag, node) -> bool:
    if isinstance(node, cst.Integer):
        return True
    code = frag.code(node)
    return any(k in code for k in ("shape", "size", "len(", "numel", "n_", "num")) or \
        (isinstance(node, cst.Name) and node.value in ("n", "k", "m"))


def _py_draw_with(src, frag, call, qual, rnd):
    bindings = dict(src.module_bindings())
    if rnd not in bindings:
        class _S:  # a view of src that sees the added `import random`
            def __init__(self, s):
                self._s = s

            def module_bindings(self):
                return {**bindings, rnd: "random"}
        return _py_draw(_S(src), frag, call, qual)
    return _py_draw(src, frag, call, qual)


class SeedGuard(Fix):
    """`torch.manual_seed(...)` in compiled code (FG204): skipped when compiled, like the `guard` fix, and
    the title says what that costs: the generator is not reseeded, so compiled runs draw other numbers."""

    id = "seed-guard"
    title = "Skip the reseeding when compiled: `if not torch.compiler.is_compiling(): torch.manual_seed(...)`"
    safe = False
    versions = VersionRange(since="2.3")

    def offer(self, ctx: FixContext, f) -> Offer | None:
        if f.data.get("callee") not in ("torch.manual_seed", "torch.random.manual_seed"):
            give_up("not a reseeding")
        offer = Guard().offer(ctx, f)
        if offer is None:
            return None
        return Offer(offer.title.replace(" when compiled", " when compiled, so compiled runs are not reseeded and "
                                         "draw other random numbers", 1), offer.edits)
