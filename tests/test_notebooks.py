"""`fullgraph check` on Jupyter notebooks: code cells as one module, magics masked, findings per cell."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

from harness import dynamo_breaks_of_run

from fullgraph.notebook import read


def _cell(source, kind="code"):
    cell = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


CELLS = [
    _cell(["# Training — ünïcode 训练\n"], "markdown"),
    _cell(["%pip install torch\n", "import torch\n", "import torch.nn as nn\n"]),
    _cell(["%%bash\n", "x = 1 +\n"]),  # a cell magic: not Python, masked (no syntax error)
    _cell("class Net(nn.Module):\r\n    def forward(self, x):\r\n        print('训练', x.shape)\r\n"
          "        return x * 2\r\n"),  # a string source with CRLF lines
    _cell([]),
    _cell(["files = !ls\n", "model = torch.compile(Net(), fullgraph=True)\n", "model?\n"]),
    _cell(["def main():\n", "    return model(torch.randn(2, 3))\n"]),
]


def _notebook(tmp_path: Path, cells=CELLS) -> Path:
    p = tmp_path / "train.ipynb"
    p.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1,
                            ensure_ascii=False) + "\n", encoding="utf-8")
    return p


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "fullgraph", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_a_notebook_is_checked_cell_by_cell(tmp_path):
    nb = _notebook(tmp_path)
    r = run("check", ".", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "train.ipynb:cell 4:3:9: error FG101 `print()`" in r.stdout
    assert "compiled by torch.compile(Net(), fullgraph=True) (fullgraph=True) at train.ipynb:cell 6:2" in r.stdout
    assert "Found 1 graph break (1 error, 0 warnings) in 1 file checked" in r.stdout  # no FG001 for cell 3
    doc = json.loads(run("check", nb, "--format", "json", cwd=tmp_path).stdout)
    [d] = doc["diagnostics"]
    assert (d["cell"], d["range"]["start"]) == (4, {"line": 3, "column": 9}) and d["fixes"]
    sarif = json.loads(run("check", nb, "--format", "sarif", cwd=tmp_path).stdout)
    [res] = sarif["runs"][0]["results"]
    assert res["properties"]["cell"] == 4 and res["locations"][0]["physicalLocation"]["region"]["startLine"] == 3


def test_the_cells_map_to_where_dynamo_breaks(tmp_path):
    """The module made of the code cells, run under Dynamo: its break maps back to the reported cell line."""
    text, cells = read(_notebook(tmp_path).read_bytes())
    (tmp_path / "nbmod.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib

        breaks = dynamo_breaks_of_run(lambda: importlib.import_module("nbmod").main())
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("nbmod", None)
    mine = os.path.realpath(tmp_path / "nbmod.py")
    assert {cells.locate(line - 1) for path, line in breaks if path == mine} == {(4, 2)}  # cell 4, line 3


ITEM = [
    {"cell_type": "code", "execution_count": 1, "id": "a1", "metadata": {},
     "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}],
     "source": ["%matplotlib inline\n", "import torch"]},
    {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["Scores — ünïcode"]},
    {"cell_type": "code", "execution_count": 2, "id": "a2", "metadata": {}, "outputs": [],
     "source": ["@torch.compile\n", "def f(x):\n", "    s = x.sum().item()\n", "    return x * s\n"]},
]


def test_fixes_write_back_only_the_cells_they_change(tmp_path):
    """The capture-config fix adds a line after the imports: it goes into the first cell, after its magic;
    every other byte of the notebook (outputs, ids, metadata, key order, indent) stays."""
    nb = tmp_path / "item.ipynb"
    doc = {"cells": copy.deepcopy(ITEM), "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4,
           "nbformat_minor": 5}
    nb.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    before = nb.read_text(encoding="utf-8")
    d = run("check", ".", "--diff", "--unsafe-fixes", cwd=tmp_path)
    assert "--- a/item.ipynb:cell 1\n+++ b/item.ipynb:cell 1\n" in d.stdout
    assert "+torch._dynamo.config.capture_scalar_outputs = True" in d.stdout
    assert nb.read_text(encoding="utf-8") == before  # --diff writes nothing
    r = run("check", ".", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "No graph breaks found" in r.stdout, r.stdout + r.stderr
    after = json.loads(nb.read_text(encoding="utf-8"))
    assert after["cells"][0]["source"] == ["%matplotlib inline\n", "import torch\n",
                                          "torch._dynamo.config.capture_scalar_outputs = True"]
    doc["cells"][0]["source"] = after["cells"][0]["source"]
    assert nb.read_text(encoding="utf-8") == json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_a_notebook_whose_layout_cannot_be_kept_is_not_rewritten(tmp_path):
    nb = tmp_path / "tabs.ipynb"
    nb.write_text(json.dumps({"cells": copy.deepcopy(ITEM), "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                             indent="\t"), encoding="utf-8")
    before = nb.read_bytes()
    r = run("check", ".", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "tabs.ipynb: not fixed: its JSON layout" in r.stderr and nb.read_bytes() == before
    assert "fixed 1 finding" not in r.stderr


def test_a_broken_notebook_is_reported_not_analysed(tmp_path):
    (tmp_path / "bad.ipynb").write_text("{not json", encoding="utf-8")
    (tmp_path / "old.ipynb").write_text(json.dumps({"worksheets": []}), encoding="utf-8")
    r = run("check", ".", cwd=tmp_path)
    assert "bad.ipynb:1:1: error FG002 not a notebook (invalid JSON" in r.stdout
    assert "old.ipynb:1:1: error FG002 not an nbformat 4 notebook" in r.stdout
    assert "2 files could not be analysed" in r.stdout


def test_a_cell_magic_with_a_python_body_is_python(tmp_path):
    """`%%time` (and %%timeit, %%capture, %%prun, %%debug) runs its body as Python: a model compiled and
    called there is checked; only the magic's line is masked."""
    cells = [_cell(["import torch\n"]),
             _cell(["%%time\n", "@torch.compile(fullgraph=True)\n", "def f(x):\n", "    print(x)\n", "    return x\n",
                    "f(torch.randn(2))\n"]),
             _cell(["%%timeit -n 1 -r 1\n", "y = f(torch.randn(2))\n"])]
    text, _ = read(json.dumps({"cells": cells}).encode())
    assert text.splitlines()[1:3] == ["#%%time", "@torch.compile(fullgraph=True)"]
    assert "#%%timeit -n 1 -r 1" in text.splitlines()
    r = run("check", _notebook(tmp_path, cells), cwd=tmp_path)
    assert "train.ipynb:cell 2:4:5: error FG101" in r.stdout, r.stdout


def test_magics_are_masked_in_place():
    text, cells = read(json.dumps({"cells": [_cell(["  %time f(x)\n", "out = !ls -l\n", "obj??\n", "y = x % 2\n"]),
                                             _cell(["%%bash\n", "echo hi\n"])]}).encode())
    assert text.splitlines() == ["  #time f(x)", "out = None #ls -l", "#obj??", "y = x % 2", "#%%bash", "#echo hi"]
    assert cells.locate(4) == (2, 0)
