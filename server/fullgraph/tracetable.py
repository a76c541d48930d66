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


def _public(mod) -> list[tuple[str, object]]:
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


def _candidate(obj, trace_rules) -> bool:
    """Dynamo's trace rules would wrap `obj` as a skipped function (GB0007)."""
    from torch._dynamo.variables import SkipFunctionVariable

    if trace_rules.is_builtin_callable(obj) or trace_rules.is_polyfilled_callable(obj):
        return False
    try:
        return trace_rules.lookup(obj) is SkipFunctionVariable
    except Exception:  # noqa: BLE001
        return False


def dynamo_breaks_on_call(obj, marker: str) -> bool:
    """Compile `def f(x): obj(); return x + 1` with fullgraph=True: does Dynamo refuse the call with
    `marker` in its message (before anything is called)?  The trace rules above are not the whole
    story (Dynamo's builder special-cases objects such as `random.randint`); this run is."""
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
        return marker in str(e)
    except Exception:  # noqa: BLE001 - traced and failed otherwise: not what the table says
        return False
    return False


SKIPPED_MARK = "marked as skipped"
NUMPY_MARK = "numpy function unsupported by PyTorch"


def generate() -> dict:
    """Classify the callables of STDLIB and NUMPY with the installed torch, each row confirmed by a
    Dynamo run."""
    import torch
    from torch._dynamo import trace_rules

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
                    candidates[f"{q}.{mname}"] = getattr(obj, mname)
                continue
            if callable(obj):
                candidates[q] = obj
    skipped = {}
    for q, obj in candidates.items():
        if not _UNSAFE.match(q) and _candidate(obj, trace_rules) and dynamo_breaks_on_call(obj, SKIPPED_MARK):
            skipped[q] = "skipped"
    numpy_unsupported: list[str] = []
    try:
        import numpy  # noqa: F401
        from torch._dynamo.variables.misc import get_np_to_tnp_map

        mapped = get_np_to_tnp_map()
        for modname in NUMPY:
            mod = importlib.import_module(modname)
            for name, obj in _public(mod):
                if inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj) or obj in mapped:
                    continue
                if dynamo_breaks_on_call(obj, NUMPY_MARK):
                    numpy_unsupported.append(f"{modname}.{name}")
    except ImportError:
        pass
    return {
        "torch": torch.__version__.split("+")[0],
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "skipped": dict(sorted(skipped.items())),
        "numpy_unsupported": sorted(numpy_unsupported),
    }


@functools.lru_cache(maxsize=None)
def load(version: TorchVersion) -> dict:
    """The table for `version`: the shipped one of that minor release, else of the nearest older one
    (rules for versions before the oldest shipped table come from the rules alone: empty table)."""
    best = None
    for p in DATA.glob("tracetable-*.json"):
        try:
            v = TorchVersion.parse(p.stem.split("-", 1)[1])
        except ValueError:
            continue
        if (v.major, v.minor) <= (version.major, version.minor) and (best is None or v > best[0]):
            best = (v, p)
    if best is None:
        return {"skipped": {}, "numpy_unsupported": []}
    return json.loads(best[1].read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def all_names() -> frozenset[str]:
    """Every callable any shipped table lists."""
    out: set[str] = set()
    for p in DATA.glob("tracetable-*.json"):
        t = json.loads(p.read_text(encoding="utf-8"))
        out.update(t.get("skipped", ()), t.get("numpy_unsupported", ()))
    return frozenset(out)


def skipped(version: TorchVersion) -> frozenset[str]:
    return frozenset(load(version).get("skipped", ()))


def numpy_unsupported(version: TorchVersion) -> frozenset[str]:
    return frozenset(load(version).get("numpy_unsupported", ()))


def main(argv: list[str] | None = None) -> int:
    out = DATA / "tracetable-{}.json"
    table = generate()
    v = TorchVersion.parse(table["torch"])
    path = Path(argv[0]) if argv else Path(str(out).format(f"{v.major}.{v.minor}"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"{path}: {len(table['skipped'])} skipped callables, {len(table['numpy_unsupported'])} NumPy functions "
          f"without a torch._numpy counterpart (torch {table['torch']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
