"""Real-world check of fullgraph on an installed model library (transformers).

For a few tiny, randomly initialised transformers models (built from a config: no download) it

1. runs each model under ``fullgraph trace`` with ``torch.compile(model, backend="eager")``
   (fullgraph=False, so Dynamo resumes after each break and every break is seen), in two call
   variants: ``default`` (input_ids + a padded attention_mask) and ``outputs`` (the same plus
   ``output_attentions=True, output_hidden_states=True``, the usual feature-extraction call);
2. runs ``fullgraph check --follow transformers`` on the same user script (and, separately,
   ``--root transformers.models...:XModel.forward@graphbreaks`` on an empty directory);
3. compares: which runtime breaks the static analysis found (same file, same statement), which it
   missed and why, which static findings Dynamo did not confirm and why.

    .venv/bin/python bench/realworld/run_transformers.py              # everything (~6-10 min)
    .venv/bin/python bench/realworld/run_transformers.py --models llama,bigbird --no-toplevel
    .venv/bin/python bench/realworld/run_transformers.py --report-only  # re-render from results.json

Writes bench/realworld/RESULTS.md (the part above the "hand-written" marker is regenerated),
bench/realworld/results.json, bench/realworld/records/<model>_<variant>.json (the `fullgraph trace`
records) and bench/realworld/scripts/<model>_<variant>.py (the user scripts that were run and checked).

How the comparison works (details in RESULTS.md, "Method"):

* A runtime break is one graph-break event Dynamo reported (the capture hook's raw events, read
  from the trace part file the traced process copies at exit): the record that `fullgraph trace`
  writes merges breaks by *user* line (every break inside transformers is reported at the user's
  call `compiled(...)`), so the per-site comparison uses the raw events, de-duplicated by
  (gb_type, innermost frame).  Its *site* is the innermost transformers frame of Dynamo's stack.
* A static finding is one of the engine's findings inside transformers (the CLI shows them only as
  echoes "graph break inside transformers (...), reached from your code here", one per user line and
  code; the benchmark reads them all from the same Workspace, in the same process as the check).
* found: a static finding in the same file whose line lies in the statement of the site.
  found at a caller: a static finding at an outer transformers frame of the same stack.
* A miss is explained with the engine's own call graph: the first frame on Dynamo's stack whose
  function the analysis did not reach (and the call there it could not resolve), or, if the
  function was reached, "no rule for this construct".
* A static-only finding is classified with a line-coverage run of the same script in eager mode
  (torch.compile replaced by the identity): not executed for this input, or executed and Dynamo
  traced it without a break (a real false positive).
"""
from __future__ import annotations

import argparse
import ast
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VENV_PY = REPO / ".venv" / "bin" / "python"
FULLGRAPH = REPO / ".venv" / "bin" / "fullgraph"
SCRIPTS = HERE / "scripts"
RECORDS = HERE / "records"
WORK = HERE / "work"  # transient (git-ignored): part files, coverage, static dumps
RESULTS_JSON = HERE / "results.json"
RESULTS_MD = HERE / "RESULTS.md"
MANUAL_MARK = "<!-- hand-written below this line: kept when the report is regenerated -->"

# name: (config module, config class, model module, model class, config kwargs)
MODELS = {
    "llama": ("transformers.models.llama.configuration_llama", "LlamaConfig",
              "transformers.models.llama.modeling_llama", "LlamaModel",
              ("hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, "
              "num_key_value_heads=2, vocab_size=128")),
    "gpt2": ("transformers.models.gpt2.configuration_gpt2", "GPT2Config",
             "transformers.models.gpt2.modeling_gpt2", "GPT2Model",
             "n_embd=32, n_layer=2, n_head=4, n_positions=64, vocab_size=128"),
    "bert": ("transformers.models.bert.configuration_bert", "BertConfig",
             "transformers.models.bert.modeling_bert", "BertModel",
             ("hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, "
             "max_position_embeddings=64, vocab_size=128")),
    "t5": ("transformers.models.t5.configuration_t5", "T5Config",
           "transformers.models.t5.modeling_t5", "T5EncoderModel",
           "d_model=32, d_ff=64, d_kv=8, num_layers=2, num_heads=4, vocab_size=128"),
    "longformer": ("transformers.models.longformer.configuration_longformer", "LongformerConfig",
                   "transformers.models.longformer.modeling_longformer", "LongformerModel",
                   ("hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, "
                   "max_position_embeddings=64, vocab_size=128, attention_window=4")),
    "bigbird": ("transformers.models.big_bird.configuration_big_bird", "BigBirdConfig",
                "transformers.models.big_bird.modeling_big_bird", "BigBirdModel",
                ("hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, "
                "max_position_embeddings=64, vocab_size=128, block_size=2, num_random_blocks=2")),
}
# BigBird twice: at length 32 it runs its block-sparse attention; at length 16 (shorter than
# (5 + 2 * num_random_blocks) * block_size) it warns and switches every layer to full attention.
MODELS["bigbird_short"] = MODELS["bigbird"]
SEQ = {"bigbird": 32}  # input length (default 16); the last 4 positions of row 1 are padding
# variant: (call arguments, model mode, grad context)
VARIANTS = {
    "default": ("input_ids=input_ids, attention_mask=attention_mask", "eval", "no_grad"),
    "outputs": ("input_ids=input_ids, attention_mask=attention_mask, output_attentions=True, output_hidden_states=True",
                "eval", "no_grad"),
    "train": ("input_ids=input_ids, attention_mask=attention_mask", "train", "enable_grad"),
}
MODEL_VARIANTS = {"bigbird": ["default", "outputs", "train"], "bigbird_short": ["default"]}


def variants_of(name: str) -> list[str]:
    return MODEL_VARIANTS.get(name, ["default", "outputs"])


SCRIPT_TEMPLATE = '''\
"""{model_cls} ({variant}, length {seq}): generated by bench/realworld/run_transformers.py."""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from {cfg_mod} import {cfg_cls}
from {model_mod} import {model_cls}

torch.manual_seed(0)
cfg = {cfg_cls}({cfg_kwargs})
model = {model_cls}(cfg)
model.{mode}()
compiled = torch.compile(model, backend="eager")

input_ids = torch.randint(3, 100, (2, {seq}))
attention_mask = torch.ones(2, {seq}, dtype=torch.long)
attention_mask[1, {pad}:] = 0
with torch.{grad}():
    out = compiled({call})
print(type(out).__name__)
'''

TOPLEVEL_TEMPLATE = '''\
"""LlamaModel imported from the package top level: generated by bench/realworld/run_transformers.py."""
import torch
from transformers import LlamaConfig, LlamaModel

cfg = LlamaConfig({cfg_kwargs})
model = LlamaModel(cfg)
compiled = torch.compile(model, backend="eager")
out = compiled(input_ids=torch.randint(3, 100, (2, 16)))
'''


def tf_dir() -> str:
    out = subprocess.run([str(VENV_PY), "-c", ("import importlib.util as u, os;"
                          "print(os.path.realpath(u.find_spec('transformers').submodule_search_locations[0]))")],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def rel(path: str, tfd: str) -> str:
    if path.startswith(tfd + os.sep):
        return "transformers/" + path[len(tfd) + 1:]
    i = path.find("site-packages/")
    if i >= 0:
        return path[i + len("site-packages/"):]
    try:
        return os.path.relpath(path, REPO)
    except ValueError:
        return path


# ==== children (run in their own processes) =======================================================
def child_trace(script: str, parts_copy: str) -> None:
    """Run under `fullgraph trace`: run the script, then copy this process's capture part file."""
    import atexit
    import runpy

    def copy_parts():
        d = os.environ.get("FULLGRAPH_TRACE_PARTS")
        if not d:
            return
        src = os.path.join(d, f"{os.getpid()}.jsonl")
        if os.path.exists(src):
            shutil.copyfile(src, parts_copy)

    atexit.register(copy_parts)
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")


def child_coverage(script: str, out: str) -> None:
    """Run the script eagerly (torch.compile -> identity) and record the lines executed in transformers."""
    import runpy
    import threading

    import torch

    torch.compile = lambda model=None, **kw: model
    import transformers

    tfd = os.path.realpath(os.path.dirname(transformers.__file__))
    lines: dict[str, set[int]] = defaultdict(set)
    want: dict[str, bool] = {}

    def local(frame, event, arg):
        if event == "line":
            lines[frame.f_code.co_filename].add(frame.f_lineno)
        return local

    def glob(frame, event, arg):
        fn = frame.f_code.co_filename
        ok = want.get(fn)
        if ok is None:
            ok = want[fn] = os.path.realpath(fn).startswith(tfd + os.sep)
        if not ok or frame.f_code.co_name == "<module>":
            return None
        lines[fn].add(frame.f_lineno)
        return local

    sys.argv = [script]
    sys.settrace(glob)
    threading.settrace(glob)
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.settrace(None)
    with open(out, "w") as fh:
        json.dump({os.path.realpath(k): sorted(v) for k, v in lines.items()}, fh)


def child_static(target: str, out: str, root: str | None, extra_files: list[str] | None = None) -> None:
    """`fullgraph check TARGET --follow transformers [--root ROOT]`, in process, with what the CLI hides."""
    from fullgraph.api import Workspace
    from fullgraph.config import discover

    t_start = time.perf_counter()
    cfg = discover(Path(target))
    cfg.follow = ["transformers"]
    if root:
        cfg.roots = list(cfg.roots) + [root]
    ws = Workspace(cfg)
    loaded: list[tuple[str, bool, float]] = []
    orig = ws.project.module_loader

    def counting(name):
        t = time.perf_counter()
        ok = orig(name)
        loaded.append((name, ok, time.perf_counter() - t))
        return ok

    ws.project.module_loader = counting
    t0 = time.perf_counter()
    result = ws.check([Path(target)], jobs=1)
    t_check = time.perf_counter() - t0
    proj = ws.project
    real = os.path.realpath

    def span(s):
        return [s.start.line + 1, s.start.col + 1, s.end.line + 1, s.end.col + 1]

    def fjson(f):
        return {"path": real(f.path), "code": f.code, "name": f.name, "message": f.message, "span": span(f.span),
                "root": f.root.label if f.root else None,
                "root_path": real(f.root.location.path) if f.root else None,
                "call_path": [s.qualname for s in f.call_path],
                "calls": [[real(s.call.path), s.call.span.start.line + 1] if s.call else None for s in f.call_path],
                "data": {k: v for k, v in (f.data or {}).items() if isinstance(v, (str, int, float, bool))}}

    user = [fjson(f) for f in result.findings]
    every = proj.findings(None)
    library = [fjson(f) for f in every if ws.is_library(f.path)]
    # what the analysis reached from each root (the engine's own walk), and the calls it could not resolve
    ignored, allowed = set(), set()
    for m in list(proj.modules.values()):
        ignored |= m.ignored
        allowed |= m.allow_in_graph
    roots = []
    for r in proj.roots():
        if not r.entries or r.info is None:
            continue
        if getattr(r.mod, "library", False) and r.decl.kind != "config":
            continue  # transformers' own torch.compile calls: not what this benchmark compiles
        reached = []
        for rc in proj._reach(r, allowed, ignored):
            fs = rc.fs
            unresolved = []
            for e in fs.edges:
                if not proj.resolve_edge(e, rc.mod):
                    unresolved.append({"line": e.span.start.line + 1, "kind": e.kind, "text": e.text[:120],
                                       "target": e.target})
            reached.append({"qualname": fs.qualname, "path": real(rc.mod.path),
                            "lines": [fs.span.start.line + 1, fs.span.end.line + 1],
                            "decorators": list(fs.decorator_lines),
                            "n_edges": len(fs.edges), "n_sites": len(fs.sites),
                            "unresolved": unresolved,
                            "via": [s.qualname for s in rc.path]})
        roots.append({"label": r.decl.label, "path": real(r.mod.path), "reached": reached})
    lib_mods = sorted(m.name for m in proj.modules.values() if getattr(m, "library", False))
    n_attempts, load_secs = len(loaded), sum(x[2] for x in loaded)
    # for explaining misses only (after the check, so it changes nothing above): the transformers
    # modules on Dynamo's stacks that the check did not load, and every loaded module's sites
    if extra_files:
        tfd = ws.follow_roots().get("transformers")
        for f in extra_files:
            if tfd and f.startswith(os.path.realpath(tfd) + os.sep) and f.endswith(".py"):
                relp = os.path.relpath(f, os.path.realpath(tfd))[:-3].replace(os.sep, ".")
                name = "transformers" + ("" if relp == "__init__" else "." + relp.removesuffix(".__init__"))
                if not any(real(m.path) == f for m in proj.modules.values()):
                    ws._load_library_module(name)
    functions, sites = {}, {}
    for m in proj.modules.values():
        if getattr(m, "library", False):
            functions[real(m.path)] = [[q, fs.span.start.line + 1, fs.span.end.line + 1]
                                       for q, fs in m.functions.items()]
            sites[real(m.path)] = [[x.span.start.line + 1, x.span.end.line + 1, x.code, fs.qualname]
                                   for fs in m.functions.values() for x in fs.sites]
    # the call edges of every function in a module on Dynamo's stacks, and what each resolves to
    # (resolution does not depend on reachability: it says whether the walk *would* follow the call)
    edges = {}
    want = set(extra_files or [])
    for m in list(proj.modules.values()):
        if getattr(m, "library", False) and real(m.path) in want:
            rows = []
            for fs in list(m.functions.values()):
                for e in fs.edges:
                    try:
                        tg = [t.qualname for t, _ in proj.resolve_edge(e, m)]
                    except Exception:  # noqa: BLE001 - diagnosis only
                        tg = []
                    rows.append([e.span.start.line + 1, e.span.end.line + 1, e.kind, e.text[:80], tg])
            edges[real(m.path)] = rows
    with open(out, "w") as fh:
        json.dump({"target": target, "root_arg": root, "check_seconds": t_check,
                   "process_seconds": time.perf_counter() - t_start,
                   "modules_loaded": len(lib_mods), "load_attempts": n_attempts,
                   "load_seconds": load_secs, "loaded_modules": lib_mods,
                   "user_findings": user, "library_findings": library, "roots": roots, "functions": functions,
                   "sites": sites, "edges": edges,
                   "unresolved_calls": sorted(proj.unresolved_calls.items(), key=lambda kv: -kv[1])},
                  fh)


# ==== driver =======================================================================================
def write_scripts(models: list[str]) -> dict[tuple[str, str], Path]:
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    for name in models:  # drop scripts and records of variants a model no longer runs
        for d, ext in ((SCRIPTS, ".py"), (RECORDS, ".json")):
            for v in VARIANTS:
                f = d / f"{name}_{v}{ext}"
                if v not in variants_of(name) and f.exists():
                    f.unlink()
    out = {}
    for name in models:
        cfg_mod, cfg_cls, model_mod, model_cls, kwargs = MODELS[name]
        for variant in variants_of(name):
            call, mode, grad = VARIANTS[variant]
            p = SCRIPTS / f"{name}_{variant}.py"
            p.write_text(SCRIPT_TEMPLATE.format(cfg_mod=cfg_mod, cfg_cls=cfg_cls, model_mod=model_mod,
                                                model_cls=model_cls, cfg_kwargs=kwargs, call=call, mode=mode, grad=grad,
                                                variant=variant, seq=SEQ.get(name, 16),
                                                pad=SEQ.get(name, 16) - 4))
            out[(name, variant)] = p
    return out


def run(cmd: list[str], log: Path, timeout: int = 600, env: dict | None = None) -> tuple[int, float]:
    t = time.perf_counter()
    with open(log, "w") as fh:
        try:
            rc = subprocess.run(cmd, check=False, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout, cwd=str(REPO),
                                env=env).returncode
        except subprocess.TimeoutExpired:
            rc = -999
    return rc, time.perf_counter() - t


def runtime_pass(name: str, variant: str, script: Path, reuse: bool = False) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error")
    record = RECORDS / f"{name}_{variant}.json"
    parts = WORK / f"{name}_{variant}.parts.jsonl"
    cov = WORK / f"{name}_{variant}.coverage.json"
    side = WORK / f"{name}_{variant}.runtime.json"
    if reuse and parts.exists() and record.exists() and cov.exists() and side.exists():  # re-analyse only
        rc, secs, rc_cov, secs_cov = json.loads(side.read_text())
        return _runtime_result(name, variant, record, parts, cov, rc, secs, rc_cov, secs_cov)
    if parts.exists():
        parts.unlink()
    rc, secs = run([str(FULLGRAPH), "trace", "--out", str(record), "--", str(VENV_PY), str(Path(__file__)),
                    "--child-trace", str(script), str(parts)], WORK / f"{name}_{variant}.trace.log", env=env)
    rc_cov, secs_cov = run([str(VENV_PY), str(Path(__file__)), "--child-coverage", str(script), str(cov)],
                           WORK / f"{name}_{variant}.coverage.log", env=env)
    side.write_text(json.dumps([rc, secs, rc_cov, secs_cov]))
    return _runtime_result(name, variant, record, parts, cov, rc, secs, rc_cov, secs_cov)


def _runtime_result(name, variant, record, parts, cov, rc, secs, rc_cov, secs_cov) -> dict:
    from fullgraph.trace.collect import process_from_part_file

    rec = json.loads(record.read_text()) if record.exists() else {"breaks": []}
    hits = []
    if parts.exists():
        proc = process_from_part_file(str(parts))
        for h in proc.hits:
            hits.append({"gb_type": h.message.gb_type, "gb_code": h.message.gb_code,
                         "explanation": (h.message.explanation or "").strip().splitlines()[0:1],
                         "stack": [{"path": os.path.realpath(f.path), "line": f.line, "function": f.function,
                                    "code": getattr(f, "code", None)} for f in h.stack]})
    log = (WORK / f"{name}_{variant}.trace.log").read_text(errors="replace")
    internal = re.search(r"^fullgraph: internal error: .*$", log, re.MULTILINE)
    return {"exit_code": rc, "seconds": secs, "script_ok": bool(re.search(r"^\w*Output\w*$", log, re.MULTILINE)),
            "trace_internal_error": internal.group(0) if internal else None, "record_breaks": len(rec.get("breaks", [])),
            "record_count_total": sum(b.get("count", 1) for b in rec.get("breaks", [])),
            "hits": hits, "coverage_file": str(cov) if rc_cov == 0 else None, "coverage_seconds": secs_cov}


def static_pass(tag: str, target: Path, root: str | None = None, stack_files: set[str] | None = None) -> dict:
    out = WORK / f"{tag}.static.json"
    cmd = [str(VENV_PY), str(Path(__file__)), "--child-static", str(target), str(out)]
    if root:
        cmd += ["--root", root]
    if stack_files:
        ef = WORK / f"{tag}.stackfiles.json"
        ef.write_text(json.dumps(sorted(stack_files)))
        cmd += ["--extra-files", str(ef)]
    rc, secs = run(cmd, WORK / f"{tag}.static.log", timeout=1200)
    if rc != 0 or not out.exists():
        return {"error": f"exit {rc}", "wall_seconds": secs}
    d = json.loads(out.read_text())
    d["wall_seconds"] = secs
    # the same check through the CLI, as a user runs it (its JSON must list what the in-process check saw)
    cli = [str(FULLGRAPH), "check", str(target), "--follow", "transformers", "--format", "json", "-j", "1"]
    if root:
        cli += ["--root", root]
    cli_out = WORK / f"{tag}.cli.json"
    with open(cli_out, "w") as fh:
        t = time.perf_counter()
        rc_cli = subprocess.run(cli, check=False, stdout=fh, stderr=subprocess.DEVNULL, cwd=str(REPO),
                                timeout=1200).returncode
        d["cli_seconds"] = time.perf_counter() - t
    try:
        diags = json.loads(cli_out.read_text())["diagnostics"]
        d["cli_findings"] = len(diags)
        d["cli_matches"] = sorted((x["code"], x["message"]) for x in diags) == sorted(
            (f["code"], f["message"]) for f in d["user_findings"])
    except (ValueError, KeyError):
        d["cli_findings"], d["cli_matches"] = None, False
    d["cli_exit"] = rc_cli
    return d


# ==== comparison ===================================================================================
class Sources:
    def __init__(self):
        self.text: dict[str, list[str]] = {}
        self.stmts: dict[str, list[tuple[int, int]]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self.text:
            try:
                self.text[path] = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError:
                self.text[path] = []
        return self.text[path]

    def line(self, path: str, n: int) -> str:
        ls = self.lines(path)
        return ls[n - 1].strip() if 0 < n <= len(ls) else ""

    def statement(self, path: str, n: int) -> tuple[int, int]:
        """The innermost simple statement (or compound statement header) containing line n."""
        if path not in self.stmts:
            try:
                tree = ast.parse("\n".join(self.lines(path)))
            except SyntaxError:
                tree = None
            spans = []
            if tree is not None:
                for node in ast.walk(tree):
                    if isinstance(node, ast.stmt):
                        end = node.end_lineno or node.lineno
                        if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.FunctionDef, ast.ClassDef,
                                             ast.Try, ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith)):
                            body = getattr(node, "body", None)
                            end = (body[0].lineno - 1) if body else end
                            end = max(end, node.lineno)
                        spans.append((node.lineno, end))
            self.stmts[path] = spans
        best = (n, n)
        for a, b in self.stmts[path]:
            if a <= n <= b and (best == (n, n) or b - a < best[1] - best[0]):
                best = (a, b)
        return best


def is_tf(path: str, tfd: str) -> bool:
    return path.startswith(tfd + os.sep)


def is_torch(path: str) -> bool:
    return f"{os.sep}site-packages{os.sep}torch{os.sep}" in path


def site_of(hit: dict, tfd: str) -> dict:
    st = hit["stack"]
    tf = [i for i, f in enumerate(st) if is_tf(f["path"], tfd)]
    inner = st[-1] if st else None
    site = st[tf[-1]] if tf else inner
    where = "none"
    if inner is not None:
        where = "transformers" if is_tf(inner["path"], tfd) else "torch" if is_torch(inner["path"]) else "user"
    return {"site": site, "inner": inner, "tf_idx": tf, "where": where}


def function_at(functions: dict, path: str, line: int) -> str | None:
    best = None
    for q, a, b in functions.get(path, []):
        if a <= line <= b and (best is None or b - a < best[2] - best[1]):
            best = (q, a, b)
    return best[0] if best else None


WRAPPER_FILES = ("utils/output_capturing.py", "utils/deprecation.py")  # decorator machinery: every function
WRAPPER_FUNCS = ("wrapper", "wrapped_func", "inner_wrapper", "forward_with_checkpointing")


def is_wrapper(fr: dict) -> bool:
    """A frame of a decorator's wrapper (transformers' @capture_outputs, @merge_with_config_defaults,
    @can_return_tuple, @deprecate_kwarg, GradientCheckpointingLayer's forward_with_checkpointing ...)."""
    return fr["path"].endswith(WRAPPER_FILES) or (fr["function"] in WRAPPER_FUNCS and (
        fr["path"].endswith(("utils/generic.py", "modeling_layers.py"))))


def hook_frame(st: list[dict], tf: list[int]) -> int | None:
    """Index (into tf) of the first transformers frame that torch's Module._call_impl called as a hook."""
    for k, i in enumerate(tf):
        prev = st[i - 1] if i > 0 else None
        if prev is not None and is_torch(prev["path"]) and prev["path"].endswith("nn/modules/module.py") \
                and "hook" in st[i]["function"]:
            return k
    return None


def callee_expr(stmt_text: str) -> str | None:
    m = re.search(r"(?:^|=\s*|return\s+)([A-Za-z_][\w.]*(?:\[[^\]]*\])?)\s*\(", stmt_text)
    return m.group(1) if m else None


# Blocker categories: what keeps the static analysis from reporting a runtime break.  A break can
# have several (every hop of its call chain the walk cannot follow, then the statement itself).
B_WRAPPER = "decorator wrapper body not analysed (@capture_outputs / @deprecate_kwarg wrappers)"
B_HOOK = "forward hook installed at run time (@capture_outputs registers output_capturing_hook)"
B_ENUM = "loop over enumerate(nn.ModuleList): element type lost"
B_SLICE = "loop over a sliced nn.ModuleList (self.layers[:n]): element type lost"
B_APPEND = "nn.ModuleList filled with .append(), then indexed: element type lost"
B_REGISTRY = "attention-function registry (ALL_ATTENTION_FUNCTIONS.get_interface(...))"
B_LOCAL_METHOD = "method call on a loop variable of unknown type"
B_LOCAL = "call through a local variable"
B_SELF = "call through a self attribute of unknown type"
B_IFEXP = "attribute built from a class picked by a conditional (`cls = A if c else B; self.x = cls(...)`)"
B_CTOR = "nn.Module constructed inside forward (constructor body not followed, no rule)"
B_LOGGER = "logger from transformers.utils.logging.get_logger() not known as a logging.Logger (+ warning_once)"
B_TORCH = "break inside torch internals (no rule for the call into torch)"
B_OTHER = "call not resolved"


def hop_blocker(caller: dict, callee: dict, between: list[dict], functions: dict, reached: dict,
                tfd: str, src: Sources, edges: dict) -> tuple[str, str] | None:
    """Why the static walk does not follow the call at `caller` into `callee`."""
    a, b = src.statement(caller["path"], caller["line"])
    stmt = " ".join(src.line(caller["path"], n) for n in range(a, b + 1))
    expr = callee_expr(stmt) or "?"
    where = f"{rel(caller['path'], tfd)}:{caller['line']} `{stmt[:70]}` -> {rel(callee['path'], tfd)}:" \
            f"{callee['line']} {callee['function']}"
    fns = {f["function"] for f in between}
    if "instantiate_user_defined_class_object" in fns or callee["function"] == "__init__":
        return B_CTOR, where
    # does the engine resolve this call (it would follow it once the caller is reached)?
    q_callee = function_at(functions, callee["path"], callee["line"])
    for l1, _l2, _kind, _text, targets in edges.get(caller["path"], []):
        if a <= l1 <= b and (q_callee in targets or any(t.rsplit(".", 1)[-1] == callee["function"]
                                                        and t.rsplit(".", 2)[-2] == (q_callee or "").rsplit(".", 2)[-2]
                                                        for t in targets)):
            return None
    qc = function_at(functions, caller["path"], caller["line"])
    lo, hi = next((x[1], x[2]) for x in functions.get(caller["path"], []) if x[0] == qc) if qc else (a, b)
    body = [src.line(caller["path"], n) for n in range(lo, hi + 1)]
    last = expr.split(".")[-1].split("[")[0]
    cls_of = (lambda q: q.rsplit(".", 2)[-2] if q and q.count(".") >= 2 else None)
    skipped = callee["function"] not in (last, "forward", "__call__", "forward_with_checkpointing") or (
        expr.startswith("self.") and last == callee["function"] and cls_of(qc) != cls_of(q_callee))
    if skipped and not expr.startswith("attention_interface"):
        # Dynamo's stack left out the frames in between (they ran as separate frames): find the call
        # by name in what the analysis reached
        for q, fn in reached.items():
            lo2, hi2 = fn["lines"]
            for n in range(lo2, hi2 + 1):
                t = src.line(fn["path"], n)
                m = re.search(rf"(?<![\w.])(\w+)\.{re.escape(callee['function'])}\(", t)
                if m and m.group(1) != "self":
                    recv = m.group(1)
                    cat = B_LOCAL_METHOD
                    for n2 in range(lo2, n):
                        mm = re.match(rf"for (?:\w+\s*,\s*)?{re.escape(recv)} in (.+):", src.line(fn["path"], n2))
                        if mm:
                            it = mm.group(1)
                            cat = B_ENUM if it.startswith("enumerate(") else \
                                B_SLICE if re.search(r"\[[^\]]*:[^\]]*\]", it) else B_LOCAL_METHOD
                    return cat, (f"{rel(fn['path'], tfd)}:{n} `{t[:70]}` (in {q.rsplit('.', 2)[-2]}." \
                                f"{q.rsplit('.', 1)[-1]}; Dynamo's stack skips to: {where})")
    base = expr.split(".")[0].split("[")[0]
    if re.search(r"attention_interface|ALL_ATTENTION_FUNCTIONS", expr):
        return B_REGISTRY, where
    m = re.match(r"self\.(\w+)\[", expr)
    if m:
        cls_lines = " ".join(src.lines(caller["path"]))
        if re.search(rf"self\.{m.group(1)}\.append\(", cls_lines):
            return B_APPEND, where
        return B_SELF, where
    if "." not in expr and "[" not in expr:
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
    if expr.startswith("self."):
        attr = expr.split(".")[1]
        text = "\n".join(src.lines(caller["path"]))
        for m in re.finditer(rf"self\.{re.escape(attr)} = (\w+)\(", text):
            if re.search(rf"\b{m.group(1)} = .+ if .+ else ", text):
                return B_IFEXP, where + f" (`self.{attr} = {m.group(1)}(...)`)"
        return B_SELF, where
    return B_OTHER, where


def site_blocker(hit: dict, s: dict, static: dict, tfd: str, src: Sources) -> tuple[str, str] | None:
    """Would a rule fire at the break's statement if the walk reached it?  None if one does."""
    site = s["site"]
    a, b = src.statement(site["path"], site["line"])
    text = src.line(site["path"], site["line"])
    txt = f"{rel(site['path'], tfd)}:{site['line']} `{text[:80]}`"
    for lo, hi, code, _q in static.get("sites", {}).get(site["path"], []):
        if a <= lo <= b:
            return None
    gb = hit["gb_type"]
    if "register_forward_hook" in text:
        return "no rule: nn.Module.register_forward_hook() in compiled code", txt
    if s["where"] == "torch":
        inner = s["inner"]
        if "nn/modules" in inner["path"] and inner["function"] == "__init__":
            return B_CTOR, f"{txt} -> {rel(inner['path'], tfd)}:{inner['line']} {inner['function']}"
        return B_TORCH, f"{txt} -> {rel(inner['path'], tfd)}:{inner['line']} {inner['function']}"
    if gb.startswith("logging.Logger"):
        return B_LOGGER, txt
    if gb == "Uninitialized nn.Module":
        return B_CTOR, txt
    if gb == "Unsupported context manager" and re.match(r"with \w*lock\w*", text, re.IGNORECASE):
        return "no rule: `with` a threading.Lock (unsupported context manager)", txt
    if "context_var.get" in text or "ContextVar" in text:
        return "no rule: contextvars.ContextVar.get() in compiled code", txt
    if gb == "Missing tp_iternext":
        return "no rule: iterating the value of a user-defined dict subclass (`_CAN_RECORD_REGISTRY.get(self)`)", txt
    fa = function_at(static.get("functions", {}), site["path"], site["line"])
    lo, hi = next(((x[1], x[2]) for x in static.get("functions", {}).get(site["path"], []) if x[0] == fa), (a, b))
    if gb in ("Data dependent operator", "Data-dependent branching", "Failed to trace builtin operator",
              "torch.* op returned non-Tensor") and any("np." in src.line(site["path"], n) for n in range(lo, hi + 1)):
        return "no rule: NumPy values computed in compiled code used as Python ints/bools (shapes, range(), if, in)", txt
    return f"no rule: {gb}", txt


def analyse_miss(hit: dict, s: dict, static: dict, reached: dict, tfd: str, src: Sources) -> list[tuple[str, str]]:
    """Every blocker between the compiled root and the break, outermost first."""
    st = hit["stack"]
    functions = static.get("functions", {})
    edges = static.get("edges", {})
    tf = s["tf_idx"]
    qs = [function_at(functions, st[i]["path"], st[i]["line"]) for i in tf]
    site = s["site"]
    site_txt = f"{rel(site['path'], tfd)}:{site['line']} `{src.line(site['path'], site['line'])[:80]}`"
    blockers: list[tuple[str, str]] = []
    hk = hook_frame(st, tf)
    deepest = max((k for k, q in enumerate(qs) if q in reached), default=None)
    if hk is not None and qs[hk] not in reached:
        h = st[tf[hk]]
        # the hook runs where the hooked module's forward is called: what led there
        chain = [k for k in range(hk) if not is_wrapper(st[tf[k]])]
        d = max((k for k in chain if qs[k] in reached), default=None)
        if d is not None:
            nxt = [k for k in chain if k > d]
            for k0, k1 in zip([d] + nxt, nxt):
                blockers.append(hop_blocker(st[tf[k0]], st[tf[k1]], st[tf[k0] + 1:tf[k1]], functions, reached,
                                            tfd, src, edges))
        blockers.append((B_HOOK, (f"{site_txt} in {site['function']} (run by nn.Module hooks: "
                                 f"{rel(h['path'], tfd)}:{h['line']} {h['function']})")))
    else:
        if deepest is None:
            if tf and all(is_wrapper(st[i]) for i in tf):
                blockers.append((B_WRAPPER, f"{site_txt} in {site['function']}, wrapper of the compiled forward"))
            else:
                blockers.append(("no frame reached by the static walk", site_txt))
        else:
            rest = tf[deepest + 1:]
            chain = [deepest] + [k for k in range(deepest + 1, len(tf)) if not is_wrapper(st[tf[k]])]
            for k0, k1 in itertools.pairwise(chain):
                blockers.append(hop_blocker(st[tf[k0]], st[tf[k1]], st[tf[k0] + 1:tf[k1]], functions, reached,
                                            tfd, src, edges))
            if rest and is_wrapper(site):
                blockers.append((B_WRAPPER, (f"{site_txt} in {site['function']}, wrapper of a function called from "
                                            f"{rel(st[tf[deepest]]['path'], tfd)}:{st[tf[deepest]]['line']}")))
    sb = site_blocker(hit, s, static, tfd, src)  # also after a wrapper: the rule that would still be missing
    if sb is not None:
        blockers.append(sb)
    # one entry per category, first occurrence wins
    seen, out = set(), []
    for c, d in (x for x in blockers if x is not None):
        if c not in seen:
            seen.add(c)
            out.append((c, d))
    return out or [("reached, a rule exists, no finding (engine bug?)", site_txt)]


def guards(src: Sources, path: str, line: int) -> list[str]:
    """The conditions that must hold for `line` to run: enclosing ifs (negated in else branches) and
    earlier `if ...: return/raise` exits of the enclosing blocks, innermost function only."""
    try:
        tree = ast.parse("\n".join(src.lines(path)))
    except SyntaxError:
        return []
    fn = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.end_lineno \
                and (fn is None or node.lineno > fn.lineno):
            fn = node
    if fn is None:
        return []
    out: list[str] = []

    def visit(body: list[ast.stmt]) -> None:
        for st in body:
            if st.end_lineno < line:
                if isinstance(st, ast.If) and st.body and isinstance(st.body[-1], (ast.Return, ast.Raise)) \
                        and not st.orelse:
                    out.append(f"not ({ast.unparse(st.test)})")
                continue
            if st.lineno > line:
                return
            if isinstance(st, ast.If):
                if any(x.lineno <= line <= x.end_lineno for x in st.body):
                    out.append(ast.unparse(st.test))
                    visit(st.body)
                elif any(x.lineno <= line <= x.end_lineno for x in st.orelse):
                    out.append(f"not ({ast.unparse(st.test)})")
                    visit(st.orelse)
                return
            for field in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(st, field, None)
                if sub and any(x.lineno <= line <= x.end_lineno for x in sub):
                    visit(sub)
                    return
            return

    visit(fn.body)
    return out


def classify_fp(f: dict, cov: dict | None, tfd: str, src: Sources) -> tuple[str, str]:
    path, line = f["path"], f["span"][0]
    a, b = src.statement(path, line)
    text = src.line(path, line)
    where = f"{rel(path, tfd)}:{line} `{text[:80]}` [{f['code']}]"
    g = guards(src, path, line)
    none_params = set()
    try:
        tree = ast.parse("\n".join(src.lines(path)))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.end_lineno:
                args = node.args.args + node.args.kwonlyargs
                defaults = [None] * (len(node.args.args) - len(node.args.defaults)) + list(node.args.defaults) + \
                    list(node.args.kw_defaults)
                none_params |= {a.arg for a, d in zip(args, defaults)
                                if isinstance(d, ast.Constant) and d.value is None}
    except SyntaxError:
        pass
    arg_guard = next((x for x in g if re.fullmatch(r"(\w+) is not None", x) and x.split()[0] in none_params), None)
    if g:
        where += " — runs only if " + " and ".join(f"`{x[:60]}`" for x in g[-3:])
    if cov is None:
        return "unknown (no coverage run)", where
    executed = any(n in cov.get(path, ()) for n in range(a, b + 1))
    if not executed and arg_guard:
        return ("not executed: under `if <param> is not None:` for a parameter that defaults to None "
                "(no reached call passes it?)"), where
    if not executed:
        return "not executed for this input/config (unconfirmed; a real break on another path)", where
    return "executed, Dynamo traced it without a break (false positive)", where


def compare(name: str, variant: str, rt: dict, static: dict, tfd: str, src: Sources, root_label_hint: str) -> dict:
    # the static findings and the reached set of this script's root
    roots = [r for r in static.get("roots", [])]
    reached = {}
    for r in roots:
        for fn in r["reached"]:
            reached.setdefault(fn["qualname"], fn)
    def ours(f):  # reached from the script's torch.compile or the --root, not from transformers' own compiles
        if (f.get("root") or "").startswith("roots = "):
            return True
        return bool(f.get("root_path")) and not f["root_path"].startswith(tfd + os.sep)

    lib = [f for f in static.get("library_findings", []) if ours(f)]
    # de-duplicated runtime sites
    sites: dict[tuple, dict] = {}
    for h in rt["hits"]:
        s = site_of(h, tfd)
        if s["site"] is None:
            continue
        key = (h["gb_type"], s["inner"]["path"], s["inner"]["line"], s["site"]["path"], s["site"]["line"])
        if key in sites:
            sites[key]["count"] += 1
            continue
        sites[key] = {"hit": h, "s": s, "count": 1}
    out_breaks = []
    matched_static: set[int] = set()
    for key, v in sites.items():
        h, s = v["hit"], v["s"]
        site = s["site"]
        a, b = src.statement(site["path"], site["line"])
        status, match = "missed", None
        for i, f in enumerate(lib):
            if f["path"] == site["path"] and a <= f["span"][0] <= b:
                status, match = "found", i
                break
        if status == "missed":
            outer = [h["stack"][i] for i in s["tf_idx"][:-1]]
            for i, f in enumerate(lib):
                if any(f["path"] == fr["path"] and src.statement(fr["path"], fr["line"])[0] <= f["span"][0]
                       <= src.statement(fr["path"], fr["line"])[1] for fr in outer):
                    status, match = "found at a caller", i
                    break
        if match is not None:
            matched_static.add(match)
        reason = detail = None
        blockers = []
        if status == "missed":
            blockers = analyse_miss(h, s, static, reached, tfd, src)
            reason, detail = blockers[0]
        out_breaks.append({
            "gb_type": h["gb_type"], "gb_code": h["gb_code"], "count": v["count"], "where": s["where"],
            "site": f"{rel(site['path'], tfd)}:{site['line']}", "site_function": site["function"],
            "site_code": src.line(site["path"], site["line"]),
            "inner": f"{rel(s['inner']['path'], tfd)}:{s['inner']['line']}",
            "stack": [f"{rel(fr['path'], tfd)}:{fr['line']} {fr['function']}" for fr in h["stack"]],
            "status": status, "static_match": (f"{rel(lib[match]['path'], tfd)}:{lib[match]['span'][0]} "
                                               f"{lib[match]['code']}") if match is not None else None,
            "miss_reason": reason, "miss_detail": detail, "blockers": [list(x) for x in blockers]})
    cov = None
    if rt.get("coverage_file") and os.path.exists(rt["coverage_file"]):
        cov = {k: set(v) for k, v in json.loads(Path(rt["coverage_file"]).read_text()).items()}
    static_only = []
    for i, f in enumerate(lib):
        if i in matched_static:
            continue
        # a static finding at a site Dynamo reached on some stack counts as confirmed too
        reason, detail = classify_fp(f, cov, tfd, src)
        static_only.append({"finding": f"{rel(f['path'], tfd)}:{f['span'][0]} {f['code']} {f['message'][:140]}",
                            "call_path": f["call_path"], "reason": reason, "detail": detail})
    n_found = sum(1 for b in out_breaks if b["status"] == "found")
    n_caller = sum(1 for b in out_breaks if b["status"] == "found at a caller")
    return {"model": name, "variant": variant, "runtime_events": len(rt["hits"]),
            "runtime_sites": len(out_breaks), "record_breaks": rt["record_breaks"],
            "found": n_found, "found_at_caller": n_caller,
            "missed": len(out_breaks) - n_found - n_caller, "static_findings": len(lib),
            "static_only": len(static_only), "user_findings_cli": len(static.get("user_findings", [])),
            "reached_functions": sum(len(r["reached"]) for r in roots),
            "breaks": out_breaks, "static_only_findings": static_only}


# ==== report =======================================================================================
def render(results: dict) -> str:
    L = []
    meta = results["meta"]
    L.append("# fullgraph on transformers: runtime graph breaks vs static findings\n")
    L.append(f"Generated by `bench/realworld/run_transformers.py` on {meta['date']}: transformers "
             f"{meta['transformers']}, torch {meta['torch']}, fullgraph {meta['fullgraph']} (commit {meta['commit']}); "
             f"total run {meta['total_seconds']:.0f} s, load average {meta['load_before']} before, "
             f"{meta['load_after']} after (2 shared cores). Data: `results.json`; records: `records/`; "
             "user scripts: `scripts/`.\n")
    L.append("## Per model\n")
    L.append("Each model is compiled with `torch.compile(model, backend=\"eager\")` (fullgraph=False: Dynamo resumes "
             "after every break, so all are seen). `default`: `compiled(input_ids=..., attention_mask=...)` (batch 2, "
             "length 16 (BigBird: 32, `bigbird_short`: 16), the last 4 positions of row 1 padded), `eval()`, under `no_grad`; `outputs`: the same "
             "with `output_attentions=True, output_hidden_states=True`; `train`: `model.train()`, gradients on. "
             "Static: `fullgraph check scripts/<model>_<variant>.py --follow transformers`.\n")
    L.append("| model | variant | runtime breaks (sites / events) | found | found at a caller | missed | static findings "
             "| static-only | CLI findings shown | functions reached |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for c in results["comparisons"]:
        L.append(f"| {c['model']} | {c['variant']} | {c['runtime_sites']} / {c['runtime_events']} | {c['found']} | "
                 f"{c['found_at_caller']} | {c['missed']} | {c['static_findings']} | {c['static_only']} | "
                 f"{c['user_findings_cli']} | {c['reached_functions']} |")
    tot = Counter()
    for c in results["comparisons"]:
        for k in ("runtime_sites", "runtime_events", "found", "found_at_caller", "missed", "static_findings",
                  "static_only"):
            tot[k] += c[k]
    L.append(f"| **total** | | {tot['runtime_sites']} / {tot['runtime_events']} | {tot['found']} | "
             f"{tot['found_at_caller']} | {tot['missed']} | {tot['static_findings']} | {tot['static_only']} | | |")
    L.append("")
    failed = [f"{c['model']}/{c['variant']}" for c in results["comparisons"] if not c.get("script_ok")]
    if failed:
        L.append(f"**The model script failed** in: {', '.join(failed)} (see `work/*.trace.log`).\n")
    internal = defaultdict(list)
    for c in results["comparisons"]:
        if c.get("trace_internal_error"):
            internal[c["trace_internal_error"]].append(f"{c['model']}/{c['variant']}")
    for err, who in internal.items():
        L.append(f"`fullgraph trace` ended with exit 2 and `{err}` (after writing the record; the model ran fine) in "
                 f"{len(who)} of {len(results['comparisons'])} runs: {', '.join(who)}. It is `record._steps` "
                 "(`server/fullgraph/trace/record.py`): the break's root is a function of the installed package "
                 "(Dynamo compiled it as a frame of its own), so the list of user frames from the root is empty.\n")
    L.append("*runtime breaks*: distinct (gb_type, innermost frame) graph-break events Dynamo reported / all events. "
             "*CLI findings shown*: what `fullgraph check` prints (library breaks are echoed at the user's line, one per "
             "line and code). *functions reached*: functions the static walk reached from the root.\n")

    L.append("### Root-only check (`--root MOD:Class.forward@graphbreaks`, no user script)\n")
    L.append("| model | static findings | functions reached | check (s) | transformers modules loaded |")
    L.append("|---|---|---|---|---|")
    for name, d in results["root_checks"].items():
        if "error" in d:
            L.append(f"| {name} | error: {d['error']} | | | |")
            continue
        L.append(f"| {name} | {len(d['library_findings'])} | {sum(len(r['reached']) for r in d['roots'])} | "
                 f"{d['check_seconds']:.2f} | {d['modules_loaded']} |")
    L.append("")

    L.append("## Runtime breaks\n")
    for c in results["comparisons"]:
        if not c["breaks"]:
            continue
        L.append(f"**{c['model']} / {c['variant']}**\n")
        L.append("| status | gb_type | events | site (innermost transformers frame) | innermost frame | reason |")
        L.append("|---|---|---|---|---|---|")
        for b in c["breaks"]:
            why = b["miss_reason"] or b["static_match"] or ""
            L.append(f"| {b['status']} | {b['gb_type']} | {b['count']} | `{b['site']}` `{b['site_code'][:70]}` | "
                     f"`{b['inner']}` | {why} |")
        L.append("")

    L.append("## Why breaks were missed\n")
    L.append("Every miss is explained by its *blockers*: each hop of Dynamo's call chain (from the deepest function the "
             "static walk reached down to the break) that the walk cannot follow, then the statement itself if no rule "
             "fires there (the engine's per-function sites, computed for every function of the module whether reached "
             "or not). Fixing one blocker finds a break only if it was the *only* one.\n")
    cat: dict[str, dict] = defaultdict(lambda: {"sites": 0, "events": 0, "sole": 0, "models": set(), "ex": None,
                                                "details": {}})
    n_missed = 0
    for c in results["comparisons"]:
        for b in c["breaks"]:
            if b["status"] != "missed":
                continue
            n_missed += 1
            bl = b.get("blockers") or [[b["miss_reason"], b["miss_detail"]]]
            for k, (name, detail) in enumerate(bl):
                e = cat[name]
                e["sites"] += 1
                e["events"] += b["count"]
                e["models"].add(c["model"])
                e["sole"] += len(bl) == 1
                e["details"].setdefault(detail, []).append(f"{c['model']}/{c['variant']}")
                if e["ex"] is None:
                    e["ex"] = f"{c['model']}/{c['variant']} {b['gb_type']}: {detail}"
    L.append(f"{n_missed} missed break sites. Ranked by the number of missed sites each blocker stands in front of:\n")
    L.append("| blocker | missed sites blocked | events | only blocker | models | example |")
    L.append("|---|---|---|---|---|---|")
    for name, e in sorted(cat.items(), key=lambda kv: (-kv[1]["sites"], -kv[1]["events"])):
        L.append(f"| {name} | {e['sites']} | {e['events']} | {e['sole']} | {', '.join(sorted(e['models']))} | {e['ex']} |")
    L.append("")
    for name, e in sorted(cat.items(), key=lambda kv: (-kv[1]["sites"], -kv[1]["events"])):
        L.append(f"- **{name}**:")
        for d, who in e["details"].items():
            L.append(f"  - {d} — {', '.join(dict.fromkeys(who))}")
    L.append("")
    # greedy fix order: each step removes the blocker that completes the most missed sites (all of their
    # blockers removed), ties broken by events, then by how many sites it appears in
    sites = []
    for c in results["comparisons"]:
        for b in c["breaks"]:
            if b["status"] == "missed":
                bl = b.get("blockers") or [[b["miss_reason"], b["miss_detail"]]]
                sites.append((f"{c['model']}/{c['variant']} `{b['site']}`", b["count"], frozenset(x[0] for x in bl)))
    if sites:
        L.append("Fix order (greedy: each step removes the blocker that lets the most missed sites be found, counting "
                 "only sites whose every blocker is removed by then):\n")
        L.append("| step | blocker removed | sites found | events | cumulative sites |")
        L.append("|---|---|---|---|---|")
        fixed: set = set()
        done: set = set()
        every = set().union(*(x[2] for x in sites))
        step = 0
        while len(done) < len(sites) and every - fixed:
            best = None
            for bl in sorted(every - fixed):
                comp = [x for x in sites if x[0] not in done and x[2] <= fixed | {bl}]
                key = (len(comp), sum(x[1] for x in comp), sum(1 for x in sites if bl in x[2]))
                if best is None or key > best[0]:
                    best = (key, bl, comp)
            key, bl, comp = best
            fixed.add(bl)
            done.update(x[0] for x in comp)
            step += 1
            L.append(f"| {step} | {bl} | {key[0]} | {key[1]} | {len(done)}/{len(sites)} |")
        L.append("")
    L.append("Blockers per missed break (outermost first):\n")
    for c in results["comparisons"]:
        for b in c["breaks"]:
            if b["status"] == "missed":
                bl = b.get("blockers") or [[b["miss_reason"], b["miss_detail"]]]
                L.append(f"- {c['model']}/{c['variant']} `{b['site']}` {b['gb_type']} ({b['count']}x): "
                         + " → ".join(x[0] for x in bl))
    L.append("")

    L.append("## Static findings Dynamo did not confirm\n")
    fps: dict[str, list] = defaultdict(list)
    for c in results["comparisons"]:
        for s in c["static_only_findings"]:
            fps[s["reason"]].append((c["model"], c["variant"], s))
    L.append("| reason | findings (all models and variants) | distinct sites |")
    L.append("|---|---|---|")
    for r, lst in sorted(fps.items(), key=lambda kv: -len(kv[1])):
        L.append(f"| {r} | {len(lst)} | {len({s['detail'] for _, _, s in lst})} |")
    L.append("")
    for r, lst in sorted(fps.items(), key=lambda kv: -len(kv[1])):
        L.append(f"- **{r}**:")
        by = defaultdict(list)
        for m, v, s in lst:
            by[s["detail"]].append(f"{m}/{v}")
        for d, who in by.items():
            L.append(f"  - {d} — {', '.join(who)}")
    L.append("")

    L.append("## Static check cost (informative)\n")
    L.append("In-process `Workspace.check` wall clock (jobs=1) and the process wall clock; machine shared, load above.\n")
    L.append("| check | check (s) | process (s) | `fullgraph check` CLI (s) | transformers modules loaded | load attempts "
             "| CLI JSON = in-process |")
    L.append("|---|---|---|---|---|---|---|")
    for tag, d in results["static_timing"].items():
        if "error" in d:
            L.append(f"| {tag} | error {d['error']} | {d.get('wall_seconds', 0):.1f} | | | | |")
        else:
            cli = f"{d['cli_seconds']:.1f}" if d.get("cli_seconds") is not None else ""
            same = {True: "yes", False: "**no**", None: ""}[d.get("cli_matches")]
            L.append(f"| {tag} | {d['check_seconds']:.2f} | {d['wall_seconds']:.1f} | {cli} | {d['modules_loaded']} | "
                     f"{d['load_attempts']} | {same} |")
    L.append("")
    L.append("## Method\n")
    L.append(__doc__.split("How the comparison works", 1)[1].split("\n", 1)[1].strip() + "\n")
    return "\n".join(L)


def write_report(results: dict) -> None:
    text = render(results)
    manual = ""
    if RESULTS_MD.exists():
        old = RESULTS_MD.read_text()
        if MANUAL_MARK in old:
            manual = old.split(MANUAL_MARK, 1)[1]
    RESULTS_MD.write_text(text + "\n" + MANUAL_MARK + (manual if manual else "\n"))


def load_avg() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--no-toplevel", action="store_true", help="skip timing `from transformers import LlamaModel`")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--reuse-runtime", action="store_true",
                    help="re-analyse with the runtime records/coverage of the last run (no model runs)")
    ap.add_argument("--child-trace", nargs=2, metavar=("SCRIPT", "PARTS_COPY"), help=argparse.SUPPRESS)
    ap.add_argument("--child-coverage", nargs=2, metavar=("SCRIPT", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--child-static", nargs=2, metavar=("TARGET", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--root", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--extra-files", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_trace:
        child_trace(*args.child_trace)
        return 0
    if args.child_coverage:
        child_coverage(*args.child_coverage)
        return 0
    if args.child_static:
        extra = json.loads(Path(args.extra_files).read_text()) if args.extra_files else None
        child_static(args.child_static[0], args.child_static[1], args.root, extra)
        return 0
    if args.report_only:
        write_report(json.loads(RESULTS_JSON.read_text()))
        return 0

    t_all = time.perf_counter()
    load_before = load_avg()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    for d in (RECORDS, WORK):
        d.mkdir(parents=True, exist_ok=True)
    tfd = tf_dir()
    scripts = write_scripts(models)
    src = Sources()
    comparisons, static_timing, root_checks, raw = [], {}, {}, {}
    for name in models:  # sequential: 2 shared cores
        model_mod, model_cls = MODELS[name][2], MODELS[name][3]
        for variant in variants_of(name):
            script = scripts[(name, variant)]
            print(f"[{time.perf_counter() - t_all:6.0f}s] {name}/{variant}: runtime", flush=True)
            rt = runtime_pass(name, variant, script, args.reuse_runtime)
            print(f"[{time.perf_counter() - t_all:6.0f}s] {name}/{variant}: static", flush=True)
            st = static_pass(f"{name}_{variant}", script,
                             stack_files={f["path"] for h in rt["hits"] for f in h["stack"]})
            static_timing[f"{name}_{variant}.py --follow transformers"] = {
                k: st.get(k) for k in ("check_seconds", "wall_seconds", "modules_loaded", "load_attempts", "error",
                                       "cli_seconds", "cli_findings", "cli_matches") if k in st}
            c = compare(name, variant, rt, st, tfd, src, model_cls)
            c["runtime_exit_code"] = rt["exit_code"]
            c["script_ok"] = rt["script_ok"]
            c["trace_internal_error"] = rt["trace_internal_error"]
            c["runtime_seconds"] = rt["seconds"]
            c["unresolved_calls"] = st.get("unresolved_calls", [])[:15]
            comparisons.append(c)
            raw[f"{name}_{variant}"] = {"roots": [{"label": r["label"], "reached": [
                {"qualname": f["qualname"], "unresolved": f["unresolved"]} for f in r["reached"]]}
                for r in st.get("roots", [])]}
            print(f"         runtime sites {c['runtime_sites']} found {c['found']}+{c['found_at_caller']} "
                  f"missed {c['missed']} static {c['static_findings']} static-only {c['static_only']}", flush=True)
        empty = WORK / "empty"
        empty.mkdir(exist_ok=True)
        root = f"{model_mod}:{model_cls}.forward@graphbreaks"
        print(f"[{time.perf_counter() - t_all:6.0f}s] {name}: static --root", flush=True)
        rc = static_pass(f"{name}_root", empty, root)
        root_checks[name] = rc if "error" in rc else {k: rc[k] for k in (
            "library_findings", "roots", "check_seconds", "wall_seconds", "modules_loaded", "load_attempts")}
        static_timing[f"--root {model_cls}.forward@graphbreaks"] = {
            k: rc.get(k) for k in ("check_seconds", "wall_seconds", "modules_loaded", "load_attempts", "error",
                                   "cli_seconds", "cli_findings", "cli_matches")
            if k in rc}
    if not args.no_toplevel and "llama" in MODELS:
        p = SCRIPTS / "llama_toplevel_import.py"
        p.write_text(TOPLEVEL_TEMPLATE.format(cfg_kwargs=MODELS["llama"][4]))
        print(f"[{time.perf_counter() - t_all:6.0f}s] llama: static, `from transformers import LlamaModel`", flush=True)
        st = static_pass("llama_toplevel", p)
        static_timing["llama_toplevel_import.py --follow transformers"] = {
            k: st.get(k) for k in ("check_seconds", "wall_seconds", "modules_loaded", "load_attempts", "error",
                                   "cli_seconds", "cli_findings", "cli_matches")
            if k in st}
        if "library_findings" in st:
            static_timing["llama_toplevel_import.py --follow transformers"]["library_findings"] = \
                len(st["library_findings"])
    versions = subprocess.run([str(VENV_PY), "-c", ("import torch, transformers, fullgraph;"
                               "print(torch.__version__, transformers.__version__, fullgraph.__version__)")],
                              check=False, capture_output=True, text=True).stdout.split()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], check=False, capture_output=True, text=True,
                            cwd=str(REPO)).stdout.strip()
    results = {"meta": {"date": time.strftime("%Y-%m-%d %H:%M"), "torch": versions[0] if versions else "?",
                        "transformers": versions[1] if len(versions) > 1 else "?",
                        "fullgraph": versions[2] if len(versions) > 2 else "?", "commit": commit,
                        "total_seconds": time.perf_counter() - t_all, "load_before": load_before,
                        "load_after": load_avg(), "models": {m: MODELS[m][3] for m in models}},
               "comparisons": comparisons, "static_timing": static_timing,
               "root_checks": {k: ({"error": v["error"]} if "error" in v else {
                   "library_findings": v["library_findings"], "roots": [
                       {"label": r["label"], "reached": [f["qualname"] for f in r["reached"]]} for r in v["roots"]],
                   "check_seconds": v["check_seconds"], "wall_seconds": v["wall_seconds"],
                   "modules_loaded": v["modules_loaded"], "load_attempts": v["load_attempts"]})
                   for k, v in root_checks.items()},
               "reached": raw}
    # root_checks in the report need "roots" with "reached" lists
    RESULTS_JSON.write_text(json.dumps(results, indent=1, default=list))
    write_report(json.loads(RESULTS_JSON.read_text()))
    print(f"done in {time.perf_counter() - t_all:.0f} s: {RESULTS_MD}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
