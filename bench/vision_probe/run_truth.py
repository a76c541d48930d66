"""Dynamo's truth: each model's scripts under `fullgraph trace` (torch.compile(model, backend="eager"),
fullgraph=False, so every break is seen), one process at a time; breaks merged per site (gb_type + the
statement of the innermost frame inside the model's library) -> truth.json.

Run with the torch 2.14.1 venv (torchvision/timm installed there), from this folder:
    OMP_NUM_THREADS=1 nice -n 10 ~/.cache/fullgraph/torch/2.14.1/venv/bin/python run_truth.py [name ...]
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time

from models import MODELS, script_text

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "..", "..", "server")
PY = sys.executable
SITE = os.path.realpath(os.path.join(os.path.dirname(os.path.dirname(__import__("torch").__file__))))
_stmts: dict[str, list[tuple[int, int]]] = {}


def statement(path: str, line: int) -> tuple[int, int]:
    """The innermost statement spanning `line` (first and last line)."""
    if path not in _stmts:
        try:
            tree = ast.parse(open(path).read())
            _stmts[path] = [(n.lineno, n.end_lineno) for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        except (OSError, SyntaxError):
            _stmts[path] = []
    spans = [(a, b) for a, b in _stmts[path] if a <= line <= b]
    return min(spans, key=lambda s: s[1] - s[0]) if spans else (line, line)


def rel(path: str) -> str:
    p = os.path.realpath(path)
    return os.path.relpath(p, SITE) if p.startswith(SITE + os.sep) else os.path.relpath(p, HERE)


def run_one(name: str, lib: str, mode: str) -> dict:
    script = os.path.join(HERE, "scripts", f"{name}_{mode}.py")
    record = os.path.join(HERE, "work", f"{name}_{mode}.json")
    with open(script, "w") as fh:
        fh.write(script_text(name, mode))
    if os.path.exists(record):
        os.unlink(record)
    env = dict(os.environ, PYTHONPATH=SERVER, OMP_NUM_THREADS="1", HF_HUB_OFFLINE="1")
    t0 = time.perf_counter()
    p = subprocess.run([PY, "-m", "fullgraph", "trace", "--out", record, "--", PY, script],
                       cwd=os.path.join(HERE, "scripts"), env=env, capture_output=True, text=True, timeout=900)
    secs = time.perf_counter() - t0
    ok = f"OK {mode}" in p.stdout
    libdir = os.path.join(SITE, lib)
    sites: dict[tuple, dict] = {}
    rec = json.load(open(record)) if os.path.exists(record) else {"breaks": []}
    for b in rec.get("breaks", []):
        st = b.get("stack") or []
        libf = [f for f in st if os.path.realpath(f["path"]).startswith(libdir + os.sep)]
        f = libf[-1] if libf else (st[-1] if st else {"path": b.get("path") or "?", "line": b.get("line") or 0,
                                                          "function": "?"})
        a, e = statement(os.path.realpath(f["path"]), f["line"])
        key = (b.get("gb_type"), rel(f["path"]), a)
        if key in sites:
            sites[key]["count"] += 1
            continue
        sites[key] = {"gb_type": b.get("gb_type"), "gb_code": b.get("gb_code"), "path": rel(f["path"]),
                      "line": f["line"], "stmt": [a, e], "function": f.get("function"), "count": 1,
                      "explanation": ((b.get("explanation") or "").strip().splitlines() or [""])[0][:200],
                      "stack": [f"{rel(x['path'])}:{x['line']} {x.get('function')}" for x in st]}
    out = {"library": lib, "ok": ok, "exit": p.returncode, "seconds": round(secs, 1),
           "events": len(rec.get("breaks", [])), "sites": sorted(sites.values(), key=lambda s: (s["path"], s["stmt"]))}
    if not ok:
        out["error"] = (p.stderr.strip().splitlines() or ["?"])[-1][:300]
    return out


def main() -> None:
    want = set(sys.argv[1:])
    os.makedirs(os.path.join(HERE, "scripts"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "work"), exist_ok=True)
    path = os.path.join(HERE, "truth.json")
    truth = json.load(open(path)) if os.path.exists(path) else {"runs": {}}
    import timm
    import torch
    import torchvision
    truth["versions"] = {"torch": torch.__version__, "timm": timm.__version__, "torchvision": torchvision.__version__}
    for name, lib, _, _ in MODELS:
        if want and name not in want:
            continue
        for mode in ("eval", "train"):
            r = run_one(name, lib, mode)
            truth["runs"][f"{name}/{mode}"] = r
            print(f"{name}/{mode}: {'ok' if r['ok'] else 'FAILED ' + r.get('error', '')} {len(r['sites'])} sites "
                  f"{r['events']} events {r['seconds']} s", flush=True)
            truth["runs"] = dict(sorted(truth["runs"].items()))
            with open(path, "w") as fh:
                json.dump(truth, fh, indent=1)


if __name__ == "__main__":
    main()
