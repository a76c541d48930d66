"""Shared test helpers: analyse example code, and run it under real Dynamo."""
from __future__ import annotations

import importlib.util
import itertools
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from fullgraph.api import Workspace
from fullgraph.config import Config

EXPECT_RE = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")
_counter = itertools.count()


def expected(code: str) -> set[tuple[int, str]]:
    """{(1-based line, code)} from `# expect: FG101` comments."""
    out = set()
    for i, line in enumerate(code.splitlines(), 1):
        m = EXPECT_RE.search(line)
        if m:
            for c in m.group(1).replace(",", " ").split():
                out.add((i, c))
    return out


def check_code(code: str, tmp: Path | None = None, name: str | None = None, **cfg) -> list:
    tmp = tmp or Path(tempfile.mkdtemp(prefix="fg_test_"))
    name = name or f"example_{next(_counter)}"
    p = tmp / f"{name}.py"
    p.write_text(code, encoding="utf-8")
    ws = Workspace(Config(project_root=str(tmp), **cfg))
    return ws.check([p]).findings


def found(findings) -> set[tuple[int, str]]:
    return {(f.span.start.line + 1, f.code) for f in findings}


class DynamoOutcome:
    def __init__(self, raised: BaseException | None, graph_breaks: int, eager_error: BaseException | None = None):
        self.raised = raised
        self.graph_breaks = graph_breaks
        self.eager_error = eager_error


def run_example(code: str, call: str, force_fullgraph: bool | None = None, eager: bool = False) -> DynamoOutcome:
    """Import `code` as a module with torch.compile's backend forced to "eager", evaluate `call`.

    Returns whether the call raised (a Dynamo error) and how many graph breaks Dynamo counted.
    """
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    orig_compile = torch.compile

    def eager_compile(model=None, **kw):
        if eager:  # plain Python: torch.compile is the identity
            return model if model is not None else (lambda m: m)
        kw["backend"] = "eager"
        if force_fullgraph is not None:
            kw["fullgraph"] = force_fullgraph
        if model is None:
            return lambda m: orig_compile(m, **kw)
        return orig_compile(model, **kw)

    cfg = torch._dynamo.config
    saved = (set(cfg.ignore_logging_functions), set(cfg.reorderable_logging_functions))
    saved_flags = cfg.get_config_copy()  # an example may set config flags (capture_scalar_outputs = True)
    d = Path(tempfile.mkdtemp(prefix="fg_dyn_"))
    name = f"fg_example_{next(_counter)}"
    p = d / f"{name}.py"
    p.write_text(code, encoding="utf-8")
    torch._dynamo.reset()
    counters.clear()
    torch.compile = eager_compile
    raised = None
    try:
        spec = importlib.util.spec_from_file_location(name, p)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
            eval(call, mod.__dict__)
        except Exception as e:  # noqa: BLE001 - we classify below
            raised = e
    finally:
        torch.compile = orig_compile
        sys.modules.pop(name, None)
        breaks = sum(counters["graph_break"].values())
        for k, v in cfg.get_config_copy().items():
            if k in saved_flags and v != saved_flags[k] and not isinstance(v, (set, frozenset)):
                setattr(cfg, k, saved_flags[k])
        cfg.ignore_logging_functions.clear()
        cfg.ignore_logging_functions.update(saved[0])
        cfg.reorderable_logging_functions.clear()
        cfg.reorderable_logging_functions.update(saved[1])
    torch._dynamo.reset()
    return DynamoOutcome(raised, breaks)


def is_dynamo_error(e: BaseException) -> bool:
    import torch._dynamo.exc as exc

    if isinstance(e, (exc.Unsupported, exc.UserError, exc.TorchRuntimeError, exc.InternalTorchDynamoError)):
        return True
    return isinstance(e, AssertionError) and "forbidden callable" in str(e)


def dynamo_user_lines(e: BaseException, filename_hint: str = "fg_example_") -> list[int]:
    """Lines of the example module named in Dynamo's 'from user code' frames, innermost last."""
    text = str(e)
    return [int(m.group(1)) for m in re.finditer(r'File "[^"]*' + filename_hint + r'[^"]*", line (\d+)', text)]


def dedent(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
os.environ.setdefault("FULLGRAPH_TESTING", "1")


def dynamo_breaks_of_run(entry, strict_like: bool = True) -> set[tuple[str, int]]:
    """Run `entry()` with every torch.compile forced to fullgraph=False (eager backend) and collect
    every graph break Dynamo logs as (file, line) of the innermost user frame.

    A root compiled with fullgraph=True is run with capture_scalar_outputs and
    capture_dynamic_output_shape_ops on, which is what fullgraph=True implies on torch 2.13, so the
    breaks seen are the ones that root would raise on — all of them, not only the first.
    """
    import logging

    import torch
    import torch._dynamo
    import torch._logging

    orig = torch.compile
    seen: set[tuple[str, int]] = set()
    pat = re.compile(r"in user code at (\S+?):(\d+)")

    class H(logging.Handler):
        def emit(self, record):
            m = pat.search(record.getMessage())
            if m:
                seen.add((os.path.realpath(m.group(1)), int(m.group(2))))

    def patched(model=None, **kw):
        fullgraph = kw.pop("fullgraph", False)
        kw["backend"] = "eager"
        if model is None:
            return lambda m: patched(m, fullgraph=fullgraph, **kw)
        compiled = orig(model, fullgraph=False, **kw)
        if not (fullgraph and strict_like):
            return compiled

        def run(*a, **k):
            with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
                return compiled(*a, **k)
        return run

    h = H(level=logging.DEBUG)
    lg = logging.getLogger("torch._dynamo")
    lg.addHandler(h)
    torch._logging.set_logs(graph_breaks=True)
    torch._dynamo.reset()
    torch.compile = patched
    try:
        entry()
    finally:
        torch.compile = orig
        lg.removeHandler(h)
        torch._logging.set_logs()
        torch._dynamo.reset()
    return seen


def record_publications(lsp_client) -> None:
    """Prepare a pytest-lsp client for the server: accept dynamic registrations (file watchers) and
    keep the last publishDiagnostics of each document as `lsp_client.published[uri] = (version,
    diagnostics)` -- two notifications can arrive in one read, and a wait_for_notification() future
    registered after the first would miss the second."""
    from lsprotocol import types as t

    @lsp_client.feature(t.CLIENT_REGISTER_CAPABILITY)
    def _register(params):
        return None

    lsp_client.published = {}
    fm = lsp_client.protocol.fm
    original = fm.features[t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: t.PublishDiagnosticsParams):
        lsp_client.published[params.uri] = (params.version, list(params.diagnostics))
        return original(params)

    fm.features[t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record


def dynamo_breaks_of_main(root: Path, module: str) -> set[tuple[str, int]]:
    """Import `module` from the project at `root` and run its main() with every torch.compile under
    Dynamo's eye: the (file, line) of every graph break (tests/harness.py); the project's modules are
    forgotten afterwards."""
    pytest.importorskip("torch")
    import importlib

    top = module.split(".")[0]
    sys.path.insert(0, str(root))
    try:
        return dynamo_breaks_of_run(lambda: importlib.import_module(module).main())
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
            sys.modules.pop(name)


def dynamo_lines(root: Path, module: str) -> set[int]:
    """The lines of `root/<module>.py` where Dynamo breaks when the module's main() runs."""
    mine = os.path.realpath(root / (module.replace(".", "/") + ".py"))
    return {line for path, line in dynamo_breaks_of_main(root, module) if path == mine}


def count_compiles(code: str, call: str, eager: bool = False, **config) -> tuple[int, object]:
    """Import `code` as a module (torch.compile's backend forced to "eager"), evaluate `call` and return
    how many frames Dynamo compiled (first compile and recompiles) and what `call` returned.  `eager`:
    torch.compile is the identity (the result to compare with); `config`: torch._dynamo.config flags."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    orig_compile = torch.compile

    def eager_compile(model=None, **kw):
        if eager:
            return model if model is not None else (lambda m: m)
        kw["backend"] = "eager"
        return orig_compile(model, **kw) if model is not None else (lambda m: orig_compile(m, **kw))

    d = Path(tempfile.mkdtemp(prefix="fg_rc_"))
    name = f"fg_recompile_{next(_counter)}"
    p = d / f"{name}.py"
    p.write_text(code, encoding="utf-8")
    torch._dynamo.reset()
    counters.clear()
    torch.compile = eager_compile
    torch.manual_seed(0)  # the same weights for the compiled and the eager run
    try:
        with torch._dynamo.config.patch(**config):
            spec = importlib.util.spec_from_file_location(name, p)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            result = eval(call, mod.__dict__)
            compiles = counters["frames"]["ok"]
    finally:
        torch.compile = orig_compile
        sys.modules.pop(name, None)
        torch._dynamo.reset()
    return compiles, result
