"""What Dynamo itself will not trace, read from the installed torch: its trace rules, not our memory.

Dynamo decides per callable whether it inlines it, puts it in the graph, replaces it by a polyfill,
or *skips* it ("Attempted to call function marked as skipped", GB0007): C functions it has no
handler for (``heapq.heappush``, ``bisect.bisect_left``, ``os.getpid``, ``datetime.datetime.now``,
``threading.Lock``) and files under its skip directories.  NumPy calls are traced through
``torch._numpy``; a NumPy function it has no counterpart for breaks (GB0294).

The table is generated once per torch version by ``python -m fullgraph.tracetable`` in the
interpreter that has torch (it imports torch, the standard library and NumPy, never user code) and
shipped pre-generated for the versions we verify (``data/tracetable-<major>.<minor>.json``); a check
reads the JSON and never imports torch.  ``tests/test_tracetable.py`` compiles a call of every row
under Dynamo.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
import sys
import types
from collections import Counter
from pathlib import Path

from .torchinfo import TorchVersion

DATA = Path(__file__).resolve().parent / "data"

# Standard-library modules whose public functions real model and training code calls.  Each public
# callable (and each method of a public class defined there, e.g. datetime.datetime.now) is classified.
STDLIB = (
    "abc", "array", "base64", "binascii", "bisect", "calendar", "codecs", "collections", "contextvars", "copy",
    "csv", "datetime", "decimal", "difflib", "fnmatch", "fractions", "functools", "gc", "getpass", "glob",
    "gzip", "hashlib", "heapq", "hmac", "inspect", "io", "itertools", "json", "locale", "marshal", "math",
    "operator", "os", "os.path", "pickle", "platform", "pprint", "queue", "random", "re", "secrets", "shutil",
    "signal", "socket", "statistics", "string", "struct", "subprocess", "sys", "tempfile", "textwrap",
    "threading", "time", "traceback", "types", "typing", "unicodedata", "uuid", "warnings", "weakref", "zlib",
)
NUMPY = ("numpy", "numpy.random", "numpy.linalg", "numpy.fft")
# torch namespaces whose functions are not all traced (state, RNG, backends): public functions that
# are not put in the graph are tried
TORCH = ("torch", "torch.jit", "torch.random", "torch.backends.cudnn", "torch.backends.cuda", "torch.cuda", "torch.autograd",
         "torch.nn.utils", "torch.utils.checkpoint")
# torch classes whose methods run in compiled code on instances made outside it (optimizers, schedulers)
TORCH_CLASSES = ("torch.optim", "torch.optim.lr_scheduler", "torch.amp")


def _public(mod) -> list[tuple[str, object]]:
    if type(mod) is not types.ModuleType and isinstance(getattr(mod, "m", None), types.ModuleType):
        mod = mod.m  # torch.backends.* replace themselves by a property module wrapping the real one
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    out = []
    for n in sorted(set(names)):
        try:
            obj = getattr(mod, n)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails: not ours to report
            continue
        out.append((n, obj))
    return out


# Never called, not even under Dynamo's eye: what could stop, fork or block the generating process if
# Dynamo traced into it instead of raising; and hooks a program may replace (sys.excepthook, ...).
_UNSAFE = re.compile(r"^(os\.(_exit|abort|fork|forkpty|kill|killpg|wait\w*|system|exec\w*|posix_spawn\w*|setsid|"
                     r"login_tty|sync|setuid|setgid|chroot|chdir|fchdir|umask|nice|set\w+)|sys\.(exit|settrace|"
                     r"setprofile|setrecursionlimit|setswitchinterval|setdlopenflags|\w*hook)|signal\.\w+|socket\.\w+|"
                     r"gc\.\w+|threading\.(stack_size|excepthook)|time\.(sleep|clock_settime\w*))$")

# Left out: Dynamo's verdict on a bare call of these depends on what the process compiled before (the
# table's own test saw them trace after breaking in the generator).
_UNSTABLE = re.compile(r"^torch\.jit\.(trace|trace_module)$")


def _candidate(obj, trace_rules) -> bool:
    """Dynamo's trace rules would wrap `obj` as a skipped function (GB0007)."""
    from torch._dynamo.variables import SkipFunctionVariable

    if trace_rules.is_builtin_callable(obj) or trace_rules.is_polyfilled_callable(obj):
        return False
    try:
        return trace_rules.lookup(obj) is SkipFunctionVariable
    except Exception:  # noqa: BLE001
        return False


def dynamo_break_on_call(obj) -> str | None:
    """Compile `def f(x): obj(); return x + 1` with fullgraph=True: the gb_type of the break Dynamo
    raises at the call (before anything is called), when it is one of BREAKS.  The trace rules above
    are not the whole story (Dynamo's builder special-cases objects such as `random.randint`); this
    run is."""
    import torch
    import torch._dynamo

    def f(x):
        FN()  # noqa: F821 - bound in the function's own globals below
        return x + 1

    fn = types.FunctionType(f.__code__, {"FN": obj, "__builtins__": __builtins__})
    torch._dynamo.reset()
    try:
        torch.compile(fn, fullgraph=True, backend="eager")(torch.ones(1))
    except torch._dynamo.exc.Unsupported as e:
        gb = getattr(e, "gb_type", None)
        return gb if gb in BREAKS else None
    except Exception:  # noqa: BLE001 - traced and failed otherwise: not what the table says
        return None
    return None


# The breaks a call itself causes, whatever its arguments (Dynamo's gb_type).
BREAKS = frozenset({
    "Attempted to call function marked as skipped",
    "Attempted to inline function marked as skipped",
    "torch.* op returned non-Tensor",
    "attempted to trace numpy function unsupported by PyTorch",
})


def generate() -> dict:
    """Classify the callables of STDLIB, TORCH and NUMPY with the installed torch, each row confirmed
    by a Dynamo run."""
    import torch
    from torch._dynamo import trace_rules
    from torch._dynamo.variables import TorchInGraphFunctionVariable

    candidates: dict[str, object] = {}
    for modname in STDLIB:
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        for name, obj in _public(mod):
            if inspect.ismodule(obj):
                continue
            q = f"{modname}.{name}"
            if inspect.isclass(obj):
                if getattr(obj, "__module__", "").lstrip("_") != modname.split(".")[0]:
                    continue  # re-exported from elsewhere: classified where it is defined
                for mname, meth in vars(obj).items():
                    if mname.startswith("_") or not (inspect.isbuiltin(getattr(obj, mname, None)) or
                                                     isinstance(meth, (classmethod, staticmethod))):
                        continue
                    bound = getattr(obj, mname)
                    if _candidate(bound, trace_rules):
                        candidates[f"{q}.{mname}"] = bound
                continue
            if callable(obj) and _candidate(obj, trace_rules):
                candidates[q] = obj
    for modname in TORCH:
        mod = importlib.import_module(modname)
        for name, obj in _public(mod):
            if inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj):
                continue
            try:  # torch's own ops go into the graph (all of `torch.*` is not worth a run each)
                if modname == "torch" and trace_rules.lookup(obj) is TorchInGraphFunctionVariable:
                    continue
            except Exception:  # noqa: BLE001
                continue
            candidates[f"{modname}.{name}"] = obj
    for modname in TORCH_CLASSES:  # methods called on instances: `opt.zero_grad()`, `sched.step()`
        mod = importlib.import_module(modname)
        for name, cls in _public(mod):
            if not inspect.isclass(cls) or not cls.__module__.startswith("torch."):
                continue
            for mname in dir(cls):
                meth = getattr(cls, mname, None)
                if not mname.startswith("_") and inspect.isfunction(meth):
                    candidates[f"{modname}.{name}.{mname}"] = meth
    try:
        import numpy  # noqa: F401
        from torch._dynamo.variables.misc import get_np_to_tnp_map

        mapped = get_np_to_tnp_map()
        for modname in NUMPY:
            mod = importlib.import_module(modname)
            for name, obj in _public(mod):
                if not (inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj) or obj in mapped):
                    candidates[f"{modname}.{name}"] = obj
    except ImportError:
        numpy = None
    rows = {}
    for q, obj in candidates.items():
        if _UNSAFE.match(q) or _UNSTABLE.match(q):
            continue
        gb = dynamo_break_on_call(obj)
        if gb is not None:
            rows[q] = gb
    return {
        "torch": torch.__version__.split("+")[0],
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "numpy": getattr(numpy, "__version__", None),
        "breaks": dict(sorted(rows.items())),
    }


@functools.lru_cache(maxsize=None)
def load(version: TorchVersion) -> dict:
    """The table for `version`: the shipped one of that minor release, else of the nearest older one
    (for versions before the oldest shipped table nothing is claimed: an empty table)."""
    older = [(v, p) for v, p in _tables() if (v.major, v.minor) <= (version.major, version.minor)]
    if not older:
        return {"breaks": {}}
    return json.loads(max(older)[1].read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def all_names() -> dict[str, str]:
    """Every callable some shipped table lists -> its gb_type (the newest table's)."""
    out: dict[str, str] = {}
    for _, p in sorted(_tables()):
        out.update(json.loads(p.read_text(encoding="utf-8")).get("breaks", {}))
    return out


def _tables() -> list[tuple[TorchVersion, Path]]:
    out = []
    for p in DATA.glob("tracetable-*.json"):
        try:
            out.append((TorchVersion.parse(p.stem.split("-", 1)[1]), p))
        except ValueError:
            continue
    return out


def breaks(version: TorchVersion) -> dict[str, str]:
    """Callable -> the gb_type Dynamo raises when compiled code calls it, for that torch version."""
    return load(version).get("breaks", {})


def left_table(callee: str, version: TorchVersion) -> bool:
    """`callee` is a row of some shipped table but not of `version`'s (random.random on 2.14): Dynamo
    no longer breaks at the call with one of BREAKS.  Leaving the table does not by itself mean traced
    (time.time breaks with "Call to a time function" on 2.15); the collected knowledge's `calls` says
    which, and tests/test_knowledge.py checks it for the callees a rule's `holds` asks about."""
    table = breaks(version)
    return bool(table) and callee in all_names() and callee not in table


def main(argv: list[str] | None = None) -> int:
    out = DATA / "tracetable-{}.json"
    table = generate()
    v = TorchVersion.parse(table["torch"])
    path = Path(argv[0]) if argv else Path(str(out).format(f"{v.major}.{v.minor}"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    kinds = Counter(table["breaks"].values())
    print(f"{path}: {len(table['breaks'])} callables (torch {table['torch']}): " +
          ", ".join(f"{n} {gb}" for gb, n in kinds.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
