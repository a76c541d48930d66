#!/usr/bin/env python3
"""Build every .vsix: one per VS Code platform with the server bundled, and a universal one without it.

  python3 scripts/package_all.py [--targets linux-x64,universal] [--out dist/vsix] [--cache build/wheels]

(`npm run package:all`, after `npm ci`.) For each platform target, scripts/bundle_server.py fills bundled/ with the
server and the binary wheels of that platform (downloaded once into the cache, reused by later builds), then
`vsce package --target <target>` packs it. The universal package has no bundled/ directory: the extension then runs
the fullgraph installed in the selected interpreter's environment and offers to `pip install fullgraph` into it when
it is missing. Archives: <out>/fullgraph-<target>.vsix and <out>/fullgraph-universal.vsix.

vsce runs in a staging directory (build/vsix-stage) that holds only what .vscodeignore lets through: run in the
repository, vsce walks every file of it (.venv, the e2e's code-server) before filtering, ~15 s per package. The
client is compiled once (`npm run compile`) instead of by vsce's vscode:prepublish hook, which the staged
package.json does not have. The package's README (its Marketplace page) is docs/marketplace.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bundle_server  # noqa: E402

ROOT = bundle_server.ROOT
UNIVERSAL = "universal"
ALL = [*bundle_server.TARGETS, UNIVERSAL]


# What the extension is made of besides bundled/ (the globs .vscodeignore re-includes).
STAGED = ["package.json", "LICENSE", "CHANGELOG.md", ".vscodeignore", "images/icon.png",
          "client/out/extension.js", "syntaxes/*.tmLanguage.json"]
# The Marketplace / Open VSX page: written for users of the extension (the repository's README starts with the
# contributors' commands). Its links and images are absolute https URLs, as vsce requires of images.
MARKETPLACE_README = "docs/marketplace.md"


def stage_files(stage: Path) -> None:
    """Copy the extension's files (not bundled/) into stage, with package.json minus its vscode:prepublish hook."""
    shutil.rmtree(stage, ignore_errors=True)
    for pattern in STAGED:
        matches = list(ROOT.glob(pattern))
        if not matches:
            raise SystemExit(f"nothing matches {pattern}")
        for src in matches:
            dst = stage / src.relative_to(ROOT)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    shutil.copy2(ROOT / MARKETPLACE_README, stage / "README.md")
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    manifest["scripts"].pop("vscode:prepublish", None)  # compiled once by main(); nothing to build in the stage
    (stage / "package.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def npm_bin(name: str) -> str:
    exe = ROOT / "node_modules" / ".bin" / (f"{name}.cmd" if os.name == "nt" else name)
    if not exe.exists():
        raise SystemExit(f"{exe} is missing: run `npm ci` first")
    return str(exe)


def vsce(stage: Path, args: list[str], pre_release: bool = False) -> None:
    extra = ["--pre-release"] if pre_release else []
    subprocess.run([npm_bin("vsce"), "package", "--no-dependencies", *extra, *args], cwd=stage, check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default=",".join(ALL), help=f"comma-separated subset of {', '.join(ALL)}")
    ap.add_argument("--out", type=Path, default=ROOT / "dist" / "vsix")
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("FULLGRAPH_WHEEL_CACHE", bundle_server.DEFAULT_CACHE)))
    ap.add_argument("--python-versions", default=",".join(bundle_server.DEFAULT_VERSIONS))
    ap.add_argument("--pre-release", action="store_true", help="mark the packages as a pre-release (vsce)")
    args = ap.parse_args()
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in targets if t not in ALL]
    if unknown:
        raise SystemExit(f"unknown targets {unknown}; known: {', '.join(ALL)}")
    versions = [v.strip() for v in args.python_versions.split(",") if v.strip()]
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    subprocess.run(["npm", "run", "-s", "compile"], cwd=ROOT, check=True)
    stage = ROOT / "build" / "vsix-stage"
    stage_files(stage)
    bundled = stage / "bundled"
    rows = []
    # The universal package last: it needs bundled/ gone.
    for target in sorted(targets, key=lambda t: t == UNIVERSAL):
        t0 = time.monotonic()
        vsix = out / f"fullgraph-{target}.vsix"
        vsix.unlink(missing_ok=True)
        if target == UNIVERSAL:
            shutil.rmtree(bundled, ignore_errors=True)
            vsce(stage, ["-o", str(vsix)], args.pre_release)
        else:
            bundle_server.build(target, bundled / "libs", versions, args.cache.resolve())
            vsce(stage, ["--target", target, "-o", str(vsix)], args.pre_release)
        rows.append((target, vsix.stat().st_size, time.monotonic() - t0))
    shutil.rmtree(stage, ignore_errors=True)
    print()
    for target, size, seconds in rows:
        print(f"  {target:<13} {size / 1e6:6.1f} MB  {seconds:5.1f} s  {out / f'fullgraph-{target}.vsix'}")
    print(f"package_all: {len(rows)} archives in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
