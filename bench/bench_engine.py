#!/usr/bin/env python
"""fullgraph engine benchmarks (GitHub issue 2, item 8).

    .venv/bin/python bench/bench_engine.py            # full run
    .venv/bin/python bench/bench_engine.py --quick    # < ~1 minute once the engine is within target
    .venv/bin/python bench/bench_engine.py --only a,d # some parts only

The machines are shared and noisy, so no number here is a wall-clock assertion: each one is a
ratio against a reference measured in the same run, the two interleaved (the order alternates
between repetitions), and reported as the median ratio with its spread (min-max over the
repetitions). Slow measurements stop repeating once the next repetition would overrun the part's
time budget; the table says how many repetitions were made.

  (a) one large file: fullgraph.engine.module.analyze (parse included) vs ast.parse of the
      same text, for torch/_dynamo/symbolic_convert.py and three more large torch files.
  (b) `fullgraph check TORCH --format json` (a subprocess, default jobs, and -j 1) vs
      `ruff check --select ALL --no-cache --exit-zero -q` on the same installed torch tree.
  (c) `fullgraph check` vs Fixit's `fixit lint` on a copy of torch/nn (fixit lives in
      bench/.venv-fixit, created on first use).
  (d) where the time goes: cProfile of (a)'s analysis, and an in-process jobs=1 walk of (b)'s
      tree timing reading, decoding, analysing and the project findings step separately.

Results: printed as tables and written to bench/results/engine.json.  See bench/README.md.
"""
from __future__ import annotations

import argparse
import ast
import cProfile
import gc
import importlib.metadata
import importlib.util
import json
import os
import platform
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
VENV_BIN = Path(sys.executable).parent  # the project venv this script runs in
FIXIT_VENV = BENCH / ".venv-fixit"
FIXIT_PIN = "fixit==2.2.1"

# (a): the brief's file first, then others that are large and of different kinds.
SINGLE_FILES = [
    "_dynamo/symbolic_convert.py",  # ~6.4k lines, the acceptance file
    "nn/modules/module.py",  # ~3k lines, class-heavy
    "_tensor.py",  # ~1.7k lines
    "_dynamo/variables/builder.py",  # ~5.4k lines
]
# (c): Fixit is slow, so its subsets are fixed and documented; fullgraph gets the same files.
FIXIT_SUBSET_FULL = "nn"  # all of torch/nn: 136 files, ~45k lines
FIXIT_SUBSET_QUICK = "nn/utils"  # 26 files, ~7k lines

TARGETS = {"a": 3.0, "b": 3.0, "c": 1 / 30}  # subject/reference ratio must be <= this


# ---- environment --------------------------------------------------------------------------------
def torch_dir() -> Path:
    spec = importlib.util.find_spec("torch")  # without importing torch (slow, and not needed)
    if spec is None or not spec.submodule_search_locations:
        sys.exit("bench: torch is not installed in this interpreter; run with /work/main/.venv/bin/python")
    return Path(next(iter(spec.submodule_search_locations)))


def _version_of(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return out.splitlines()[-1] if out else "?"


def ruff_exe() -> Path:
    exe = VENV_BIN / "ruff"
    if exe.exists():
        return exe
    print("bench: ruff is not in the venv; installing it (pip install ruff)", file=sys.stderr)
    subprocess.run([str(VENV_BIN / "python"), "-m", "pip", "install", "-q", "ruff"], check=True)
    return exe


def fixit_exe(install: bool) -> Path | None:
    exe = FIXIT_VENV / "bin" / "fixit"
    if exe.exists():
        return exe
    if not install:
        return None
    print(f"bench: creating {FIXIT_VENV.relative_to(ROOT)} with {FIXIT_PIN} (once)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(FIXIT_VENV)], check=True)
    subprocess.run([str(FIXIT_VENV / "bin" / "python"), "-m", "pip", "install", "-q", FIXIT_PIN], check=True)
    return exe if exe.exists() else None


def environment(tdir: Path, fixit: Path | None) -> dict:
    commit = _version_of(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "server"],
                           check=False, capture_output=True, text=True).stdout.strip()
    env = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nproc": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "machine": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(),
        "fullgraph": importlib.metadata.version("fullgraph"),
        "fullgraph_commit": commit + ("+dirty server/" if dirty else ""),
        "server_uncommitted": dirty.splitlines(),
        "torch": importlib.metadata.version("torch"),
        "torch_dir": str(tdir),
        "ruff": _version_of([str(ruff_exe()), "--version"]),
    }
    if fixit is not None:
        env["fixit"] = _version_of([str(fixit), "--version"]).replace("fixit, version ", "")
        env["libcst (fixit venv)"] = _version_of([str(fixit.parent / "python"), "-c",
                                                  "import importlib.metadata as m; print(m.version('libcst'))"])
    return env


# ---- measuring ----------------------------------------------------------------------------------
def summarize(xs: list[float]) -> dict:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


Timing = Callable[[], "float | tuple[float, float]"]


def interleaved(ref: tuple[str, Timing], subjects: list[tuple[str, Timing]], reps: int, budget: float) -> dict:
    """Run the reference and each subject once per repetition, rotating the order every repetition
    (A B C, B C A, ...). Each callable returns its own elapsed seconds, or (wall, cpu) seconds for a
    subprocess. The ratio of every repetition is subject / reference of that repetition. Stops
    early (after >= 1 repetition) when the next one would overrun `budget` seconds."""
    runs = [ref, *subjects]
    times: dict[str, list[float]] = {name: [] for name, _ in runs}
    cpu: dict[str, list[float]] = {name: [] for name, _ in runs}
    start = time.perf_counter()
    for i in range(reps):
        k = i % len(runs)
        for name, fn in runs[k:] + runs[:k]:
            gc.collect()
            r = fn()
            if isinstance(r, tuple):
                r, c = r
                cpu[name].append(c)
            times[name].append(r)
        elapsed = time.perf_counter() - start
        if elapsed / (i + 1) * (i + 2) > budget:
            break
    ref_t = times[ref[0]]
    out = {"reference": ref[0], "reps": len(ref_t), "reps_asked": reps,
           "seconds": {name: summarize(ts) for name, ts in times.items()}, "ratios": {}}
    for name, _ in subjects:
        out["ratios"][name] = summarize([s / r for s, r in zip(times[name], ref_t)])
    if all(cpu.values()):  # CPU seconds (user+sys, children included): steadier on a loaded machine
        out["cpu_seconds"] = {name: summarize(cs) for name, cs in cpu.items()}
        out["cpu_ratios"] = {name: summarize([s / r for s, r in zip(cpu[name], cpu[ref[0]])]) for name, _ in subjects}
    return out


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_cmd(cmd: list[str], cwd: Path, ok=(0,), check_stderr: Callable[[str], None] | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one subprocess run, stdout discarded. CPU is user+sys of the process
    and of the processes it waited for (worker pools included)."""
    env = dict(os.environ, NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1")
    c0 = _children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, check=False, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    cpu = _children_cpu() - c0
    if p.returncode not in ok:
        sys.exit(f"bench: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-3000:]}")
    if check_stderr is not None:
        check_stderr(p.stderr)
    return dt, cpu


def fmt_ratio(r: dict) -> str:
    def f(x: float) -> str:
        return f"{x:.1f}" if x >= 10 else f"{x:.2f}"

    return f"{f(r['median'])}x [{f(r['min'])}-{f(r['max'])}]"


def fmt_speedup(r: dict) -> str:
    """A ratio < 1 shown as "N× faster" (median [worst-best])."""
    return f"{1 / r['median']:.1f}x faster [{1 / r['max']:.1f}-{1 / r['min']:.1f}]"


def verdict(ratio: dict, target: float) -> str:
    return "ok" if ratio["median"] <= target else "MISS"


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def count_lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def py_files(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.py") if p.is_file())


# ---- (a) one large file -------------------------------------------------------------------------
def bench_single(tdir: Path, files: list[str], reps: int, budget: float) -> list[dict]:
    from fullgraph.engine.module import analyze
    from fullgraph.modnames import module_name_for
    from fullgraph.rules.registry import RULESET

    # warm up: rule registry, imports and caches are loaded on first use, not per file
    analyze(str(tdir / "nn/modules/linear.py"), (tdir / "nn/modules/linear.py").read_text("utf-8"), rules=RULESET)
    out = []
    for rel in files:
        path = str(tdir / rel)
        text = Path(path).read_text(encoding="utf-8")
        modname, is_pkg = module_name_for(path)

        def parse(path=path, text=text) -> tuple[float, float]:
            c0, t0 = time.process_time(), time.perf_counter()
            ast.parse(text, filename=path)
            return time.perf_counter() - t0, time.process_time() - c0

        def analyse(path=path, text=text, modname=modname, is_pkg=is_pkg) -> tuple[float, float]:
            c0, t0 = time.process_time(), time.perf_counter()
            analyze(path, text, modname, is_pkg, rules=RULESET)
            return time.perf_counter() - t0, time.process_time() - c0

        res = interleaved(("ast.parse", parse), [("analyze", analyse)], reps, budget)
        res.update(file=rel, lines=count_lines(text))
        out.append(res)
        print(f"  (a) {rel}: {fmt_ratio(res['ratios']['analyze'])} ({res['reps']} reps)", file=sys.stderr)
    return out


def print_single(results: list[dict]) -> None:
    print("\n(a) one file: analyze (parse included) / ast.parse of the same text -- target <= 3x")
    rows = []
    for r in results:
        s = r["seconds"]
        rows.append([r["file"], str(r["lines"]), f"{s['ast.parse']['median'] * 1e3:.1f}",
                     f"{s['analyze']['median'] * 1e3:.1f}", fmt_ratio(r["ratios"]["analyze"]),
                     fmt_ratio(r["cpu_ratios"]["analyze"]), f"{r['reps']}/{r['reps_asked']}",
                     verdict(r["ratios"]["analyze"], TARGETS["a"])])
    print(table(["torch/ file", "lines", "parse ms", "analyze ms", "wall ratio", "CPU ratio", "reps", "<=3x"], rows))
    print("  (ratios: median [min-max]; CPU = process_time, which a descheduled process does not accrue)")


# ---- (b) the torch tree vs ruff, (c) a subset vs fixit --------------------------------------------
def bench_tree(tree: Path, reps: int, budget: float, with_j1: bool) -> dict:
    fg = str(VENV_BIN / "fullgraph")
    ruff = [str(ruff_exe()), "check", "--select", "ALL", "--no-cache", "--exit-zero", "-q",
            "--isolated", "--extend-exclude", "*.pyi", str(tree)]
    cwd = tree.parent
    # --no-cache: this part is the cold check (a second run would read the summaries of the first;
    # bench_speed.py measures the cached runs)
    subjects = [("fullgraph", lambda: run_cmd([fg, "check", str(tree), "--format", "json", "--no-cache"], cwd, ok=(0, 1)))]
    if with_j1:
        subjects.append(("fullgraph -j 1",
                         lambda: run_cmd([fg, "check", str(tree), "--format", "json", "-j", "1", "--no-cache"], cwd,
                                                         ok=(0, 1))))
    files = py_files(tree)
    from fullgraph.api import Workspace
    from fullgraph.config import discover

    fg_files = len(Workspace(discover(tree)).discover([tree]))  # what `fullgraph check` will see
    if fg_files != len(files):
        print(f"bench: warning: fullgraph discovers {fg_files} files under {tree}, not {len(files)} "
              "(a config's exclude?)", file=sys.stderr)
    res = interleaved(("ruff", lambda: run_cmd(ruff, cwd)), subjects, reps, budget)
    res.update(tree=str(tree), files=len(files), files_fullgraph_discovers=fg_files, lines=sum(count_lines(p.read_text("utf-8", "replace")) for p in files),
               ruff_cmd=" ".join(ruff[:-1]) + " TREE", fullgraph_cmd="fullgraph check TREE --format json [-j 1]")
    for name in res["ratios"]:
        print(f"  (b) {name}: {fmt_ratio(res['ratios'][name])} ({res['reps']} reps)", file=sys.stderr)
    return res


def print_tree(r: dict, title: str) -> None:
    print(f"\n{title}")
    print(f"  tree: {r['tree']}  ({r['files']} .py files, {r['lines']} lines; .pyi excluded for ruff)")
    s, c = r["seconds"], r["cpu_seconds"]
    rows = [["ruff (reference)", f"{s['ruff']['median']:.2f}", "1", f"{c['ruff']['median']:.2f}", "1",
             f"{r['reps']}/{r['reps_asked']}", ""]]
    for name, ratio in r["ratios"].items():
        rows.append([name, f"{s[name]['median']:.2f}", fmt_ratio(ratio), f"{c[name]['median']:.2f}",
                     fmt_ratio(r["cpu_ratios"][name]), f"{r['reps']}/{r['reps_asked']}",
                     verdict(ratio, TARGETS["b"]) if name == "fullgraph" else ""])
    print(table(["command", "wall s", "wall ratio to ruff", "CPU s", "CPU ratio", "reps", "<=3x"], rows))
    print("  (ratios: median [min-max]; the target is on wall time, CPU is user+sys of all processes)")


def copy_subset(tdir: Path, sub: str, dest: Path) -> Path:
    """Copy torch/<sub>'s .py files (and torch/__init__.py so module names stay `torch.…`) outside
    any git work tree: fixit skips files that a .gitignore above them ignores (.venv/ here)."""
    root = dest / "torch"
    root.mkdir(parents=True)
    shutil.copy2(tdir / "__init__.py", root / "__init__.py")
    for p in py_files(tdir / sub):
        q = root / p.relative_to(tdir)
        q.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, q)
    return root / sub


def bench_fixit(tdir: Path, fixit: Path, sub: str, reps: int, budget: float) -> dict:
    fg = str(VENV_BIN / "fullgraph")
    with tempfile.TemporaryDirectory(prefix="fullgraph-bench-") as tmp:
        tree = copy_subset(tdir, sub, Path(tmp))
        n = len(py_files(tree))

        def fixit_saw_all(stderr: str) -> None:
            m = re.search(r"(\d+) files? checked", stderr)
            if not m or int(m.group(1)) != n:
                sys.exit(f"bench: fixit did not lint the {n} files of {tree}:\n{stderr[-2000:]}")

        res = interleaved(("fixit lint", lambda: run_cmd([str(fixit), "lint", str(tree)], Path(tmp), ok=(0, 1),
                                                         check_stderr=fixit_saw_all)),
                          [("fullgraph", lambda: run_cmd([fg, "check", str(tree), "--format", "json", "--no-cache"], Path(tmp),
                                                         ok=(0, 1)))], reps, budget)
        res.update(subset=f"torch/{sub}", files=n, lines=sum(count_lines(p.read_text("utf-8", "replace"))
                                                              for p in py_files(tree)))
    print(f"  (c) fullgraph/fixit: {fmt_ratio(res['ratios']['fullgraph'])} ({res['reps']} reps)", file=sys.stderr)
    return res


def print_fixit(r: dict) -> None:
    print("\n(c) fullgraph check / fixit lint on the same files -- target: fullgraph >= 30x faster")
    print(f"  subset: a copy of {r['subset']} ({r['files']} files, {r['lines']} lines), default jobs for both")
    s, c = r["seconds"], r["cpu_seconds"]
    ratio, cratio = r["ratios"]["fullgraph"], r["cpu_ratios"]["fullgraph"]
    rows = [["fixit lint (reference)", f"{s['fixit lint']['median']:.2f}", "1", "", f"{c['fixit lint']['median']:.2f}",
             "", f"{r['reps']}/{r['reps_asked']}", ""],
            ["fullgraph", f"{s['fullgraph']['median']:.2f}", fmt_ratio(ratio), fmt_speedup(ratio),
             f"{c['fullgraph']['median']:.2f}", fmt_speedup(cratio), f"{r['reps']}/{r['reps_asked']}",
             verdict(ratio, TARGETS["c"])]]
    print(table(["command", "wall s", "wall ratio", "wall speed-up", "CPU s", "CPU speed-up", "reps", ">=30x"], rows))


# ---- (d) where the time goes --------------------------------------------------------------------
def _func_label(key: tuple) -> str:
    filename, line, name = key
    if filename == "~":
        return name  # a builtin, e.g. {built-in method builtins.len}
    p = Path(filename)
    parts = p.parts
    if "fullgraph" in parts:
        rel = "/".join(parts[parts.index("fullgraph"):])
    else:
        rel = p.name
    return f"{rel}:{line}({name})"


def profile_single(tdir: Path, rel: str) -> dict:
    from fullgraph.engine.module import analyze
    from fullgraph.modnames import module_name_for
    from fullgraph.rules.registry import RULESET

    path = str(tdir / rel)
    text = Path(path).read_text(encoding="utf-8")
    modname, is_pkg = module_name_for(path)
    warm = tdir / "nn/modules/linear.py"
    analyze(str(warm), warm.read_text(encoding="utf-8"), rules=RULESET)  # rule registry and imports load on first use
    pr = cProfile.Profile()
    gc.collect()
    pr.enable()
    analyze(path, text, modname, is_pkg, rules=RULESET)
    pr.disable()
    st = pstats.Stats(pr)
    rows = [{"function": _func_label(k), "ncalls": nc, "primcalls": cc, "tottime": tt, "cumtime": ct}
            for k, (cc, nc, tt, ct, _callers) in st.stats.items()]
    return {"file": rel, "total_seconds_under_profiler": st.total_tt, "calls": st.total_calls,
            "top_cumulative": sorted(rows, key=lambda r: -r["cumtime"])[:15],
            "top_tottime": sorted(rows, key=lambda r: -r["tottime"])[:15]}


def print_profile(p: dict) -> None:
    print(f"\n(d1) cProfile of analyze(torch/{p['file']}): {p['total_seconds_under_profiler']:.2f} s under the "
          f"profiler, {p['calls']} calls")
    for key in ("top_cumulative", "top_tottime"):
        print(f"  top 15 by {key[4:]}:")
        rows = [[r["function"], str(r["ncalls"]), f"{r['tottime']:.3f}", f"{r['cumtime']:.3f}"] for r in p[key]]
        print("\n".join("    " + ln for ln in table(["function", "ncalls", "tottime s", "cumtime s"], rows).splitlines()))


def breakdown_tree(tree: Path) -> dict:
    """The steps of Workspace.check(jobs=1), done here one by one with a clock on each (same
    public functions, in the same order). ast.parse of every text is timed too, as the reference
    for analyze: it is not part of the totals."""
    from fullgraph import fixes
    from fullgraph.api import SourceError, Workspace, decode_source
    from fullgraph.config import discover
    from fullgraph.engine.module import analyze
    from fullgraph.modnames import module_name_for
    from fullgraph.rules.registry import RULESET

    clock = time.perf_counter
    t = dict.fromkeys(("discover", "module names", "read", "decode", "analyze", "project.set_module",
                       "project.findings", "attach_fixes", "findings_for (rest)"), 0.0)
    parse_total = 0.0
    per_file = []
    gcs = {"seconds": 0.0, "collections": [0, 0, 0], "_start": 0.0}

    def on_gc(phase: str, info: dict) -> None:  # pauses of the cyclic GC, whichever step they fall in
        if phase == "start":
            gcs["_start"] = clock()
        else:
            gcs["seconds"] += clock() - gcs["_start"]
            gcs["collections"][info["generation"]] += 1

    gc.collect()
    gc.callbacks.append(on_gc)
    t_all = clock()
    t0 = clock()
    ws = Workspace(discover(tree))
    files = ws.discover([tree])
    t["discover"] = clock() - t0
    errors = 0
    gc_in_parse = 0.0
    for f in files:
        t0 = clock()
        modname, is_pkg = module_name_for(f)
        t1 = clock()
        try:
            data = Path(f).read_bytes()
        except OSError as e:
            ws.set_error(f, "FG002", str(e))
            errors += 1
            continue
        t2 = clock()
        try:
            text = decode_source(data)
        except SourceError as e:
            ws.set_error(f, e.code, e.message)
            errors += 1
            continue
        t3 = clock()
        summary = analyze(f, text, modname, is_pkg, rules=RULESET)
        t4 = clock()
        ws.project.set_module(summary)
        t5 = clock()
        t["module names"] += t1 - t0
        t["read"] += t2 - t1
        t["decode"] += t3 - t2
        t["analyze"] += t4 - t3
        t["project.set_module"] += t5 - t4
        gc_before = gcs["seconds"]
        p0 = clock()
        try:
            ast.parse(text, filename=f)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
        p1 = clock()
        parse_total += p1 - p0
        gc_in_parse += gcs["seconds"] - gc_before
        per_file.append((f, t4 - t3, p1 - p0, count_lines(text)))
    # findings_for: split into the project's reachability/findings pass and the fix offers
    real_findings, real_attach = ws.project.findings, fixes.attach_fixes

    def timed_findings(*a, **k):
        s = clock()
        try:
            return real_findings(*a, **k)
        finally:
            t["project.findings"] += clock() - s

    def timed_attach(*a, **k):
        s = clock()
        try:
            return real_attach(*a, **k)
        finally:
            t["attach_fixes"] += clock() - s

    ws.project.findings = timed_findings
    fixes.attach_fixes = timed_attach
    try:
        t0 = clock()
        findings = ws.findings_for(files)
        t["findings_for (rest)"] = clock() - t0 - t["project.findings"] - t["attach_fixes"]
    finally:
        fixes.attach_fixes = real_attach
        del ws.project.findings
        gc.callbacks.remove(on_gc)
    total = clock() - t_all - parse_total  # the reference parses are not part of check
    gc_seconds = gcs["seconds"] - gc_in_parse
    per_file.sort(key=lambda x: -x[1])
    ratios = sorted(a / p for _f, a, p, n in per_file if p > 0 and n >= 100)  # tiny files: timer noise

    def q(x: float) -> float:
        return ratios[min(len(ratios) - 1, int(x * len(ratios)))] if ratios else float("nan")

    return {
        "tree": str(tree), "files": len(files), "unreadable_or_undecodable": errors, "findings": len(findings),
        "total_seconds": total, "steps_seconds": t,
        "steps_share": {k: v / total for k, v in t.items()},
        "gc_pauses_seconds (inside the steps)": gc_seconds, "gc_share": gc_seconds / total,
        "gc_collections_by_generation": gcs["collections"],
        "ast.parse_seconds (reference, not in total)": parse_total,
        "analyze_over_parse_whole_tree": t["analyze"] / parse_total if parse_total else None,
        "analyze_over_parse_per_file": {"median": q(0.5), "p90": q(0.9), "max": ratios[-1] if ratios else None},
        "slowest_files": [{"file": os.path.relpath(f, tree.parent), "lines": n, "analyze_s": a, "parse_s": p,
                           "ratio": a / p if p else None, "share_of_analyze": a / t["analyze"] if t["analyze"] else 0}
                          for f, a, p, n in per_file[:10]],
    }


def print_breakdown(b: dict) -> None:
    print(f"\n(d2) where `check` spends its time: in-process, jobs=1, {b['files']} files of {b['tree']}")
    rows = [[k, f"{v:.2f}", f"{b['steps_share'][k] * 100:.1f}%"] for k, v in b["steps_seconds"].items()]
    rows.append(["total", f"{b['total_seconds']:.2f}", "100%"])
    rows.append(["  of which cyclic-GC pauses", f"{b['gc_pauses_seconds (inside the steps)']:.2f}",
                 f"{b['gc_share'] * 100:.1f}%"])
    print("\n".join("  " + ln for ln in table(["step", "seconds", "share"], rows).splitlines()))
    print(f"  GC collections by generation (0, 1, 2), reference parses included: {b['gc_collections_by_generation']}")
    pf = b["analyze_over_parse_per_file"]
    print(f"  reference: ast.parse of every file {b['ast.parse_seconds (reference, not in total)']:.2f} s -> analyze/parse "
          f"over the tree {b['analyze_over_parse_whole_tree']:.1f}x; per file (>= 100 lines) median {pf['median']:.1f}x, "
          f"p90 {pf['p90']:.1f}x, max {pf['max']:.1f}x")
    print("  slowest files to analyze:")
    rows = [[s["file"], str(s["lines"]), f"{s['analyze_s']:.3f}", f"{s['ratio']:.1f}x", f"{s['share_of_analyze'] * 100:.1f}%"]
            for s in b["slowest_files"]]
    print("\n".join("    " + ln for ln in table(["file", "lines", "analyze s", "/parse", "share"], rows).splitlines()))


# ---- main ---------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="(a) symbolic_convert.py only, (b) on torch/nn without -j 1, (c) on torch/nn/utils, no (d)")
    ap.add_argument("--only", default="abcd", help="parts to run, e.g. 'ab' or 'a,d' (default: abcd)")
    ap.add_argument("--reps", type=int, help="repetitions asked per measurement (default: full 15/3/3, quick 5/3/2)")
    ap.add_argument("--tree", type=Path, help="tree for (b) and (d2) (default: the installed torch/ package)")
    ap.add_argument("--no-install", action="store_true", help="skip (c) if bench/.venv-fixit is missing")
    ap.add_argument("--out", type=Path, default=RESULTS / "engine.json")
    args = ap.parse_args(argv)
    parts = set(args.only.replace(",", ""))

    tdir = torch_dir()
    tree = args.tree.resolve() if args.tree else (tdir / "nn" if args.quick else tdir)
    fixit = fixit_exe(install=not args.no_install) if "c" in parts else None
    env = environment(tdir, fixit)
    if args.quick:
        reps = {"a": 5, "b": 3, "c": 2}
        budget = {"a": 15.0, "b": 20.0, "c": 20.0}
    else:
        reps = {"a": 15, "b": 3, "c": 3}
        budget = {"a": 60.0, "b": 600.0, "c": 240.0}
    if args.reps:
        reps = dict.fromkeys(reps, args.reps)
    result: dict = {"mode": "quick" if args.quick else "full", "environment": env,
                    "targets": {"a": "analyze/parse <= 3", "b": "fullgraph/ruff <= 3", "c": "fullgraph/fixit <= 1/30"},
                    "method": "ratios of runs interleaved in the same process/run, order rotated per repetition; "
                              "median and min-max over repetitions; budget-limited repetitions",
                    "budgets_seconds": budget}
    print(f"bench: {env['date']}, nproc {env['nproc']}, load {env['loadavg_start']}, torch {env['torch']}, "
          f"{env['ruff']}, fixit {env.get('fixit', '-')}, fullgraph {env['fullgraph']} @ {env['fullgraph_commit']}")
    t_start = time.perf_counter()
    if "a" in parts:
        files = SINGLE_FILES[:1] if args.quick else SINGLE_FILES
        result["a_single_file"] = bench_single(tdir, files, reps["a"], budget["a"])
    if "b" in parts:
        result["b_tree_vs_ruff"] = bench_tree(tree, reps["b"], budget["b"], with_j1=not args.quick)
    if "c" in parts:
        if fixit is None:
            print("bench: (c) skipped: no bench/.venv-fixit (run without --no-install to create it)", file=sys.stderr)
        else:
            sub = FIXIT_SUBSET_QUICK if args.quick else FIXIT_SUBSET_FULL
            result["c_vs_fixit"] = bench_fixit(tdir, fixit, sub, reps["c"], budget["c"])
    if "d" in parts and not args.quick:
        print("  (d) profiling ...", file=sys.stderr)
        result["d_profile_single"] = profile_single(tdir, SINGLE_FILES[0])
        result["d_breakdown_tree"] = breakdown_tree(tree)
    env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    result["wall_seconds"] = time.perf_counter() - t_start

    print(f"\nfullgraph benchmarks ({result['mode']}) -- {env['date']}, nproc {env['nproc']}, "
          f"load {env['loadavg_start']} -> {env['loadavg_end']}")
    print("Every number is a ratio to a reference run interleaved with it in this run: median [min-max].")
    if "a_single_file" in result:
        print_single(result["a_single_file"])
    if "b_tree_vs_ruff" in result:
        print_tree(result["b_tree_vs_ruff"], "(b) fullgraph check / ruff check --select ALL on the same tree -- target <= 3x")
    if "c_vs_fixit" in result:
        print_fixit(result["c_vs_fixit"])
    if "d_profile_single" in result:
        print_profile(result["d_profile_single"])
    if "d_breakdown_tree" in result:
        print_breakdown(result["d_breakdown_tree"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out} ({result['wall_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
