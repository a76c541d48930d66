"""Whole-project benchmark (issue 7): index + check a large installed package tree cold, and re-check
after a one-line edit, each as a ratio to `ruff check` on the same tree measured in the same run.

    .venv/bin/python bench/bench_project.py [--tree DIR] [--reps N]

(1) cold: `fullgraph check TREE` (subprocess, default jobs) / `ruff check --no-cache --select ALL TREE`.
(2) re-check after a one-line edit: the language server's path — a Workspace that has indexed the tree
    gets one file's new text (`set_text`) and recomputes every finding (`findings_for()`), in-process —
    / `ruff check --select ALL TREE` with its cache warm after the same one-line edit on disk (ruff's own
    incremental re-check). The edited file is restored afterwards.
Writes bench/results/project.json.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch  # noqa: F401  (only to locate the installed tree; the analysis never imports it)

from fullgraph.api import Workspace
from fullgraph.config import Config

RUFF = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")


def timed(cmd: list[str], cwd: str | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=str(Path(torch.__file__).parent / "nn"))
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        # a copy, so the one-line edit never touches the installed package
        tree = Path(d) / Path(args.tree).name
        shutil.copytree(args.tree, tree, ignore=shutil.ignore_patterns("__pycache__", "*.pyi"))
        files = sorted(tree.rglob("*.py"))
        lines = sum(p.read_text(errors="replace").count("\n") for p in files)
        ruff_cold = [RUFF, "check", "--select", "ALL", "--no-cache", "--exit-zero", "-q", "--isolated", str(tree)]
        fg_cold = [sys.executable, "-m", "fullgraph", "check", str(tree), "--format", "json", "--exit-zero", "--no-cache"]
        cold = []
        for _ in range(args.reps):
            r = timed(ruff_cold)
            f = timed(fg_cold)
            cold.append((f, r))
        # (2) warm re-check after a one-line edit
        ws = Workspace(Config(project_root=str(tree)))
        t0 = time.perf_counter()
        ws.check([tree], jobs=1)
        index_s = time.perf_counter() - t0
        target = max(files, key=lambda p: p.stat().st_size)
        original = target.read_text()
        cache_dir = Path(d) / "ruff-cache"
        ruff_warm = [RUFF, "check", "--select", "ALL", "--exit-zero", "-q", "--isolated", "--cache-dir", str(cache_dir),
                     str(tree)]
        timed(ruff_warm)  # fill ruff's cache
        warm = []
        for k in range(args.reps):
            edited = original + f"\n# edit {k}\n"
            t0 = time.perf_counter()
            ws.set_text(str(target.resolve()), edited)
            ws.findings_for(fixes=False)
            f = time.perf_counter() - t0
            target.write_text(edited)
            r = timed(ruff_warm)
            warm.append((f, r))
        target.write_text(original)

    def summary(pairs):
        ratios = [f / r for f, r in pairs]
        return {"fullgraph_s": statistics.median(f for f, _ in pairs), "ruff_s": statistics.median(r for _, r in pairs),
                "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios)}

    out = {"tree": args.tree, "files": len(files), "lines": lines, "reps": args.reps, "nproc": os.cpu_count(),
           "cold": summary(cold), "index_in_process_s": index_s, "edited_file": str(target.name), "recheck": summary(warm)}
    print(f"tree {args.tree}: {len(files)} files, {lines} lines, nproc {os.cpu_count()}")
    c, w = out["cold"], out["recheck"]
    print(f"(1) cold check:  fullgraph {c['fullgraph_s']:.2f} s / ruff {c['ruff_s']:.2f} s = "
          f"{c['ratio_median']:.2f}x [{c['ratio_min']:.2f}-{c['ratio_max']:.2f}]")
    print(f"(2) re-check after a one-line edit in {target.name}: fullgraph {w['fullgraph_s'] * 1000:.0f} ms (in-process, "
          f"all findings) / ruff {w['ruff_s'] * 1000:.0f} ms (warm cache) = {w['ratio_median']:.2f}x "
          f"[{w['ratio_min']:.2f}-{w['ratio_max']:.2f}]")
    dest = Path(__file__).parent / "results"
    dest.mkdir(exist_ok=True)
    (dest / "project.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
