"""Real-world benchmark: Dynamo's graph breaks in library models vs what `fullgraph check` shows.

For every model of ``models.py`` (tiny configs of transformers, x-transformers and diffusers models, built
from a config: no download) and two modes,

* ``eval``: ``model.eval()``, the default call under ``torch.no_grad()``;
* ``train``: ``model.train()``, gradients on, labels passed so the loss is computed in forward
  (x-transformers decoders are wrapped in ``AutoregressiveWrapper``; diffusers models take no labels),

the user script ``scripts/<model>_<mode>.py`` (what a user writes: build the model, ``torch.compile`` it, call
it) is

1. **runtime pass** (``--runtime-only``): run under ``fullgraph trace`` with ``torch.compile(model,
   backend="eager")`` (fullgraph=False: Dynamo resumes after each break, so every break is seen), plus an
   eager line-coverage run of the library.  The ground truth is every graph-break event the capture hook
   saw, merged per *site*: (gb_type, innermost frame inside the followed library, its statement).  Written
   to ``truth.json`` (committed; re-run only when the models, the libraries or torch change);
2. **static pass** (``--static-only``): ``fullgraph check scripts/<model>_<mode>.py --follow <library>
   --format json`` through the CLI, one process per script, with a timeout.  Written to ``static.json``
   (committed: the compact diagnostics the CLI printed), then, for the scripts with missed sites, an
   in-process look at the engine's call graph to say why each was missed (``--no-explain`` skips it);
3. **report** (``--report-only``): ``RESULTS.md`` from ``truth.json`` + ``static.json``.

How to reproduce (from the repository root, after ``bash scripts/setup.sh``)::

    echo "torch==2.13.0" > /tmp/c.txt
    .venv/bin/pip install -c /tmp/c.txt transformers==5.24.0 x-transformers==2.31.10 diffusers==0.42.1
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/realworld/run_models.py --runtime-only  # ~36 min
    nice -n 10 .venv/bin/python bench/realworld/run_models.py --static-only   # re-score the analyzer, ~4 min
    .venv/bin/python bench/realworld/run_models.py --report-only              # re-render RESULTS.md
    .venv/bin/python bench/realworld/run_models.py --static-only --models llama,bert --no-explain

Scoring (what the CLI/JSON shows):

* a Dynamo site is **found** when a shown JSON diagnostic (not ``"conditional": true``) is in the site's file
  with its start line inside the site's statement, or lists such a location in its ``library_sites`` (the
  JSON's ``range`` lines are 1-based, as ``fullgraph/positions.py`` ``Span.to_json`` writes them);
  found only by a conditional diagnostic is counted apart; *at a caller*: a shown location inside the
  statement of an outer library frame of the same Dynamo stack (informative, not recall);
* a diagnostic's **locations** are its ``library_sites`` (the library breaks behind an echo at the user's
  line) or, when it has none, the diagnostic itself.  A shown location that no Dynamo site of the same run
  accounts for (its statement or an outer frame's) is **static-only**; the eager coverage run says whether
  its statement ran for this input (then Dynamo traced it without a break: a false positive) or not;
* **precision**: over the models Dynamo compiles with no break in both modes (*clean* models), the distinct
  shown locations of their two scripts, per model.
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
sys.path.insert(0, str(HERE))
from models import BY_NAME, MODELS, MODES, render_script  # noqa: E402

VENV_PY = REPO / ".venv" / "bin" / "python"
FULLGRAPH = REPO / ".venv" / "bin" / "fullgraph"
SCRIPTS = HERE / "scripts"
WORK = HERE / "work"  # transient (git-ignored): part files, logs, coverage, CLI output, explanations
TRUTH_JSON = HERE / "truth.json"
STATIC_JSON = HERE / "static.json"
RESULTS_MD = HERE / "RESULTS.md"
MANUAL_MARK = "<!-- hand-written below this line: kept when the report is regenerated -->"
NICE = ["nice", "-n", "10"]
ENV = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error", OMP_NUM_THREADS="1",
           TOKENIZERS_PARALLELISM="false", PYTHONHASHSEED="0")


# ==== paths =======================================================================================
_SITE: list[str] = []


def site_dir() -> str:
    """The venv's site-packages (library paths are stored relative to it)."""
    if not _SITE:
        out = subprocess.run([str(VENV_PY), "-c", "import torch, os; print(os.path.dirname(os.path.dirname("
                              "os.path.realpath(torch.__file__))))"], capture_output=True, text=True, check=True)
        _SITE.append(out.stdout.strip())
    return _SITE[0]


def lib_dir(library: str) -> str:
    return os.path.join(site_dir(), library)


def rel(path: str) -> str:
    """site-packages-relative for installed packages, repository-relative for the scripts."""
    p = os.path.realpath(path if os.path.isabs(path) else os.path.join(REPO, path))
    sd = site_dir()
    if p.startswith(sd + os.sep):
        return p[len(sd) + 1:]
    i = p.find("site-packages/")
    if i >= 0:
        return p[i + len("site-packages/"):]
    try:
        return os.path.relpath(p, REPO)
    except ValueError:
        return p


def absolute(relpath: str) -> str:
    if os.path.isabs(relpath):
        return relpath
    cand = os.path.join(site_dir(), relpath)
    return cand if os.path.exists(cand) else str(REPO / relpath)


def tag_of(name: str, mode: str) -> str:
    return f"{name}_{mode}"


def script_of(name: str, mode: str) -> Path:
    return SCRIPTS / f"{tag_of(name, mode)}.py"


def ranges(lines: list[int]) -> str:
    out, lines = [], sorted(set(lines))
    for _, grp in itertools.groupby(enumerate(lines), key=lambda t: t[1] - t[0]):
        g = [x for _, x in grp]
        out.append(f"{g[0]}-{g[-1]}" if len(g) > 1 else str(g[0]))
    return ",".join(out)


def unranges(text: str) -> set[int]:
    s: set[int] = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        s.update(range(int(a), int(b or a) + 1))
    return s


class Sources:
    """Library source lines and statement spans (by site-packages-relative or absolute path)."""

    def __init__(self):
        self.text: dict[str, list[str]] = {}
        self.stmts: dict[str, list[tuple[int, int]]] = {}

    def lines(self, path: str) -> list[str]:
        path = absolute(path)
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
        path = absolute(path)
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
                            end = max((body[0].lineno - 1) if body else end, node.lineno)
                        spans.append((node.lineno, end))
            self.stmts[path] = spans
        best = (n, n)
        for a, b in self.stmts[path]:
            if a <= n <= b and (best == (n, n) or b - a < best[1] - best[0]):
                best = (a, b)
        return best


# ==== children (run in their own processes) =======================================================
def child_trace(script: str, parts_copy: str) -> None:
    """Run under `fullgraph trace`: run the script, then copy this process's capture part file."""
    import atexit
    import runpy

    def copy_parts():
        d = os.environ.get("FULLGRAPH_TRACE_PARTS")
        if d:
            src = os.path.join(d, f"{os.getpid()}.jsonl")
            if os.path.exists(src):
                shutil.copyfile(src, parts_copy)

    atexit.register(copy_parts)
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")


def child_coverage(pairs: list[str], libdir: str) -> None:
    """Run each script eagerly, in this order in one process (one import), and record the library lines
    executed by each script's call of the compiled model (pairs: script, out, script, out, ...).
    torch.compile returns a function that calls the model eagerly with the line tracer on."""
    import runpy
    import threading

    import torch

    def fake_compile(model=None, **kw):
        def call(*args, **kwargs):
            sys.settrace(glob)
            threading.settrace(glob)
            try:
                return model(*args, **kwargs)
            finally:
                sys.settrace(None)
                threading.settrace(None)
        return call

    torch.compile = fake_compile
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
            ok = want[fn] = os.path.realpath(fn).startswith(libdir + os.sep)
        if not ok or frame.f_code.co_name == "<module>":
            return None
        lines[fn].add(frame.f_lineno)
        return local

    for script, out in zip(pairs[::2], pairs[1::2]):
        lines.clear()
        sys.argv = [script]
        try:
            runpy.run_path(script, run_name="__main__")
        except Exception as exc:  # noqa: BLE001 - the trace run reports the failure
            print(f"{script}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        with open(out, "w") as fh:
            json.dump({os.path.realpath(k): sorted(v) for k, v in lines.items()}, fh)


def child_check(script: str, library: str, out: str, engine_out: str, stack_files_json: str) -> None:
    """`fullgraph check SCRIPT --follow LIBRARY --format json -j 1` through the CLI's own entry point
    (`fullgraph.cli.main`, what the console script runs), in this process so that the same Workspace can then
    be asked why the missed sites were missed (engine_out, unless it is "-")."""
    import contextlib
    import io

    from fullgraph import api, cli

    seen = []
    orig = api.Workspace.__init__

    def init(self, *a, **k):
        orig(self, *a, **k)
        seen.append(self)

    api.Workspace.__init__ = init
    buf, err = io.StringIO(), io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        rc = cli.main(["check", script, "--follow", library, "--format", "json", "-j", "1"])
    secs = time.perf_counter() - t
    Path(out).write_text(json.dumps({"exit": rc, "seconds": secs, "stdout": buf.getvalue(),
                                     "stderr": err.getvalue()[-2000:]}))
    if engine_out != "-" and seen:
        dump_engine(seen[-1], library, engine_out, json.loads(Path(stack_files_json).read_text()))


def dump_engine(ws, library: str, out: str, stack_files: list[str]) -> None:
    """The engine's view of the script (for explaining misses): the functions the walk reached from the
    script's roots, and the functions, sites and call edges of the modules on Dynamo's stacks."""
    proj = ws.project
    real = os.path.realpath
    ignored, allowed = set(), set()
    for m in list(proj.modules.values()):
        ignored |= m.ignored
        allowed |= m.allow_in_graph
    reached = {}
    for r in proj.roots():
        if not r.entries or r.info is None:
            continue
        if getattr(r.mod, "library", False) and r.decl.kind != "config":
            continue  # the library's own torch.compile calls: not what the script compiles
        for rc in proj._reach(r, allowed, ignored):
            fs = rc.fs
            reached.setdefault(fs.qualname, {"path": real(rc.mod.path),
                                             "lines": [fs.span.start.line + 1, fs.span.end.line + 1]})
    ld = ws.follow_roots().get(library)
    for f in stack_files:  # load the library modules on Dynamo's stacks that the check did not load
        if ld and f.startswith(real(ld) + os.sep) and f.endswith(".py"):
            relp = os.path.relpath(f, real(ld))[:-3].replace(os.sep, ".")
            name = library + ("" if relp == "__init__" else "." + relp.removesuffix(".__init__"))
            if not any(real(m.path) == f for m in proj.modules.values()):
                try:
                    ws._load_library_module(name)
                except Exception:  # noqa: BLE001 - diagnosis only
                    pass
    functions, sites, edges = {}, {}, {}
    want = set(stack_files)
    for m in list(proj.modules.values()):
        if not getattr(m, "library", False) or real(m.path) not in want:
            continue
        functions[real(m.path)] = [[q, fs.span.start.line + 1, fs.span.end.line + 1] for q, fs in m.functions.items()]
        sites[real(m.path)] = [[x.span.start.line + 1, x.span.end.line + 1, x.code, fs.qualname]
                               for fs in m.functions.values() for x in fs.sites]
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
        json.dump({"reached": reached, "functions": functions, "sites": sites, "edges": edges}, fh)


# ==== runtime pass ================================================================================
def run(cmd: list[str], log: Path, timeout: int, env: dict | None = None) -> tuple[int, float]:
    t = time.perf_counter()
    with open(log, "w") as fh:
        try:
            rc = subprocess.run(cmd, check=False, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout, cwd=str(REPO),
                                env=env or ENV).returncode
        except subprocess.TimeoutExpired:
            rc = -999
    return rc, time.perf_counter() - t


def write_scripts(names: list[str]) -> None:
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    every = {script_of(m.name, mode).name for m in MODELS for mode in MODES}
    for p in SCRIPTS.glob("*.py"):  # scripts of models no longer in models.py
        if p.name not in every:
            p.unlink()
    for name in names:
        for mode in MODES:
            p = script_of(name, mode)
            text = render_script(BY_NAME[name], mode)
            if not p.exists() or p.read_text() != text:
                p.write_text(text)


def merge_sites(hits: list[dict], libdir: str, script: str, src: Sources) -> list[dict]:
    """Dynamo's events -> sites: (gb_type, innermost library frame's statement); a break with no library
    frame is placed at the innermost frame of the user script (or the innermost frame)."""
    sites: dict[tuple, dict] = {}
    script = os.path.realpath(script)
    for h in hits:
        st = h["stack"]
        if not st:
            continue
        lib = [i for i, f in enumerate(st) if f["path"].startswith(libdir + os.sep)]
        user = [i for i, f in enumerate(st) if f["path"] == script]
        i = lib[-1] if lib else user[-1] if user else len(st) - 1
        f = st[i]
        a, b = src.statement(f["path"], f["line"])
        key = (h["gb_type"], rel(f["path"]), a)
        if key in sites:
            sites[key]["count"] += 1
            continue
        inner = st[-1]
        outer = [[rel(st[k]["path"]), *src.statement(st[k]["path"], st[k]["line"])] for k in lib[:-1]]
        sites[key] = {"gb_type": h["gb_type"], "gb_code": h["gb_code"], "count": 1, "path": rel(f["path"]),
                      "line": f["line"], "stmt": [a, b], "function": f["function"],
                      "code": src.line(f["path"], f["line"])[:160],
                      "where": "library" if lib else "user" if user else "other",
                      "inner": f"{rel(inner['path'])}:{inner['line']} {inner['function']}",
                      "explanation": (h["explanation"] or "")[:200],
                      "outer": outer,  # the statements of the outer library frames (for "found at a caller")
                      "stack": [f"{rel(x['path'])}:{x['line']} {x['function']}" for x in st]}
    return sorted(sites.values(), key=lambda s: (s["path"], s["stmt"][0], s["gb_type"]))


def runtime_one(name: str, mode: str, timeout: int) -> dict:
    from fullgraph.trace.collect import process_from_part_file

    m = BY_NAME[name]
    tag = tag_of(name, mode)
    d = WORK / "runtime"
    d.mkdir(parents=True, exist_ok=True)
    script = script_of(name, mode)
    parts, record, log = d / f"{tag}.parts.jsonl", d / f"{tag}.record.json", d / f"{tag}.trace.log"
    for p in (parts, record):
        if p.exists():
            p.unlink()
    rc, secs = run([*NICE, str(FULLGRAPH), "trace", "--out", str(record), "--", str(VENV_PY), str(Path(__file__)),
                    "--child-trace", str(script), str(parts)], log, timeout)
    text = log.read_text(errors="replace")
    ok = bool(re.search(r"^OK \w+$", text, re.MULTILINE))
    hits = []
    if parts.exists():
        for h in process_from_part_file(str(parts)).hits:
            hits.append({"gb_type": h.message.gb_type, "gb_code": h.message.gb_code,
                         "explanation": ((h.message.explanation or "").strip().splitlines() or [""])[0],
                         "stack": [{"path": os.path.realpath(f.path), "line": f.line, "function": f.function}
                                   for f in h.stack]})
    src = Sources()
    libdir = os.path.realpath(lib_dir(m.library))
    entry = {"library": m.library, "family": m.family, "ok": ok, "exit": rc, "seconds": round(secs, 1),
             "events": len(hits), "sites": merge_sites(hits, libdir, str(script), src)}
    if not ok:
        errs = [ln for ln in text.splitlines() if re.match(r"^\w*(Error|Exception)\b", ln)]
        entry["error"] = (errs[-1] if errs else (text.strip().splitlines() or ["(no output)"])[-1])[:300]
    return entry


def coverage_model(name: str, entries: dict[str, dict], timeout: int) -> None:
    """One eager process per model runs its scripts in MODES order: the library lines each executed."""
    m = BY_NAME[name]
    d = WORK / "runtime"
    outs = {mode: d / f"{tag_of(name, mode)}.coverage.json" for mode in MODES}
    pairs = []
    for mode in MODES:
        if outs[mode].exists():
            outs[mode].unlink()
        pairs += [str(script_of(name, mode)), str(outs[mode])]
    rc, secs = run([*NICE, str(VENV_PY), str(Path(__file__)), "--child-coverage", os.path.realpath(lib_dir(m.library)),
                    *pairs], d / f"{name}.coverage.log", timeout)
    for mode, e in entries.items():
        e["coverage_seconds"] = round(secs / len(MODES), 1)
        if outs[mode].exists():
            e["coverage"] = {rel(k): ranges(v) for k, v in sorted(json.loads(outs[mode].read_text()).items())}


def load_json(p: Path) -> dict:
    return json.loads(p.read_text()) if p.exists() else {}


def versions() -> dict:
    out = subprocess.run([str(VENV_PY), "-c", (
        "import importlib.metadata as md, json;print(json.dumps({p: md.version(p) for p in "
        "('torch', 'transformers', 'x-transformers', 'diffusers', 'fullgraph')}))")],
        capture_output=True, text=True, env=ENV, check=False)
    try:
        return json.loads(out.stdout)
    except ValueError:
        return {}


def runtime_pass(names: list[str], timeout: int) -> None:
    truth = load_json(TRUTH_JSON) or {"meta": {}, "runs": {}}
    t0 = time.perf_counter()
    for k, name in enumerate(names):
        entries = {mode: runtime_one(name, mode, timeout) for mode in MODES}
        coverage_model(name, entries, timeout)
        for mode, e in entries.items():
            truth["runs"][f"{name}/{mode}"] = e
            print(f"[{time.perf_counter() - t0:6.0f}s] {k + 1}/{len(names)} {name}/{mode}: "
                  f"{'ok' if e['ok'] else 'FAILED ' + e.get('error', '')} {len(e['sites'])} sites, {e['events']} events "
                  f"({e['seconds']:.0f}+{e['coverage_seconds']:.0f} s)", flush=True)
        truth["runs"] = dict(sorted(truth["runs"].items()))
        TRUTH_JSON.write_text(json.dumps(truth, indent=None, separators=(",", ":")) + "\n")
    meta = truth["meta"]
    meta.update({"date": time.strftime("%Y-%m-%d %H:%M"), "versions": versions(),
                 "last_pass_seconds": round(time.perf_counter() - t0), "last_pass_models": len(names)})
    TRUTH_JSON.write_text(json.dumps(truth, indent=None, separators=(",", ":")) + "\n")


# ==== static pass =================================================================================
def compact_diag(d: dict) -> dict:
    def loc(x):
        r = x.get("range") or {}
        # the CLI's JSON ranges are 1-based (lines and columns: fullgraph/positions.py Span.to_json)
        return {"path": rel(x["path"]), "line": r.get("start", {}).get("line", 0),
                "end": r.get("end", {}).get("line", 0), "code": x.get("code")}

    def cond(x, into):
        if x.get("condition"):
            into["condition"] = x["condition"]
        return into

    out = cond(d, loc(d))
    out["message"] = (d.get("message") or "")[:240]
    if "conditional" in d:
        out["conditional"] = bool(d["conditional"])
    out["library_sites"] = [cond(s, dict(loc(s), message=(s.get("message") or "")[:160]))
                            for s in d.get("library_sites") or []]
    return out


def static_one(name: str, mode: str, timeout: int, sites: list[dict] | None) -> dict:
    """The CLI's JSON for one script (+ the engine dump behind the explanations when `sites` is given)."""
    m = BY_NAME[name]
    tag = tag_of(name, mode)
    d = WORK / "static"
    d.mkdir(parents=True, exist_ok=True)
    out, eng, sf = d / f"{tag}.cli.json", d / f"{tag}.engine.json", d / f"{tag}.stackfiles.json"
    for p in (out, eng):
        if p.exists():
            p.unlink()
    sf.write_text(json.dumps(sorted({os.path.realpath(absolute(fr.rsplit(":", 1)[0])) for s in sites or []
                                     for fr in s["stack"] if not fr.startswith("<")})))
    cmd = [*NICE, str(VENV_PY), str(Path(__file__)), "--child-check", str(script_of(name, mode).relative_to(REPO)),
           m.library, str(out), str(eng) if sites else "-", str(sf)]
    rc, wall = run(cmd, d / f"{tag}.check.log", timeout)
    if rc == -999:
        return {"exit": rc, "seconds": round(wall, 2), "error": f"timeout after {timeout} s"}
    try:
        res = json.loads(out.read_text())
        e = {"exit": res["exit"], "seconds": round(res["seconds"], 2)}
        e["diagnostics"] = [compact_diag(x) for x in json.loads(res["stdout"])["diagnostics"]]
    except (OSError, ValueError, KeyError) as exc:
        return {"exit": rc, "seconds": round(wall, 2), "error": f"exit {rc}, no JSON ({type(exc).__name__}); see "
                f"work/static/{tag}.check.log"}
    if sites is not None:
        e["_engine"] = str(eng)
    return e


def explain_misses(name: str, engine_json: str, sites: list[dict]) -> dict:
    """Why each missed site was missed (see analyse_miss); {site key: [[blocker, detail], ...]}."""
    if not os.path.exists(engine_json):
        return {site_key(s): [["(explanation failed)", "no engine dump"]] for s in sites}
    eng = json.loads(Path(engine_json).read_text())
    src = Sources()
    libdir = os.path.realpath(lib_dir(BY_NAME[name].library))
    res = {}
    for s in sites:
        try:
            res[site_key(s)] = [list(x) for x in analyse_miss(s, eng, libdir, src)]
        except Exception as exc:  # noqa: BLE001 - diagnosis only
            res[site_key(s)] = [["(explanation failed)", f"{type(exc).__name__}: {exc}"]]
    return res


def site_key(s: dict) -> str:
    return f"{s['gb_type']}|{s['path']}:{s['stmt'][0]}"


def static_pass(names: list[str], timeout: int, explain: bool) -> None:
    truth = load_json(TRUTH_JSON)
    old = load_json(STATIC_JSON)
    checks = dict(old.get("checks", {})) if old else {}
    explains = dict(old.get("explain", {})) if old else {}
    t0 = time.perf_counter()
    secs = []
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=str(REPO),
                            check=False).stdout.strip()
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "server"], cwd=str(REPO), check=False).returncode != 0
    analyzer = commit + ("+dirty" if dirty else "")  # the analyzer each entry was scored with
    for k, name in enumerate(names):
        for mode in MODES:
            key = f"{name}/{mode}"
            run_t = truth.get("runs", {}).get(key)
            sites = run_t["sites"] if explain and run_t and run_t.get("ok") and run_t["sites"] else None
            e = static_one(name, mode, timeout, sites)
            eng = e.pop("_engine", None)
            e["analyzer"] = analyzer
            checks[key] = e
            secs.append(e["seconds"])
            explains.pop(key, None)
            if sites and "diagnostics" in e:
                missed = [x for x in sites if score_site(x, e["diagnostics"])[0] != "found"]
                if missed:
                    explains[key] = explain_misses(name, eng, missed)
            print(f"[{time.perf_counter() - t0:6.0f}s] {k + 1}/{len(names)} {key}: check {e['seconds']:.1f} s, "
                  f"{len(e.get('diagnostics', []))} diagnostics {e.get('error', '')}", flush=True)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M"), "versions": versions(), "commit": commit,
            "server_dirty": dirty, "last_pass_seconds": round(time.perf_counter() - t0), "last_pass_checks": len(secs),
            "last_pass_check_seconds": round(sum(secs), 1), "timeout": timeout}
    STATIC_JSON.write_text(json.dumps({"meta": meta, "checks": dict(sorted(checks.items())),
                                       "explain": dict(sorted(explains.items()))}, indent=None,
                                      separators=(",", ":")) + "\n")


# ==== scoring =====================================================================================
def shown(d: dict) -> bool:
    return not d.get("conditional")


def locations(d: dict) -> list[dict]:
    """What a diagnostic points at: its library sites, or itself when it has none."""
    return d["library_sites"] or [d]


def in_stmt(loc: dict, path: str, a: int, b: int) -> bool:
    return loc["path"] == path and a <= loc["line"] <= b


def score_site(s: dict, diags: list[dict]) -> tuple[str, str | None, str | None]:
    """found / found (conditional only) / missed (+ at a caller), the matching location, and the
    condition the finding states there (conditional only)."""
    a, b = s["stmt"]
    for want_shown in (True, False):
        for d in diags:
            if shown(d) != want_shown:
                continue
            for loc in [d] + d["library_sites"]:
                if in_stmt(loc, s["path"], a, b):
                    return (("found" if want_shown else "conditional"), f"{loc['path']}:{loc['line']} {loc['code']}",
                            None if want_shown else loc.get("condition") or d.get("condition"))
    for d in diags:
        if shown(d):
            for loc in locations(d):
                if any(in_stmt(loc, p, a2, b2) for p, a2, b2 in s.get("outer", [])):
                    return "missed (at a caller)", f"{loc['path']}:{loc['line']} {loc['code']}", None
    return "missed", None, None


def accounted(loc: dict, sites: list[dict]) -> bool:
    return any(in_stmt(loc, s["path"], *s["stmt"]) or any(in_stmt(loc, p, a, b) for p, a, b in s.get("outer", []))
               for s in sites)


def executed(loc: dict, run_t: dict, src: Sources) -> bool | None:
    cov = run_t.get("coverage")
    if cov is None:
        return None
    lines = cov.get(loc["path"])
    if lines is None:  # a library file the call never entered; nothing known of other files
        return False if loc["path"].startswith(run_t["library"] + "/") else None
    a, b = src.statement(loc["path"], loc["line"])
    ls = unranges(lines)
    return any(n in ls for n in range(a, b + 1))


def score(truth: dict, static: dict) -> dict:
    src = Sources()
    rows = []
    for key, run_t in truth.get("runs", {}).items():
        name, mode = key.split("/")
        if name not in BY_NAME:
            continue
        chk = static.get("checks", {}).get(key)
        row = {"key": key, "model": name, "mode": mode, "library": run_t["library"], "family": run_t["family"],
               "ok": run_t["ok"], "error": run_t.get("error"), "sites": run_t["sites"], "events": run_t["events"],
               "runtime_seconds": run_t["seconds"], "check": None}
        if chk is None or "diagnostics" not in chk:
            row["check_error"] = (chk or {}).get("error", "not checked")
            row["check_seconds"] = (chk or {}).get("seconds")
            rows.append(row)
            continue
        diags = chk["diagnostics"]
        row["check_seconds"] = chk["seconds"]
        row["check"] = True
        status = []
        for s in run_t["sites"]:
            st, match, condition = score_site(s, diags)
            top = any(shown(d) and in_stmt(d, s["path"], *s["stmt"]) for d in diags)
            status.append({"status": st, "match": match, "top": top, "condition": condition,
                           "blockers": static.get("explain", {}).get(key, {}).get(site_key(s))})
        row["status"] = status
        row["n_shown"] = sum(1 for d in diags if shown(d))
        row["n_conditional"] = sum(1 for d in diags if not shown(d))
        locs = {}
        for d in diags:
            if shown(d):
                for loc in locations(d):
                    locs.setdefault((loc["path"], loc["line"], loc["code"]), loc)
        row["shown_locations"] = len(locs)
        only = []
        for (p, ln, code), loc in locs.items():
            if accounted(loc, run_t["sites"]):
                continue
            ex = executed(loc, run_t, src)
            only.append({"path": p, "line": ln, "code": code, "executed": ex, "message": loc.get("message", "")[:160],
                         "text": src.line(p, ln)[:100] if not p.startswith("bench/") else ""})
        row["static_only"] = only
        rows.append(row)
    return {"rows": rows}


# ==== miss explanation (the engine's call graph vs Dynamo's stack) =================================
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
    functions, edges, reached = eng["functions"], eng["edges"], eng["reached"]
    a, b = src.statement(caller["path"], caller["line"])
    stmt = " ".join(src.line(caller["path"], n) for n in range(a, b + 1))
    expr = callee_expr(stmt) or "?"
    where = f"{rel(caller['path'])}:{caller['line']} `{stmt[:70]}` -> {rel(callee['path'])}:" \
            f"{callee['line']} {callee['function']}"
    fns = {f["function"] for f in between}
    if "instantiate_user_defined_class_object" in fns or callee["function"] == "__init__":
        return B_CTOR, where
    q_callee = function_at(functions, callee["path"], callee["line"])

    def owner(q: str | None) -> str | None:
        parts = (q or "").rsplit(".", 2)
        return parts[-2] if len(parts) >= 2 else None

    for l1, _l2, _kind, _text, targets in edges.get(caller["path"], []):
        if a <= l1 <= b and (q_callee in targets or any(t.rsplit(".", 1)[-1] == callee["function"]
                                                        and owner(t) == owner(q_callee) for t in targets)):
            return None  # the engine resolves this call (it would follow it once the caller is reached)
    lines = src.lines(callee["path"])
    for n in range(min(callee["line"], len(lines)) - 1, max(callee["line"] - 80, 0), -1):
        if re.match(rf"\s*(async\s+)?def {re.escape(callee['function'])}\(", lines[n]):
            if n > 0 and re.match(r"\s*@(property|cached_property|functools\.cached_property)\b", lines[n - 1]):
                return B_PROPERTY, where
            break
    qc = function_at(functions, caller["path"], caller["line"])
    lo, hi = next((x[1], x[2]) for x in functions.get(caller["path"], []) if x[0] == qc) if qc else (a, b)
    body = [src.line(caller["path"], n) for n in range(lo, hi + 1)]
    last = expr.split(".")[-1].split("[")[0]
    cls_of = (lambda q: q.rsplit(".", 2)[-2] if q and q.count(".") >= 2 else None)
    skipped = callee["function"] not in (last, "forward", "__call__", "forward_with_checkpointing") or (
        expr.startswith("self.") and last == callee["function"] and cls_of(qc) != cls_of(q_callee))
    if skipped and not expr.startswith("attention_interface"):
        # Dynamo's stack left out the frames in between: find the call by name in what the walk reached
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
                    return cat, (f"{rel(fn['path'])}:{n} `{t[:70]}` (in {q.rsplit('.', 2)[-2]}."
                                 f"{q.rsplit('.', 1)[-1]}; Dynamo's stack skips to: {where})")
    base = expr.split(".")[0].split("[")[0]
    if re.search(r"attention_interface|ALL_ATTENTION_FUNCTIONS", expr):
        return B_REGISTRY, where
    m = re.match(r"self\.(\w+)\[", expr)
    if m:
        if re.search(rf"self\.{m.group(1)}\.append\(", " ".join(src.lines(caller["path"]))):
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
    if re.fullmatch(r"self\.\w+", expr) and property_defined(caller["path"], expr.split(".")[1]):
        return B_PROPERTY_RET, where + f" (`{expr}` is a property: {property_defined(caller['path'], expr[5:])})"
    if expr.startswith("self."):
        attr = expr.split(".")[1]
        text = "\n".join(src.lines(caller["path"]))
        for m in re.finditer(rf"self\.{re.escape(attr)} = (\w+)\(", text):
            if re.search(rf"\b{m.group(1)} = .+ if .+ else ", text):
                return B_IFEXP, where + f" (`self.{attr} = {m.group(1)}(...)`)"
        return B_SELF, where
    return B_OTHER, where


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


# ==== report ======================================================================================
def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def render(truth: dict, static: dict) -> str:
    sc = score(truth, static)
    rows = sc["rows"]
    tm, sm = truth.get("meta", {}), static.get("meta", {})
    v = sm.get("versions") or tm.get("versions") or {}
    L = ["# fullgraph on library models: Dynamo's graph breaks vs what `fullgraph check` shows\n"]
    n_models = len({r["model"] for r in rows})
    libs = Counter(BY_NAME[m].library for m in {r["model"] for r in rows})
    L.append(f"Generated by `bench/realworld/run_models.py` (how to run: its docstring, or `README.md` here). "
             f"{n_models} models ({', '.join(f'{k} {n}' for k, n in libs.most_common())}) x {len(MODES)} modes. "
             f"Versions: " + ", ".join(f"{k} {x}" for k, x in v.items()) + ". "
             f"Runtime truth (`truth.json`) of {tm.get('date', '?')} (last runtime pass {tm.get('last_pass_seconds', '?')} s "
             f"for {tm.get('last_pass_models', '?')} models); last static pass (`static.json`) {sm.get('date', '?')} on "
             f"commit {sm.get('commit', '?')}{' (+ uncommitted changes in server/)' if sm.get('server_dirty') else ''}: "
             f"{sm.get('last_pass_checks', '?')} checks, "
             f"{sm.get('last_pass_check_seconds', '?')} s in `fullgraph check`, {sm.get('last_pass_seconds', '?')} s "
             f"with the miss explanations; analyzer of the scored checks: "
             + ", ".join(f"{a} ({n})" for a, n in Counter(c.get("analyzer", "?") for c in static.get("checks", {}).values())
                         .most_common()) +
             ". Machine: 2 shared cores, every process under `nice -n 10`.\n")
    good = [r for r in rows if r["ok"] and r["check"]]
    failed = [r for r in rows if not r["ok"]]
    unchecked = [r for r in rows if r["ok"] and not r["check"]]
    n_sites = sum(len(r["sites"]) for r in good)
    n_found = sum(1 for r in good for x in r["status"] if x["status"] == "found")
    n_cond = sum(1 for r in good for x in r["status"] if x["status"] == "conditional")
    n_caller = sum(1 for r in good for x in r["status"] if x["status"] == "missed (at a caller)")
    n_top = sum(1 for r in good for x in r["status"] if x.get("top"))
    # distinct sites over the whole benchmark (one library statement breaks in many models)
    distinct: dict[str, bool] = {}
    for r in good:
        for s, x in zip(r["sites"], r["status"]):
            k = site_key(s)
            distinct[k] = distinct.get(k, False) or x["status"] == "found"
    by_model = defaultdict(list)
    for r in rows:
        by_model[r["model"]].append(r)
    clean = [m for m, rs in by_model.items() if len(rs) == len(MODES) and all(r["ok"] and r["check"] and
                                                                               not r["sites"] for r in rs)]
    clean_locs, clean_diags, clean_cond = {}, 0, 0
    fp_sources: dict[tuple, dict] = {}
    for m in clean:
        u = {}
        for r in by_model[m]:
            clean_diags += r["n_shown"]
            clean_cond += r["n_conditional"]
            for x in r["static_only"]:
                u.setdefault((x["path"], x["line"], x["code"]), x)
                e = fp_sources.setdefault((x["path"], x["line"], x["code"]),
                                          {"models": set(), "runs": 0, "executed": set(), "message": x["message"],
                                           "text": x["text"]})
                e["models"].add(m)
                e["runs"] += 1
                e["executed"].add(x["executed"])
        clean_locs[m] = len(u)
    times = sorted(r["check_seconds"] for r in rows if r.get("check_seconds") is not None)

    L.append("## Totals\n")
    L.append(f"- **Recall: {n_found} of {n_sites} Dynamo sites shown ({pct(n_found, n_sites)})** over {len(good)} runs "
             f"(model x mode); {n_cond} more only by a `conditional` diagnostic; {n_caller} missed sites have a shown "
             f"location at an outer frame of the same stack. Counting top-level diagnostics only (without "
             f"`library_sites`, the number before that field): {n_top} of {n_sites}. Distinct sites (gb_type + library statement, over all "
             f"runs): {sum(distinct.values())} of {len(distinct)} found in at least one run.")
    L.append(f"- **Precision: {sum(clean_locs.values()) / len(clean) if clean else 0:.2f} shown findings per clean "
             f"model** ({sum(clean_locs.values())} distinct shown locations over {len(clean)} models that Dynamo "
             f"compiles without a break in both modes; {clean_diags} top-level diagnostics over their "
             f"{len(clean) * len(MODES)} scripts, {clean_cond} more marked `conditional`).")
    if times:
        per_lib = defaultdict(list)
        for r in rows:
            if r.get("check_seconds") is not None:
                per_lib[r["library"]].append(r["check_seconds"])
        L.append(f"- `fullgraph check` per script: median {times[len(times) // 2]:.1f} s, max {times[-1]:.1f} s, "
                 f"total {sum(times):.0f} s over {len(times)} checks ("
                 + "; ".join(f"{lib}: median {sorted(t)[len(t) // 2]:.1f} s, max {max(t):.1f} s"
                             for lib, t in sorted(per_lib.items())) + ").")
    if failed:
        L.append(f"- Runs whose script failed under `fullgraph trace` (not scored): " +
                 ", ".join(f"{r['key']} ({(r['error'] or '')[:80]})" for r in failed) + ".")
    if unchecked:
        L.append(f"- Runs with no static result (not scored): " +
                 ", ".join(f"{r['key']} ({r.get('check_error')})" for r in unchecked) + ".")
    L.append("")

    fam = defaultdict(Counter)
    for r in good:
        f = fam[f"{r['library']} / {r['family']}"]
        f["runs"] += 1
        f["sites"] += len(r["sites"])
        f["found"] += sum(1 for x in r["status"] if x["status"] == "found")
        f["only"] += len(r["static_only"])
        f["broken"] += bool(r["sites"])
    L.append("| library / family | runs | runs with a break | Dynamo sites | found | recall | static-only locations |")
    L.append("|---|---|---|---|---|---|---|")
    for k, f in sorted(fam.items()):
        L.append(f"| {k} | {f['runs']} | {f['broken']} | {f['sites']} | {f['found']} | {pct(f['found'], f['sites'])} "
                 f"| {f['only']} |")
    L.append("")

    L.append("## Per model and mode\n")
    L.append("*Dynamo sites / events*: distinct (gb_type, library statement) / graph-break events. *found*: shown "
             "at the site (in `library_sites` or as a diagnostic there); *cond.*: only by a conditional diagnostic. "
             "*shown*: top-level diagnostics shown by default (+ conditional). *locations*: distinct shown locations. "
             "*static-only*: shown locations no Dynamo site of the run accounts for (*ran*: their statement ran "
             "eagerly for this input).\n")
    L.append("| model | mode | Dynamo sites / events | found | cond. | missed | shown (+cond.) | locations | static-only "
             "(ran) | check (s) | runtime (s) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if not r["ok"]:
            L.append(f"| {r['model']} | {r['mode']} | script failed: {(r['error'] or '')[:60]} | | | | | | | | "
                     f"{r['runtime_seconds']} |")
            continue
        if not r["check"]:
            L.append(f"| {r['model']} | {r['mode']} | {len(r['sites'])} / {r['events']} | | | | {r.get('check_error')} "
                     f"| | | {r.get('check_seconds') or ''} | {r['runtime_seconds']} |")
            continue
        c = Counter(x["status"] for x in r["status"])
        ran = sum(1 for x in r["static_only"] if x["executed"])
        L.append(f"| {r['model']} | {r['mode']} | {len(r['sites'])} / {r['events']} | {c['found']} | {c['conditional']} "
                 f"| {c['missed'] + c['missed (at a caller)']} | {r['n_shown']} (+{r['n_conditional']}) | "
                 f"{r['shown_locations']} | {len(r['static_only'])} ({ran}) | {r['check_seconds']:.1f} | "
                 f"{r['runtime_seconds']} |")
    L.append("")

    L.append("## Dynamo sites\n")
    L.append("Every site, with the runs it broke in and whether the CLI showed it there.\n")
    L.append("| site (innermost library frame) | gb_type | statement | runs: found | runs: missed |")
    L.append("|---|---|---|---|---|")
    agg: dict[str, dict] = {}
    for r in good:
        for s, x in zip(r["sites"], r["status"]):
            e = agg.setdefault(site_key(s), {"s": s, "found": [], "missed": []})
            (e["found"] if x["status"] == "found" else e["missed"]).append(r["key"])
    for k, e in sorted(agg.items(), key=lambda kv: (-len(kv[1]["found"]) - len(kv[1]["missed"]), kv[0])):
        s = e["s"]
        L.append(f"| `{s['path']}:{s['line']}` | {s['gb_type']} | `{s['code'][:70].replace('|', '/')}` | "
                 f"{len(e['found'])}{': ' + ', '.join(e['found'][:6]) if e['found'] else ''}"
                 f"{' ...' if len(e['found']) > 6 else ''} | "
                 f"{len(e['missed'])}{': ' + ', '.join(e['missed'][:6]) if e['missed'] else ''}"
                 f"{' ...' if len(e['missed']) > 6 else ''} |")
    L.append("")

    L.append("## Why sites were missed\n")
    L.append("Each missed site's *blockers* (from the engine's own call graph of the script, dumped after the check): each "
             "hop of Dynamo's call chain from the deepest function the static walk reached down to the break that the "
             "walk cannot follow, then the statement itself if no rule fires there. Fixing one blocker finds a site "
             "only if it was the only one.\n")
    cat: dict[str, dict] = defaultdict(lambda: {"sites": 0, "events": 0, "sole": 0, "models": set(), "ex": None})
    missed = []
    for r in good:
        for s, x in zip(r["sites"], r["status"]):
            if x["status"] == "found":
                continue
            bl = x["blockers"] or [["(not explained: run without --no-explain)", ""]]
            if x["status"] == "conditional":
                bl = [["shown only as a conditional diagnostic", x["match"] or ""]]
            missed.append((r["key"], s, bl))
            for name, detail in bl:
                e = cat[name]
                e["sites"] += 1
                e["events"] += s["count"]
                e["models"].add(r["model"])
                e["sole"] += len(bl) == 1
                if e["ex"] is None:
                    e["ex"] = f"{r['key']} {s['gb_type']}: {detail}"
    L.append(f"{len(missed)} missed sites (model x mode). Ranked by the number of missed sites each blocker stands in "
             "front of:\n")
    L.append("| blocker | missed sites | events | only blocker | models | example |")
    L.append("|---|---|---|---|---|---|")
    for name, e in sorted(cat.items(), key=lambda kv: (-kv[1]["sites"], -kv[1]["events"])):
        ms = sorted(e["models"])
        L.append(f"| {name} | {e['sites']} | {e['events']} | {e['sole']} | {len(ms)}: {', '.join(ms[:8])}"
                 f"{' ...' if len(ms) > 8 else ''} | {(e['ex'] or '').replace('|', '/')[:220]} |")
    L.append("")
    if missed:
        L.append("Fix order (greedy: each step removes the blocker that lets the most missed sites be found, counting "
                 "only sites whose every blocker is removed by then):\n")
        L.append("| step | blocker removed | sites found | cumulative |")
        L.append("|---|---|---|---|")
        sets = [(f"{k} {site_key(s)}", s["count"], frozenset(b[0] for b in bl)) for k, s, bl in missed]
        fixed, done, every, step = set(), set(), set().union(*(x[2] for x in sets)), 0
        while len(done) < len(sets) and every - fixed and step < 15:
            best = None
            for b in sorted(every - fixed):
                comp = [x for x in sets if x[0] not in done and x[2] <= fixed | {b}]
                key = (len(comp), sum(x[1] for x in comp), sum(1 for x in sets if b in x[2]))
                if best is None or key > best[0]:
                    best = (key, b, comp)
            key, b, comp = best
            fixed.add(b)
            done.update(x[0] for x in comp)
            step += 1
            L.append(f"| {step} | {b} | {key[0]} | {len(done)}/{len(sets)} |")
        L.append("")
    L.append("<details><summary>Blockers per missed site</summary>\n")
    for k, s, bl in missed:
        L.append(f"- {k} `{s['path']}:{s['line']}` {s['gb_type']} ({s['count']}x): "
                 + " → ".join(f"{b[0]} ({b[1][:160]})" if b[1] else b[0] for b in bl))
    L.append("\n</details>\n")

    L.append("## Conditions of the sites found only conditionally\n")
    L.append("What the conditional finding on each such site says its path needs. The site broke in these runs, so "
             "each condition must hold for them (the script's config, `model.train()`/`.eval()`, what the call "
             "passes); the reading below the generated part says, per condition, whether it does.\n")
    L.append("| condition | sites | runs |")
    L.append("|---|---|---|")
    conds: dict[str, dict] = {}
    for r in good:
        for s, x in zip(r["sites"], r["status"]):
            if x["status"] == "conditional":
                e = conds.setdefault(x.get("condition") or "(none stated)", {"sites": set(), "runs": set()})
                e["sites"].add(f"{s['path'].split('/')[-1]}:{s['line']}")
                e["runs"].add(r["key"])
    for c, e in sorted(conds.items(), key=lambda kv: (-len(kv[1]["runs"]), kv[0])):
        rs = sorted(e["runs"])
        L.append(f"| {c.replace('|', '/')[:300]} | {', '.join(sorted(e['sites']))} | {len(rs)}: {', '.join(rs[:6])}"
                 f"{' ...' if len(rs) > 6 else ''} |")
    L.append("")

    L.append("## False-positive sources: shown findings on clean models\n")
    L.append(f"{len(clean)} clean models (no Dynamo break in either mode): {', '.join(sorted(clean))}.\n")
    L.append("| location | code | clean models | runs | statement ran eagerly | message |")
    L.append("|---|---|---|---|---|---|")
    for (p, ln, code), e in sorted(fp_sources.items(), key=lambda kv: (-len(kv[1]["models"]), kv[0])):
        ran = "/".join(sorted({"yes" if x else "no" if x is False else "?" for x in e["executed"]}))
        ms = sorted(e["models"])
        L.append(f"| `{p}:{ln}` | {code} | {len(ms)}: {', '.join(ms[:6])}{' ...' if len(ms) > 6 else ''} | {e['runs']} "
                 f"| {ran} | {e['message'][:120].replace('|', '/')} |")
    L.append("")
    L.append("## Static-only findings on models with breaks\n")
    L.append("| location | code | runs | statement ran eagerly |")
    L.append("|---|---|---|---|")
    oth: dict[tuple, dict] = {}
    for r in good:
        if r["model"] in clean:
            continue
        for x in r["static_only"]:
            e = oth.setdefault((x["path"], x["line"], x["code"]), {"runs": [], "ran": set()})
            e["runs"].append(r["key"])
            e["ran"].add(x["executed"])
    for (p, ln, code), e in sorted(oth.items(), key=lambda kv: (-len(kv[1]["runs"]), kv[0])):
        ran = "/".join(sorted({"yes" if x else "no" if x is False else "?" for x in e["ran"]}))
        L.append(f"| `{p}:{ln}` | {code} | {len(e['runs'])}: {', '.join(e['runs'][:5])}"
                 f"{' ...' if len(e['runs']) > 5 else ''} | {ran} |")
    L.append("")
    L.append("## Method\n")
    L.append(__doc__.split("Scoring (what the CLI/JSON shows):", 1)[1].strip() + "\n")
    return "\n".join(L)


def write_report() -> None:
    text = render(load_json(TRUTH_JSON), load_json(STATIC_JSON))
    manual = ""
    if RESULTS_MD.exists():
        old = RESULTS_MD.read_text()
        if MANUAL_MARK in old:
            manual = old.split(MANUAL_MARK, 1)[1]
    RESULTS_MD.write_text(text + "\n" + MANUAL_MARK + (manual if manual else "\n"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=None, help="comma-separated names (default: all in models.py)")
    ap.add_argument("--libraries", default=None, help="comma-separated libraries (transformers, diffusers, ...)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--runtime-only", action="store_true", help="run the models under Dynamo (writes truth.json)")
    g.add_argument("--static-only", action="store_true", help="run `fullgraph check` and re-score (static.json)")
    g.add_argument("--report-only", action="store_true", help="re-render RESULTS.md")
    ap.add_argument("--timeout", type=int, default=300, help="per `fullgraph check` (s)")
    ap.add_argument("--runtime-timeout", type=int, default=900, help="per model run under `fullgraph trace` (s)")
    ap.add_argument("--no-explain", action="store_true", help="skip explaining the missed sites")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("--child-trace", nargs=2, metavar=("SCRIPT", "PARTS_COPY"), help=argparse.SUPPRESS)
    ap.add_argument("--child-coverage", nargs="+", metavar="LIBDIR SCRIPT OUT", help=argparse.SUPPRESS)
    ap.add_argument("--child-check", nargs=5, metavar=("SCRIPT", "LIBRARY", "OUT", "ENGINE_OUT", "STACKFILES"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_trace:
        child_trace(*args.child_trace)
        return 0
    if args.child_coverage:
        child_coverage(args.child_coverage[1:], args.child_coverage[0])
        return 0
    if args.child_check:
        child_check(*args.child_check)
        return 0
    names = [m.name for m in MODELS]
    if args.models:
        names = [x.strip() for x in args.models.split(",") if x.strip()]
        unknown = [x for x in names if x not in BY_NAME]
        if unknown:
            ap.error(f"unknown models: {', '.join(unknown)} (see --list)")
    if args.libraries:
        libs = set(args.libraries.split(","))
        names = [n for n in names if BY_NAME[n].library in libs]
    if args.list:
        for n in names:
            m = BY_NAME[n]
            print(f"{n:22s} {m.library:15s} {m.family:11s} {m.build[:90]}")
        return 0
    if args.report_only:
        write_report()
        return 0
    write_scripts(names)
    if not args.static_only:
        runtime_pass(names, args.runtime_timeout)
    if not args.runtime_only:
        static_pass(names, args.timeout, not args.no_explain)
    write_report()
    print(f"wrote {RESULTS_MD.relative_to(REPO)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
