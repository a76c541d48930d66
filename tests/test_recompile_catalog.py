"""The recompile catalog and bench/modules/recompiles agree with Dynamo's committed verdicts (static: no torch).

Every case file parses and has a `main()` and a `__main__` block; every case that recompiled under torch 2.13
(`verdicts-2.13.0.json`, `truth-2.13.0.json`, collected by `tests/recompiles/collect.py`) carries at least one
`# recompile: <kind>` comment and every near-miss none; the verdicts cover exactly the case files.
"""
from __future__ import annotations

import ast
import io
import json
import os
import re
import tokenize

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG = os.path.join(ROOT, "tests", "recompiles", "cases")
MODULES = os.path.join(ROOT, "bench", "modules", "recompiles")
SETS = [
    ("catalog", CATALOG, os.path.join(ROOT, "tests", "recompiles", "verdicts-2.13.0.json"), 40),
    ("modules", MODULES, os.path.join(MODULES, "truth-2.13.0.json"), 15),
]
MARK = re.compile(r"#\s*recompile:\s*([A-Za-z0-9_-]+)")
KIND = re.compile(r"^[a-z]+(-[a-z]+)*$")


def _files(folder: str) -> list[str]:
    return sorted(f for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_"))


def _marks(path: str) -> list[tuple[int, str]]:
    with open(path, "rb") as f:
        toks = tokenize.tokenize(io.BytesIO(f.read()).readline)
        return [(t.start[0], m.group(1)) for t in toks
                if t.type == tokenize.COMMENT and (m := MARK.search(t.string))]


def _truth(path: str) -> dict:
    with open(path) as f:
        return {c["case"]: c for c in json.load(f)["cases"]}


@pytest.mark.parametrize("name,folder,truth,minimum", SETS, ids=[s[0] for s in SETS])
def test_cases_parse_and_run_a_main(name, folder, truth, minimum):
    files = _files(folder)
    assert len(files) >= minimum
    for fn in files:
        with open(os.path.join(folder, fn)) as f:
            tree = ast.parse(f.read(), fn)
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert "main" in names, f"{fn}: no main()"
        assert any(isinstance(n, ast.If) and "__main__" in ast.unparse(n.test) for n in tree.body), \
            f"{fn}: no `if __name__ == \"__main__\"` block"
        assert "torch.compile" in ast.unparse(tree) or ".compile(" in ast.unparse(tree), f"{fn}: compiles nothing"


@pytest.mark.parametrize("name,folder,truth,minimum", SETS, ids=[s[0] for s in SETS])
def test_marks_match_dynamo(name, folder, truth, minimum):
    verdicts = _truth(truth)
    files = _files(folder)
    assert sorted(verdicts) == files, "verdicts and case files differ: re-run tests/recompiles/collect.py"
    wrong = []
    for fn in files:
        v, mk = verdicts[fn], _marks(os.path.join(folder, fn))
        assert all(KIND.match(k) for _, k in mk), f"{fn}: malformed kind in {mk}"
        assert v["compile_ok"] and v["eager_ok"], f"{fn}: the case failed when collected"
        if v["recompiling"] != bool(mk):
            wrong.append(f"{fn}: Dynamo recompiled {v['recompiles']} times, marks {mk}")
        # the verdict records the marks the file had when it was collected
        if [ln for ln, _ in mk] != v["lines"]:
            wrong.append(f"{fn}: marks moved since collection ({v['lines']} -> {[ln for ln, _ in mk]})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name,folder,truth,minimum", SETS, ids=[s[0] for s in SETS])
def test_both_verdicts_present(name, folder, truth, minimum):
    verdicts = _truth(truth)
    recompiling = sum(v["recompiling"] for v in verdicts.values())
    near = len(verdicts) - recompiling
    assert recompiling and near, "both recompiling cases and near-misses"
    if name == "catalog":
        assert recompiling >= 20 and near >= 20
    newest = truth.replace("2.13.0", "2.15.0")
    assert os.path.exists(newest), f"{newest} missing"
    assert sorted(_truth(newest)) == sorted(verdicts)
