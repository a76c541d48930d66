"""Run code before and after a fix: eager reference vs torch.compile under a chosen backend.

Each run imports the module(s) fresh from a temp directory with `torch.compile` patched (eager mode:
the identity; compile mode: the real torch.compile with the chosen backend and the module's own
fullgraph flag), evaluates the call for each seed, and records the result, the exception, and the
observable side effects: stdout, warnings, log records, torch.save calls, debugger entries.  The wall
clock is replaced by a constant C callable (so results are comparable and Dynamo still cannot trace
it).
"""
from __future__ import annotations

import contextlib
import importlib
import io
import itertools
import logging
import os
import random
import re
import shutil
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch._dynamo

_counter = itertools.count()
SEEDS = (0, 123)
_GRAD_FN = re.compile(r",\s*grad_fn=<\w+>|,\s*requires_grad=True")


@dataclass
class Effects:
    stdout: str = ""
    warnings: list = field(default_factory=list)
    logs: list = field(default_factory=list)
    saves: int = 0
    debugger: int = 0

    def kind(self, k: str):
        if k == "stdout":
            return _GRAD_FN.sub("", self.stdout)
        return getattr(self, k)

    def count(self, k: str) -> int:
        v = getattr(self, k)
        if k == "stdout":
            return len([ln for ln in v.splitlines() if ln.strip()])
        return v if isinstance(v, int) else len(v)


@dataclass
class RunResult:
    results: list  # per seed
    errors: list  # per seed: exception or None
    effects: list  # per seed: Effects
    import_error: BaseException | None = None
    graph_breaks: int = 0


class _Recorder:
    def __init__(self):
        self.saves = 0
        self.debugger = 0


_CLOCKS = ("time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns", "monotonic_ns")


@contextlib.contextmanager
def _patched_world(rec: _Recorder):
    import pdb

    saved_clock = {n: getattr(time, n) for n in _CLOCKS}
    saved_save = torch.save
    saved_pdb = pdb.set_trace
    saved_hook = sys.breakpointhook
    real_save = torch.save

    def recording_save(*a, **k):
        rec.saves += 1
        return real_save(*a, **k)

    counter = itertools.count()

    for n in _CLOCKS:
        # a C callable: Dynamo cannot trace it (like the real clock), and it is deterministic
        setattr(time, n, itertools.repeat(1000 if n.endswith("_ns") else 1000.0).__next__)
    torch.save = recording_save
    pdb.set_trace = counter.__next__
    sys.breakpointhook = counter.__next__
    cfg = torch._dynamo.config
    saved_sets = (set(cfg.ignore_logging_functions), set(cfg.reorderable_logging_functions))
    try:
        yield counter
    finally:
        for n, v in saved_clock.items():
            setattr(time, n, v)
        torch.save = saved_save
        pdb.set_trace = saved_pdb
        sys.breakpointhook = saved_hook
        rec.debugger = next(counter)
        cfg.ignore_logging_functions.clear()
        cfg.ignore_logging_functions.update(saved_sets[0])
        cfg.reorderable_logging_functions.clear()
        cfg.reorderable_logging_functions.update(saved_sets[1])


class _LogCapture(logging.Handler):
    def __init__(self, where: str):
        super().__init__(level=logging.DEBUG)
        self.records = []
        self.where = where

    def emit(self, record):
        if str(record.pathname).startswith(self.where):  # logged by the user's code
            self.records.append((record.levelname, record.getMessage()))


@contextlib.contextmanager
def _capture(eff: Effects, rec: _Recorder, where: str):
    buf = io.StringIO()
    handler = _LogCapture(where)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    # INFO on the root (torch's own loggers log at DEBUG); DEBUG on the user's loggers
    root.setLevel(logging.INFO)
    raised = []
    for name, lg in list(logging.root.manager.loggerDict.items()):
        if isinstance(lg, logging.Logger) and not name.startswith(("torch", "filelock")) and \
                lg.level == logging.NOTSET:
            lg.setLevel(logging.DEBUG)
            raised.append(lg)
    saves0 = rec.saves
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(buf):
                yield
        finally:
            root.removeHandler(handler)
            root.setLevel(old_level)
            for lg in raised:
                lg.setLevel(logging.NOTSET)
            eff.stdout += buf.getvalue()
            eff.warnings += [f"{x.category.__name__}: {x.message}" for x in w if str(x.filename).startswith(where)]
            eff.logs += handler.records
            eff.saves += rec.saves - saves0


def run(files: dict[str, str], module: str, call: str, mode: str, backend: str = "eager",
        seeds=SEEDS, force_fullgraph: bool | None = None) -> RunResult:
    """Write `files` (relative path -> text) to a temp dir, import `module`, evaluate `call` per seed.

    mode "eager": torch.compile is the identity; "compile": real torch.compile(backend=...)."""
    d = Path(tempfile.mkdtemp(prefix="fg_oracle_"))
    for rel, text in files.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    orig_compile = torch.compile

    def patched(model=None, **kw):
        if not sys._getframe(1).f_code.co_filename.startswith(str(d)):
            return orig_compile(model, **kw) if model is not None else orig_compile(**kw)  # torch's own use
        if mode == "eager":
            return model if model is not None else (lambda m: m)
        kw["backend"] = backend
        if force_fullgraph is not None:
            kw["fullgraph"] = force_fullgraph
        if model is None:
            return lambda m: orig_compile(m, **kw)
        return orig_compile(model, **kw)

    top = module.split(".")[0]
    rec = _Recorder()
    results, errors, effects = [], [], []
    import_error = None
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    sys.path.insert(0, str(d))
    torch.compile = patched
    # the code may set process-wide Dynamo settings (the capture-config fix does): undone afterwards
    config_before = torch._dynamo.config.get_config_copy()
    try:
        with _patched_world(rec):
            torch.manual_seed(0)
            eff0 = Effects()
            ns = None
            with _capture(eff0, rec, str(d)):
                try:
                    ns = importlib.import_module(module).__dict__
                except Exception as e:  # noqa: BLE001
                    import_error = e
            for i, seed in enumerate(seeds):
                eff = eff0 if i == 0 else Effects()
                res, err = None, None
                if ns is not None:
                    torch.manual_seed(seed)
                    random.seed(seed)  # Python's and NumPy's generators too (the random-draw fixes)
                    if "numpy" in sys.modules:
                        sys.modules["numpy"].random.seed(seed)
                    with _capture(eff, rec, str(d)):
                        try:
                            res = eval(call, ns)
                        except Exception as e:  # noqa: BLE001
                            err = e
                else:
                    err = import_error
                results.append(res)
                errors.append(err)
                effects.append(eff)
        breaks = sum(counters["graph_break"].values())
        dbg = rec.debugger
        if effects:
            effects[0].debugger = dbg
    finally:
        torch.compile = orig_compile
        for k, v in config_before.items():
            if getattr(torch._dynamo.config, k) != v:
                setattr(torch._dynamo.config, k, v)
        sys.path.remove(str(d))
        for name in list(sys.modules):
            if name == top or name.startswith(top + "."):
                del sys.modules[name]
        torch._dynamo.reset()
        shutil.rmtree(d, ignore_errors=True)
    return RunResult(results, errors, effects, import_error, breaks)


def fresh_module_name() -> str:
    return f"fgx_{os.getpid()}_{next(_counter)}"


def same(a, b, rtol=1e-4, atol=1e-5) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point():
            return torch.allclose(a.detach(), b.detach(), rtol=rtol, atol=atol, equal_nan=True)
        return torch.equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rtol, atol) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= atol + rtol * abs(b)
    return a == b
