"""Imports found where Python finds them: a script's literal `sys.path` edits, its own folder, `src/` layouts
and the `extra-paths` setting.  Each example: a break inside a module reachable only that way is reported by
`fullgraph check` (at the user's call when the module is outside the checked files); without the edit it is
not, and `-v` names the import it could not find.  One example is run under Dynamo."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from harness import dynamo_breaks_of_main

from fullgraph.cli import main as cli_main

LIB = '''\
def step(x):
    print("step", x.shape)
    return x * 2
'''

SCRIPT = '''\
import os
import sys
from pathlib import Path

import torch

{edit}
from {lib}.layers import step


def main():
    torch.compile(step)(torch.randn(2))


if __name__ == "__main__":
    main()
'''

# the forms scripts use to put a folder on sys.path (the script is tools/train.py, the library in vendor/)
EDITS = {
    "join-dirname-abspath": 'sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vendor"))',
    "path-parent-div": 'sys.path.append(str(Path(__file__).parent.parent / "vendor"))',
    "resolve-parents": 'sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vendor"))',
    "module-constant": 'ROOT = os.path.dirname(os.path.dirname(__file__))\nif ROOT not in sys.path:\n'
                       '    sys.path.append(os.path.join(ROOT, "vendor"))',
    "literal-from-cwd": 'sys.path.insert(0, "vendor")',  # relative: from the working directory (the project root)
}


def project(tmp_path: Path, lib: str, edit: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "train.py").write_text(SCRIPT.format(edit=edit, lib=lib))
    (tmp_path / "vendor" / lib).mkdir(parents=True)
    (tmp_path / "vendor" / lib / "__init__.py").write_text("")
    (tmp_path / "vendor" / lib / "layers.py").write_text(LIB)
    return tmp_path


def check(capsys, *args) -> tuple[int, str, str]:
    code = cli_main(["check", *map(str, args), "--no-cache", "--color", "never"])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("form", sorted(EDITS))
def test_a_sys_path_edit_finds_the_module(tmp_path, capsys, form):
    root = project(tmp_path, f"fg_lib_{form.replace('-', '_')}", EDITS[form])
    code, out, err = check(capsys, root / "tools", "-v")
    assert code == 1, out + err
    # vendor/ is not among the checked files: its break is reported at the user's compile call
    line = (root / "tools" / "train.py").read_text().splitlines().index("    torch.compile(step)(torch.randn(2))") + 1
    assert f"tools/train.py:{line}:5: warning FG101 graph break inside fg_lib_" in out
    assert "layers:2: `print()` cannot be traced" in out
    assert "imports not found" not in err


def test_without_the_edit_the_import_is_said(tmp_path, capsys):
    root = project(tmp_path, "fg_lib_none", "")
    code, out, err = check(capsys, root / "tools", "-v")
    assert code == 0, out + err
    assert "No graph breaks found" in out and "1 compiled target could not be resolved" in out
    assert "fg_lib_none.layers (imported by " in err and "tools/train.py)" in err


def test_dynamo_agrees_with_the_sys_path_edit(tmp_path):
    lib = "fg_lib_dynamo"
    root = project(tmp_path, lib, EDITS["join-dirname-abspath"])
    try:
        seen = dynamo_breaks_of_main(root / "tools", "train")  # run as a script: tools/ is sys.path[0]
    finally:
        for name in [m for m in sys.modules if m == lib or m.startswith(lib + ".")]:
            sys.modules.pop(name)
        vendor = os.path.normpath(os.path.join(root, "tools", "..", "vendor"))
        sys.path[:] = [p for p in sys.path if os.path.normpath(p) != vendor]
    assert (os.path.realpath(root / "vendor" / lib / "layers.py"), 2) in seen


def test_the_scripts_folder_comes_first_even_inside_a_package(tmp_path, capsys):
    """tools/ has an `__init__.py` (its modules are tools.*), yet `python tools/train.py` imports its
    siblings by bare name: the whole project checked, the break is shown where it is."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "__init__.py").write_text("")
    (tmp_path / "tools" / "helpers.py").write_text(LIB)
    (tmp_path / "tools" / "train.py").write_text(
        "import torch\nfrom helpers import step\n\n\ndef main():\n    torch.compile(step)(torch.randn(2))\n")
    code, out, err = check(capsys, tmp_path)
    assert code == 1, out + err
    assert "tools/helpers.py:2:5: warning FG101" in out


def test_a_src_layout_is_found_without_an_install(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "src" / "fg_srcpkg").mkdir(parents=True)
    (tmp_path / "src" / "fg_srcpkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "fg_srcpkg" / "layers.py").write_text(LIB)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run.py").write_text(
        "import torch\nfrom fg_srcpkg.layers import step\n\n\ndef main():\n    torch.compile(step)(torch.randn(2))\n")
    code, out, err = check(capsys, tmp_path / "scripts")
    assert code == 1, out + err
    assert "scripts/run.py:6:5: warning FG101 graph break inside fg_srcpkg" in out
    (tmp_path / "src").rename(tmp_path / "lib")  # not a source root: not found
    code, out, err = check(capsys, tmp_path / "scripts", "-v")
    assert code == 0 and "fg_srcpkg.layers (imported by " in err


def test_extra_paths_setting_and_flag(tmp_path, capsys):
    root = project(tmp_path, "fg_lib_extra", "")
    (root / "third_party").mkdir()
    (root / "vendor").rename(root / "third_party" / "foo")
    code, out, _ = check(capsys, root / "tools", "--extra-paths", root / "third_party" / "foo")
    assert code == 1 and "graph break inside fg_lib_extra" in out
    code, out, _ = check(capsys, root / "tools")
    assert code == 0
    (root / "pyproject.toml").write_text('[tool.fullgraph]\nextra-paths = ["third_party/foo"]\n')
    code, out, _ = check(capsys, root / "tools")
    assert code == 1 and "graph break inside fg_lib_extra" in out


def test_the_editor_setting_reaches_the_configuration(tmp_path):
    from fullgraph.lsp.session import FullgraphServer

    ls = FullgraphServer()
    ls.root = str(tmp_path)
    ls.apply_editor_settings({"extraPaths": ["third_party/foo"], "torchVersion": ""})
    assert ls.config.extra_paths == ["third_party/foo"]


def test_a_package_installed_in_a_venv_inside_the_project_is_not_analysed_unless_followed(tmp_path, capsys,
                                                                                           monkeypatch):
    """`.venv/` inside the project (the usual layout): its site-packages hold installed packages.  Checking
    one of them (`fullgraph check .venv/.../site-packages/torch`) must not load the others it imports as
    code to analyse: an installed package is analysed only when followed."""
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    for pkg in ("fg_pkg_a", "fg_pkg_b"):
        (site / pkg).mkdir(parents=True)
        (site / pkg / "__init__.py").write_text("")
    (site / "fg_pkg_b" / "layers.py").write_text(LIB)
    (site / "fg_pkg_a" / "train.py").write_text(SCRIPT.format(edit="", lib="fg_pkg_b"))
    (tmp_path / "pyproject.toml").write_text("")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(tmp_path)
    code, out, err = check(capsys, site / "fg_pkg_a")
    assert code == 0 and "No graph breaks found" in out, out + err
    code, out, err = check(capsys, site / "fg_pkg_a", "--follow", "fg_pkg_b")
    assert code == 1 and "graph break inside fg_pkg_b" in out, out + err
