"""Runtime capture in a Jupyter kernel (`%load_ext fullgraph`, fullgraph/kernel.py): the cells of a notebook run
in IPython; the graph break Dynamo meets is recorded at the notebook's own place (the cell and line the
editor shows, the same place the static analysis reports), and only while the notebook is unchanged."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fullgraph.notebook import read
from fullgraph.trace.record import load_record, runtime_findings

CELLS = [
    ("markdown", "# Training 🔥"),
    ("code", "%load_ext fullgraph\nimport torch\nimport torch.nn as nn"),
    ("code", '\n# the model\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n'
             '        self.lin = nn.Linear(4, 4)\n\n    def forward(self, x):\n'
             '        label = "统计 😀"; print(label, x.shape)\n        return self.lin(x).relu()'),
    ("code", 'model = torch.compile(Net(), backend="eager")\nout = model(torch.randn(2, 4))'),
]

RUN = """
import sys
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
for src in sys.argv[1:]:
    ip.run_cell(src).raise_error()
"""


def _notebook(path: Path, cells) -> None:
    nb = {"cells": [{"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True),
                     **({"outputs": [], "execution_count": None} if kind == "code" else {})} for kind, src in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _run_kernel(tmp_path: Path, nb: Path, cells) -> subprocess.CompletedProcess:
    env = {**os.environ, "FULLGRAPH_NOTEBOOK": str(nb), "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, "-c", RUN, *[src for kind, src in cells if kind == "code"]],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_a_break_met_in_a_kernel_is_recorded_at_its_notebook_cell(tmp_path):
    pytest.importorskip("IPython")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'nb'\n")
    nb = tmp_path / "train.ipynb"
    _notebook(nb, CELLS)
    proc = _run_kernel(tmp_path, nb, CELLS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "fullgraph: recording graph breaks of" in proc.stdout
    record = load_record(str(tmp_path / ".fullgraph" / "breaks.json"))
    assert record is not None and record.breaks, proc.stdout + proc.stderr[-2000:]
    text, cells = read(nb.read_bytes())
    (b,) = [b for b in record.breaks if b.path == str(nb)]
    cell, line = cells.locate(b.line - 1)
    assert (cell, line) == (3, 8)  # the print, 0-based line 8 of the third cell (markdown counts): IPython ran the
    # cell without its leading blank line, and its first cell with the magic turned into a call
    # the same place the static analysis reports
    static = json.loads(subprocess.run([sys.executable, "-m", "fullgraph", "check", str(nb), "--format", "json",
                                        "--exit-zero"], capture_output=True, text=True).stdout)
    assert [(d["cell"], d["range"]["start"]["line"]) for d in static["diagnostics"] if d["code"] == "FG101"] == \
        [(3, 9)]  # 1-based in the JSON output
    # shown while the notebook is unchanged, dropped once its code changes
    assert [f.span.start.line for f in runtime_findings(record, str(nb), text)] == [b.line - 1]
    assert runtime_findings(record, str(nb), text.replace("relu()", "tanh()")) == []


def test_a_cell_edited_since_the_save_is_not_mapped(tmp_path):
    pytest.importorskip("IPython")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'nb'\n")
    nb = tmp_path / "train.ipynb"
    _notebook(nb, CELLS)
    ran = [*CELLS[:2], ("code", "x = 1\n" + CELLS[2][1]), CELLS[3]]  # the model's cell as run differs from the saved one
    proc = _run_kernel(tmp_path, nb, ran)
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = load_record(str(tmp_path / ".fullgraph" / "breaks.json"))
    assert record is None or not [b for b in record.breaks if b.path == str(nb)]
