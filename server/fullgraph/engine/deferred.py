"""Function bodies analysed when a walk reaches them: what a module's summary needs without them.

A large tree's check walks from a handful of compiled roots and reads the function bodies of a handful of
its modules (on the torch tree 5 of 2,285); analysing every body was half of the workers' time.  A bulk load
(api.Workspace.load_files) therefore analyses a module's top level and only those of its top-level
statements whose function bodies can add to what every module must tell without its bodies: roots
(`torch.compile` and `.compile()`, and the calls of a module-level compiled object), unresolved roots,
`ignore_logging_functions`/`reorderable_logging_functions` registrations, Dynamo config assignments, calls
that change the default device, the environment variables it sets, and the modules it imports.  The rest of the summary (the BODY_FIELDS of
engine/summary.py) is left out, and made by the full analysis of the module the first time one of them is
read (ModuleSummary._load_body).

Which statements can add to those facts is read from their text: each of them needs a name the analysis
resolves to a torch function or setting (`torch.compile`, `torch._dynamo.config`, `torch.device`, ...), and
the analysis resolves names only through what the module spells (its imports and attributes), so the text
of a statement that can add one spells the name's last part -- or a name the module's top level bound to
one (`from torch._dynamo import config as dc`), which is looked for too.  Imports inside function bodies
are read from the syntax tree in both kinds of analysis (function_imports).  tests/test_deferred.py checks
that both kinds give the same facts, on the repository's code and on the installed torch.
"""
from __future__ import annotations

import ast
import bisect
import re
from typing import Callable, Iterable

from .nodes import holds_line

# What the function pass records into a module's own facts, by the words its statement must spell:
# roots (calls.py `_root_from`, `.compile()`; definitions.py `@torch.compile`), the logging sets (calls.py),
# importlib.import_module literals (imports), Dynamo config assignments (assignments.py), device calls
# (tensors_made.DEVICE_CALLS: `torch.device(...)` called, or an alias of it made: `dev = torch.device`,
# `from torch import device`), the environment variables set (assignments.py, calls.py: `os.environ[...] = ...`,
# `os.environ.setdefault(...)`, `os.putenv(...)`)
_WORDS = ("logging_functions", "logger_methods", "set_default_device", "set_default_tensor_type", "DeviceContext",
          "environ", "putenv")
# what a name's use must look like to add one, when it names a config module (`cfg.x = 1`) or torch.device
# (`dev(...)`), or the same name made an alias of (`cfg = torch._dynamo.config`, `from torch._dynamo import
# config`; for torch.device only through torch or a top-level name of torch: `dev = torch.device`, as a tensor's
# `x.device` is no alias of it); any use of the others (`compile`: decorators, `.compile()`, `torch.compile(...)`)
_ALIAS = r"(?:^|[=:(,])\s*{1}\b{0}\s*[),]*\s*(?:#.*)?$|\bimport\b.*\b{0}\b"
_CONFIG = r"\b{0}\s*\.\s*\w+\s*(?::[^\n:=]*)?=(?!=)|" + _ALIAS
_DEVICE = r"\b{0}\s*\(|" + _ALIAS + r"|\bimport\s+torch\s+as\b"
_ANY = r"\b{0}\b"


def _torch(names: Iterable[str]) -> str:
    """The prefix of a name reached through torch or one of `names` (bound to torch)."""
    return r"(?:(?:" + "|".join(["torch", *map(re.escape, names)]) + r")\s*\.\s*)?"


def _uses(name: str, q: str, torch_names: list[str]) -> str | None:
    """The pattern of a use of `name`, bound to `q`, that may add to the module's facts (None: no use can)."""
    last = q.rpartition(".")[2]
    if last in ("compile", "import_module") or any(w in q for w in _WORDS):
        return _ANY.format(re.escape(name))
    if last == "config":
        return _CONFIG.format(re.escape(name), r"[\w.]*")
    if last == "device":
        return _DEVICE.format(re.escape(name), _torch(torch_names))
    return None


def triggers(refs: Iterable[tuple[str, str]]) -> Callable[[str], bool]:
    """Whether a statement's text may add to the module's facts: a use of the fixed words (outside a comment
    line), or of the top-level names in `refs` ((name, qualified name it refers to)) bound to what they name
    (`import torch._dynamo.config as dc`: `dc.x = 1`)."""
    refs = [(n, q) for n, q in refs if q]
    torch_names = sorted(n for n, q in refs if q == "torch" and n != "torch")
    checks = {w: _ANY.format(w) for w in _WORDS}
    checks["compile"] = _ANY.format("compile")
    checks["import_module"] = _ANY.format("import_module")
    checks["config"] = _CONFIG.format("config", r"[\w.]*")
    checks["device"] = _DEVICE.format("device", _torch(torch_names))
    for n, q in refs:
        if n not in checks and (p := _uses(n, q, torch_names)) is not None:
            checks[n] = p
    # each word looked for as a string (quick), then its line matched against its pattern
    lines = [(w, re.compile(p)) for w, p in checks.items()]

    def may_add(text: str) -> bool:
        for word, pattern in lines:
            at = text.find(word)
            while at != -1:
                start = text.rfind("\n", 0, at) + 1
                end = text.find("\n", at)
                line = text[start:end] if end != -1 else text[start:]
                if not line.lstrip().startswith("#") and pattern.search(line):
                    return True
                if end == -1:
                    break
                at = text.find(word, end)
        return False

    return may_add


def function_imports(tree: ast.Module, absolute: Callable[[str | None, int], str], lines: list[str]) -> set[str]:
    """The modules the imports inside its function bodies name, as the analysis records them (analyzer.py's
    Import/ImportFrom): every import statement of a function body, nested blocks and functions included
    (not a class body's own statements, which the analysis does not walk).  `lines`: the module's; only the
    statements around a line that spells `import` or `from` (where every import statement starts) are looked
    into."""
    spelled = [i for i, line in enumerate(lines, 1) if "import" in line or "from" in line]
    out: set[str] = set()
    if spelled:
        _imports([s for s in tree.body if holds_line(s, spelled, decorators=False)], False, absolute, out, spelled)
    return out


# (module-level recursion, not closures: a recursive closure is a reference cycle, which would keep the syntax
# tree and the analyser alive in a worker that runs without the cyclic GC; tests/test_analysis_memory.py)
def _imports(body: list, in_function: bool, absolute, out: set[str], lines: list[int]) -> None:
    for s in body:
        t = type(s)
        if t is not ast.Import and t is not ast.ImportFrom and not holds_line(s, lines, decorators=False):
            continue
        if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            _imports(s.body, True, absolute, out, lines)
        elif t is ast.ClassDef:
            _imports([st for st in s.body if type(st) in _DEFS], False, absolute, out, lines)
        elif in_function and t is ast.Import:
            out.update(a.name for a in s.names)
        elif in_function and t is ast.ImportFrom:
            base = absolute(s.module, s.level)
            if base:
                out.add(base)
                out.update(f"{base}.{a.name}" for a in s.names if a.name != "*")
        else:
            for sub in _blocks(s):
                _imports(sub, in_function, absolute, out, lines)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _blocks(s: ast.stmt) -> list[list]:
    """The statement lists a compound statement holds."""
    out = [sub for f in ("body", "orelse", "finalbody") if (sub := getattr(s, f, None))]
    out.extend(h.body for h in getattr(s, "handlers", ()))
    out.extend(c.body for c in getattr(s, "cases", ()))
    return out


def function_names(tree: ast.Module, modname: str, lines: list[str]) -> tuple[str, ...]:
    """The qualified names the analysis may give the module's functions and lambdas (definitions.py `_def`,
    expressions.py's lambdas): every one it gives, and maybe more (a function in code it does not walk), so a
    lookup by name finds the module (Contents.function reads its body then, and goes on when it has not)."""
    names = _Names([i for i, line in enumerate(lines, 1) if "lambda" in line])
    names.stmts(tree.body, modname, "module")
    return tuple(dict.fromkeys(names.out))


class _Names:
    def __init__(self, marked: list[int]):
        self.out: list[str] = []
        self.marked = marked  # the lines with a lambda (the only ones an expression is looked in)

    def has_lambda(self, node: ast.AST) -> bool:
        marked, first = self.marked, node.lineno
        at = bisect.bisect_left(marked, first)
        return at < len(marked) and marked[at] <= (node.end_lineno or first)

    def lambdas(self, node: ast.AST | None, quals: tuple[str, ...]) -> None:
        if node is None or (hasattr(node, "lineno") and not self.has_lambda(node)):
            return
        if type(node) is ast.Lambda:  # (a lambda's own lambdas are named after it)
            inner = tuple(f"{q}.<lambda:{node.lineno}:{node.col_offset}>" for q in quals)
            self.out.extend(inner)
            quals = (*quals, *inner)
        for n in ast.iter_child_nodes(node):
            self.lambdas(n, quals)

    def stmts(self, body: list, qual: str, kind: str) -> None:
        marked = self.marked
        for s in body:
            t = type(s)
            if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                q = f"{qual}.<locals>.{s.name}" if kind == "function" else f"{qual}.{s.name}"
                self.out.append(q)
                if marked:
                    # decorators and defaults: evaluated around the def, or by its own analysis
                    for d in (*s.decorator_list, *s.args.defaults, *s.args.kw_defaults):
                        self.lambdas(d, (qual, q))
                self.stmts(s.body, q, "function")
            elif t is ast.ClassDef:
                q = f"{qual}.<locals>.{s.name}" if kind == "function" else f"{qual}.{s.name}"
                if marked:
                    for d in (*s.decorator_list, *s.bases, *s.keywords):
                        self.lambdas(d, (qual,))
                self.stmts(s.body, q, "class")
            elif t in _SIMPLE:
                if marked and self.has_lambda(s):
                    self.lambdas(s, (qual,))
            else:
                if marked and self.has_lambda(s):
                    for f, v in ast.iter_fields(s):
                        if isinstance(v, ast.AST):
                            self.lambdas(v, (qual,))
                        elif isinstance(v, list) and v and isinstance(v[0], ast.AST) and not isinstance(v[0], ast.stmt):
                            for x in v:
                                self.lambdas(x, (qual,))
                    for h in getattr(s, "handlers", ()):
                        self.lambdas(h.type, (qual,))
                    for c in getattr(s, "cases", ()):
                        self.lambdas(c.guard, (qual,))
                for sub in _blocks(s):
                    self.stmts(sub, qual, kind)


# statements that hold no statement (their expressions are all there is to look in)
_SIMPLE = frozenset({ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise, ast.Assert,
                     ast.Delete, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Pass, ast.Break,
                     ast.Continue})
