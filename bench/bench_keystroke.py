#!/usr/bin/env python
"""The language server's work per keystroke in instructions, a ratio against `ast.parse` of the same texts counted
in the same run: the editor part of bench_speed.py without the machine's load.

    .venv/bin/python bench/bench_keystroke.py                      # 2,000 lines, 10 keystrokes of each kind
    .venv/bin/python bench/bench_keystroke.py --lines 7000 --keys 6
    .venv/bin/python bench/bench_keystroke.py --server DIR         # another checkout's engine (DIR/fullgraph)

bench_speed.py's editor part times didChange -> publishDiagnostics of the real server, which is what users feel,
but on this shared 2-core machine its `ast.parse` reference moves by half from one run to the next (11 to 19 ms
for the same 2,000 lines), which hides a change of a tenth.  Here a child process does what the server's engine
does for a keystroke, on bench/lsp_latency.py's generated model file, with the collector off as in the server's
engine: the document's analysis and findings (`_engine_analyze`) and the publication (`_store`: diagnostics, their
JSON), the message written to nowhere.  Valgrind's cachegrind (`--cache-sim=no`) counts the instructions it
executes, exactly, whatever else runs.  Counts, each a separate child: the start-up (imports, the file opened and
analysed once, the K texts that K keystrokes of one kind make), then that plus the keystrokes' work, then that plus
`ast.parse` of the K texts; the start-up is subtracted.  Kinds (as lsp_latency.py types them, the same random lines):
"typing" (a space at the end of a line) and "Enter" (a new line after it: every line below moves).  Printed:
millions of instructions per keystroke and keystroke / parse.  About 50x slower than natively (~6 min at 2,000
lines, ~20 at 7,000).  Results: bench/results/keystroke.json.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from bench_engine import RESULTS  # noqa: E402
from bench_instructions import instructions  # noqa: E402

SERVER = BENCH.parent / "server"

# the child: `python -c _CHILD MODE LINES KEYS SERVER BENCH`
_CHILD = r"""
import gc, json, os, random, sys, tempfile
mode, n, keys, server, bench = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
sys.path.insert(0, server)
sys.path.insert(0, bench)
import ast
from lsp_latency import model_file
from pygls.workspace import Workspace
from fullgraph.lsp.session import FullgraphServer
gc.disable()  # (as in the server's engine, which collects between jobs)
d = tempfile.mkdtemp()
path = os.path.join(d, "model.py")
text = model_file(n)
with open(path, "w") as fh:
    fh.write(text)
ls = FullgraphServer()
ls.protocol._workspace = Workspace("file://" + d)
ls.protocol._send_data = lambda data: json.dumps(data, default=ls.protocol._serialize_message)  # (written nowhere)
uri = ls.uri_of(path)


def keystroke(version, text):
    findings = ls._engine_analyze(path, text)
    ls._store(uri, version, text, findings)


keystroke(0, text)
lines = text.splitlines()
rng = random.Random(n)
lines_typed = [i for i, s in enumerate(lines) if s.strip() and not s.strip().startswith('\"\"\"')]
what, kind = mode.split(":")
texts = []
for k in range(keys):
    i = rng.choice(lines_typed)
    if kind == "enter":
        lines.insert(i + 1, "")
        lines_typed = [j if j <= i else j + 1 for j in lines_typed]
    else:
        lines[i] += " "
    texts.append("\n".join(lines) + "\n")
if what == "keys":
    for k, t in enumerate(texts, 1):
        keystroke(k, t)
elif what == "parse":
    for t in texts:
        ast.parse(t)
os._exit(0)
"""


def count(mode: str, lines: int, keys: int, server: Path) -> int:
    """Instructions the child executes in `mode`: "start-up:<kind>" (the texts of the keystrokes made, not used),
    "keys:<kind>" or "parse:<kind>"."""
    return instructions([sys.executable, "-c", _CHILD, mode, str(lines), str(keys), str(server), str(BENCH)], mode)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=2000, help="size of the generated model file (default 2000)")
    ap.add_argument("--keys", type=int, default=10, help="keystrokes of each kind (default 10)")
    ap.add_argument("--server", type=Path, default=SERVER, help="the directory holding the fullgraph package")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench: valgrind is not on PATH (apt-get install valgrind)")
    server = args.server.resolve()
    kinds = {}
    for kind, name in (("typing", "typing"), ("enter", "Enter")):
        base = count(f"start-up:{kind}", args.lines, args.keys, server)
        work = count(f"keys:{kind}", args.lines, args.keys, server) - base
        parse = count(f"parse:{kind}", args.lines, args.keys, server) - base
        kinds[kind] = {"keystroke": work // args.keys, "parse": parse // args.keys, "ratio": round(work / parse, 3),
                       "start-up": base}
        print(f"{name:7s} {work / args.keys / 1e6:8,.1f} M instructions per keystroke, ast.parse "
              f"{parse / args.keys / 1e6:6,.1f} M: {work / parse:.2f}x", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "keystroke.json"
    out.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "lines": args.lines,
                               "keys": args.keys, "server": str(server), "kinds": kinds}, indent=1))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
