"""Record Dynamo's recompiles for every case of the recompile catalog (on demand: minutes, never in CI).

    .venv/bin/python tests/recompiles/collect.py                    # -> tests/recompiles/verdicts-<torch>.json
    V=~/.cache/fullgraph/torch/2.15.0/venv/bin/python
    .venv/bin/python tests/recompiles/collect.py --python $V        # the cases run under torch 2.15.0
    .venv/bin/python tests/recompiles/collect.py --cases bench/modules/recompiles \\
        --out bench/modules/recompiles/truth-2.13.0.json            # the realistic modules
    .venv/bin/python tests/recompiles/collect.py --only scalar_arg  # cases whose name contains this (merged)
    .venv/bin/python tests/recompiles/collect.py --diff tests/recompiles/verdicts-2.13.0.json \
        tests/recompiles/verdicts-2.15.0.json                       # markdown table of the cases that differ

Each case file is run in a fresh subprocess of the given interpreter (`nice -n 10`, OMP_NUM_THREADS=1, one
at a time) by this same file in child mode (`collect.py --child CASE`):

1. **compiled**: `torch._logging.set_logs(recompiles=True)` and a handler on the `torch._dynamo` logger;
   the case is executed with `runpy.run_path` (its `__main__` block does not run) and its `main()` called:
   the case's own `torch.compile` calls, its own loop. Every `Recompiling function ...` message of the
   `recompiles` log is one recompile (one guard failure that made Dynamo compile the frame again; the one
   refused at the limit counts too), with Dynamo's guard-failure text; `torch._dynamo hit config.*_limit`
   means Dynamo gave up and runs the frame eagerly from then on (`hit_limit`). `counters["frames"]` and
   `counters["stats"]["unique_graphs"]` are recorded as well.
2. **eager**: `torch._dynamo.reset()`, `torch.compile` replaced by the identity (and `nn.Module.compile` by a
   no-op), the case executed afresh and `main()` called again; `equal` says whether both runs returned the
   same values (`torch.allclose` over nested lists/tuples/dicts, exact for everything else).

A case's marks are its `# recompile: <kind>` comments (kinds and 1-based lines). A case recompiles when
Dynamo recompiled it at all (`recompiles > 0`); its marks must then be non-empty, and a near-miss (0
recompiles) has none: `tests/test_recompile_catalog.py` checks the committed 2.13 verdicts against the marks.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import glob
import io
import json
import os
import re
import subprocess
import sys
import time
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
MARK = re.compile(r"#\s*recompile:\s*([A-Za-z0-9_-]+)")


# ---- marks (no torch) -------------------------------------------------------------------------------
def marks(path: str) -> list[tuple[int, str]]:
    """The `# recompile: <kind>` comments of a file: (1-based line, kind), in order."""
    with open(path, "rb") as f:
        toks = tokenize.tokenize(io.BytesIO(f.read()).readline)
        return [(t.start[0], m.group(1)) for t in toks
                if t.type == tokenize.COMMENT and (m := MARK.search(t.string))]


def discover(cases_dir: str) -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(cases_dir, "*.py")) if not os.path.basename(p).startswith("_"))


# ---- child: runs one case ---------------------------------------------------------------------------
def _child(case: str) -> None:
    import logging
    import runpy

    import torch
    from torch._dynamo.utils import counters

    records: list[str] = []

    class _Grab(logging.Handler):
        def emit(self, record):
            try:
                records.append(record.getMessage())
            except Exception:  # noqa: BLE001
                pass

    torch._logging.set_logs(recompiles=True)
    logging.getLogger("torch._dynamo").addHandler(_Grab(level=logging.DEBUG))
    out: dict = {"torch": torch.__version__}

    def run():
        ns = runpy.run_path(case, run_name="__recompile_case__")
        return ns["main"]()

    t0 = time.time()
    try:
        compiled = run()
        out["compile_ok"], out["compile_error"] = True, None
    except Exception as e:  # noqa: BLE001
        compiled = None
        out["compile_ok"], out["compile_error"] = False, f"{type(e).__name__}: {e}"[:2000]
    out["seconds_compiled"] = round(time.time() - t0, 2)
    events, limits = [], []
    for msg in records:
        if msg.startswith("Recompiling function"):
            events.append(_event(msg, case))
        elif "torch._dynamo hit config." in msg:
            limits.append(_limit(msg))
    out["events"] = events
    out["limits"] = limits
    out["frames"] = dict(counters["frames"])
    out["unique_graphs"] = counters["stats"].get("unique_graphs", 0)

    # eager: the same file with torch.compile as the identity
    torch._dynamo.reset()
    real_compile, real_mcompile = torch.compile, torch.nn.Module.compile

    def identity(model=None, **_kw):
        if model is None:
            return lambda fn: fn
        return model

    torch.compile = identity
    torch.nn.Module.compile = lambda self, *a, **k: None
    try:
        eager = run()
        out["eager_ok"], out["eager_error"] = True, None
    except Exception as e:  # noqa: BLE001
        eager = None
        out["eager_ok"], out["eager_error"] = False, f"{type(e).__name__}: {e}"[:2000]
    finally:
        torch.compile, torch.nn.Module.compile = real_compile, real_mcompile
    out["equal"] = bool(out["compile_ok"] and out["eager_ok"] and _same(compiled, eager))
    print("@@RESULT@@" + json.dumps(out))


_FILE_LINE = re.compile(r'File "([^"]+)", line (\d+)')


def _event(msg: str, case: str) -> dict:
    """One `Recompiling function F in FILE:LINE` message: the function and the newest cache entry's failure."""
    lines = msg.splitlines()
    head = re.match(r"Recompiling function (\S+) in (.*):(\d+)$", lines[0].strip())
    failures: list[dict] = []
    for ln in lines[1:]:
        s = ln.strip()
        if not s.startswith("- "):
            continue
        s = s[2:]
        fl = _FILE_LINE.search(s)
        if fl and failures:
            if os.path.samefile(fl.group(1), case) if os.path.exists(fl.group(1)) else False:
                failures[-1]["user_lines"].append(int(fl.group(2)))
            continue
        if s.startswith("User stack trace") or s.startswith("  ") or not re.match(r"\d+/\d+: ", s):
            continue
        entry, _, text = s.partition(": ")
        failures.append({"entry": entry, "text": _norm(text), "user_lines": []})
    first = failures[0] if failures else {"entry": None, "text": "", "user_lines": []}
    return {
        "function": head.group(1) if head else lines[0],
        "in_case": bool(head) and os.path.exists(head.group(2)) and os.path.samefile(head.group(2), case),
        "first_line": int(head.group(3)) if head else None,
        "reason": first["text"],
        "reason_lines": sorted(set(first["user_lines"])),
        "failed_entries": len(failures),
    }


def _limit(msg: str) -> dict:
    m = re.search(r"hit config\.(\w+) \((\d+)\)", msg)
    fn = re.search(r"function: '([^']+)'", msg)
    return {"limit": m.group(1) if m else None, "value": int(m.group(2)) if m else None,
            "function": fn.group(1) if fn else None}


def _norm(text: str) -> str:
    """A guard-failure text without the file path and the column padding Dynamo adds before the comment."""
    text = re.sub(r"\s{2,}#", "  #", text)
    text = re.sub(r"\bid=0x[0-9a-f]+", "id=0x...", text)
    return re.sub(r"  # \S*?(\w+\.py):(\d+) in ", r"  # \1:\2 in ", text)


def _same(a, b) -> bool:
    import torch
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
            return False
        if a.is_floating_point() or a.is_complex():
            return bool(torch.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True))
        return bool(torch.equal(a, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b))
    return a == b


# ---- diff of two collections -----------------------------------------------------------------------
def _short(c: dict) -> str:
    if not c["recompiling"]:
        return "0"
    return f"{c['recompiles']}" + (" (limit)" if c["hit_limit"] else "")


def diff_table(a_path: str, b_path: str) -> str:
    """Markdown rows for the cases whose recompile count, limit or reasons differ between two collections."""
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    av, bv = ({c["case"]: c for c in d["cases"]} for d in (a, b))
    ta, tb = a["torch_version"].split("+")[0], b["torch_version"].split("+")[0]
    rows = [f"| case | marks | {ta} | {tb} | what changed |", "|---|---|---|---|---|"]
    for k in sorted(set(av) | set(bv)):
        x, y = av.get(k), bv.get(k)
        if x is None or y is None:
            rows.append(f"| {k} | | {_short(x) if x else '-'} | {_short(y) if y else '-'} | only in one |")
            continue
        what = []
        if (x["recompiles"], x["hit_limit"]) != (y["recompiles"], y["hit_limit"]):
            what.append("count")
        if [_strip(r) for r in x["reasons"][:1]] != [_strip(r) for r in y["reasons"][:1]]:
            what.append(f"first reason: `{_strip(y['reasons'][0]) if y['reasons'] else '-'}`")
        if x["unique_graphs"] != y["unique_graphs"]:
            what.append(f"graphs compiled {x['unique_graphs']} -> {y['unique_graphs']}")
        if x["equal"] != y["equal"]:
            what.append(f"equal {x['equal']} -> {y['equal']}")
        if what:
            rows.append(f"| {k} | {', '.join(x['kinds']) or '-'} | {_short(x)} | {_short(y)} | {'; '.join(what)} |")
    return "\n".join(rows) if len(rows) > 2 else "(no differences)"


def _strip(reason: str) -> str:
    """A reason's guard without the source comment, for comparing releases."""
    return reason.split("  #")[0].replace("|", "\\|")


# ---- parent -----------------------------------------------------------------------------------------
def run_case(python: str, path: str, timeout: float) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TORCHINDUCTOR_COMPILE_THREADS="1")
    env.pop("TORCH_LOGS", None)
    t0 = time.time()
    try:
        p = subprocess.run(["nice", "-n", "10", python, os.path.abspath(__file__), "--child", path],
                           capture_output=True, text=True, timeout=timeout, env=env, cwd=os.path.dirname(path))
        stdout, stderr, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        stdout, stderr, rc = "", "timeout", -1
    res = None
    for ln in stdout.splitlines():
        if ln.startswith("@@RESULT@@"):
            res = json.loads(ln[len("@@RESULT@@"):])
    if res is None:
        res = {"compile_ok": False, "compile_error": f"child failed (rc={rc}): {stderr[-1500:]}", "events": [],
               "limits": [], "frames": {}, "unique_graphs": 0, "eager_ok": False, "equal": False}
    res["seconds"] = round(time.time() - t0, 1)
    return res


def verdict(path: str, res: dict, cases_dir: str) -> dict:
    mk = marks(path)
    events = res.get("events", [])
    reasons: list[str] = []
    for e in events:
        if e["reason"] and e["reason"] not in reasons:
            reasons.append(e["reason"])
    return {
        "case": os.path.relpath(path, cases_dir),
        "kinds": sorted({k for _, k in mk}),
        "lines": [ln for ln, _ in mk],
        "marks": [{"line": ln, "kind": k} for ln, k in mk],
        "recompiling": len(events) > 0,
        "recompiles": len(events),
        "hit_limit": bool(res.get("limits")),
        "limits": res.get("limits", []),
        "reasons": reasons,
        "recompiled_functions": sorted({e["function"] for e in events}),
        "events": [{k: e[k] for k in ("function", "first_line", "reason", "reason_lines")} for e in events],
        "frames": res.get("frames", {}),
        "unique_graphs": res.get("unique_graphs", 0),
        "compile_ok": res.get("compile_ok"),
        "compile_error": res.get("compile_error"),
        "eager_ok": res.get("eager_ok"),
        "eager_error": res.get("eager_error"),
        "equal": res.get("equal"),
        "seconds": res.get("seconds"),
    }


def _git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True).stdout.strip() or None
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter whose torch runs the cases")
    ap.add_argument("--cases", default=CASES, help="folder of case files (default: tests/recompiles/cases)")
    ap.add_argument("--out", help="JSON file (default: verdicts-<torch version>.json next to this file)")
    ap.add_argument("--only", nargs="*", help="only cases whose file name contains one of these; merged into --out")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--diff", nargs=2, metavar=("OLD", "NEW"), help="print the cases that differ between two JSON files")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.diff:
        print(diff_table(*a.diff))
        return 0
    if a.child:
        _child(os.path.abspath(a.child))
        return 0
    cases_dir = os.path.abspath(a.cases)
    tv = subprocess.run([a.python, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                        text=True, env=dict(os.environ, OMP_NUM_THREADS="1")).stdout.strip()
    release = tv.split("+")[0]
    out = a.out or os.path.join(HERE, f"verdicts-{release}.json")
    paths = discover(cases_dir)
    if a.only:
        paths = [p for p in paths if any(s in os.path.basename(p) for s in a.only)]
    old = {}
    if a.only and os.path.exists(out):
        with open(out) as f:
            old = {c["case"]: c for c in json.load(f)["cases"]}
    t0 = time.time()
    for i, p in enumerate(paths, 1):
        v = verdict(p, run_case(a.python, p, a.timeout), cases_dir)
        old[v["case"]] = v
        flag = "" if (v["recompiling"] == bool(v["kinds"])) else "   <-- marks disagree"
        err = "" if v["compile_ok"] and v["eager_ok"] else f"  ERROR {v['compile_error'] or v['eager_error']}"[:200]
        print(f"[{i}/{len(paths)}] {v['case']}: recompiles={v['recompiles']} limit={v['hit_limit']} "
              f"equal={v['equal']} marks={v['kinds']} ({v['seconds']}s){flag}{err}", flush=True)
    cases = [old[k] for k in sorted(old)]
    doc = {
        "version": 1,
        "torch_version": tv,
        "python": subprocess.run([a.python, "-c", "import platform; print(platform.python_version())"],
                                 capture_output=True, text=True).stdout.strip(),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": _git_commit(),
        "collect_seconds": round(time.time() - t0, 1),
        "summary": {
            "cases": len(cases),
            "recompiling": sum(c["recompiling"] for c in cases),
            "near_miss": sum(not c["recompiling"] for c in cases),
            "hit_limit": sum(c["hit_limit"] for c in cases),
            "errors": [c["case"] for c in cases if not (c["compile_ok"] and c["eager_ok"])],
            "unequal": [c["case"] for c in cases if c["compile_ok"] and c["eager_ok"] and not c["equal"]],
            "marks_disagree": [c["case"] for c in cases if c["recompiling"] != bool(c["kinds"])],
        },
        "cases": cases,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {out}: {doc['summary']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
