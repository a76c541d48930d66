#!/usr/bin/env python
"""Every ratio of issue 17 (speed) in one run, with the machine's load.

    .venv/bin/python bench/bench_speed.py                 # all parts, 5 repetitions each
    .venv/bin/python bench/bench_speed.py --only cold,warm --reps 7
    .venv/bin/python bench/bench_speed.py --quick         # a smoke run: torch/nn, 3 reps, 5 edits at 2,000 lines

Parts (each a ratio measured in this run, the two commands alternating, the order rotating every
repetition; median and [min-max] over the repetitions; see bench/README.md):

  editor  didChange -> publishDiagnostics of the real `fullgraph lsp` on generated 2,000- and 7,000-line
          model files / `ast.parse` of the same text (bench/lsp_latency.py's driver); median and p95
          over the edits, and min-max of the per-edit ratios.  Goal: median <= 2x, p95 <= 3x.  Twice
          per size: "typing" (a character at the end of a random line: the text keeps its lines) and
          "with Enter" (every 8th keystroke a new line instead: every line below it moves).
  cold    `fullgraph check TREE --format json` with an empty cache (it writes the cache), and with
          `--no-cache`, / `ruff check --select ALL --no-cache`.  Goal <= 1.5x.
  warm    `fullgraph check` again on the unchanged tree (every summary from the cache) / ruff's warm
          run (`--select ALL` with its cache, warmed once).  Goal <= 1x.
  edit    one line changed in torch/nn/modules/module.py before each repetition, then both warm
          runs (each re-analyses what changed since its own last run) / ruff warm.  Goal <= 1x.

TREE is a copy of the installed torch/ (its .py files) in a temporary directory, so that the edit part
can change it; both tools check the same copy.  fullgraph's runs import bytecode written by an unmeasured run
first (as an installed fullgraph's are compiled), in the same directory, even where PYTHONDONTWRITEBYTECODE
is set.  For the warm and edit parts fullgraph's JSON is compared
with the cold run's (with the edit: with a `--no-cache` run of the edited tree): the cache must not
change a byte.  Results: bench/results/speed.json.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from bench_engine import (  # noqa: E402
    RESULTS, VENV_BIN, _children_cpu, _version_of, fmt_ratio, ruff_exe, summarize, table, torch_dir,
)

EDITED = "nn/modules/module.py"
ENTER_EVERY = 8  # "with Enter": every 8th keystroke a new line (a line of code typed, then Enter)
GOALS = {"editor": 2.0, "editor p95": 3.0, "cold": 1.5, "warm": 1.0, "edit": 1.0}


def load() -> tuple[float, float, float]:
    return tuple(round(x, 2) for x in os.getloadavg())


# Where the runs keep Python's bytecode (set by main, in the benchmark's temporary directory): an installed
# fullgraph has its modules compiled (pip compiles them), so each run here imports bytecode too, even where
# PYTHONDONTWRITEBYTECODE is set (it is on the machines of record); without it every run compiled fullgraph's
# ~70 modules again, a quarter of a second of start-up no user pays (bench_pytest_plugin.py does the same).
PYCACHE: list[str] = []


def run(cmd: list[str], env: dict, out: Path | None = None, ok=(0, 1)) -> tuple[float, float]:
    """(wall, CPU) seconds of one subprocess run; stdout to `out` (or discarded)."""
    env = dict(os.environ, NO_COLOR="1", **env)
    if PYCACHE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE[0]
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    c0 = _children_cpu()
    t0 = time.perf_counter()
    with open(out, "wb") if out else open(os.devnull, "wb") as fh:
        p = subprocess.run(cmd, check=False, env=env, stdout=fh, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if p.returncode not in ok:
        sys.exit(f"bench: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-3000:]}")
    return dt, _children_cpu() - c0


def paired(ref, subjects, reps: int, before=None) -> dict:
    """`before()` (if any) once per repetition, then the reference and each subject in an order
    rotating every repetition; ratios per repetition."""
    runs = [ref, *subjects]
    wall = {n: [] for n, _ in runs}
    cpu = {n: [] for n, _ in runs}
    loads = [load()]
    for i in range(reps):
        if before is not None:
            before(i)
        k = i % len(runs)
        for name, fn in runs[k:] + runs[:k]:
            w, c = fn(i)
            wall[name].append(w)
            cpu[name].append(c)
        loads.append(load())
        print(f"    rep {i + 1}: " + ", ".join(f"{n} {wall[n][-1]:.2f} s" for n, _ in runs) + f"  (load {loads[-1][0]})",
              file=sys.stderr)
    r = ref[0]
    return {"reference": r, "reps": reps, "load_1min": [x[0] for x in loads],
            "seconds": {n: summarize(ts) for n, ts in wall.items()},
            "cpu_seconds": {n: summarize(ts) for n, ts in cpu.items()},
            "ratios": {n: summarize([s / q for s, q in zip(wall[n], wall[r])]) for n, _ in subjects},
            "cpu_ratios": {n: summarize([s / q for s, q in zip(cpu[n], cpu[r])]) for n, _ in subjects}}


def copy_tree(src: Path, dest: Path) -> Path:
    """The .py files of src (torch/) under dest/torch, so module names stay torch.*."""
    out = dest / src.name
    shutil.copytree(src, out, ignore=lambda d, names: [n for n in names if not (n.endswith(".py") or
                                                                                os.path.isdir(os.path.join(d, n)))
                                                       or n == "__pycache__"])
    return out


class Tree:
    def __init__(self, tree: Path, work: Path):
        self.tree = tree
        self.work = work
        self.fg = str(VENV_BIN / "fullgraph")
        self.ruff = [str(ruff_exe()), "check", "--select", "ALL", "--exit-zero", "-q", "--isolated",
                     "--extend-exclude", "*.pyi"]
        self.cache = work / "fg-cache"  # the warm cache
        self.ruff_cache = work / "ruff-cache"
        self.edited = tree / EDITED
        self.original = self.edited.read_bytes() if self.edited.exists() else None

    def fullgraph(self, cache_dir: Path | str, out: Path | None = None, *extra: str) -> tuple[float, float]:
        return run([self.fg, "check", str(self.tree), "--format", "json", *extra],
                   {"FULLGRAPH_CACHE_DIR": str(cache_dir)}, out)

    def ruff_cold(self, _i=0):
        return run([*self.ruff, "--no-cache", str(self.tree)], {})

    def ruff_warm(self, _i=0):
        return run([*self.ruff, "--cache-dir", str(self.ruff_cache), str(self.tree)], {})

    def edit(self, i: int) -> None:
        self.edited.write_bytes(self.original + f"_fullgraph_bench_edit = {i}\n".encode())


def identical(a: Path, b: Path) -> bool:
    return a.read_bytes() == b.read_bytes()


def part_cold(t: Tree, reps: int) -> dict:
    # Each repetition writes a new cache directory, and they are all deleted after the part: on ext4 the
    # inode allocator steps over inodes deleted in the last minute or more (ialloc.c, recently_deleted),
    # which cost a run writing 2,285 entries 2.5 s of kernel time (against 1 s) when the previous
    # repetition's entries had just been deleted -- a cost of the benchmark's clean-up (and of a check
    # right after `fullgraph clean`), not of a first run.
    dirs = []

    def cold(i):
        dirs.append(t.work / f"cold-cache-{i}")
        return t.fullgraph(dirs[-1], t.work / "cold.json")

    try:
        res = paired(("ruff --no-cache", t.ruff_cold),
                     [("fullgraph, empty cache", cold),
                      ("fullgraph --no-cache", lambda i: t.fullgraph("off", t.work / "nocache.json", "--no-cache"))],
                     reps)
    finally:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
    res["same_output"] = identical(t.work / "cold.json", t.work / "nocache.json")
    return res


def part_warm(t: Tree, reps: int) -> dict:
    t.edited.write_bytes(t.original)
    t.fullgraph(t.cache, t.work / "ref.json", "--no-cache")  # the reference output
    t.fullgraph(t.cache)  # fills the cache
    t.ruff_warm()  # fills ruff's
    res = paired(("ruff warm", t.ruff_warm), [("fullgraph warm", lambda i: t.fullgraph(t.cache, t.work / "warm.json"))],
                 reps)
    res["same_output"] = identical(t.work / "ref.json", t.work / "warm.json")
    return res


def part_edit(t: Tree, reps: int) -> dict:
    t.fullgraph(t.cache)
    t.ruff_warm()
    res = paired(("ruff warm", t.ruff_warm),
                 [("fullgraph warm after the edit", lambda i: t.fullgraph(t.cache, t.work / "edit.json"))],
                 reps, before=t.edit)
    t.fullgraph("off", t.work / "edit-ref.json", "--no-cache")  # the last edit, analysed afresh
    res["same_output"] = identical(t.work / "edit-ref.json", t.work / "edit.json")
    res["edited"] = EDITED
    t.edited.write_bytes(t.original)
    return res


def part_editor(edits: int, sizes: list[int]) -> dict:
    import lsp_latency

    out = {}
    with tempfile.TemporaryDirectory(prefix="fg-bench-editor-") as d:
        os.environ["FULLGRAPH_CACHE_DIR"] = str(Path(d) / "cache")  # the server's index: not the user's cache
        for n in sizes:
            sub = Path(d) / f"lat{n}"
            for name in ("typing", "with_Enter"):
                (sub / name).mkdir(parents=True)
            for name, every in (("typing", 0), ("with Enter", ENTER_EVERY)):
                before = load()
                r = asyncio.run(lsp_latency.latency(n, edits, sub / name.replace(" ", "_"), enter_every=every))
                r["load_1min"] = [before[0], load()[0]]
                r["keystrokes"] = name
                out[f"{n} lines, {name}"] = r
                print(f"  editor {r['lines']} lines, {name}: median {r['median_ratio']:.2f}x, p95 "
                      f"{r['p95_ratio']:.2f}x (load {before[0]})", file=sys.stderr)
    return out


def report(res: dict) -> None:
    print(f"\nbench_speed  {res['when']}  commit {res['commit']}  nproc {res['nproc']}  "
          f"load (1/5/15 min) at start {res['load_start']}, at end {res['load_end']}")
    if "tree" in res:
        print(f"tree: copy of torch/ ({res['tree']['files']} .py files, {res['tree']['lines']} lines); "
              f"ruff {res['ruff']}")
    rows = []
    if "editor" in res:
        for k, r in res["editor"].items():
            enter = f"; Enter alone {r['enter_median_ratio']:.2f}x, max {r['enter_max_ratio']:.2f}x" if "enters" in r else ""
            rows.append([f"editor: didChange->diagnostics / ast.parse, {r['lines']} lines, "
                         f"{r.get('keystrokes', 'typing')} ({r['edits']} keystrokes)",
                         f"{r['median_ratio']:.2f}x [{r['min_ratio']:.2f}-{r['max_ratio']:.2f}], "
                         f"p95 {r['p95_ratio']:.2f}x{enter}",
                         f"{r['median_ms']:.0f} ms vs {r['ast_parse_ms']:.0f} ms",
                         f"{r['load_1min'][0]}-{r['load_1min'][1]}",
                         "ok" if r["median_ratio"] <= GOALS["editor"] and r["p95_ratio"] <= GOALS["editor p95"]
                         else "MISS", ""])
    for part, goal in (("cold", GOALS["cold"]), ("warm", GOALS["warm"]), ("edit", GOALS["edit"])):
        r = res.get(part)
        if r is None:
            continue
        ref = r["reference"]
        for name, ratio in r["ratios"].items():
            s = r["seconds"]
            rows.append([f"{part}: {name} / {ref}", fmt_ratio(ratio) + f" (CPU {fmt_ratio(r['cpu_ratios'][name])})",
                         f"{s[name]['median']:.2f} s vs {s[ref]['median']:.2f} s",
                         f"{min(r['load_1min'])}-{max(r['load_1min'])}",
                         ("ok" if ratio["median"] <= goal else "MISS") + f" (<= {goal}x)",
                         {True: "yes", False: "NO", None: ""}[r.get("same_output")]])
    print(table(["measurement", "ratio median [min-max]", "medians", "load", "goal", "same JSON"], rows))
    print("  (editor: ratios of the medians over the edits, [min-max] of the per-edit ratios; others: per "
          "repetition, the two commands alternating)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="editor,cold,warm,edit", help="comma-separated parts")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--edits", type=int, default=60, help="keystrokes per editor file")
    ap.add_argument("--lines", default=None, help="editor: sizes of the generated files (default 2000,7000; "
                                                  "--quick: 2000)")
    ap.add_argument("--tree", type=Path, help="tree to copy (default: the installed torch/)")
    ap.add_argument("--quick", action="store_true", help="torch/nn, 3 repetitions, 5 edits of a 2,000-line file")
    ap.add_argument("--out", type=Path, default=RESULTS / "speed.json")
    args = ap.parse_args(argv)
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    if args.quick:
        args.reps, args.edits = 3, 5
    lines = [int(x) for x in (args.lines or ("2000" if args.quick else "2000,7000")).split(",")]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=BENCH, capture_output=True, text=True).stdout.strip()
    res = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit, "nproc": os.cpu_count(),
           "python": platform.python_version(), "load_start": load()}
    if "editor" in parts:
        print("bench: editor ...", file=sys.stderr)
        res["editor"] = part_editor(args.edits, lines)
    tree_parts = parts & {"cold", "warm", "edit"}
    if tree_parts:
        src = args.tree or torch_dir()
        with tempfile.TemporaryDirectory(prefix="fg-bench-speed-") as d:
            work = Path(d)
            tree = copy_tree(src, work / "tree")
            if args.quick and args.tree is None:
                keep = tree / "nn"
                for p in tree.iterdir():
                    if p != keep and p.name != "__init__.py":
                        shutil.rmtree(p) if p.is_dir() else p.unlink()
            files = sorted(tree.rglob("*.py"))
            res["tree"] = {"source": str(src), "files": len(files),
                           "lines": sum(p.read_bytes().count(b"\n") for p in files)}
            res["ruff"] = _version_of([str(ruff_exe()), "--version"])
            t = Tree(tree, work)
            PYCACHE[:] = [str(work / "pycache")]
            # (a run before any is measured writes the bytecode: fullgraph's, the standard library's, libcst's)
            t.fullgraph("off", None, "--no-cache")
            for part, fn in (("cold", part_cold), ("warm", part_warm), ("edit", part_edit)):
                if part in parts:
                    if part == "edit" and t.original is None:
                        print(f"bench: no {EDITED} in the tree: edit part skipped", file=sys.stderr)
                        continue
                    print(f"bench: {part} ...", file=sys.stderr)
                    res[part] = fn(t, args.reps)
    res["load_end"] = load()
    report(res)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2))
    print(f"\nwritten: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
