"""Record Dynamo's verdict on every case of bench/modules/cases (on demand: minutes, never in CI).

    .venv/bin/python bench/modules/collect.py                 # all cases -> bench/modules/truth.json
    .venv/bin/python bench/modules/collect.py --only beam     # cases whose path contains "beam" (merged into truth.json)
    .venv/bin/python bench/modules/collect.py --native        # also run each case under the author's real backend
    .venv/bin/python bench/modules/collect.py --native-only   # only that, added to the existing truth.json
    V=~/.cache/fullgraph/torch/2.15.0/venv/bin/python         # another release: its cached venv runs the cases
    PYTHONPATH=server $V bench/modules/collect.py --python $V --out bench/modules/truth-2.15.0.json

For each case (one subprocess per run, one at a time, `nice -n 10`, OMP_NUM_THREADS=1):

1. **eager**: torch.compile replaced by identity (`runner.py eager`): main() must succeed.
2. **collect**: `python runner.py collect CASE` under the capture hook of `fullgraph trace` (the same
   bootstrap the CLI installs): every graph-break event Dynamo reports, with its user stack and the frame
   Dynamo was compiling.  Every torch.compile gets
   backend="eager" and fullgraph=False, so Dynamo resumes after each break; roots their author compiled
   with fullgraph=True are traced with capture_scalar_outputs / capture_dynamic_output_shape_ops on
   (what fullgraph=True implies on torch 2.13), so `.item()` and dynamic-shape ops are not breaks there.
3. **strict** (cases with a fullgraph=True root): only backend="eager" is forced; the first break must
   raise at one of the sites recorded in 2 (and a fullgraph=True root with no recorded site must not raise).

A truth site is the innermost frame of a break's stack that lies in a case file; its statement range is
the enclosing simple statement, or the header of a compound statement (`if`, `for`, `with`, ...).  When a
break made Dynamo skip the frame it was compiling (a break inside a loop), the rest of that function was never
traced: it is recorded as an `unobserved` region of the case.
"""
from __future__ import annotations

import argparse
import ast
import datetime as _dt
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
RUNNER = os.path.join(HERE, "runner.py")
VENV = os.path.join(REPO, ".venv", "bin")
PYTHON = os.path.join(VENV, "python")
FULLGRAPH = os.path.join(VENV, "fullgraph")
TRUTH = os.path.join(HERE, "truth.json")

SKIP_MARKS = ("Skipping the frame", "Skipping frame", "Skipping the function", "skipping the frame")


# ---- cases -------------------------------------------------------------------------------------------
def discover(cases_dir: str = CASES) -> list[str]:
    """Entry files: top-level *.py with a main(), and in sub-folders the files with a __main__ block."""
    out = []
    for dirpath, dirnames, filenames in os.walk(cases_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        for fn in sorted(filenames):
            if not fn.endswith(".py") or fn.startswith("_"):
                continue
            path = os.path.join(dirpath, fn)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            if "def main(" in text and "__main__" in text:
                out.append(os.path.relpath(path, cases_dir))
    return sorted(out)


def case_group(rel: str) -> str:
    """A case is its entry file; a sub-folder package is one case (named by the folder)."""
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else rel


_TREES: dict[str, ast.AST | None] = {}


def _tree(path: str) -> ast.AST | None:
    if path not in _TREES:
        try:
            with open(path, encoding="utf-8") as fh:
                _TREES[path] = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError):
            _TREES[path] = None
    return _TREES[path]


def statement_range(path: str, line: int) -> tuple[int, int]:
    """Lines of the simple statement containing `line`, or of the header of the compound one."""
    tree = _tree(path)
    if tree is None:
        return line, line
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            key = (node.lineno, -((node.end_lineno or node.lineno) - node.lineno))
            if best is None or key > (best.lineno, -((best.end_lineno or best.lineno) - best.lineno)):
                best = node
    if best is None:
        return line, line
    body_fields = ("body", "orelse", "finalbody", "handlers", "cases")
    if any(isinstance(getattr(best, f, None), list) and getattr(best, f) for f in body_fields):
        # compound statement: its header only (`if cond:`, `for a in b:`, `with x as y:`, decorators+def)
        end = best.lineno
        for f, value in ast.iter_fields(best):
            if f in body_fields or f == "decorator_list":
                continue
            for sub in value if isinstance(value, list) else [value]:
                if isinstance(sub, ast.AST) and getattr(sub, "end_lineno", None):
                    end = max(end, sub.end_lineno)
        if line > end:  # e.g. the `else:` line of an if: keep the line itself
            return line, line
        return best.lineno, end
    return best.lineno, best.end_lineno or best.lineno


def line_text(path: str, line: int) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        return lines[line - 1].strip() if 1 <= line <= len(lines) else ""
    except OSError:
        return ""


# ---- running -----------------------------------------------------------------------------------------
def _env() -> dict:
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = "1"
    env["MKL_NUM_THREADS"] = "1"
    env.pop("TORCH_LOGS", None)
    env.pop("TORCH_TRACE", None)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def run_mode(mode: str, case_path: str, tmp: str, *, trace: bool, timeout: int = 300,
             save_result: str | None = None, python: str | None = None) -> tuple[dict, list[dict] | None, float]:
    """Run runner.py MODE on one case. Returns (runner record, break events or None, seconds).

    With trace=True the run goes through the capture hook of `fullgraph trace` (fullgraph/trace/_hook.py,
    installed with the same bootstrap the CLI uses) and every graph-break event Dynamo reported is returned
    one by one, with its own stack and the frame being compiled (the CLI's record merges events per line
    and root, which loses which frame Dynamo skipped).
    """
    out = os.path.join(tmp, f"{mode}.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = ["nice", "-n", "10", python or PYTHON, RUNNER, mode, case_path, out]
    if save_result:
        cmd += ["--save-result", save_result]
    env = _env()
    cap = None
    if trace:
        from fullgraph.trace.run import capture_env, make_bootstrap

        cap = tempfile.mkdtemp(prefix="capture-", dir=tmp)
        boot, parts = make_bootstrap(cap)
        env = capture_env(boot, parts, base=env)
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
        stderr = proc.stderr
    except subprocess.TimeoutExpired as e:
        stderr = f"timeout after {timeout}s\n" + (e.stderr if isinstance(e.stderr, str) else "")
    dt = time.time() - t0
    try:
        with open(out, encoding="utf-8") as fh:
            runner = json.load(fh)
    except (OSError, ValueError):
        runner = {"ok": False, "error": "runner wrote no record", "error_type": "NoRecord",
                  "stderr": stderr[-4000:], "roots": []}
    events = None
    if trace:
        events = _events(os.path.join(cap, "parts"))
        shutil.rmtree(cap, ignore_errors=True)
    return runner, events, dt


def _events(parts_dir: str) -> list[dict]:
    from fullgraph.trace.collect import process_from_part_file

    events = []
    for part in sorted(glob.glob(os.path.join(parts_dir, "*.jsonl"))):
        proc = process_from_part_file(part)
        for h in proc.hits:
            comp = proc.compiles.get(h.compile_key) if h.compile_key else None
            m = h.message
            events.append({
                "gb_type": m.gb_type, "gb_code": m.gb_code, "exc_class": m.exc_class,
                "explanation": m.explanation or "",
                "stack": [{"path": fr.path, "line": fr.line, "function": fr.function} for fr in h.stack],
                "compiled": ({"path": comp.path, "function": comp.function, "line": comp.line, "resume": comp.resume}
                             if comp is not None else None),
                "fallback": list(h.fallback) if h.fallback else None,
            })
    return events


# ---- from break events to truth sites --------------------------------------------------------------------
def _under(path: str, root: str) -> bool:
    if not path or path.startswith("<"):
        return False
    return os.path.realpath(path).startswith(os.path.realpath(root) + os.sep)


def _def_span(path: str, line: int) -> tuple[int, int] | None:
    """(first line including decorators, last line) of the innermost def containing `line`."""
    tree = _tree(path)
    if tree is None:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first <= line <= (node.end_lineno or node.lineno) and (best is None or first >= best[0]):
                best = (first, node.end_lineno or node.lineno)
    return best


def _root_of(stack: list[dict], roots: list[dict]) -> dict | None:
    """The outermost frame of the stack that runs a function the case passed to torch.compile."""
    for fr in stack:
        if not fr.get("path") or fr["path"].startswith("<"):
            continue
        rp = os.path.realpath(fr["path"])
        for r in roots:
            if r.get("file") != rp or r.get("name") != fr.get("function"):
                continue
            if _starts_at(rp, int(fr["line"]), r.get("line")):
                return r
    return None


def _def_line(path: str, span: tuple[int, int]) -> int | None:
    tree = _tree(path)
    for node in ast.walk(tree) if tree is not None else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (node.end_lineno or node.lineno) == span[1] \
                and min([node.lineno] + [d.lineno for d in node.decorator_list]) == span[0]:
            return node.lineno
    return None


def _starts_at(path: str, line: int, first: int) -> bool:
    span = _def_span(path, line)
    return span is not None and first in (span[0], _def_line(path, span))


def _flag(root: dict | None, roots: list[dict]) -> bool | None:
    if root is not None:
        return bool(root.get("fullgraph"))
    flags = {bool(r.get("fullgraph")) for r in roots}
    return flags.pop() if len(flags) == 1 else None


def sites_from_events(events: list[dict] | None, roots: list[dict], cases_dir: str
                      ) -> tuple[list[dict], list[dict], list[dict]]:
    """(sites, unattributed events, unobserved regions).

    A site is the statement of the innermost case frame of a break's stack; events at the same statement are
    merged.  When Dynamo skipped the frame it was compiling ("graph break in loop", a break in a generator,
    ...), that function's code is never traced again: the lines after the break in it are `unobserved`.
    """
    sites: dict[tuple, dict] = {}
    loose: list[dict] = []
    unobserved: list[dict] = []
    for ev in events or []:
        stack = ev["stack"]
        case_frames = [fr for fr in stack if _under(fr["path"], cases_dir)]
        inner = case_frames[-1] if case_frames else None
        if inner is None and ev.get("fallback") and _under(ev["fallback"][0], cases_dir):
            inner = {"path": ev["fallback"][0], "line": ev["fallback"][1], "function": ""}
        root = _root_of(stack, roots)
        explanation = ev["explanation"]
        skips = any(m in explanation for m in SKIP_MARKS)
        comp = ev.get("compiled")
        event = {
            "gb_type": ev["gb_type"], "gb_code": ev["gb_code"], "exc_class": ev["exc_class"],
            "reason": explanation[:600],
            "root_fullgraph": _flag(root, roots),
            "root": ({"file": os.path.relpath(root["file"], cases_dir) if _under(root["file"], cases_dir)
                      else root["file"], "function": root.get("name"), "line": root.get("line")} if root else None),
            "compiled_frame": ({"file": os.path.relpath(os.path.realpath(comp["path"]), cases_dir)
                                if _under(comp["path"], cases_dir) else comp["path"],
                                "function": comp["function"], "line": comp["line"], "resume": comp["resume"]}
                               if comp else None),
            "skips_frame": skips,
            "stack": [f"{os.path.relpath(os.path.realpath(fr['path']), cases_dir)}:{fr['line']}:{fr['function']}"
                      for fr in case_frames],
        }
        if inner is None:
            loose.append(event)
            continue
        if skips and comp and _under(comp["path"], cases_dir):
            region = _skipped_region(comp, stack, events, cases_dir)
            if region is not None and region not in unobserved:
                unobserved.append(region)
        path = os.path.realpath(inner["path"])
        rel = os.path.relpath(path, cases_dir)
        start, end = statement_range(path, int(inner["line"]))
        key = (rel, start, end)
        site = sites.get(key)
        if site is None:
            site = sites[key] = {"file": rel, "line": int(inner["line"]), "start": start, "end": end,
                                 "function": _orig_name(inner.get("function", "")),
                                 "text": line_text(path, int(inner["line"])),
                                 "gb_types": [], "root_fullgraph": [], "skips_frame": False, "count": 0,
                                 "events": []}
        site["line"] = min(site["line"], int(inner["line"]))
        site["count"] += 1
        if event["gb_type"] not in site["gb_types"]:
            site["gb_types"].append(event["gb_type"])
        if event["root_fullgraph"] not in site["root_fullgraph"]:
            site["root_fullgraph"].append(event["root_fullgraph"])
        site["skips_frame"] = site["skips_frame"] or skips
        # keep one event per distinct (gb_type, stack, compiled frame): recompiles repeat them verbatim
        sig = (event["gb_type"], tuple(event["stack"]), json.dumps(event["compiled_frame"], sort_keys=True))
        if not any((e["gb_type"], tuple(e["stack"]), json.dumps(e["compiled_frame"], sort_keys=True)) == sig
                   for e in site["events"]):
            site["events"].append(event)
    out = sorted(sites.values(), key=lambda s: (s["file"], s["start"]))
    return out, loose, sorted(unobserved, key=lambda r: (r["file"], r["start"]))


def _skipped_region(comp: dict, stack: list[dict], events: list[dict], cases_dir: str) -> dict | None:
    """Lines of the skipped function after the statement where its trace stopped.

    The frame of the skipped code is looked up in this event's stack (by file, name and where its def starts);
    a "cannot resume" event often carries only the innermost frame, so the other events' stacks are searched
    for a frame inside the same def (the earliest such line is where the first trace stopped); failing that,
    the whole body counts as unobserved.
    """
    cpath = os.path.realpath(comp["path"])

    def in_def(fr):
        return (_under(fr["path"], cases_dir) and os.path.realpath(fr["path"]) == cpath
                and _orig_name(fr["function"]) == comp["function"] and _starts_at(cpath, int(fr["line"]), comp["line"]))

    lines = [int(fr["line"]) for fr in stack if in_def(fr)]
    if not lines:
        lines = [int(fr["line"]) for ev in events for fr in ev["stack"] if in_def(fr)]
    some = lines[0] if lines else None
    if some is None:
        tree = _tree(cpath)
        span = None
        for node in ast.walk(tree) if tree is not None else []:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == comp["function"] and \
                    comp["line"] in (node.lineno, min([node.lineno] + [d.lineno for d in node.decorator_list])):
                span = (node.body[0].lineno, node.end_lineno or node.lineno)
        if span is None:
            return None
        start, end = span
    else:
        span = _def_span(cpath, some)
        if span is None:
            return None
        _, stmt_end = statement_range(cpath, min(lines))
        start, end = stmt_end + 1, span[1]
    if start > end:
        return None
    return {"file": os.path.relpath(cpath, cases_dir), "start": start, "end": end, "function": comp["function"]}


def _orig_name(name: str) -> str:
    try:
        from fullgraph.trace.parse import original_function

        return original_function(name)
    except ImportError:
        return name


def strict_site(events: list[dict] | None, cases_dir: str) -> dict | None:
    """Where the fullgraph=True run raised: the innermost case frame of its (first) break."""
    for ev in events or []:
        for fr in reversed(ev["stack"]):
            if _under(fr["path"], cases_dir):
                path = os.path.realpath(fr["path"])
                return {"file": os.path.relpath(path, cases_dir), "line": int(fr["line"]), "gb_type": ev["gb_type"]}
        if ev.get("fallback") and _under(ev["fallback"][0], cases_dir):
            path = os.path.realpath(ev["fallback"][0])
            return {"file": os.path.relpath(path, cases_dir), "line": int(ev["fallback"][1]), "gb_type": ev["gb_type"]}
    return None


# ---- one case --------------------------------------------------------------------------------------------
def collect_case(rel: str, cases_dir: str = CASES, native: bool = False, verbose: bool = True) -> dict:
    path = os.path.join(cases_dir, rel)
    entry: dict = {"case": rel}
    with tempfile.TemporaryDirectory(prefix="fgbench-") as tmp:
        eager, _, t_eager = run_mode("eager", path, tmp, trace=False)
        entry["eager_ok"] = bool(eager.get("ok"))
        entry["eager_error"] = None if eager.get("ok") else f"{eager.get('error_type')}: {eager.get('error')}"
        entry["result_kind"] = eager.get("result_kind")
        roots = eager.get("roots") or []

        coll, events, t_coll = run_mode("collect", path, tmp, trace=True)
        roots = coll.get("roots") or roots
        entry["compile_ok"] = bool(coll.get("ok"))
        entry["compile_error"] = None if coll.get("ok") else f"{coll.get('error_type')}: {(coll.get('error') or '')[:1500]}"
        entry["roots"] = [{"file": os.path.relpath(r["file"], cases_dir) if r.get("file") and _under(r["file"], cases_dir)
                           else r.get("file"), "function": r.get("name"), "line": r.get("line"),
                           "fullgraph": bool(r.get("fullgraph"))} for r in roots]
        dedup = []
        for r in entry["roots"]:
            if r not in dedup:
                dedup.append(r)
        entry["roots"] = dedup
        entry["fullgraph"] = sorted({r["fullgraph"] for r in dedup})
        sites, loose, unobserved = sites_from_events(events, roots, cases_dir)
        entry["sites"] = sites
        entry["unattributed"] = loose
        entry["unobserved"] = unobserved
        entry["breaks"] = len(sites)
        entry["clean"] = not sites and not loose
        entry["trace_ok"] = events is not None
        entry["dynamo"] = coll.get("dynamo") or {}
        entry["seconds"] = {"eager": round(t_eager, 1), "collect": round(t_coll, 1)}

        if any(r["fullgraph"] for r in dedup):
            strict, sevents, t_strict = run_mode("strict", path, tmp, trace=True)
            entry["seconds"]["strict"] = round(t_strict, 1)
            raised = strict_site(sevents, cases_dir) if not strict.get("ok") else None
            fg_sites = [s for s in sites if True in s["root_fullgraph"]]
            if strict.get("ok"):
                verdict = "ok: ran" if not fg_sites else "MISMATCH: fullgraph=True run did not raise"
            elif raised is None:
                verdict = f"MISMATCH: raised {strict.get('error_type')} outside the recorded sites"
            else:
                hit = any(s["file"] == raised["file"] and s["start"] <= raised["line"] <= s["end"] for s in sites)
                verdict = (f"ok: raised at {raised['file']}:{raised['line']}" if hit
                           else f"MISMATCH: raised at {raised['file']}:{raised['line']}, not a recorded site")
            entry["strict"] = {"ok": bool(strict.get("ok")), "raised_at": raised, "verdict": verdict,
                               "error": None if strict.get("ok") else f"{strict.get('error_type')}: {(strict.get('error') or '')[:300]}"}

        if native:
            nat, _, t_nat = run_mode("native", path, tmp, trace=False, timeout=900)
            entry["native_ok"] = bool(nat.get("ok"))
            entry["native_error"] = None if nat.get("ok") else f"{nat.get('error_type')}: {(nat.get('error') or '')[:300]}"
            entry["seconds"]["native"] = round(t_nat, 1)
    if verbose:
        flag = "fullgraph" if True in entry["fullgraph"] else "plain"
        msg = f"{rel:48s} {flag:9s} eager={'ok' if entry['eager_ok'] else 'FAIL'} " \
              f"compile={'ok' if entry['compile_ok'] else 'FAIL'} sites={entry['breaks']}"
        if entry["dynamo"]:
            msg += f" graphs={entry['dynamo'].get('unique_graphs')}"
        if entry.get("unattributed"):
            msg += f" unattributed={len(entry['unattributed'])}"
        if "strict" in entry:
            msg += f" strict=[{entry['strict']['verdict']}]"
        if native:
            msg += f" native={'ok' if entry['native_ok'] else 'FAIL'}"
        msg += f" ({sum(entry['seconds'].values()):.0f}s)"
        print(msg, flush=True)
        for s in entry["sites"]:
            print(f"    {s['file']}:{s['line']} [{s['start']}-{s['end']}] {'/'.join(s['gb_types'])}"
                  f" fg={s['root_fullgraph']}{' (skips frame)' if s['skips_frame'] else ''}: {s['text'][:70]}", flush=True)
        if not entry["eager_ok"]:
            print("    eager error:", entry["eager_error"][:300], flush=True)
        if not entry["compile_ok"]:
            print("    compile error:", entry["compile_error"][:300], flush=True)
    return entry


def _torch_version() -> str:
    out = subprocess.run([PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                         env=_env())
    return out.stdout.strip()


def _git_head() -> str | None:
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or None
    except OSError:
        return None


def native_summary(truth: dict) -> None:
    """Native failures, split: a fullgraph=True case whose strict run raised is expected to raise natively too."""
    failed = [c for c in truth["cases"] if c.get("native_ok") is False]
    expected = [c["case"] for c in failed if (c.get("strict") or {}).get("raised_at")
                and "Unsupported" in (c.get("native_error") or "") + (c.get("strict", {}).get("error") or "")]
    truth["summary"]["native_failures"] = [c["case"] for c in failed]
    truth["summary"]["native_failures_expected"] = expected
    truth["summary"]["native_failures_unexpected"] = [c["case"] for c in failed if c["case"] not in expected]


def native_only(out: str, cases_dir: str, cases: list[str]) -> int:
    """Run every case with torch.compile untouched (inductor on CPU) and record whether main() succeeds."""
    with open(out, encoding="utf-8") as fh:
        truth = json.load(fh)
    by_case = {c["case"]: c for c in truth["cases"]}
    t0 = time.time()
    for rel in cases:
        if rel not in by_case:
            continue
        with tempfile.TemporaryDirectory(prefix="fgbench-") as tmp:
            nat, _, dt = run_mode("native", os.path.join(cases_dir, rel), tmp, trace=False, timeout=1800)
        entry = by_case[rel]
        entry["native_ok"] = bool(nat.get("ok"))
        entry["native_error"] = None if nat.get("ok") else f"{nat.get('error_type')}: {(nat.get('error') or '')[:300]}"
        entry.setdefault("seconds", {})["native"] = round(dt, 1)
        print(f"{rel:48s} native={'ok' if entry['native_ok'] else 'FAIL ' + entry['native_error'][:200]} ({dt:.0f}s)",
              flush=True)
    truth["native_seconds"] = round(time.time() - t0, 1)
    native_summary(truth)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(truth, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    sm = truth["summary"]
    print(f"native: {len(sm['native_failures'])} failures ({len(sm['native_failures_expected'])} expected: "
          f"fullgraph=True raising at a recorded break; unexpected: {sm['native_failures_unexpected']}); "
          f"{truth['native_seconds']:.0f}s -> {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    global PYTHON
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--out", default=TRUTH)
    ap.add_argument("--only", nargs="*", help="substrings of case paths; other cases keep their entry in --out")
    ap.add_argument("--native", action="store_true", help="also run each case with its real backend (slow)")
    ap.add_argument("--native-only", action="store_true",
                    help="only run each case unpatched (the author's backend, inductor) and add native_ok to --out")
    ap.add_argument("--python", default=PYTHON,
                    help="the interpreter that runs the cases (another release's venv, e.g. "
                         "~/.cache/fullgraph/torch/2.15.0/venv/bin/python); default .venv/bin/python")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    PYTHON = os.path.abspath(os.path.expanduser(args.python)) if args.python != PYTHON else PYTHON

    cases_dir = os.path.abspath(args.cases)
    cases = discover(cases_dir)
    if args.only:
        cases = [c for c in cases if any(s in c for s in args.only)]
    if args.native_only:
        return native_only(args.out, cases_dir, cases)
    previous = {}
    if args.only and os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as fh:
            previous = {c["case"]: c for c in json.load(fh).get("cases", [])}
    t0 = time.time()
    entries = dict(previous)
    for rel in cases:
        entries[rel] = collect_case(rel, cases_dir, native=args.native, verbose=not args.quiet)
    elapsed = time.time() - t0
    known = set(discover(cases_dir))
    ordered = [entries[k] for k in sorted(entries) if k in known]
    n_sites = sum(len(c["sites"]) for c in ordered)
    truth = {
        "version": 1,
        "torch_version": _torch_version(),
        "python": platform.python_version(),
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),  # noqa: UP017
        "commit": _git_head(),
        "collect_seconds": round(elapsed, 1),
        "collected": "all" if not args.only else f"only {args.only} (others kept from the previous truth)",
        "summary": {
            "cases": len(ordered),
            "clean": sum(1 for c in ordered if c["clean"]),
            "breaking": sum(1 for c in ordered if not c["clean"]),
            "sites": n_sites,
            "eager_failures": [c["case"] for c in ordered if not c["eager_ok"]],
            "compile_failures": [c["case"] for c in ordered if not c["compile_ok"]],
            "strict_mismatches": [c["case"] for c in ordered
                                  if "strict" in c and not c["strict"]["verdict"].startswith("ok")],
        },
        "cases": ordered,
    }
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(truth, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    s = truth["summary"]
    print(f"\n{s['cases']} cases: {s['clean']} clean, {s['breaking']} breaking, {s['sites']} sites; "
          f"eager failures {len(s['eager_failures'])}, compile failures {len(s['compile_failures'])}, "
          f"strict mismatches {len(s['strict_mismatches'])}; {elapsed:.0f}s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
