"""Measure the candidate capture mechanisms on the same script (torch 2.13; not a test).

    .venv/bin/python tests/trace_fixtures/measure_mechanisms.py tests/trace_fixtures/multi/train.py

Runs the script's CASES (function, torch.compile kwargs, calls; see multi/train.py) once with every
in-process candidate listening at the same time, then once per case under torch._dynamo.explain,
then under `fullgraph trace`, and prints, per mechanism, the graph breaks it reported: distinct
(file, line, gb_type) sites with a location, events, and what it cannot say.
"""
from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
import tempfile


def load(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("scenario", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def site(text):
    m = re.search(r"in user code at (.+?):(\d+)", text)
    return (os.path.basename(m.group(1)), int(m.group(2))) if m else None


def main(script):
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    results = {}

    # (1) the graph_breaks artifact log (what TORCH_LOGS=graph_breaks prints), via a handler
    gb_records = []

    class GB(logging.Handler):
        def emit(self, record):
            gb_records.append(record.getMessage())

    torch._logging.set_logs(graph_breaks=True)
    for name in ("torch._dynamo.symbolic_convert.__graph_breaks", "torch._dynamo.convert_frame.__graph_breaks",
                 "torch._dynamo.exc.__graph_breaks"):
        lg = logging.getLogger(name)
        lg.addHandler(GB())
        lg.propagate = False  # keep stderr clean

    # (5) a handler on the structured trace (what fullgraph trace uses), counting break events
    trace_events = {"dynamo_graph_break_reason": 0, "dynamo_error": 0, "compile_fail": 0}

    class TR(logging.Handler):
        def emit(self, record):
            meta = getattr(record, "metadata", {}) or {}
            if "artifact" in meta and meta["artifact"].get("name") in trace_events:
                trace_events[meta["artifact"]["name"]] += 1
            if "compilation_metrics" in meta and meta["compilation_metrics"].get("fail_type"):
                trace_events["compile_fail"] += 1

    logging.getLogger("torch.__trace").addHandler(TR())

    mod = load(script)
    raised = []  # (4) exceptions that propagate out of the compiled call
    for fn, kwargs, calls in mod.CASES:
        compiled = torch.compile(fn, backend="eager", **kwargs)
        for args in calls:
            try:
                compiled(*args)
            except Exception as e:  # noqa: BLE001
                raised.append((getattr(fn, "__name__", type(fn).__name__), type(e).__name__, str(e).splitlines()[0][:60]))

    full = [m for m in gb_records if m.startswith("Graph break in user code")]
    dup = [m for m in gb_records if m.startswith("Graph break (user stack suppressed")]
    skip = [m for m in gb_records if m.startswith("Graph break: torch.compile cannot properly resume")]
    sites = {site(m) for m in full + dup}
    results["graph_breaks log (TORCH_LOGS=graph_breaks)"] = {
        "events": len(full) + len(dup) + len(skip), "with_user_stack": len(full), "suppressed_duplicates": len(dup),
        "skip_records": len(skip), "distinct_sites": len(sites), "fullgraph_errors": 0,
        "sites": sorted(f"{f}:{n}" for f, n in sites if f)}

    gb = counters["graph_break"]
    results["counters['graph_break']"] = {
        "events": sum(gb.values()), "distinct_reasons": len(gb), "distinct_sites": None,
        "note": "reason strings only: no file/line, no stack"}
    results["exception out of compiled call"] = {"events": len(raised), "distinct_sites": len(raised),
                                                  "raised": raised}
    results["structured trace handler (events only)"] = dict(trace_events)

    # (3) torch._dynamo.explain, per case, on a fresh cache
    explained = 0
    explain_sites = set()
    for fn, kwargs, calls in mod.CASES:
        torch._dynamo.reset()
        try:
            out = torch._dynamo.explain(fn)(*calls[0])
        except Exception as e:  # noqa: BLE001
            results.setdefault("explain errors", []).append(f"{fn!r:.20}: {type(e).__name__}")
            continue
        explained += out.graph_break_count
        for br in out.break_reasons:
            st = br.user_stack[-1] if br.user_stack else None
            if st is not None:
                explain_sites.add((os.path.basename(st.filename), st.lineno))
    results["torch._dynamo.explain (first call of each case)"] = {
        "graph_break_count": explained, "distinct_sites": len(explain_sites),
        "sites": sorted(f"{f}:{n}" for f, n in explain_sites)}
    print(json.dumps(results, indent=2, default=str))


def via_fullgraph_trace(script):
    script = os.path.abspath(script)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        subprocess.run([sys.executable, "-m", "fullgraph", "trace", "--out", out, "--format", "json", "--",
                        sys.executable, script], cwd=os.path.dirname(os.path.abspath(script)),
                       capture_output=True, text=True, check=False)
        rec = json.load(open(out))
    br = rec["breaks"]
    print(json.dumps({"fullgraph trace": {
        "distinct_sites": len(br), "events": sum(b["count"] for b in br),
        "fullgraph_errors": sum(1 for b in br if (b["root"] or {}).get("fullgraph")),
        "sites": sorted(f"{os.path.basename(b['path'])}:{b['line']}:{b['column']} {b['gb_code']} x{b['count']}"
                        for b in br)}}, indent=2))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "--trace":
        via_fullgraph_trace(sys.argv[1])
    else:
        main(sys.argv[1])
