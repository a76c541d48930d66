"""Conditions made of tensor and Python parts: which operand of an `and`/`or`/`not` is which, and the
same condition as one tensor expression (`torch.logical_and/or/not`).

`bool(t)` of a one-element tensor is `t != 0`, which is what `torch.logical_*` compute, so for the
one-element tensors a Python condition accepts the tensor form has the same value.  The operand the
finding points at is a tensor; another operand is classified from its syntax only, and anything this
module cannot place (a tensor? a Python value?) makes the caller give up:

- Python: `True`/`False`/numbers, `x is None`, `isinstance(...)`, `self.flag`, a module-level
  constant, a parameter annotated `bool`/`int` or defaulting to one, shape arithmetic
  (`x.shape[0] > 1`, `x.dim() == 2`, `len(xs)`);
- tensor: `torch.all/any/isnan/...(...)`, `t.any()`/`t.all()`/`t.isnan()...`, a comparison with a
  torch call or a reduction (`t.max() < n`, `t.sum() > 0`) on one side.
"""
from __future__ import annotations

import ast

import libcst as cst

from .base import give_up, walk

PY, TENSOR = "py", "tensor"

_BOOL_TENSOR_FUNCS = frozenset({
    "all", "any", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "isreal", "signbit", "logical_and",
    "logical_or", "logical_not", "logical_xor", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
    "greater_equal", "less_equal", "not_equal", "isclose", "isin",
})
_TENSOR_METHODS = _BOOL_TENSOR_FUNCS | frozenset({
    "sum", "mean", "max", "min", "amax", "amin", "abs", "norm", "std", "var", "prod", "float", "double",
    "detach", "sqrt", "exp", "log", "count_nonzero", "argmax", "argmin", "median", "logsumexp",
})
_NOT_TENSOR_TORCH = frozenset({"equal", "allclose", "is_tensor", "is_floating_point", "is_complex",
                               "is_grad_enabled", "is_nonzero", "numel", "is_inference_mode_enabled"})
_SHAPE_ATTRS = frozenset({"shape", "ndim", "training", "dtype", "device", "is_cuda", "requires_grad"})
_SHAPE_METHODS = frozenset({"dim", "size", "numel", "ndimension", "nelement", "is_floating_point",
                            "is_contiguous"})


def _contains(frag, node, span) -> bool:
    s = frag.span_of(node)
    return s.start <= span.start and span.end <= s.end


class Classifier:
    """Classify operands of a condition in one function (`fn_ast`) of a module (`tree`)."""

    def __init__(self, frag, tree: ast.Module, fn_ast, torch_names: set[str], finding_span):
        self.frag = frag
        self.span = finding_span
        self.torch_names = torch_names
        self.consts = _module_constants(tree)
        self.py_params = _python_params(fn_ast) if fn_ast is not None else set()
        self.assigned = _assigned_in(fn_ast) if fn_ast is not None else set()

    def kind(self, node) -> str | None:
        if isinstance(node, cst.BooleanOperation):
            kl, kr = self.kind(node.left), self.kind(node.right)
            if kl is None or kr is None:
                return None
            return TENSOR if TENSOR in (kl, kr) and kl == kr else (PY if kl == kr == PY else None)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return self.kind(node.expression)
        if self.span is not None and _contains(self.frag, node, self.span):
            return TENSOR
        if self._python(node):
            return PY
        if self._tensor(node):
            return TENSOR
        return None

    # python values
    def _python(self, node) -> bool:
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return True
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return True
            if node.value in self.py_params:
                return True
            return node.value in self.consts and node.value not in self.assigned
        if isinstance(node, cst.Attribute):
            base = node
            while isinstance(base, cst.Attribute):
                if base.attr.value in _SHAPE_ATTRS:
                    return True
                base = base.value
            if isinstance(base, cst.Name) and base.value == "self" and not _has_call(node):
                return True
            return False
        if isinstance(node, cst.Subscript):
            return self._python(node.value) and all(
                isinstance(e.slice, cst.Index) and self._python_or_int(e.slice.value) for e in node.slice)
        if isinstance(node, cst.Comparison):
            ops = [c.operator for c in node.comparisons]
            if all(isinstance(o, (cst.Is, cst.IsNot)) for o in ops):
                return True
            return self._python_or_int(node.left) and all(self._python_or_int(c.comparator)
                                                          for c in node.comparisons)
        if isinstance(node, cst.Call):
            f = node.func
            if isinstance(f, cst.Name) and f.value in ("isinstance", "hasattr", "callable", "len"):
                return True
            if isinstance(f, cst.Attribute) and f.attr.value in _SHAPE_METHODS:
                return True
            return False
        if isinstance(node, cst.BinaryOperation):
            return self._python_or_int(node.left) and self._python_or_int(node.right)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return self._python(node.expression)
        return False

    def _python_or_int(self, node) -> bool:
        return self._python(node)

    # tensors
    def _tensor(self, node) -> bool:
        if isinstance(node, cst.Comparison):
            return any(self._tensor_value(n) for n in [node.left, *(c.comparator for c in node.comparisons)])
        return self._tensor_value(node)

    def _tensor_value(self, node) -> bool:
        if isinstance(node, cst.Call):
            f = node.func
            if isinstance(f, cst.Attribute):
                code = self.frag.code(f).strip()
                head = code.split(".")[0]
                if head in self.torch_names:
                    return f.attr.value not in _NOT_TENSOR_TORCH and code.count(".") == 1 or \
                        code.split(".")[1] in ("nn", "linalg", "special", "fft")
                if f.attr.value in _TENSOR_METHODS and not self._python(f.value):
                    return True
            return False
        if isinstance(node, cst.BinaryOperation):
            return self._tensor_value(node.left) or self._tensor_value(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self._tensor_value(node.expression)
        return False


def _has_call(node) -> bool:
    return any(isinstance(n, cst.Call) for n in walk(node))


def _module_constants(tree: ast.Module | None) -> set[str]:
    """Module-level names bound once to a literal bool/number/string (flags like SKIP_NONFINITE)."""
    out: dict[str, int] = {}
    if tree is None:
        return set()
    for node in tree.body:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            if isinstance(t, ast.Name):
                ok = isinstance(value, ast.Constant) and isinstance(value.value, (bool, int, float, str))
                out[t.id] = out.get(t.id, 0) + (1 if ok else 100)
    return {k for k, v in out.items() if v == 1}


def _python_params(fn) -> set[str]:
    out = set()
    a = fn.args
    pos = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(pos, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    for p, d in pairs:
        ann = p.annotation
        if isinstance(ann, ast.Name) and ann.id in ("bool", "int", "float", "str"):
            out.add(p.arg)
        elif ann is None and isinstance(d, ast.Constant) and isinstance(d.value, (bool, int, float, str)) and \
                d.value is not None:
            out.add(p.arg)
    return out


def _assigned_in(fn) -> set[str]:
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
    return out


# ---- building the tensor form ----------------------------------------------------------------------
def and_operands(node) -> list:
    """The operands of a (left-nested) `and` chain, or [node]."""
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And) and not node.lpar:
        return and_operands(node.left) + and_operands(node.right)
    return [node]


def or_operands(node) -> list:
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or) and not node.lpar:
        return or_operands(node.left) + or_operands(node.right)
    return [node]


def tensor_expr(frag, node, tn: str) -> str:
    """`node` (tensor operands joined by and/or/not) as one tensor expression."""
    if isinstance(node, cst.BooleanOperation):
        fn = "logical_and" if isinstance(node.operator, cst.And) else "logical_or"
        return f"{tn}.{fn}({tensor_expr(frag, node.left, tn)}, {tensor_expr(frag, node.right, tn)})"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return f"{tn}.logical_not({tensor_expr(frag, node.expression, tn)})"
    code = frag.code(node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node).strip()
    if "\n" in code or "\r" in code:
        code = " ".join(code.split())
    return code


def negated_tensor_expr(frag, node, tn: str) -> str:
    """`not node` as a tensor expression: no double negation, De Morgan over and/or."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return tensor_expr(frag, node.expression, tn)
    if isinstance(node, cst.BooleanOperation):
        fn = "logical_or" if isinstance(node.operator, cst.And) else "logical_and"
        return f"{tn}.{fn}({negated_tensor_expr(frag, node.left, tn)}, {negated_tensor_expr(frag, node.right, tn)})"
    return f"{tn}.logical_not({tensor_expr(frag, node, tn)})"


def split_condition(clf: Classifier, node) -> tuple[list, list]:
    """(Python operands, tensor operands) of the `and` chain `node`; gives up on an operand it cannot place."""
    py, tens = [], []
    for op in and_operands(node):
        k = clf.kind(op)
        if k is None:
            give_up("cannot tell whether an operand of the condition is a tensor")
        (py if k == PY else tens).append(op)
    if not tens:
        give_up("no tensor operand")
    return py, tens


def torch_names(src) -> set[str]:
    return {local for local, q in src.module_bindings().items() if q == "torch"}


def has_bool_ops(node) -> bool:
    return any(isinstance(n, cst.BooleanOperation) or (isinstance(n, cst.UnaryOperation) and
                                                       isinstance(n.operator, cst.Not)) for n in walk(node))
