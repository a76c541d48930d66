#!/usr/bin/env python3
"""Fill bundled/libs/ with the fullgraph server and its runtime dependencies, for the linux-x64 .vsix.

The extension runs ``<interpreter> -m fullgraph lsp`` with ``PYTHONPATH=<extension>/bundled/libs`` (importStrategy
``useBundled``), so this directory must import on every CPython the extension claims to support. Pure-Python
packages are installed once; libcst and PyYAML have native modules whose file names carry the CPython tag
(``native.cpython-311-x86_64-linux-gnu.so``), so the wheels of every supported version are installed side by side.

Runtime dependency closure (pinned below; update the pins together):
  fullgraph      -> libcst, pygls>=2,<3, tomli (Python < 3.11)
  pygls 2.1.1    -> attrs>=24.3, cattrs>=23.1.2, lsprotocol==2025.0.0
  lsprotocol     -> attrs>=21.3, cattrs!=23.2.1
  cattrs 26.2.1  -> attrs>=25.4, typing-extensions>=4.14, exceptiongroup>=1.1.1 (Python < 3.11)
  libcst 1.9.0   -> pyyaml>=5.2 (< 3.13), pyyaml-ft>=8 (== 3.13), pyyaml>=6.0.3 (>= 3.14)
                    (only libcst.tool, the codemod CLI, imports yaml; shipped anyway so that the closure is whole)

Usage: python3 scripts/bundle_server.py [--target bundled/libs] [--python-versions 3.10,3.11,...]
Needs pip and access to PyPI (or a pip cache). Writes bundled/manifest.json, which the client reads to tell
whether the user's interpreter can run the bundled server.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_SRC = ROOT / "server" / "fullgraph"
SERVER_PYPROJECT = ROOT / "server" / "pyproject.toml"

DEFAULT_VERSIONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
# libcst 1.9 publishes manylinux_2_28 wheels only (glibc >= 2.28, the same floor as VS Code since 1.86).
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
PLATFORM_LABEL = "linux-x64 (manylinux_2_28, glibc >= 2.28)"


def _ver(v: str) -> tuple[int, int]:
    major, minor = v.split(".")
    return int(major), int(minor)


# (requirement, predicate on the target Python version). Pure wheels are the same for every version; they are
# still installed per version so that pip checks each one's Requires-Python.
PINS: list[tuple[str, object]] = [
    ("pygls==2.1.1", lambda v: True),
    ("lsprotocol==2025.0.0", lambda v: True),
    ("attrs==26.1.0", lambda v: True),
    ("cattrs==26.2.1", lambda v: True),
    ("typing_extensions==4.16.0", lambda v: True),
    ("exceptiongroup==1.3.2", lambda v: v < (3, 11)),
    ("tomli==2.5.0", lambda v: v < (3, 11)),
    ("libcst==1.9.0", lambda v: True),
    ("PyYAML==6.0.4", lambda v: v != (3, 13)),
    ("pyyaml-ft==8.0.0", lambda v: v == (3, 13)),
]

# Files that legitimately differ between the wheels of one release for different CPython versions.
_PER_WHEEL = re.compile(r"[^/]+\.dist-info/(RECORD|WHEEL)$")


def log(msg: str) -> None:
    print(f"[bundle_server] {msg}", flush=True)


def _pip(args: list[str], what: str) -> None:
    # The machine-wide constraint file (if any) is about torch; it must not interfere with these pins.
    env = {**os.environ, "PIP_CONSTRAINT": ""}
    cmd = [sys.executable, "-m", "pip", *args[:1], "--quiet", "--disable-pip-version-check", "--no-input", *args[1:]]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"pip {args[0]} failed for {what}")


def pip_install(target: Path, version: str, wheels: Path) -> None:
    """Install the pinned wheels for one CPython version into target.

    `pip download` picks wheels for the target version and checks their Requires-Python against it. `pip install
    --target --python-version` would check Requires-Python against the *running* interpreter instead (pip 23), so
    the install step takes the already vetted wheels with --ignore-requires-python.
    """
    reqs = [req for req, applies in PINS if applies(_ver(version))]  # type: ignore[operator]
    tag = version.replace(".", "")
    select = ["--no-deps", "--only-binary=:all:", "--python-version", version, "--implementation", "cp"]
    select += ["--abi", f"cp{tag}", "--abi", "abi3", "--abi", "none"]
    for platform in PLATFORMS:
        select += ["--platform", platform]
    dest = wheels / version
    _pip(["download", "--dest", str(dest), *select, *reqs], f"CPython {version}: {' '.join(reqs)}")
    _pip(
        [
            "install", "--no-index", "--find-links", str(dest), "--target", str(target), "--no-compile",
            "--root-user-action=ignore", "--ignore-requires-python", *select, *reqs,
        ],
        f"CPython {version}",
    )


def merge_tree(src: Path, dst: Path) -> list[str]:
    """Copy src into dst. A file present in both must be identical, except per-wheel metadata."""
    conflicts: list[str] = []
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        out = dst / rel
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        if out.exists():
            if not filecmp.cmp(path, out, shallow=False) and not _PER_WHEEL.search(rel.as_posix()):
                conflicts.append(rel.as_posix())
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, out)
    return conflicts


def server_version() -> str:
    text = SERVER_PYPROJECT.read_text(encoding="utf-8")
    match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    if not match:
        raise SystemExit(f"no version in {SERVER_PYPROJECT}")
    return match.group(1)


def copy_server(target: Path) -> str:
    if not (SERVER_SRC / "__init__.py").is_file():
        raise SystemExit(f"{SERVER_SRC} is not the fullgraph package")
    dest = target / "fullgraph"
    shutil.copytree(SERVER_SRC, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo"))
    version = server_version()
    # Minimal metadata so that importlib.metadata.version("fullgraph") works from the bundle as from an install.
    info = target / f"fullgraph-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: fullgraph\nVersion: {version}\nRequires-Python: >=3.10\n", encoding="utf-8"
    )
    (info / "INSTALLER").write_text("fullgraph-vscode-bundle\n", encoding="utf-8")
    return version


def native_tags(target: Path, package: str, module: str) -> list[str]:
    pattern = re.compile(rf"^{re.escape(module)}\.cpython-(\d+)-x86_64-linux-gnu\.so$")
    tags = []
    for so in (target / package).glob(f"{module}.cpython-*.so"):
        m = pattern.match(so.name)
        if m:
            tags.append(m.group(1))
    return sorted(tags)


def verify(target: Path, versions: list[str]) -> None:
    """Every requested version has its libcst native module; the current interpreter imports the whole server."""
    have = native_tags(target, "libcst", "native")
    missing = [v for v in versions if v.replace(".", "") not in have]
    if missing:
        raise SystemExit(f"libcst native module missing for Python {', '.join(missing)} (have cpython-{have})")
    log(f"libcst native modules: {', '.join('cp' + t for t in have)}")

    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if here not in versions:
        log(f"Python {here} is not a bundled version; skipping the import check")
        return
    check = (
        "import sys, libcst, libcst.native, pygls, lsprotocol.types, cattrs, attrs, fullgraph, fullgraph.lsp\n"
        "import libcst as cst\n"
        "assert cst.parse_module('x = 1\\n').code == 'x = 1\\n'\n"
        f"root = {str(target)!r}\n"
        "for m in (libcst.native, pygls, lsprotocol.types, cattrs, attrs, fullgraph):\n"
        "    assert m.__file__.startswith(root), (m.__name__, m.__file__)\n"
        "from importlib.metadata import version\n"
        "print(libcst.native.__file__.rsplit('/', 1)[-1], 'pygls', version('pygls'), 'fullgraph', version('fullgraph'))\n"
    )
    # -I would drop PYTHONPATH; -s and -E are not wanted either: the server runs with PYTHONPATH set exactly so.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(target)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the .vsix must not carry caches of one Python version
    out = subprocess.run(
        [sys.executable, "-c", check], env=env, cwd=tempfile.gettempdir(), check=True, capture_output=True, text=True
    )
    log(f"import check with {sys.executable}: {out.stdout.strip()}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", type=Path, default=ROOT / "bundled" / "libs")
    ap.add_argument("--python-versions", default=",".join(DEFAULT_VERSIONS))
    args = ap.parse_args()
    versions = [v.strip() for v in args.python_versions.split(",") if v.strip()]
    target: Path = args.target.resolve()
    started = time.monotonic()

    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="fullgraph-bundle-") as tmp:
        for version in versions:
            stage = Path(tmp) / version
            log(f"installing wheels for CPython {version}")
            pip_install(stage, version, Path(tmp) / "wheels")
            conflicts = merge_tree(stage, target)
            if conflicts:
                raise SystemExit(f"wheels for {version} disagree with earlier ones on: {', '.join(conflicts[:10])}")
    shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts; the extension runs `python -m`
    fg_version = copy_server(target)
    verify(target, versions)
    for cache in list(target.rglob("__pycache__")):
        shutil.rmtree(cache)

    packages = {}
    for info in sorted(target.glob("*.dist-info")):
        name, _, version = info.name[: -len(".dist-info")].rpartition("-")
        packages[name] = version
    manifest = {
        "pythonVersions": versions,
        "platform": PLATFORM_LABEL,
        "fullgraph": fg_version,
        "packages": packages,
    }
    (target.parent / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    log(f"{target}: {len(packages)} distributions, {size / 1e6:.1f} MB, in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
