"""The collected knowledge of each torch release (fullgraph.knowledge, data/knowledge-<version>.json).

Only the pure parts: the committed files' schema, 2.13.0's catalog verdicts against the catalog's own
recorded ones, the writer and the differ.  Nothing here installs or imports torch (collecting is a
manual step: docs/knowledge.md).
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "server" / "fullgraph" / "data"
FILES = sorted(DATA.glob("knowledge-*.json"))

from fullgraph import knowledge  # noqa: E402


def test_importing_the_module_imports_no_torch_and_no_other_module_imports_it():
    code = "import sys, fullgraph.knowledge; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT / "server")
    def imports_it(path: Path) -> bool:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if mod.rpartition(".")[2] == "knowledge" or any(a.name == "knowledge" for a in node.names):
                    return True
            elif isinstance(node, ast.Import) and any(a.name.endswith(".knowledge") for a in node.names):
                return True
        return False

    own = ROOT / "server" / "fullgraph" / "knowledge"
    users = [p for p in (ROOT / "server" / "fullgraph").rglob("*.py") if own not in p.parents and imports_it(p)]
    assert users == []  # the data files are read by torchinfo (JSON only), never through this module


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_schema_of_the_committed_files(path):
    text = path.read_text(encoding="utf-8")
    k = json.loads(text)
    assert text == knowledge.dumps(k)  # written by the writer: sorted, one entry a line
    version = path.stem.split("-", 1)[1]
    assert set(k) == {"apis", "calls", "catalog", "meta", "registry", "tracetable"}
    m = k["meta"]
    assert m["torch"].split("+")[0] == version
    assert re.match(r"^3\.\d+\.\d+$", m["python"])
    assert m["n_cases"] == len(k["catalog"]) >= 250
    assert m["n_breaking"] == sum(1 for c in k["catalog"].values() if c.get("breaks"))
    for cid, c in k["catalog"].items():
        assert c.get("breaks") in (True, False) or c.get("crashed") or c.get("skipped") or c.get("error"), cid
        if c.get("breaks"):
            assert c["gb_type"], cid
        if "plain" in c:
            assert isinstance(c["plain"]["graphs"], int) and isinstance(c["plain"]["breaks"], list), cid
        assert all(isinstance(v, bool) for v in c.get("fixes", {}).values()), cid
    assert len(k["registry"]) > 400
    for code, e in k["registry"].items():
        assert re.match(r"^GB\d{4}$", code) and isinstance(e["gb_type"], str) and isinstance(e["hints"], list)
    for name, a in k["apis"].items():
        assert name.startswith("torch.") and isinstance(a["exists"], bool)
    assert k["apis"]["torch.compile"]["exists"] and k["apis"]["torch.library.custom_op"]["callable"]
    assert set(knowledge.table_names()) <= set(k["calls"])  # every row of every shipped table called
    assert all(re.match(r"^(GB\d{4}|traced|absent|breaks: .+)$", c) for c in k["calls"].values())
    t = k["tracetable"]
    assert t["rows"] > 500 and (DATA / t["file"]).exists()


def test_the_fixes_apis_are_all_probed():
    for path in FILES:
        probed = set(json.loads(path.read_text(encoding="utf-8"))["apis"])
        missing = set(knowledge.fix_api_names()) - probed
        assert not missing, f"{path.name}: re-run `python -m fullgraph.knowledge collect ... --only apis`: {missing}"


def test_2_13_verdicts_agree_with_the_catalogs_recorded_ones():
    path = DATA / "knowledge-2.13.0.json"
    if not path.exists():
        pytest.skip("2.13.0 not collected")
    ours = json.loads(path.read_text(encoding="utf-8"))["catalog"]
    recorded = json.loads((ROOT / "tests" / "catalog" / "verdicts.json").read_text())["cases"]
    assert {c["id"] for c in recorded} == set(ours)
    differ = {c["id"]: (c["breaks"], ours[c["id"]].get("breaks")) for c in recorded
              if c["breaks"] != ours[c["id"]].get("breaks")}
    assert differ == {}
    def norm(gb_type):  # the recorded texts keep an object's address
        return re.sub(r" at 0x[0-9a-fA-F]+", "", gb_type)

    gb = {c["id"]: (c["gb_type"], ours[c["id"]]["gb_type"]) for c in recorded
          if c["breaks"] and norm(c["gb_type"]) != ours[c["id"]]["gb_type"]}
    assert gb == {}


def test_writer_round_trips_and_puts_one_entry_a_line():
    obj = {"b": {"y": {"k": [1, 2]}, "x": {"a": None}}, "a": {"m": "é"}, "c": [], "d": {}}
    text = knowledge.dumps(obj)
    assert json.loads(text) == obj
    assert text.splitlines()[1:4] == [' "a": {', '  "m": "é"', ' },']
    assert '  "x": {"a": null},' in text.splitlines()


def test_diff_of_two_releases(tmp_path):
    def write(version, catalog, apis, breaks):
        table = f"tracetable-{version.rsplit('.', 1)[0]}.json"
        (tmp_path / table).write_text(json.dumps({"torch": version, "breaks": breaks}))
        (tmp_path / f"knowledge-{version}.json").write_text(knowledge.dumps({
            "meta": {"torch": version}, "catalog": catalog, "apis": apis,
            "registry": {"GB0001": {"gb_type": "a"}}, "tracetable": {"file": table}}))

    write("2.13.0", {"c1": {"breaks": True, "gb_type": "t", "gb_code": "GB0007"}, "c2": {"breaks": False}},
          {"torch.x": {"exists": False}}, {"heapq.heappush": "skipped", "os.getpid": "skipped"})
    write("2.15.0", {"c1": {"breaks": False}, "c2": {"breaks": False}},
          {"torch.x": {"exists": True, "callable": True}}, {"os.getpid": "skipped", "time.time": "skipped"})
    d = knowledge.diff("2.13.0", "2.15.0", data=tmp_path)
    assert d["catalog"] == {"c1": ["breaks (GB0007 t)", "compiles"]}
    assert d["apis"] == {"torch.x": [False, True]}
    assert d["tracetable"] == {"added": ["time.time"], "removed": ["heapq.heappush"], "changed": [],
                               "removed_on_b": {}}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_row_a_rules_holds_drops_is_traced_on_that_release(path):
    """FG108's `holds` reads "left the trace table" as "no longer breaks" (random.random on 2.14.1): the
    release's `calls` must say the call is traced there, not that it breaks otherwise (time.* on 2.15)."""
    from fullgraph import tracetable
    from fullgraph.rules import registry
    from fullgraph.torchinfo import TorchVersion

    version = TorchVersion.parse(path.stem.split("-", 1)[1])
    calls = json.loads(path.read_text(encoding="utf-8"))["calls"]
    rule = registry.BY_CODE["FG108"]
    left = [q for q in rule.calls if tracetable.left_table(q, version)]
    assert {q: calls.get(q) for q in left if calls.get(q) not in ("traced", "absent")} == {}
    if version >= TorchVersion(2, 14, 1):
        assert "random.random" in left
