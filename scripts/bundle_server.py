#!/usr/bin/env python3
"""Fill bundled/libs/ with the fullgraph server and its runtime dependencies for one VS Code target platform.

The extension runs ``<interpreter> -m fullgraph lsp`` with ``PYTHONPATH=<extension>/bundled/libs`` (importStrategy
``useBundled``), so this directory must import on every CPython the extension claims for its platform. Pure-Python
packages are the same everywhere; libcst has a native module (Rust) whose file name carries the CPython tag
(``native.cpython-311-x86_64-linux-gnu.so``, ``native.cp311-win_amd64.pyd``), so the binary wheels of every supported
version are unpacked side by side. Wheels are downloaded from PyPI for the target (`pip download --platform ...
--only-binary :all:`), never built here, and kept in a cache directory (default build/wheels/) that later builds of
the same or another target reuse without asking the index again.

Runtime dependency closure (pinned below; update the pins together):
  fullgraph      -> libcst, pygls>=2,<3, tomli (Python < 3.11)
  pygls 2.1.1    -> attrs>=24.3, cattrs>=23.1.2, lsprotocol==2025.0.0
  lsprotocol     -> attrs>=21.3, cattrs!=23.2.1
  cattrs 26.2.1  -> attrs>=25.4, typing-extensions>=4.14, exceptiongroup>=1.1.1 (Python < 3.11)
  libcst 1.9.0   -> pyyaml / pyyaml-ft: imported only by libcst.tool (the codemod command line), which fullgraph
                    never imports, so PyYAML (another native module per platform) is not bundled.
  libcst has no pure-Python parser since 1.0: a platform/Python without a binary wheel cannot be bundled. libcst
  1.9.0 publishes no macOS x86_64 wheels; 1.8.6 is the newest with them (CPython 3.10-3.14), so darwin-x64 pins it.

Usage: python3 scripts/bundle_server.py [--target-platform linux-x64] [--target bundled/libs]
                                        [--python-versions 3.10,3.11,...] [--cache build/wheels]
Writes bundled/manifest.json, which the client reads to tell whether the user's interpreter can run the bundled
server (pythonVersions) and whether the bundle is for the machine it runs on (target).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_SRC = ROOT / "server" / "fullgraph"
SERVER_PYPROJECT = ROOT / "server" / "pyproject.toml"
DEFAULT_CACHE = ROOT / "build" / "wheels"

DEFAULT_VERSIONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
LIBCST = "1.9.0"

# VS Code target -> how pip names its platforms, how CPython names its extension modules, and the libcst release.
# `native` is a regex on a native module's file name with (\d+) for the CPython tag (311); macOS names carry no
# architecture (tests/vsix checks the Mach-O header instead).
TARGETS: dict[str, dict] = {
    "linux-x64": {
        "pip": ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"],
        "label": "linux-x64 (manylinux_2_28, glibc >= 2.28)",
        "native": r"native\.cpython-(\d+)-x86_64-linux-gnu\.so",
    },
    "linux-arm64": {
        "pip": ["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"],
        "label": "linux-arm64 (manylinux_2_28, glibc >= 2.28)",
        "native": r"native\.cpython-(\d+)-aarch64-linux-gnu\.so",
    },
    "alpine-x64": {
        "pip": ["musllinux_1_2_x86_64", "musllinux_1_1_x86_64"],
        "label": "alpine-x64 (musllinux_1_2, musl >= 1.2)",
        # CPython 3.10 names its extension modules linux-gnu on musl too (3.11 and later: linux-musl)
        "native": r"native\.cpython-(\d+)-x86_64-linux-(?:musl|gnu)\.so",
    },
    "darwin-x64": {
        "pip": [f"macosx_10_{m}_x86_64" for m in range(9, 16)] + ["macosx_11_0_x86_64"],
        "label": "darwin-x64 (macOS 10.15 or newer, Intel; libcst 1.8.6, the last release with Intel wheels)",
        "native": r"native\.cpython-(\d+)-darwin\.so",
        "libcst": "1.8.6",
    },
    "darwin-arm64": {
        "pip": ["macosx_11_0_arm64"],
        "label": "darwin-arm64 (macOS 11 or newer, Apple silicon)",
        "native": r"native\.cpython-(\d+)-darwin\.so",
    },
    "win32-x64": {
        "pip": ["win_amd64"],
        "label": "win32-x64",
        "native": r"native\.cp(\d+)-win_amd64\.pyd",
    },
    "win32-arm64": {
        "pip": ["win_arm64"],
        "label": "win32-arm64",
        "native": r"native\.cp(\d+)-win_arm64\.pyd",
    },
}


def _ver(v: str) -> tuple[int, int]:
    major, minor = v.split(".")
    return int(major), int(minor)


def pins(target: str, version: str) -> list[str]:
    """The pinned requirements for one target and CPython version."""
    v = _ver(version)
    reqs = [
        "pygls==2.1.1",
        "lsprotocol==2025.0.0",
        "attrs==26.1.0",
        "cattrs==26.2.1",
        "typing_extensions==4.16.0",
        f"libcst=={TARGETS[target].get('libcst', LIBCST)}",
    ]
    if v < (3, 11):
        reqs += ["exceptiongroup==1.3.2", "tomli==2.5.0"]
    return reqs


# Files that legitimately differ between the wheels of one release for different CPython versions (the first
# version's copy is kept; auditwheel's SBOM names the wheel's own libraries).
_PER_WHEEL = re.compile(r"[^/]+\.dist-info/(RECORD|WHEEL|sboms/[^/]+)$")


def log(msg: str) -> None:
    print(f"[bundle_server] {msg}", flush=True)


def _pip(args: list[str], what: str, quiet_fail: bool = False) -> bool:
    # The machine-wide constraint file (if any) is about torch; it must not interfere with these pins.
    env = {**os.environ, "PIP_CONSTRAINT": ""}
    cmd = [sys.executable, "-m", "pip", *args[:1], "--quiet", "--disable-pip-version-check", "--no-input", *args[1:]]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        if quiet_fail:
            return False
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"pip {args[0]} failed for {what}")
    return True


def download(target: str, version: str, cache: Path) -> list[Path]:
    """The wheels for one target and CPython version, from cache/<target>/<version> or else from the index."""
    reqs = pins(target, version)
    dest = cache / target / version
    stamp = dest / ".complete"
    key = hashlib.sha256("\n".join([*reqs, *TARGETS[target]["pip"]]).encode()).hexdigest()
    if stamp.is_file() and stamp.read_text() == key:
        return sorted(dest.glob("*.whl"))
    if dest.exists():
        shutil.rmtree(dest)
    tag = version.replace(".", "")
    select = ["--no-deps", "--only-binary=:all:", "--python-version", version, "--implementation", "cp"]
    select += ["--abi", f"cp{tag}", "--abi", "abi3", "--abi", "none"]
    for platform in TARGETS[target]["pip"]:
        select += ["--platform", platform]
    _pip(["download", "--dest", str(dest), *select, *reqs], f"{target} CPython {version}: {' '.join(reqs)}")
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != len(reqs):
        raise SystemExit(f"{target} CPython {version}: expected {len(reqs)} wheels, got {[w.name for w in wheels]}")
    stamp.write_text(key)
    return wheels


def unpack(wheel: Path, target: Path) -> list[str]:
    """Unpack a wheel into target (what `pip install --target` does for these wheels: none has a .data dir).

    A file already there must be identical (the pure part of libcst is the same in each CPython's wheel), except
    the per-wheel metadata. Returns the conflicting paths.
    """
    conflicts = []
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            name = info.filename
            if name.endswith("/"):
                continue
            if re.match(r"[^/]+\.data/", name):
                raise SystemExit(f"{wheel.name} has a .data directory ({name}); unpacking it needs pip")
            out = target / name
            data = z.read(info)
            if out.exists():
                if out.read_bytes() != data and not _PER_WHEEL.search(name):
                    conflicts.append(name)
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
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


def native_tags(target: Path, platform: str) -> list[str]:
    pattern = re.compile(TARGETS[platform]["native"])
    return sorted(m.group(1) for p in (target / "libcst").iterdir() if (m := pattern.fullmatch(p.name)))


def host_target() -> str | None:
    """The VS Code target of this machine, when it is one this script can check by importing."""
    import platform

    if sys.platform == "linux" and platform.machine() == "x86_64" and platform.libc_ver()[0] == "glibc":
        return "linux-x64"
    return None


def verify(target: Path, platform: str, versions: list[str]) -> None:
    """Every requested version has its libcst native module; on the host platform the whole server imports."""
    have = native_tags(target, platform)
    missing = [v for v in versions if v.replace(".", "") not in have]
    if missing:
        raise SystemExit(f"{platform}: libcst native module missing for Python {', '.join(missing)} (have {have})")
    log(f"{platform}: libcst native modules for {', '.join('cp' + t for t in have)}")

    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if platform != host_target() or here not in versions:
        log(f"{platform}: not this machine's platform or Python {here} not bundled; skipping the import check")
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


def build(platform: str, target: Path, versions: list[str], cache: Path) -> dict:
    """Fill target (bundled/libs) for one VS Code platform; write target/../manifest.json and return it."""
    if platform not in TARGETS:
        raise SystemExit(f"unknown target {platform!r}; known: {', '.join(TARGETS)}")
    started = time.monotonic()
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    used: dict[str, list[str]] = {}
    unpacked: set[str] = set()
    for version in versions:
        wheels = download(platform, version, cache)
        used[version] = [w.name for w in wheels]
        for wheel in wheels:
            if wheel.name in unpacked:
                continue
            unpacked.add(wheel.name)
            conflicts = unpack(wheel, target)
            if conflicts:
                raise SystemExit(f"{wheel.name} disagrees with wheels unpacked before on: {', '.join(conflicts[:10])}")
    shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts; the extension runs `python -m`
    fg_version = copy_server(target)
    verify(target, platform, versions)
    for cache_dir in list(target.rglob("__pycache__")):
        shutil.rmtree(cache_dir)

    packages = {}
    for info in sorted(target.glob("*.dist-info")):
        name, _, version = info.name[: -len(".dist-info")].rpartition("-")
        packages[name] = version
    manifest = {
        "target": platform,
        "pythonVersions": versions,
        "platform": TARGETS[platform]["label"],
        "fullgraph": fg_version,
        "packages": packages,
        "wheels": used,
    }
    (target.parent / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    log(f"{platform}: {len(packages)} distributions, {size / 1e6:.1f} MB, in {time.monotonic() - started:.1f} s")
    return manifest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target-platform", default="linux-x64", choices=sorted(TARGETS))
    ap.add_argument("--target", type=Path, default=ROOT / "bundled" / "libs")
    ap.add_argument("--python-versions", default=",".join(DEFAULT_VERSIONS))
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get("FULLGRAPH_WHEEL_CACHE", DEFAULT_CACHE)))
    args = ap.parse_args()
    versions = [v.strip() for v in args.python_versions.split(",") if v.strip()]
    build(args.target_platform, args.target.resolve(), versions, args.cache.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
