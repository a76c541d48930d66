"""The Python package as a user installs it: `python -m build` of server/, the built wheel in a fresh venv, and the
pre-commit hooks (which install the package, not this checkout) through `pre-commit try-repo`.

Needs `build` and `pre-commit` (the `test` extra) and PyPI, or a pip cache, for the build backend and fullgraph's
dependencies. Wheels already downloaded by scripts/bundle_server.py (build/wheels/linux-x64/<python>) are offered
first (`--find-links`), so a machine that packaged the extension installs the dependencies without the index.
About 40-60 s in all; runs in CI with the rest of `pytest tests`.
"""
from __future__ import annotations

import email
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: fullgraph depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"
PY = f"{sys.version_info[0]}.{sys.version_info[1]}"

pytest.importorskip("build", reason="the `build` package (test extra) is needed")


def _version() -> str:
    return tomllib.loads((SERVER / "pyproject.toml").read_text())["project"]["version"]


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment without this checkout or the test venv on any path, and without the machine's torch
    constraint file (it pins torch only, but makes pip read a file the fresh venv does not need)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_CONSTRAINT"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    env["PIP_CONSTRAINT"] = ""
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def _find_links(dist: Path) -> list[str]:
    links = [str(dist)]
    cached = ROOT / "build" / "wheels" / "linux-x64" / PY
    if cached.is_dir():
        links.append(str(cached))
    return links


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """sdist and wheel of server/, built as a release would be (isolated build, from a copy of server/ so that
    the checkout gets no build/ or egg-info)."""
    tmp = tmp_path_factory.mktemp("dist")
    src = tmp / "src"
    shutil.copytree(SERVER, src, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build"))
    out = tmp / "out"
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(src)],
                          capture_output=True, text=True, env=_clean_env())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("fullgraph-*-py3-none-any.whl")
    return wheel


def test_versions_agree():
    """One version for the package, the extension, the pre-commit shim's pin and fullgraph.__version__."""
    version = _version()
    assert json.loads((ROOT / "package.json").read_text())["version"] == version
    shim = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert shim["version"] == version and shim["dependencies"] == [f"fullgraph=={version}"]
    init = (SERVER / "fullgraph" / "__init__.py").read_text()
    assert re.search(rf'^__version__ = "{re.escape(version)}"$', init, re.M)
    assert f"## [{version}]" in (ROOT / "CHANGELOG.md").read_text()
    assert (SERVER / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes(), "server/LICENSE is a copy"


def test_wheel_metadata(dist):
    with zipfile.ZipFile(_wheel(dist)) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(f"fullgraph-{_version()}.dist-info/METADATA"))
        entry_points = z.read(f"fullgraph-{_version()}.dist-info/entry_points.txt").decode()
    assert meta["Name"] == "fullgraph" and meta["Version"] == _version()
    assert meta["Requires-Python"] == ">=3.10"
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    assert f"fullgraph-{_version()}.dist-info/licenses/LICENSE" in names
    classifiers = meta.get_all("Classifier")
    for minor in range(10, 15):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Repository", "Issues", "Changelog"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    requires = meta.get_all("Requires-Dist")
    assert any(r.startswith("libcst") for r in requires) and any(r.startswith("pygls") for r in requires)
    # the long description is the package README, rendered as Markdown on PyPI
    assert meta["Description-Content-Type"] == "text/markdown"
    body = meta.get_payload()
    assert body.startswith("# fullgraph") and "pipx install fullgraph" in body and len(body) > 1000
    assert "fullgraph = fullgraph.cli:entry" in entry_points
    assert "fullgraph/data/" in "".join(names) and "fullgraph/py.typed" in names
    assert not [n for n in names if re.search(r"(^|/)(tests?|__pycache__)/|\.pyc$", n)]


def test_sdist_contents(dist):
    (sdist,) = dist.glob("fullgraph-*.tar.gz")
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "pyproject.toml", "PKG-INFO", "fullgraph/__init__.py", "fullgraph/cli.py"} <= names
    assert not [n for n in names if re.search(r"(^|/)(__pycache__|\.venv|node_modules)/|\.pyc$", n)]


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory, dist) -> Path:
    """A new venv with the built wheel and its dependencies installed, nothing else."""
    env_dir = tmp_path_factory.mktemp("fresh-venv")
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    python = env_dir / "bin" / "python"
    links = [arg for link in _find_links(dist) for arg in ("--find-links", link)]
    proc = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *links, str(_wheel(dist))],
                          capture_output=True, text=True, env=_clean_env(), cwd=env_dir)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return env_dir


def test_installed_wheel_checks_examples(fresh_venv, tmp_path):
    """`fullgraph --version` and `fullgraph check examples/` from the installed wheel, away from the checkout."""
    exe = fresh_venv / "bin" / "fullgraph"
    env = _clean_env()
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"fullgraph {_version()}", version
    where = subprocess.run([str(fresh_venv / "bin" / "python"), "-c", "import fullgraph; print(fullgraph.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert where.stdout.strip().startswith(str(fresh_venv)), where.stdout
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    check = subprocess.run([str(exe), "check", "examples/"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert check.returncode == 1, check.stdout[-2000:] + check.stderr[-2000:]
    assert re.search(r"Found 10 graph breaks .* in 7 files", check.stdout), check.stdout[-2000:]
    assert "examples/nanogpt/utils.py:27:5: error FG101" in check.stdout


def test_pre_commit_try_repo(dist, tmp_path):
    """The hooks of .pre-commit-hooks.yaml, installed by pre-commit from the package (the root pyproject.toml
    depends on fullgraph==<version>; the built wheel stands in for the index here), fail on examples/."""
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if pre_commit is None:
        pytest.skip("pre-commit (test extra) is not installed")
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project / "examples")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q", str(project)], check=True)
    subprocess.run([*git, "add", "."], cwd=project, check=True)
    env = _clean_env(
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        PIP_FIND_LINKS=" ".join(_find_links(dist)),
    )
    proc = subprocess.run([pre_commit, "try-repo", str(ROOT), "fullgraph", "--all-files"],
                          capture_output=True, text=True, env=env, cwd=project, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-4000:]
    assert re.search(r"fullgraph \(torch\.compile graph breaks\)\.+Failed", out), out[-4000:]
    assert "error FG101" in out and re.search(r"Found 10 graph breaks", out), out[-4000:]
    # The shim installs no module of its own (packages = []), so the fullgraph that ran is the built wheel's;
    # try-repo's store is a temporary directory, gone by now.
    shim = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert shim["tool"]["setuptools"]["packages"] == []
