"""Conditional findings inside a followed library (issue 27): gathered per compile call and library in
SARIF (and in the editor, tests/test_lsp.py), hidden from the text output behind its summary count, and
confirmed by a runtime record: `fullgraph trace -- python train.py`, then `fullgraph check` shows the
library sites that run broke at as breaks."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SITE = Path(".venv") / "lib" / "python3.11" / "site-packages"

# an installed library (in the project's .venv, followed): two breaks on paths fullgraph cannot decide
LIB = '''import logging

import torch.nn as nn

logger = logging.getLogger(__name__)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, labels=None, verbose=False):
        y = self.lin(x)
        if verbose:
            print("verbose")
        if labels is not None:
            if not hasattr(self, "_loss_function"):
                logger.warning("no loss function set: using the mean squared error")
            y = (y - labels).pow(2).mean()
        return y

    def set_loss_function(self, fn):  # (a store of `_loss_function` the script may call: `hasattr` undecided)
        self._loss_function = fn
'''
PRINT_LINE, WARNING_LINE = 16, 19  # 1-based, in fglib/model.py

SCRIPT = '''import sys
import torch
from fglib.model import Model

model = torch.compile(Model(){fullgraph})
x = torch.randn(2, 4)
try:
    print(model(x, labels=torch.randn(2, 4), verbose="-v" in sys.argv))
except Exception as e:
    print("raised", type(e).__name__)
'''
COMPILE_LINE = 5


def make_project(root: Path, extra: str = "", fullgraph: bool = False) -> Path:
    """The user's project: train.py compiles the library's model and trains it (labels given)."""
    site = root / SITE / "fglib"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    (site / "model.py").write_text(LIB)
    (root / "pyproject.toml").write_text(
        f'[tool.fullgraph]\nfollow = ["fglib"]\nextra-paths = ["{SITE.as_posix()}"]\n{extra}')
    (root / "train.py").write_text(SCRIPT.format(fullgraph=", fullgraph=True" if fullgraph else ""))
    return root


def fullgraph(*args, cwd: Path, env: dict | None = None, timeout: int = 300):
    env = {**os.environ, **(env or {})}
    env.pop("TORCH_LOGS", None)
    return subprocess.run([sys.executable, "-m", "fullgraph", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)


def sarif_results(proc) -> list[dict]:
    return json.loads(proc.stdout)["runs"][0]["results"]


def test_text_output_keeps_them_behind_the_summary(tmp_path):
    proj = make_project(tmp_path)
    r = fullgraph("check", "train.py", cwd=proj)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No graph breaks found in 1 file checked; 2 more on conditional paths (--show-conditional)" in r.stdout
    r = fullgraph("check", "train.py", "--show-conditional", cwd=proj)
    assert r.returncode == 1
    assert r.stdout.count("info FG10") == 2  # one per code, as before


def test_sarif_gathers_them_per_compile_call_and_library(tmp_path):
    proj = make_project(tmp_path)
    results = sarif_results(fullgraph("check", "train.py", "--format", "sarif", cwd=proj))
    assert [(r["ruleId"], r["level"]) for r in results] == [("FG004", "none")]
    res = results[0]
    assert res["message"]["text"] == "2 possible graph breaks inside fglib on paths this call may take"
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == COMPILE_LINE
    related = [(x["message"]["text"], x["physicalLocation"]["region"]["startLine"]) for x in res["relatedLocations"]]
    assert related[0][0].startswith("compiled by torch.compile(Model())")
    assert sorted(related[1:], key=lambda x: x[1]) == [
        ("FG101: `print()` cannot be traced by Dynamo; it breaks the graph (only when `verbose=True`)", PRINT_LINE),
        ('FG102: `logger.warning()` (a logging.Logger method) breaks the graph (only when '
         '`not (hasattr(self, "_loss_function"))`)', WARNING_LINE)]


@pytest.mark.parametrize("setting,levels", [("information", [("FG004", "note")]), ("off", [])])
def test_sarif_level_follows_the_setting(tmp_path, setting, levels):
    proj = make_project(tmp_path, extra=f'conditional = "{setting}"\n')
    results = sarif_results(fullgraph("check", "train.py", "--format", "sarif", cwd=proj))
    assert [(r["ruleId"], r["level"]) for r in results] == levels


def test_an_unknown_setting_value_is_a_warning(tmp_path):
    proj = make_project(tmp_path, extra='conditional = "loud"\n')
    r = fullgraph("check", "train.py", "--format", "sarif", cwd=proj)
    assert "setting 'conditional' must be one of hint, information, off; got 'loud'; ignored" in r.stderr
    assert [(x["ruleId"], x["level"]) for x in sarif_results(r)] == [("FG004", "none")]


@pytest.mark.parametrize("fg", [False, True], ids=["default", "fullgraph"])
def test_trace_then_check_shows_the_sites_the_run_broke_at(tmp_path, fg):
    """The run passes labels: Dynamo breaks at the library's `logger.warning` (fullgraph held it as
    conditional), never reaches the print.  `fullgraph check` then shows that site as a break at the
    compile call (a warning, an error under fullgraph=True), the print still behind the summary."""
    pytest.importorskip("torch")
    proj = make_project(tmp_path, fullgraph=fg)
    env = {"PYTHONPATH": os.pathsep.join([str(proj / SITE), os.environ.get("PYTHONPATH", "")])}
    r = fullgraph("trace", "--", sys.executable, "train.py", cwd=proj, env=env)
    assert r.returncode == 0 and (proj / ".fullgraph" / "breaks.json").is_file(), r.stdout + r.stderr
    r = fullgraph("check", "train.py", cwd=proj)
    assert r.returncode == 1, r.stdout + r.stderr
    head = r.stdout.splitlines()[0]
    sev = "error" if fg else "warning"
    assert head.startswith(f"train.py:{COMPILE_LINE}:9: {sev} FG102 graph break inside fglib (fglib.model:"
                           f"{WARNING_LINE}: `logger.warning()`"), r.stdout
    assert head.endswith("observed at runtime")
    assert "1 more on conditional paths (--show-conditional)" in r.stdout
    assert "1 conditional library site observed at runtime" in r.stderr
    # SARIF: the confirmed site as a result of its own, the rest gathered
    results = sarif_results(fullgraph("check", "train.py", "--format", "sarif", cwd=proj))
    assert sorted((x["ruleId"], x["level"]) for x in results) == [("FG004", "none"), ("FG102", sev)]
    gathered = next(x for x in results if x["ruleId"] == "FG004")
    assert gathered["message"]["text"] == ("1 possible graph break inside fglib on paths this call may take "
                                           f"(not reached by `{os.path.basename(sys.executable)} train.py`)")
