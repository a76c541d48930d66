#!/usr/bin/env python
"""Editor-latency benchmarks (scaffolding: the language server is still being built).

    .venv/bin/python bench/bench_lsp.py [--quick] [--reps N] [--no-lsp]

Like bench_engine.py, every number is a ratio to `ast.parse` of the same text, measured in the
same run, interleaved, median [min-max] over the repetitions:

  (e1) API floor: in a Workspace that already holds torch/nn, replace one buffer's text
       (`Workspace.set_text`, a new comment line each time so no cache hides the work) and get its
       findings (`findings_for([path])`): what the server has to do per keystroke batch.
  (e2) LSP round trip: `fullgraph lsp` over stdio (push diagnostics, debounce 0, no workspace
       root so nothing is indexed): didOpen -> publishDiagnostics, then didChange (full text)
       -> publishDiagnostics of that version. Skipped when fullgraph.lsp.server is not there.

Writes bench/results/lsp.json. No targets yet: set them with the editor owner.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_engine as B  # shared measuring and printing helpers

FILES = ["_dynamo/symbolic_convert.py", "nn/modules/module.py"]


# ---- (e1) the API floor ---------------------------------------------------------------------------
def bench_api(tdir: Path, files: list[str], reps: int, budget: float) -> list[dict]:
    from fullgraph.api import Workspace
    from fullgraph.config import discover

    ws = Workspace(discover(tdir / "nn"))
    t0 = time.perf_counter()
    ws.check([tdir / "nn"], jobs=1)
    load_s = time.perf_counter() - t0
    out = []
    for rel in files:
        path = str(tdir / rel)
        base = Path(path).read_text(encoding="utf-8")
        n = [0]

        def edited(base=base, n=n) -> str:
            n[0] += 1
            return f"{base}\n# bench edit {n[0]}\n"

        def parse(text_of=edited) -> float:
            text = text_of()
            t = time.perf_counter()
            ast.parse(text)
            return time.perf_counter() - t

        def update(path=path, text_of=edited) -> float:
            text = text_of()
            t = time.perf_counter()
            ws.set_text(path, text)
            ws.findings_for([path])
            return time.perf_counter() - t

        res = B.interleaved(("ast.parse", parse), [("set_text+findings_for", update)], reps, budget)
        res.update(file=rel, lines=B.count_lines(base), workspace="torch/nn", workspace_load_s=load_s)
        out.append(res)
        print(f"  (e1) {rel}: {B.fmt_ratio(res['ratios']['set_text+findings_for'])} ({res['reps']} reps)",
              file=sys.stderr)
    return out


# ---- (e2) a minimal LSP client over stdio ------------------------------------------------------------
class Client:
    def __init__(self, cmd: list[str]):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.q: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        f = self.p.stdout
        while True:
            length = None
            while True:
                line = f.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                k, _, v = line.decode("ascii").partition(":")
                if k.strip().lower() == "content-length":
                    length = int(v)
            if length is None:
                continue
            msg = json.loads(f.read(length))
            if "id" in msg and "method" in msg:  # a request from the server: answer it, nothing more
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            else:
                self.q.put(msg)

    def send(self, msg: dict) -> None:
        data = json.dumps(msg).encode("utf-8")
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.p.stdin.flush()

    def request(self, method: str, params, timeout: float = 120) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid, timeout)

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, pred, timeout: float = 300) -> dict:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the language server")
            msg = self.q.get(timeout=left)
            if pred(msg):
                return msg

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.p.wait(timeout=10)
        except (OSError, TimeoutError, queue.Empty, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()


def bench_lsp(tdir: Path, files: list[str], reps: int, budget: float) -> list[dict]:
    c = Client([str(B.VENV_BIN / "fullgraph"), "lsp"])
    out = []
    try:
        c.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {},
                                 "initializationOptions": {"debounce": 0}})
        c.notify("initialized", {})
        for rel in files:
            path = tdir / rel
            uri = path.as_uri()
            base = path.read_text(encoding="utf-8")
            state = {"version": 0}

            def published(version: int, uri=uri):
                return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                                  and m["params"]["uri"] == uri and m["params"].get("version") == version)

            t = time.perf_counter()
            c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 0,
                                                               "text": base}})
            c.wait(published(0))
            open_s = time.perf_counter() - t
            t = time.perf_counter()
            ast.parse(base)
            open_parse_s = time.perf_counter() - t

            def change(uri=uri, base=base, state=state, published=published) -> float:
                state["version"] += 1
                v = state["version"]
                text = f"{base}\n# bench edit {v}\n"
                t = time.perf_counter()
                c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                    "contentChanges": [{"text": text}]})
                c.wait(published(v))
                return time.perf_counter() - t

            def parse(base=base, state=state) -> float:
                text = f"{base}\n# bench edit parse {state['version']}\n"
                t = time.perf_counter()
                ast.parse(text)
                return time.perf_counter() - t

            res = B.interleaved(("ast.parse", parse), [("didChange->publishDiagnostics", change)], reps, budget)
            res.update(file=rel, lines=B.count_lines(base), open_seconds=open_s, open_over_parse=open_s / open_parse_s)
            out.append(res)
            c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            print(f"  (e2) {rel}: {B.fmt_ratio(res['ratios']['didChange->publishDiagnostics'])} "
                  f"({res['reps']} reps)", file=sys.stderr)
    finally:
        c.close()
    return out


def print_results(title: str, key: str, results: list[dict]) -> None:
    print(f"\n{title}")
    rows = [[r["file"], str(r["lines"]), f"{r['seconds']['ast.parse']['median'] * 1e3:.1f}",
             f"{r['seconds'][key]['median'] * 1e3:.1f}", B.fmt_ratio(r["ratios"][key]), f"{r['reps']}/{r['reps_asked']}"]
            for r in results]
    print(B.table(["torch/ file", "lines", "parse ms", "latency ms", "ratio median [min-max]", "reps"], rows))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="symbolic_convert.py only, fewer repetitions")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--no-lsp", action="store_true", help="only the API floor (e1)")
    ap.add_argument("--out", type=Path, default=B.RESULTS / "lsp.json")
    args = ap.parse_args(argv)
    tdir = B.torch_dir()
    files = FILES[:1] if args.quick else FILES
    reps = args.reps or (3 if args.quick else 7)
    budget = 20.0 if args.quick else 90.0
    result: dict = {"mode": "quick" if args.quick else "full", "environment": B.environment(tdir, None)}
    result["e1_api"] = bench_api(tdir, files, reps, budget)
    has_lsp = importlib.util.find_spec("fullgraph.lsp.server") is not None
    if has_lsp and not args.no_lsp:
        result["e2_lsp"] = bench_lsp(tdir, files, reps, budget)
    print(f"\nfullgraph editor latency ({result['mode']}) -- {result['environment']['date']}, "
          f"nproc {result['environment']['nproc']}; ratios to ast.parse of the same text, median [min-max]")
    print_results("(e1) set_text + findings_for in a workspace holding torch/nn", "set_text+findings_for",
                  result["e1_api"])
    if "e2_lsp" in result:
        print_results("(e2) LSP didChange -> publishDiagnostics (debounce 0)", "didChange->publishDiagnostics",
                      result["e2_lsp"])
        for r in result["e2_lsp"]:
            print(f"  didOpen -> publishDiagnostics {r['file']}: {r['open_seconds'] * 1e3:.0f} ms "
                  f"({r['open_over_parse']:.1f}x parse, one sample)")
    else:
        print("\n(e2) skipped: " + ("--no-lsp" if args.no_lsp else "fullgraph.lsp.server is not installed yet"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
