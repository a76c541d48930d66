"""Record Dynamo's verdict on every case of bench/modules/cases (on demand: minutes, never in CI).

    .venv/bin/python bench/modules/collect.py                 # all cases -> bench/modules/truth.json
    .venv/bin/python bench/modules/collect.py --only beam     # cases whose path contains "beam" (merged into truth.json)
    .venv/bin/python bench/modules/collect.py --native        # also run each case under the author's real backend

For each case (one subprocess per run, one at a time, `nice -n 10`, OMP_NUM_THREADS=1):

1. **eager**: torch.compile replaced by identity (`runner.py eager`): main() must succeed.
2. **collect**: `fullgraph trace --out REC -- python runner.py collect CASE`: the project's capture hook
   records every graph-break event Dynamo reports with its user stack.  Every torch.compile gets
   backend="eager" and fullgraph=False, so Dynamo resumes after each break; roots their author compiled
   with fullgraph=True are traced with capture_scalar_outputs / capture_dynamic_output_shape_ops on
   (what fullgraph=True implies on torch 2.13), so `.item()` and dynamic-shape ops are not breaks there.
3. **strict** (cases with a fullgraph=True root): only backend="eager" is forced; the first break must
   raise at one of the sites recorded in 2 (and a fullgraph=True root with no recorded site must not raise).

A truth site is the innermost frame of a break's stack that lies in a case file; its statement range is
the enclosing simple statement, or the header of a compound statement (`if`, `for`, `with`, ...).
"""
from __future__ import annotations

import argparse
import ast
import datetime as _dt
import json
import os
import platform
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


def function_span(path: str, line: int) -> tuple[int, int] | None:
    """(first, last) line of the innermost function whose body contains `line`."""
    tree = _tree(path)
    if tree is None:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and \
                node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best.lineno:
                best = node
    return (best.lineno, best.end_lineno or best.lineno) if best is not None else None


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
             save_result: str | None = None, python: str = PYTHON) -> tuple[dict, dict | None, float]:
    """Run runner.py MODE on one case. Returns (runner record, trace record or None, seconds)."""
    out = os.path.join(tmp, f"{mode}.json")
    rec_path = os.path.join(tmp, f"{mode}.trace.json")
    for p in (out, rec_path):
        if os.path.exists(p):
            os.remove(p)
    cmd = [python, RUNNER, mode, case_path, out]
    if save_result:
        cmd += ["--save-result", save_result]
    if trace:
        cmd = [FULLGRAPH, "trace", "--out", rec_path, "--"] + cmd
    cmd = ["nice", "-n", "10"] + cmd
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, cwd=tmp, env=_env(), capture_output=True, text=True, timeout=timeout)
        stderr = proc.stderr
    except subprocess.TimeoutExpired as e:
        stderr = f"timeout after {timeout}s\n" + (e.stderr or "" if isinstance(e.stderr, str) else "")
    dt = time.time() - t0
    try:
        with open(out, encoding="utf-8") as fh:
            runner = json.load(fh)
    except (OSError, ValueError):
        runner = {"ok": False, "error": "runner wrote no record", "error_type": "NoRecord",
                  "stderr": stderr[-4000:], "roots": []}
    record = None
    if trace:
        try:
            with open(rec_path, encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            record = None
    return runner, record, dt


# ---- from a trace record to truth sites ----------------------------------------------------------------
def _under(path: str, root: str) -> bool:
    rp = os.path.realpath(path)
    return rp.startswith(os.path.realpath(root) + os.sep)


def _root_flag(brk: dict, roots: list[dict]) -> bool | None:
    r = brk.get("root") or {}
    rp = os.path.realpath(r["path"]) if r.get("path") else None
    hits = [x for x in roots if x.get("file") == rp and x.get("name") == r.get("function")]
    flags = {bool(x.get("fullgraph")) for x in hits}
    if len(flags) == 1:
        return flags.pop()
    flags = {bool(x.get("fullgraph")) for x in roots}
    if len(flags) == 1:  # one flag for every torch.compile of the case
        return flags.pop()
    return True if True in flags and hits else None


def sites_from_record(record: dict | None, roots: list[dict], cases_dir: str) -> tuple[list[dict], list[dict], list[dict]]:
    """(sites, unattributed breaks, unobserved regions). One site per (file, statement range); events merged."""
    sites: dict[tuple, dict] = {}
    loose = []
    unobserved: list[dict] = []
    for b in (record or {}).get("breaks", []):
        stack = b.get("stack") or []
        inner = None
        for fr in reversed(stack):
            if fr.get("path") and _under(fr["path"], cases_dir):
                inner = fr
                break
        if inner is None and b.get("path") and _under(b["path"], cases_dir):
            inner = {"path": b["path"], "line": b["line"], "function": ""}
        explanation = b.get("explanation") or ""
        event = {
            "gb_type": b.get("gb_type"),
            "gb_code": b.get("gb_code"),
            "exc_class": b.get("exc_class"),
            "reason": explanation[:600],
            "count": b.get("count", 1),
            "root_fullgraph": _root_flag(b, roots),
            "root": ({"file": os.path.relpath(os.path.realpath(b["root"]["path"]), cases_dir)
                      if _under(b["root"]["path"], cases_dir) else b["root"]["path"],
                      "function": b["root"].get("function"), "line": b["root"].get("line")}
                     if b.get("root") else None),
            "skips_frame": any(m in explanation for m in SKIP_MARKS),
            "innermost": f"{os.path.basename(b.get('path', ''))}:{b.get('line')}",
            "stack": [f"{os.path.relpath(os.path.realpath(fr['path']), cases_dir)}:{fr['line']}:{fr.get('function', '')}"
                      for fr in stack if fr.get("path") and _under(fr["path"], cases_dir)],
        }
        if inner is None:
            loose.append(event)
            continue
        if event["skips_frame"]:
            # Dynamo ran the rest of the skipped frame in eager: code after the break in the frames of the
            # stack (from the compiled root down) was never traced, so breaks there cannot be observed.
            case_frames = [fr for fr in stack if fr.get("path") and _under(fr["path"], cases_dir)]
            root_fn = (b.get("root") or {}).get("function")
            idx = next((i for i, fr in enumerate(case_frames) if fr.get("function") == root_fn), 0)
            for fr in case_frames[idx:]:
                fpath = os.path.realpath(fr["path"])
                span = function_span(fpath, int(fr["line"]))
                if span is None:
                    continue
                _, stmt_end = statement_range(fpath, int(fr["line"]))
                if stmt_end < span[1]:
                    region = {"file": os.path.relpath(fpath, cases_dir), "start": stmt_end + 1, "end": span[1],
                              "function": fr.get("function", "")}
                    if region not in unobserved:
                        unobserved.append(region)
        path = os.path.realpath(inner["path"])
        rel = os.path.relpath(path, cases_dir)
        start, end = statement_range(path, int(inner["line"]))
        key = (rel, start, end)
        site = sites.get(key)
        if site is None:
            site = sites[key] = {"file": rel, "line": int(inner["line"]), "start": start, "end": end,
                                 "function": inner.get("function", ""), "text": line_text(path, int(inner["line"])),
                                 "gb_types": [], "root_fullgraph": [], "skips_frame": False, "events": []}
        site["line"] = min(site["line"], int(inner["line"]))
        if event["gb_type"] not in site["gb_types"]:
            site["gb_types"].append(event["gb_type"])
        if event["root_fullgraph"] not in site["root_fullgraph"]:
            site["root_fullgraph"].append(event["root_fullgraph"])
        site["skips_frame"] = site["skips_frame"] or event["skips_frame"]
        site["events"].append(event)
    out = sorted(sites.values(), key=lambda s: (s["file"], s["start"]))
    return out, loose, sorted(unobserved, key=lambda r: (r["file"], r["start"]))


def strict_site(record: dict | None, cases_dir: str) -> dict | None:
    """Where the fullgraph=True run raised: the innermost case frame of its (first) break."""
    for b in (record or {}).get("breaks", []):
        for fr in reversed(b.get("stack") or []):
            if fr.get("path") and _under(fr["path"], cases_dir):
                path = os.path.realpath(fr["path"])
                return {"file": os.path.relpath(path, cases_dir), "line": int(fr["line"]), "gb_type": b.get("gb_type")}
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

        coll, record, t_coll = run_mode("collect", path, tmp, trace=True)
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
        sites, loose, unobserved = sites_from_record(record, roots, cases_dir)
        entry["sites"] = sites
        entry["unattributed"] = loose
        entry["unobserved"] = unobserved
        entry["breaks"] = len(sites)
        entry["clean"] = not sites and not loose
        entry["trace_ok"] = record is not None
        entry["seconds"] = {"eager": round(t_eager, 1), "collect": round(t_coll, 1)}

        if any(r["fullgraph"] for r in dedup):
            strict, srec, t_strict = run_mode("strict", path, tmp, trace=True)
            entry["seconds"]["strict"] = round(t_strict, 1)
            raised = strict_site(srec, cases_dir) if not strict.get("ok") else None
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--out", default=TRUTH)
    ap.add_argument("--only", nargs="*", help="substrings of case paths; other cases keep their entry in --out")
    ap.add_argument("--native", action="store_true", help="also run each case with its real backend (slow)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    cases_dir = os.path.abspath(args.cases)
    cases = discover(cases_dir)
    if args.only:
        cases = [c for c in cases if any(s in c for s in args.only)]
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
