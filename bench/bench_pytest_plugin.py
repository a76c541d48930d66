"""What the pytest plugin costs a run that does not use it (issue 14).

    .venv/bin/python bench/bench_pytest_plugin.py [--reps 11]

Times a plain `pytest` run of a tiny test file (no torch) with the plugin installed but off (the
entry point loads it) against the same run with `-p no:fullgraph`, alternating the two (the order
flips every repetition), and reports the ratio plugin-on-path / plugin-blocked per repetition: the
median and [min-max], in wall time and in CPU time (user+sys of the child, which moves less when
other people's jobs take the cores).  Also: `--graph-breaks=fail` on the same torch-free file (the
check is on but no test imports torch), and `python -X importtime` of the plugin module.

The machines are shared and noisy (2 cores): read the ratio, not the milliseconds.  Writes
bench/results/pytest_plugin.json.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TINY = '''\
def add(a, b):
    return a + b


def test_add():
    assert add(1, 2) == 3


def test_add_more():
    assert add(2, 2) == 4
'''

VARIANTS = {
    "blocked": ["-p", "no:fullgraph"],
    "installed (off)": [],
    "on, no torch": ["--graph-breaks=fail"],
}


def child_env(pycache: str) -> dict:
    """Bytecode cached (in a directory of our own), as in a user's environment, even where
    PYTHONDONTWRITEBYTECODE is set: otherwise every run would compile the plugin and pytest anew."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


ENV: dict = {}


def run_once(directory: str, extra: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, "test_tiny.py"],
                   cwd=directory, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def import_time_us() -> dict:
    """`python -X importtime -c 'import pytest; import fullgraph.pytest_plugin'`: the plugin's own lines."""
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", "import pytest; import fullgraph.pytest_plugin"],
                       capture_output=True, text=True, check=True, env=ENV)
    out = {}
    for line in p.stderr.splitlines():
        parts = [x.strip() for x in line.split("|")]
        if len(parts) == 3 and parts[2].lstrip().startswith("fullgraph"):
            out[parts[2].strip()] = {"self_us": int(parts[0].split(":")[-1]), "cumulative_us": int(parts[1])}
    return out


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=11, help="repetitions of each variant (at least 5)")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "pytest_plugin.json")
    args = ap.parse_args()
    reps = max(args.reps, 5)
    with tempfile.TemporaryDirectory(prefix="fullgraph-bench-pytest-") as d:
        ENV.update(child_env(os.path.join(d, "pycache")))
        Path(d, "test_tiny.py").write_text(TINY)
        Path(d, "pyproject.toml").write_text("")
        run_once(d, [])  # warm the file system cache and .pyc files
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in VARIANTS}
        names = list(VARIANTS)
        for i in range(reps):
            order = names if i % 2 == 0 else names[::-1]
            for name in order:
                times[name].append(run_once(d, VARIANTS[name]))
        imp = import_time_us()  # while the bytecode cache exists
    base = times["blocked"]
    result = {"reps": reps, "python": sys.version.split()[0], "loadavg": os.getloadavg(), "variants": {}}
    print(f"pytest on a 2-test file, {reps} repetitions each, alternating; ratio = variant / `-p no:fullgraph`")
    print(f"{'variant':<18} {'wall ms (median)':>17} {'wall ratio median [min-max]':>30} {'cpu ratio median [min-max]':>30}")
    for name in names:
        wall = [w for w, _ in times[name]]
        cpu = [c for _, c in times[name]]
        rw = [w / b[0] for w, b in zip(wall, base)]
        rc = [c / b[1] if b[1] else float("nan") for c, b in zip(cpu, base)]
        sw, sc = summary(rw), summary(rc)
        result["variants"][name] = {"wall_s": summary(wall), "cpu_s": summary(cpu), "wall_ratio": sw, "cpu_ratio": sc}
        print(f"{name:<18} {statistics.median(wall) * 1000:>17.0f} "
              f"{sw['median']:>14.3f} [{sw['min']:.3f}-{sw['max']:.3f}]"
              f"{sc['median']:>14.3f} [{sc['min']:.3f}-{sc['max']:.3f}]")
    result["importtime_us"] = imp
    for mod, v in imp.items():
        print(f"import {mod}: {v['self_us']} us self, {v['cumulative_us']} us cumulative (after pytest)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
