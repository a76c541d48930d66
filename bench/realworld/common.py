"""What the passes of run_models.py share: where things are (the repository, the venv, site-packages, the
generated scripts, the committed JSON, the git-ignored work/ folder), path conversions between them, the
library sources, running a child process, and the identity of a Dynamo site."""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
if str(HERE.parent) not in sys.path:
    sys.path.append(str(HERE.parent))  # bench/: the shared scoring module
from scoring import SourceLines  # noqa: E402

ENTRY = HERE / "run_models.py"  # what the child processes run (its --child-* flags)
VENV_PY = REPO / ".venv" / "bin" / "python"
FULLGRAPH = REPO / ".venv" / "bin" / "fullgraph"
SCRIPTS = HERE / "scripts"  # the user scripts, generated from models.py at run time (git-ignored)
WORK = HERE / "work"  # transient (git-ignored): part files, logs, coverage, CLI output, explanations
TRUTH_JSON = HERE / "truth.json"
STATIC_JSON = HERE / "static.json"
RESULTS_MD = HERE / "RESULTS.md"
MANUAL_MARK = "<!-- hand-written below this line: kept when the report is regenerated -->"
NICE = ["nice", "-n", "10"]
ENV = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error", OMP_NUM_THREADS="1",
           TOKENIZERS_PARALLELISM="false", PYTHONHASHSEED="0")


# ==== paths =======================================================================================
_SITE: list[str] = []


def site_dir() -> str:
    """The venv's site-packages (library paths are stored relative to it)."""
    if not _SITE:
        out = subprocess.run([str(VENV_PY), "-c", "import torch, os; print(os.path.dirname(os.path.dirname("
                              "os.path.realpath(torch.__file__))))"], capture_output=True, text=True, check=True)
        _SITE.append(out.stdout.strip())
    return _SITE[0]


def lib_dir(library: str) -> str:
    return os.path.join(site_dir(), library)


def rel(path: str) -> str:
    """site-packages-relative for installed packages, repository-relative for the scripts."""
    p = os.path.realpath(path if os.path.isabs(path) else os.path.join(REPO, path))
    sd = site_dir()
    if p.startswith(sd + os.sep):
        return p[len(sd) + 1:]
    i = p.find("site-packages/")
    if i >= 0:
        return p[i + len("site-packages/"):]
    try:
        return os.path.relpath(p, REPO)
    except ValueError:
        return p


def absolute(relpath: str) -> str:
    if os.path.isabs(relpath):
        return relpath
    cand = os.path.join(site_dir(), relpath)
    return cand if os.path.exists(cand) else str(REPO / relpath)


def tag_of(name: str, mode: str) -> str:
    return f"{name}_{mode}"


def script_of(name: str, mode: str) -> Path:
    return SCRIPTS / f"{tag_of(name, mode)}.py"


def ranges(lines: list[int]) -> str:
    out, lines = [], sorted(set(lines))
    for _, grp in itertools.groupby(enumerate(lines), key=lambda t: t[1] - t[0]):
        g = [x for _, x in grp]
        out.append(f"{g[0]}-{g[-1]}" if len(g) > 1 else str(g[0]))
    return ",".join(out)


def unranges(text: str) -> set[int]:
    s: set[int] = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        s.update(range(int(a), int(b or a) + 1))
    return s


class Sources(SourceLines):
    """Library source lines and statement spans (by site-packages-relative or absolute path)."""

    def __init__(self):
        super().__init__(resolve=absolute)


def site_key(s: dict) -> str:
    """A Dynamo site's identity: gb_type and the first line of its statement."""
    return f"{s['gb_type']}|{s['path']}:{s['stmt'][0]}"


# ==== processes and JSON ==========================================================================
def run(cmd: list[str], log: Path, timeout: int, env: dict | None = None) -> tuple[int, float]:
    t = time.perf_counter()
    with open(log, "w") as fh:
        try:
            rc = subprocess.run(cmd, check=False, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout, cwd=str(REPO),
                                env=env or ENV).returncode
        except subprocess.TimeoutExpired:
            rc = -999
    return rc, time.perf_counter() - t


def load_json(p: Path) -> dict:
    return json.loads(p.read_text()) if p.exists() else {}


def versions() -> dict:
    out = subprocess.run([str(VENV_PY), "-c", (
        "import importlib.metadata as md, json;print(json.dumps({p: md.version(p) for p in "
        "('torch', 'transformers', 'x-transformers', 'diffusers', 'torch_geometric', 'torchmetrics', 'monai', 'fullgraph')}))")],
        capture_output=True, text=True, env=ENV, check=False)
    try:
        return json.loads(out.stdout)
    except ValueError:
        return {}


def write_compact(p: Path, data: dict) -> None:
    """The committed JSON files: one line, no spaces."""
    p.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
