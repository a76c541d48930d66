"""Run one case of bench/modules/cases under a chosen torch.compile regime (used by collect.py / score.py).

    python runner.py MODE CASE_FILE OUT_JSON [--save-result FILE]

MODE:
  eager     torch.compile (and nn.Module.compile) replaced by identity / no-op: plain eager PyTorch.
  collect   every torch.compile gets backend="eager" and fullgraph=False, so Dynamo resumes after each
            graph break and every break site is logged.  A root its author compiled with fullgraph=True
            is traced with the settings fullgraph=True implies on torch 2.13 (Dynamo's OutputGraph gets
            allow_scalar_outputs / allow_dynamic_output_shape_ops from `one_graph`), i.e. with
            config.capture_scalar_outputs and config.capture_dynamic_output_shape_ops set while it runs.
  strict    only backend="eager" is forced; the file's own fullgraph= flags stay (a fullgraph=True
            root raises at its first break).  Used to cross-check `collect`.
  native    nothing patched (the author's backend, i.e. inductor): a smoke check that the file runs.

The case's main() is called; OUT_JSON gets {"ok", "error", "error_type", "error_frames", "traceback", "roots",
"result_kind", "seconds", "dynamo"}; --save-result writes main()'s return value with torch.save.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback


def _load_case(path: str):
    """Import a case file the way its author runs it: a script (its folder on sys.path), or a module of
    a package (a folder with __init__.py) imported with the folder above the package on sys.path."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if os.path.isfile(os.path.join(folder, "__init__.py")):
        top = folder
        parts = [stem]
        while os.path.isfile(os.path.join(top, "__init__.py")):
            parts.insert(0, os.path.basename(top))
            top = os.path.dirname(top)
        sys.path.insert(0, top)
        return importlib.import_module(".".join(parts))
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[stem] = mod
    spec.loader.exec_module(mod)
    return mod


def _code_of(target):
    """(file, first line, name) of what torch.compile was given, for matching the trace's roots."""
    import torch

    fn = target
    if isinstance(target, torch.nn.Module):
        fn = type(target).forward
    fn = getattr(fn, "__func__", fn)
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    if code is None:
        return {"file": None, "line": None, "name": getattr(fn, "__name__", repr(fn))}
    return {"file": os.path.realpath(code.co_filename), "line": code.co_firstlineno, "name": code.co_name}


def _install(mode: str, roots: list) -> None:
    import torch

    real_compile = torch.compile
    real_module_compile = torch.nn.Module.compile

    if mode == "eager":
        def compile_identity(model=None, **kwargs):
            roots.append(dict(_code_of(model) if model is not None else {}, fullgraph=bool(kwargs.get("fullgraph"))))
            if model is None:
                return lambda m: compile_identity(m, **kwargs)
            return model

        def module_compile_noop(self, *args, **kwargs):
            roots.append(dict(_code_of(self), fullgraph=bool(kwargs.get("fullgraph"))))

        torch.compile = compile_identity
        torch.nn.Module.compile = module_compile_noop
        return

    def patched_compile(model=None, **kwargs):
        if model is None:
            return lambda m: patched_compile(m, **kwargs)
        fullgraph = bool(kwargs.get("fullgraph", False))
        info = dict(_code_of(model), fullgraph=fullgraph)
        # nn.Module.compile() hands torch.compile the bound _call_impl: the root is the module's forward
        self_obj = getattr(model, "__self__", None)
        if isinstance(self_obj, torch.nn.Module) and getattr(model, "__name__", "") == "_call_impl":
            info = dict(_code_of(self_obj), fullgraph=fullgraph)
        roots.append(info)
        kwargs["backend"] = "eager"
        kwargs.pop("mode", None)
        kwargs.pop("options", None)
        if mode == "strict":
            return real_compile(model, **kwargs)
        kwargs["fullgraph"] = False
        compiled = real_compile(model, **kwargs)
        if not fullgraph:
            return compiled

        def settings():
            return torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True)

        if isinstance(compiled, torch.nn.Module):  # OptimizedModule: its forward is the dynamo-wrapped call
            inner = compiled.forward

            @functools.wraps(inner)
            def forward(*a, **k):
                with settings():
                    return inner(*a, **k)

            compiled.forward = forward
            return compiled

        @functools.wraps(compiled)
        def call(*a, **k):
            with settings():
                return compiled(*a, **k)

        return call

    torch.compile = patched_compile
    torch.nn.Module.compile = real_module_compile  # it calls torch.compile(self._call_impl, ...) at call time


def _frames(exc: BaseException) -> list:
    return [{"path": os.path.realpath(fs.filename), "line": fs.lineno, "function": fs.name}
            for fs in traceback.extract_tb(exc.__traceback__)]


def _dynamo_counters() -> dict:
    """How much Dynamo compiled: frames it finished / started, and FX graphs it produced."""
    try:
        from torch._dynamo.utils import counters
    except Exception:  # noqa: BLE001
        return {}
    return {"frames_ok": int(counters["frames"].get("ok", 0)), "frames_total": int(counters["frames"].get("total", 0)),
            "unique_graphs": int(counters["stats"].get("unique_graphs", 0))}


def main(argv: list[str]) -> int:
    mode, case, out = argv[0], argv[1], argv[2]
    save = argv[argv.index("--save-result") + 1] if "--save-result" in argv else None
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    torch.set_num_threads(1)
    roots: list = []
    if mode != "native":
        _install(mode, roots)
    rec = {"mode": mode, "case": os.path.realpath(case), "ok": False, "error": None, "error_type": None,
           "error_frames": [], "roots": roots, "result_kind": None, "torch": torch.__version__}
    t0 = time.time()
    cwd = os.getcwd()
    try:
        mod = _load_case(case)
        result = mod.main()
        rec["ok"] = True
        rec["result_kind"] = type(result).__name__
        if save:
            torch.save(result, save)
    except BaseException as e:  # noqa: BLE001 - the record says what happened
        rec["error_type"] = f"{type(e).__module__}.{type(e).__qualname__}"
        rec["error"] = str(e)[:4000]
        rec["error_frames"] = _frames(e)
        rec["traceback"] = "".join(traceback.format_exception(e))[-12000:]
    finally:
        os.chdir(cwd)
    rec["seconds"] = round(time.time() - t0, 3)
    if mode != "eager":
        rec["dynamo"] = _dynamo_counters()
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(rec, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
