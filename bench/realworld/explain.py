"""Why the static pass missed a Dynamo site: the engine's call graph of the script (dumped by
``static_pass.dump_engine`` after the check) against Dynamo's stack of the break.  ``analyse_miss`` lists every
*blocker* between the compiled root and the break, outermost first: each hop of the call chain the static walk
cannot follow (``hop_blocker``), then the statement itself if no rule fires there (``site_blocker``)."""
from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

from common import Sources, absolute, rel, site_dir


def function_at(functions: dict, path: str, line: int) -> str | None:
    best = None
    for q, a, b in functions.get(path, []):
        if a <= line <= b and (best is None or b - a < best[2] - best[1]):
            best = (q, a, b)
    return best[0] if best else None


WRAPPER_FILES = ("utils/output_capturing.py", "utils/deprecation.py")  # decorator machinery
WRAPPER_FUNCS = ("wrapper", "wrapped_func", "inner_wrapper", "forward_with_checkpointing")


def is_wrapper(fr: dict) -> bool:
    return fr["path"].endswith(WRAPPER_FILES) or (fr["function"] in WRAPPER_FUNCS and (
        fr["path"].endswith(("utils/generic.py", "modeling_layers.py"))))


def is_torch(path: str) -> bool:
    return f"{os.sep}site-packages{os.sep}torch{os.sep}" in path


def hook_frame(st: list[dict], tf: list[int]) -> int | None:
    """Index (into tf) of the first library frame that torch's Module._call_impl called as a hook."""
    for k, i in enumerate(tf):
        prev = st[i - 1] if i > 0 else None
        if prev is not None and is_torch(prev["path"]) and prev["path"].endswith("nn/modules/module.py") \
                and "hook" in st[i]["function"]:
            return k
    return None


def callee_expr(stmt_text: str) -> str | None:
    m = re.search(r"(?:^|=\s*|return\s+)([A-Za-z_][\w.]*(?:\[[^\]]*\])?)\s*\(", stmt_text)
    return m.group(1) if m else None


B_WRAPPER = "decorator wrapper body not analysed"
B_HOOK = "forward hook installed at run time"
B_ENUM = "loop over enumerate(nn.ModuleList): element type lost"
B_SLICE = "loop over a sliced nn.ModuleList (self.layers[:n]): element type lost"
B_APPEND = "nn.ModuleList filled with .append(), then indexed: element type lost"
B_REGISTRY = "attention-function registry (ALL_ATTENTION_FUNCTIONS.get_interface(...))"
B_LOCAL_METHOD = "method call on a loop variable of unknown type"
B_LOCAL = "call through a local variable"
B_SELF = "call through a self attribute of unknown type"
B_IFEXP = "attribute built from a class picked by a conditional (`cls = A if c else B; self.x = cls(...)`)"
B_CTOR = "nn.Module constructed inside forward (constructor body not followed, no rule)"
B_LOGGER = "logger method (logging.Logger / warning_once) not recognised"
B_TORCH = "break inside torch internals (no rule for the call into torch)"
B_OTHER = "call not resolved"
B_PROPERTY = "@property getter not analysed (`self.x(...)` where x is a property)"
B_PROPERTY_RET = "call of a function returned by a @property (`self.loss_function(...)`): callee unknown"
B_NOFRAME = "no frame on Dynamo's stack reached by the static walk"
B_USER = "break outside the followed library (user script / other package)"


def hop_blocker(caller: dict, callee: dict, between: list[dict], eng: dict, src: Sources) -> tuple[str, str] | None:
    """Why the static walk does not follow the call at `caller` into `callee`."""
    functions = eng["functions"]
    a, b = src.statement(caller["path"], caller["line"])
    stmt = " ".join(src.line(caller["path"], n) for n in range(a, b + 1))
    expr = callee_expr(stmt) or "?"
    where = f"{rel(caller['path'])}:{caller['line']} `{stmt[:70]}` -> {rel(callee['path'])}:" \
            f"{callee['line']} {callee['function']}"
    fns = {f["function"] for f in between}
    if "instantiate_user_defined_class_object" in fns or callee["function"] == "__init__":
        return B_CTOR, where
    q_callee = function_at(functions, callee["path"], callee["line"])
    if edge_resolved(eng["edges"].get(caller["path"], []), a, b, callee["function"], q_callee):
        return None  # the engine resolves this call (it would follow it once the caller is reached)
    if defined_as_property(src.lines(callee["path"]), callee):
        return B_PROPERTY, where
    qc = function_at(functions, caller["path"], caller["line"])
    lo, hi = next((x[1], x[2]) for x in functions.get(caller["path"], []) if x[0] == qc) if qc else (a, b)
    body = [src.line(caller["path"], n) for n in range(lo, hi + 1)]
    last = expr.split(".")[-1].split("[")[0]
    cls_of = (lambda q: q.rsplit(".", 2)[-2] if q and q.count(".") >= 2 else None)
    skipped = callee["function"] not in (last, "forward", "__call__", "forward_with_checkpointing") or (
        expr.startswith("self.") and last == callee["function"] and cls_of(qc) != cls_of(q_callee))
    if skipped and not expr.startswith("attention_interface"):
        found = skipped_call_blocker(callee["function"], eng["reached"], src, where)
        if found is not None:
            return found
    return expr_blocker(expr, caller["path"], body, src, where)


def _owner(q: str | None) -> str | None:
    parts = (q or "").rsplit(".", 2)
    return parts[-2] if len(parts) >= 2 else None


def edge_resolved(rows: list[list], a: int, b: int, function: str, q_callee: str | None) -> bool:
    """One of the engine's call edges in lines a..b of the caller's file resolves to the callee."""
    for l1, _l2, _kind, _text, targets in rows:
        if a <= l1 <= b and (q_callee in targets or any(t.rsplit(".", 1)[-1] == function
                                                        and _owner(t) == _owner(q_callee) for t in targets)):
            return True
    return False


def defined_as_property(lines: list[str], callee: dict) -> bool:
    """The callee's `def` (searched up to 80 lines above its frame's line) is decorated as a property."""
    for n in range(min(callee["line"], len(lines)) - 1, max(callee["line"] - 80, 0), -1):
        if re.match(rf"\s*(async\s+)?def {re.escape(callee['function'])}\(", lines[n]):
            return n > 0 and bool(re.match(r"\s*@(property|cached_property|functools\.cached_property)\b",
                                           lines[n - 1]))
    return False


def skipped_call_blocker(function: str, reached: dict, src: Sources, where: str) -> tuple[str, str] | None:
    """Dynamo's stack left out the frames in between: find the call of `function` by name in what the walk
    reached (a method call on a receiver other than self) and say why its receiver's type is lost."""
    for q, fn in reached.items():
        lo2, hi2 = fn["lines"]
        for n in range(lo2, hi2 + 1):
            t = src.line(fn["path"], n)
            m = re.search(rf"(?<![\w.])(\w+)\.{re.escape(function)}\(", t)
            if m and m.group(1) != "self":
                recv = m.group(1)
                cat = B_LOCAL_METHOD
                for n2 in range(lo2, n):
                    mm = re.match(rf"for (?:\w+\s*,\s*)?{re.escape(recv)} in (.+):", src.line(fn["path"], n2))
                    if mm:
                        it = mm.group(1)
                        cat = B_ENUM if it.startswith("enumerate(") else \
                            B_SLICE if re.search(r"\[[^\]]*:[^\]]*\]", it) else B_LOCAL_METHOD
                return cat, (f"{rel(fn['path'])}:{n} `{t[:70]}` (in {q.rsplit('.', 2)[-2]}."
                             f"{q.rsplit('.', 1)[-1]}; Dynamo's stack skips to: {where})")
    return None


def expr_blocker(expr: str, path: str, body: list[str], src: Sources, where: str) -> tuple[str, str]:
    """Why the call expression `expr` (in the file `path`, in a function whose lines are `body`) is not resolved."""
    base = expr.split(".")[0].split("[")[0]
    if re.search(r"attention_interface|ALL_ATTENTION_FUNCTIONS", expr):
        return B_REGISTRY, where
    m = re.match(r"self\.(\w+)\[", expr)
    if m:
        if re.search(rf"self\.{m.group(1)}\.append\(", " ".join(src.lines(path))):
            return B_APPEND, where
        return B_SELF, where
    if "." not in expr and "[" not in expr:
        found = local_blocker(base, body, where)
        if found is not None:
            return found
    if re.fullmatch(r"self\.\w+", expr) and property_defined(path, expr.split(".")[1]):
        return B_PROPERTY_RET, where + f" (`{expr}` is a property: {property_defined(path, expr[5:])})"
    if expr.startswith("self."):
        attr = expr.split(".")[1]
        text = "\n".join(src.lines(path))
        for m in re.finditer(rf"self\.{re.escape(attr)} = (\w+)\(", text):
            if re.search(rf"\b{m.group(1)} = .+ if .+ else ", text):
                return B_IFEXP, where + f" (`self.{attr} = {m.group(1)}(...)`)"
        return B_SELF, where
    return B_OTHER, where


def local_blocker(base: str, body: list[str], where: str) -> tuple[str, str] | None:
    """A call through the local name `base`: the loop or the assignment in `body` that binds it."""
    for ln in body:
        m = re.match(rf"for (?:\w+\s*,\s*)?{re.escape(base)} in (.+):", ln)
        if m:
            it = m.group(1)
            if it.startswith("enumerate("):
                return B_ENUM, where
            if re.search(r"\[[^\]]*:[^\]]*\]", it):
                return B_SLICE, where
            return f"loop over a container (`{it[:40]}`)", where
        m = re.match(rf"{re.escape(base)}\s*(?::[^=]+)?=\s*(.+)", ln)
        if m:
            if re.search(r"ALL_ATTENTION_FUNCTIONS|_attn_implementation|attention_interface", m.group(1)):
                return B_REGISTRY, where
            return B_LOCAL, where + f" (`{base} = {m.group(1)[:40]}`)"
    return None


_PROPS: dict[tuple[str, str], str | None] = {}


def property_defined(path: str, attr: str) -> str | None:
    """Where `attr` is defined as a @property in the package of `path` (the first file found), or None."""
    top = rel(path).split("/")[0]
    key = (top, attr)
    if key not in _PROPS:
        _PROPS[key] = None
        pat = re.compile(rf"^\s*@(?:property|cached_property|functools\.cached_property)\s*\n\s*def {re.escape(attr)}\(",
                         re.MULTILINE)
        for dirpath, _dirs, files in os.walk(os.path.join(site_dir(), top)):
            for f in sorted(files):
                if f.endswith(".py"):
                    fp = os.path.join(dirpath, f)
                    try:
                        text = Path(fp).read_text(encoding="utf-8")
                    except (OSError, UnicodeDecodeError):
                        continue
                    if f"def {attr}(" in text:
                        m = pat.search(text)
                        if m:
                            _PROPS[key] = f"{rel(fp)}:{text.count(chr(10), 0, m.end()) + 1}"
                            return _PROPS[key]
    return _PROPS[key]


def site_blocker(s: dict, site: dict, inner: dict, eng: dict, src: Sources) -> tuple[str, str] | None:
    """Would a rule fire at the break's statement if the walk reached it?  None if one does."""
    a, b = src.statement(site["path"], site["line"])
    text = src.line(site["path"], site["line"])
    txt = f"{rel(site['path'])}:{site['line']} `{text[:80]}`"
    for lo, _hi, _code, _q in eng["sites"].get(site["path"], []):
        if a <= lo <= b:
            return None
    gb = s["gb_type"]
    if "register_forward_hook" in text:
        return "no rule: nn.Module.register_forward_hook() in compiled code", txt
    if is_torch(inner["path"]):
        if "nn/modules" in inner["path"] and inner["function"] == "__init__":
            return B_CTOR, f"{txt} -> {rel(inner['path'])}:{inner['line']} {inner['function']}"
        return B_TORCH, f"{txt} -> {rel(inner['path'])}:{inner['line']} {inner['function']}"
    if gb.startswith("logging.Logger"):
        return B_LOGGER, txt
    if gb == "Uninitialized nn.Module":
        return B_CTOR, txt
    if gb == "Unsupported context manager" and re.match(r"with \w*lock\w*", text, re.IGNORECASE):
        return "no rule: `with` a threading.Lock (unsupported context manager)", txt
    if "context_var.get" in text or "ContextVar" in text:
        return "no rule: contextvars.ContextVar.get() in compiled code", txt
    fa = function_at(eng["functions"], site["path"], site["line"])
    lo, hi = next(((x[1], x[2]) for x in eng["functions"].get(site["path"], []) if x[0] == fa), (a, b))
    if gb in ("Data dependent operator", "Data-dependent branching", "Failed to trace builtin operator",
              "torch.* op returned non-Tensor") and any("np." in src.line(site["path"], n) for n in range(lo, hi + 1)):
        return "no rule fired: NumPy values computed in compiled code used as Python ints/bools", txt
    return f"no rule fired at the statement: {gb}", txt


def analyse_miss(s: dict, eng: dict, libdir: str, src: Sources) -> list[tuple[str, str]]:
    """Every blocker between the compiled root and the break, outermost first."""
    st = []
    for fr in s["stack"]:
        m = re.match(r"^(.*):(\d+) (\S*)$", fr)
        if m:
            st.append({"path": os.path.realpath(absolute(m.group(1))), "line": int(m.group(2)),
                       "function": m.group(3)})
    functions, reached = eng["functions"], eng["reached"]
    tf = [i for i, f in enumerate(st) if f["path"].startswith(libdir + os.sep)]
    site_txt = f"{s['path']}:{s['line']} `{s['code'][:80]}`"
    if not tf:
        return [(B_USER, f"{site_txt} ({s['gb_type']})")]
    site, inner = st[tf[-1]], st[-1]
    qs = [function_at(functions, st[i]["path"], st[i]["line"]) for i in tf]
    blockers: list[tuple[str, str] | None] = []
    hk = hook_frame(st, tf)
    deepest = max((k for k, q in enumerate(qs) if q in reached), default=None)
    if hk is not None and qs[hk] not in reached:
        h = st[tf[hk]]
        chain = [k for k in range(hk) if not is_wrapper(st[tf[k]])]
        d = max((k for k in chain if qs[k] in reached), default=None)
        if d is not None:
            nxt = [k for k in chain if k > d]
            for k0, k1 in zip([d] + nxt, nxt):
                blockers.append(hop_blocker(st[tf[k0]], st[tf[k1]], st[tf[k0] + 1:tf[k1]], eng, src))
        blockers.append((B_HOOK, f"{site_txt} in {site['function']} (run by nn.Module hooks: "
                                 f"{rel(h['path'])}:{h['line']} {h['function']})"))
    elif deepest is None:
        if all(is_wrapper(st[i]) for i in tf):
            blockers.append((B_WRAPPER, f"{site_txt} in {site['function']}, wrapper of the compiled forward"))
        else:
            blockers.append((B_NOFRAME, f"{site_txt}; outermost library frame "
                                        f"{rel(st[tf[0]]['path'])}:{st[tf[0]]['line']} {st[tf[0]]['function']}"))
    else:
        rest = tf[deepest + 1:]
        chain = [deepest] + [k for k in range(deepest + 1, len(tf)) if not is_wrapper(st[tf[k]])]
        for k0, k1 in itertools.pairwise(chain):
            blockers.append(hop_blocker(st[tf[k0]], st[tf[k1]], st[tf[k0] + 1:tf[k1]], eng, src))
        if rest and is_wrapper(site):
            blockers.append((B_WRAPPER, f"{site_txt} in {site['function']}, wrapper of a function called from "
                                        f"{rel(st[tf[deepest]]['path'])}:{st[tf[deepest]]['line']}"))
    blockers.append(site_blocker(s, site, inner, eng, src))
    seen, out = set(), []
    for c, d in (x for x in blockers if x is not None):
        if c not in seen:
            seen.add(c)
            out.append((c, d))
    return out or [("reached, a rule exists, no shown finding", site_txt)]
