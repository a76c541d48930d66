"""Real-world benchmark: Dynamo's graph breaks in library models vs what `fullgraph check` shows.

For every model of ``models.py`` (tiny configs of transformers, x-transformers and diffusers models, built
from a config: no download; torch_geometric graph networks, torchmetrics metric objects, monai networks) and
each of its modes,

* ``eval``: ``model.eval()``, the default call under ``torch.no_grad()``;
* ``train``: ``model.train()``, gradients on, labels passed so the loss is computed in forward
  (x-transformers decoders are wrapped in ``AutoregressiveWrapper``; diffusers, monai and torch_geometric
  models take no labels);
* ``call`` (torchmetrics, its only mode): the compiled metric object called as ``metric(preds, target)``,

the user script ``scripts/<model>_<mode>.py`` (what a user writes: build the model, ``torch.compile`` it, call
it; generated from ``models.py`` into the git-ignored ``scripts/`` before each pass, see ``user_scripts.py``) is

1. **runtime pass** (``--runtime-only``): run under ``fullgraph trace`` with ``torch.compile(model,
   backend="eager")`` (fullgraph=False: Dynamo resumes after each break, so every break is seen), plus an
   eager line-coverage run of the library.  The ground truth is every graph-break event the capture hook
   saw, merged per *site*: (gb_type, innermost frame inside the followed library, its statement).  Written
   to ``truth.json`` (committed; re-run only when the models, the libraries or torch change);
2. **static pass** (``--static-only``): ``fullgraph check scripts/<model>_<mode>.py --follow <library>
   --format json`` through the CLI, one process per script, with a timeout.  Written to ``static.json``
   (committed: the compact diagnostics the CLI printed), then, for the scripts with missed sites, an
   in-process look at the engine's call graph to say why each was missed (``--no-explain`` skips it);
3. **report** (``--report-only``): ``RESULTS.md`` from ``truth.json`` + ``static.json``.

The modules, one job each (this file only parses the command line and dispatches)::

    common.py        paths (repository, venv, site-packages, scripts/, work/), library sources, child processes
    user_scripts.py  the user scripts, rendered from models.py into scripts/
    runtime_pass.py  1. the truth: the scripts under `fullgraph trace`, sites, eager coverage -> truth.json
    static_pass.py   2. `fullgraph check` per script, compact diagnostics -> static.json, engine dumps
    explain.py       why a site was missed: the engine's call graph against Dynamo's stack
    score_runs.py    the scoring of each run (its docstring is the report's "Method"), on ../scoring.py
    report.py        3. RESULTS.md

How to reproduce (from the repository root, after ``bash scripts/setup.sh``)::

    echo "torch==2.13.0" > /tmp/c.txt
    .venv/bin/pip install -c /tmp/c.txt transformers==5.24.0 x-transformers==2.31.10 diffusers==0.42.1 \
        torch_geometric==2.8.1 torchmetrics==1.9.0 monai==1.6.1
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/realworld/run_models.py --runtime-only  # ~36 min
    nice -n 10 .venv/bin/python bench/realworld/run_models.py --static-only   # re-score the analyzer, ~4 min
    .venv/bin/python bench/realworld/run_models.py --report-only              # re-render RESULTS.md
    .venv/bin/python bench/realworld/run_models.py --static-only --models llama,bert --no-explain
    .venv/bin/python bench/realworld/user_scripts.py                          # only write scripts/

Scoring: the docstring of ``score_runs.py`` (also the "Method" section of RESULTS.md).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, RESULTS_MD  # noqa: E402
from models import BY_NAME, MODELS  # noqa: E402
from report import write_report  # noqa: E402
from runtime_pass import child_coverage, child_trace, runtime_pass  # noqa: E402
from static_pass import child_check, static_pass  # noqa: E402
from user_scripts import write_scripts  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=None, help="comma-separated names (default: all in models.py)")
    ap.add_argument("--libraries", default=None, help="comma-separated libraries (transformers, diffusers, ...)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--runtime-only", action="store_true", help="run the models under Dynamo (writes truth.json)")
    g.add_argument("--static-only", action="store_true", help="run `fullgraph check` and re-score (static.json)")
    g.add_argument("--report-only", action="store_true", help="re-render RESULTS.md")
    ap.add_argument("--timeout", type=int, default=300, help="per `fullgraph check` (s)")
    ap.add_argument("--runtime-timeout", type=int, default=900, help="per model run under `fullgraph trace` (s)")
    ap.add_argument("--no-explain", action="store_true", help="skip explaining the missed sites")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("--child-trace", nargs=2, metavar=("SCRIPT", "PARTS_COPY"), help=argparse.SUPPRESS)
    ap.add_argument("--child-coverage", nargs="+", metavar="LIBDIR SCRIPT OUT", help=argparse.SUPPRESS)
    ap.add_argument("--child-check", nargs=5, metavar=("SCRIPT", "LIBRARY", "OUT", "ENGINE_OUT", "STACKFILES"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_trace:
        child_trace(*args.child_trace)
        return 0
    if args.child_coverage:
        child_coverage(args.child_coverage[1:], args.child_coverage[0])
        return 0
    if args.child_check:
        child_check(*args.child_check)
        return 0
    names = [m.name for m in MODELS]
    if args.models:
        names = [x.strip() for x in args.models.split(",") if x.strip()]
        unknown = [x for x in names if x not in BY_NAME]
        if unknown:
            ap.error(f"unknown models: {', '.join(unknown)} (see --list)")
    if args.libraries:
        libs = set(args.libraries.split(","))
        names = [n for n in names if BY_NAME[n].library in libs]
    if args.list:
        for n in names:
            m = BY_NAME[n]
            print(f"{n:22s} {m.library:15s} {m.family:11s} {m.build[:90]}")
        return 0
    if args.report_only:
        write_report()
        return 0
    write_scripts(names)
    if not args.static_only:
        runtime_pass(names, args.runtime_timeout)
    if not args.runtime_only:
        static_pass(names, args.timeout, not args.no_explain)
    write_report()
    print(f"wrote {RESULTS_MD.relative_to(REPO)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
