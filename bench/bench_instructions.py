#!/usr/bin/env python
"""The workers' analysis in instructions, a ratio against `ast.parse` counted in the same run: a measure of the
engine's cost that the machine's load does not move.

    .venv/bin/python bench/bench_instructions.py                  # every 8th .py file of the installed torch/
    .venv/bin/python bench/bench_instructions.py --step 16        # fewer files, quicker
    .venv/bin/python bench/bench_instructions.py --server DIR     # another checkout's engine (DIR/fullgraph)

Wall-clock ratios (bench_speed.py) are what users feel, but on a shared 2-core machine the same command's time
moves by a tenth or more from one run to the next, which hides a change of a few percent.  Valgrind's
cachegrind (`--cache-sim=no`) counts the instructions a process executes exactly, whatever else runs beside it.
Three counts, each a separate process over the same files (every STEP-th `.py` file of torch/, read before
counting starts): what a worker does per file (`api._analyze_file` and pickling the summary, as
`fullgraph check` workers do), `ast.parse` alone, and the start-up both include (imports, reading the files),
which is subtracted.  Printed: millions of instructions and analysis / parse.  Needs `valgrind` on PATH; each
count runs ~50x slower than natively (about two minutes at --step 8).  Results: bench/results/instructions.json.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from bench_engine import RESULTS, torch_dir  # noqa: E402

SERVER = BENCH.parent / "server"

# the child: `python bench_instructions.py --child MODE TREE STEP SERVER`
_CHILD = r"""
import gc, os, sys
mode, tree, step, server = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, server)
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(tree) for f in fs if f.endswith(".py"))[::step]
import ast
from fullgraph import api, cache  # (in every mode: the start-up subtracted is the same)
from fullgraph.modnames import module_name_for
work = [(p, *module_name_for(p), open(p, "rb").read()) for p in files]
gc.disable()  # (as in the workers)
if mode == "analyse":
    for w in work:
        _, summary, _ = api._analyze_file(w)
        if summary is not None:
            cache.dumps(summary)
elif mode == "parse":
    for w in work:
        try:
            ast.parse(w[3])
        except (SyntaxError, ValueError):
            pass
os._exit(0)
"""


def instructions(args: list[str], what: str) -> int:
    """Instructions the command `args` executes, counted by cachegrind (`what` names it in an error)."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    m = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if m is None:
        sys.exit(f"bench: no instruction count from valgrind ({what}):\n{out.stderr[-2000:]}")
    return int(m.group(1).replace(",", ""))


def count(mode: str, tree: Path, step: int, server: Path) -> int:
    """Instructions the child executes in `mode` ("analyse", "parse", or "start-up" only)."""
    return instructions([sys.executable, "-c", _CHILD, mode, str(tree), str(step), str(server)], mode)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--step", type=int, default=8, help="every STEP-th .py file of the tree (default 8)")
    ap.add_argument("--tree", type=Path, default=None, help="a tree of .py files (default: the installed torch/)")
    ap.add_argument("--server", type=Path, default=SERVER, help="the directory holding the fullgraph package")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench: valgrind is not on PATH (apt-get install valgrind)")
    tree = args.tree or torch_dir()
    counts = {mode: count(mode, tree, args.step, args.server.resolve()) for mode in ("start-up", "parse", "analyse")}
    parse = counts["parse"] - counts["start-up"]
    analyse = counts["analyse"] - counts["start-up"]
    files = len([1 for _, _, fs in os.walk(tree) for f in fs if f.endswith(".py")][::args.step])
    print(f"{files} files (every {args.step}th of {tree}); engine {args.server}")
    print(f"  analysis (parse included, summary pickled): {analyse / 1e6:,.0f} M instructions")
    print(f"  ast.parse alone:                            {parse / 1e6:,.0f} M instructions")
    print(f"  analysis / parse: {analyse / parse:.2f}x")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "instructions.json"
    out.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "tree": str(tree),
                               "step": args.step, "files": files, "server": str(args.server.resolve()),
                               "instructions": {"analysis": analyse, "parse": parse, "start-up": counts["start-up"]},
                               "ratio": round(analyse / parse, 3)}, indent=1))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
