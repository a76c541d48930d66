# ruff: noqa: BLE001, S110  -- must never break the interpreter's startup
# fullgraph trace bootstrap (copied as sitecustomize.py into a temporary directory that
# `fullgraph trace` prepends to PYTHONPATH; see fullgraph/trace/run.py).
#
# 1. install the graph-break recorder (standard library only; does not import torch);
# 2. take this directory off sys.path again, so the program sees its usual import path;
# 3. run the sitecustomize this file shadows, if there is one, exactly as site.py would have.
import os as _os
import sys as _sys


def _fullgraph_trace_bootstrap():
    here = _os.path.dirname(_os.path.abspath(__file__))

    def _is_here(entry):
        try:
            return _os.path.abspath(entry or _os.curdir) == here
        except Exception:
            return False

    try:
        import _fullgraph_trace_hook

        _fullgraph_trace_hook.install()
    except Exception:
        pass
    finally:
        _sys.path[:] = [p for p in _sys.path if not _is_here(p)]

    this = _sys.modules.pop("sitecustomize", None)
    try:
        import importlib

        try:
            importlib.import_module("sitecustomize")
        except ImportError as e:
            if getattr(e, "name", None) != "sitecustomize":
                raise
    finally:
        if "sitecustomize" not in _sys.modules and this is not None:
            _sys.modules["sitecustomize"] = this


_fullgraph_trace_bootstrap()
del _fullgraph_trace_bootstrap
