"""The runtime pass (``--runtime-only``): the truth.  Each user script runs under ``fullgraph trace`` with
``torch.compile(model, backend="eager")`` (fullgraph=False, so Dynamo resumes after each break and every break
is seen); its graph-break events are merged per *site* (gb_type + the statement of the innermost frame in the
followed library); then one eager process per model records the library lines each script's call ran (the
coverage behind "statement ran eagerly").  Written to ``truth.json``.

The ``child_*`` functions run in child processes (``run_models.py --child-trace`` / ``--child-coverage``).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from collections import defaultdict

from common import (ENTRY, FULLGRAPH, NICE, TRUTH_JSON, VENV_PY, WORK, Sources, lib_dir, load_json, ranges,
                    rel, run, script_of, tag_of, versions, write_compact)
from models import BY_NAME


# ==== children (run in their own processes) =======================================================
def child_trace(script: str, parts_copy: str) -> None:
    """Run under `fullgraph trace`: run the script, then copy this process's capture part file."""
    import atexit
    import runpy

    def copy_parts():
        d = os.environ.get("FULLGRAPH_TRACE_PARTS")
        if d:
            src = os.path.join(d, f"{os.getpid()}.jsonl")
            if os.path.exists(src):
                shutil.copyfile(src, parts_copy)

    atexit.register(copy_parts)
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")


def child_coverage(pairs: list[str], libdir: str) -> None:
    """Run each script eagerly, in this order in one process (one import), and record the library lines
    executed by each script's call of the compiled model (pairs: script, out, script, out, ...).
    torch.compile returns a function that calls the model eagerly with the line tracer on."""
    import runpy
    import threading

    import torch

    def fake_compile(model=None, **kw):
        def call(*args, **kwargs):
            sys.settrace(glob)
            threading.settrace(glob)
            try:
                return model(*args, **kwargs)
            finally:
                sys.settrace(None)
                threading.settrace(None)
        return call

    torch.compile = fake_compile
    lines: dict[str, set[int]] = defaultdict(set)
    want: dict[str, bool] = {}

    def local(frame, event, arg):
        if event == "line":
            lines[frame.f_code.co_filename].add(frame.f_lineno)
        return local

    def glob(frame, event, arg):
        fn = frame.f_code.co_filename
        ok = want.get(fn)
        if ok is None:
            ok = want[fn] = os.path.realpath(fn).startswith(libdir + os.sep)
        if not ok or frame.f_code.co_name == "<module>":
            return None
        lines[fn].add(frame.f_lineno)
        return local

    for script, out in zip(pairs[::2], pairs[1::2]):
        lines.clear()
        sys.argv = [script]
        try:
            runpy.run_path(script, run_name="__main__")
        except Exception as exc:  # noqa: BLE001 - the trace run reports the failure
            print(f"{script}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        with open(out, "w") as fh:
            json.dump({os.path.realpath(k): sorted(v) for k, v in lines.items()}, fh)


def merge_sites(hits: list[dict], libdir: str, script: str, src: Sources) -> list[dict]:
    """Dynamo's events -> sites: (gb_type, innermost library frame's statement); a break with no library
    frame is placed at the innermost frame of the user script (or the innermost frame)."""
    sites: dict[tuple, dict] = {}
    script = os.path.realpath(script)
    for h in hits:
        st = h["stack"]
        if not st:
            continue
        lib = [i for i, f in enumerate(st) if f["path"].startswith(libdir + os.sep)]
        user = [i for i, f in enumerate(st) if f["path"] == script]
        i = lib[-1] if lib else user[-1] if user else len(st) - 1
        f = st[i]
        a, b = src.statement(f["path"], f["line"])
        key = (h["gb_type"], rel(f["path"]), a)
        if key in sites:
            sites[key]["count"] += 1
            continue
        inner = st[-1]
        outer = [[rel(st[k]["path"]), *src.statement(st[k]["path"], st[k]["line"])] for k in lib[:-1]]
        sites[key] = {"gb_type": h["gb_type"], "gb_code": h["gb_code"], "count": 1, "path": rel(f["path"]),
                      "line": f["line"], "stmt": [a, b], "function": f["function"],
                      "code": src.line(f["path"], f["line"])[:160],
                      "where": "library" if lib else "user" if user else "other",
                      "inner": f"{rel(inner['path'])}:{inner['line']} {inner['function']}",
                      "explanation": (h["explanation"] or "")[:200],
                      "outer": outer,  # the statements of the outer library frames (for "found at a caller")
                      "stack": [f"{rel(x['path'])}:{x['line']} {x['function']}" for x in st]}
    return sorted(sites.values(), key=lambda s: (s["path"], s["stmt"][0], s["gb_type"]))


def runtime_one(name: str, mode: str, timeout: int) -> dict:
    from fullgraph.trace.collect import process_from_part_file

    m = BY_NAME[name]
    tag = tag_of(name, mode)
    d = WORK / "runtime"
    d.mkdir(parents=True, exist_ok=True)
    script = script_of(name, mode)
    parts, record, log = d / f"{tag}.parts.jsonl", d / f"{tag}.record.json", d / f"{tag}.trace.log"
    for p in (parts, record):
        if p.exists():
            p.unlink()
    rc, secs = run([*NICE, str(FULLGRAPH), "trace", "--out", str(record), "--", str(VENV_PY), str(ENTRY),
                    "--child-trace", str(script), str(parts)], log, timeout)
    text = log.read_text(errors="replace")
    ok = bool(re.search(r"^OK \w+$", text, re.MULTILINE))
    hits = []
    if parts.exists():
        for h in process_from_part_file(str(parts)).hits:
            hits.append({"gb_type": h.message.gb_type, "gb_code": h.message.gb_code,
                         "explanation": ((h.message.explanation or "").strip().splitlines() or [""])[0],
                         "stack": [{"path": os.path.realpath(f.path), "line": f.line, "function": f.function}
                                   for f in h.stack]})
    src = Sources()
    libdir = os.path.realpath(lib_dir(m.library))
    entry = {"library": m.library, "family": m.family, "ok": ok, "exit": rc, "seconds": round(secs, 1),
             "events": len(hits), "sites": merge_sites(hits, libdir, str(script), src)}
    if not ok:
        errs = [ln for ln in text.splitlines() if re.match(r"^[\w.]*(Error|Exception)\b", ln)]
        entry["error"] = (errs[-1] if errs else (text.strip().splitlines() or ["(no output)"])[-1])[:300]
    return entry


def coverage_model(name: str, entries: dict[str, dict], timeout: int) -> None:
    """One eager process per model runs its scripts in the order of its modes: the library lines each executed."""
    m = BY_NAME[name]
    d = WORK / "runtime"
    outs = {mode: d / f"{tag_of(name, mode)}.coverage.json" for mode in m.modes}
    pairs = []
    for mode in m.modes:
        if outs[mode].exists():
            outs[mode].unlink()
        pairs += [str(script_of(name, mode)), str(outs[mode])]
    rc, secs = run([*NICE, str(VENV_PY), str(ENTRY), "--child-coverage", os.path.realpath(lib_dir(m.library)),
                    *pairs], d / f"{name}.coverage.log", timeout)
    for mode, e in entries.items():
        e["coverage_seconds"] = round(secs / len(m.modes), 1)
        if outs[mode].exists():
            e["coverage"] = {rel(k): ranges(v) for k, v in sorted(json.loads(outs[mode].read_text()).items())}


def runtime_pass(names: list[str], timeout: int) -> None:
    """Each mode of each model under Dynamo, then its coverage run; truth.json is rewritten after each model."""
    truth = load_json(TRUTH_JSON) or {"meta": {}, "runs": {}}
    t0 = time.perf_counter()
    for k, name in enumerate(names):
        entries = {mode: runtime_one(name, mode, timeout) for mode in BY_NAME[name].modes}
        coverage_model(name, entries, timeout)
        for mode, e in entries.items():
            truth["runs"][f"{name}/{mode}"] = e
            print(f"[{time.perf_counter() - t0:6.0f}s] {k + 1}/{len(names)} {name}/{mode}: "
                  f"{'ok' if e['ok'] else 'FAILED ' + e.get('error', '')} {len(e['sites'])} sites, {e['events']} events "
                  f"({e['seconds']:.0f}+{e['coverage_seconds']:.0f} s)", flush=True)
        truth["runs"] = dict(sorted(truth["runs"].items()))
        write_compact(TRUTH_JSON, truth)
    meta = truth["meta"]
    meta.update({"date": time.strftime("%Y-%m-%d %H:%M"), "versions": versions(),
                 "last_pass_seconds": round(time.perf_counter() - t0), "last_pass_models": len(names)})
    write_compact(TRUTH_JSON, truth)
