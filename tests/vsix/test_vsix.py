"""The packaged extension: what a user installs, for every platform it is built for.

Checks each archive's file list (what must be in, what must stay out), that its native modules are the ones of its
platform (the wheel tags it was built from and the binaries' own headers), its size, the manifest VS Code reads,
and that the bundled server really runs from the .vsix alone: on linux-x64 its libs are extracted and
`python -m fullgraph lsp` is started with a bare interpreter (a venv with no packages) and
`PYTHONPATH=<extension>/bundled/libs`, exactly as the client does.

Which archives:
- FULLGRAPH_VSIX_DIR=<dir> (`npm run package:all`, then `npm run test:vsix:all`; .ci/editor.sh): all eight,
  <dir>/fullgraph-<target>.vsix for the seven platforms and fullgraph-universal.vsix; a missing one is a failure.
- FULLGRAPH_VSIX=<path>: that one archive (its target read from its manifest).
- FULLGRAPH_REQUIRE_VSIX=1 (`npm run package`, then `npm run test:vsix`): ./fullgraph-linux-x64.vsix.
Otherwise the tests are skipped: in a plain `pytest tests` a .vsix left over from an earlier build may be stale.
"""
from __future__ import annotations

import json
import os
import queue
import re
import struct
import subprocess
import threading
import time
import venv
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REQUIRED_PYTHONS = ("310", "311", "312", "313", "314")
UNIVERSAL = "universal"

# Per VS Code target: the wheel platform tags its native wheels may carry, and what the native binaries must be
# (ELF e_machine and C library / Mach-O CPU type / PE machine). Written independently of scripts/bundle_server.py.
EM_X86_64, EM_AARCH64 = 62, 183
PLATFORMS = {
    "linux-x64": (r"manylinux_2_(1[7-9]|2[0-8])_x86_64|manylinux2014_x86_64", ("elf", EM_X86_64, "glibc")),
    "linux-arm64": (r"manylinux_2_(1[7-9]|2[0-8])_aarch64|manylinux2014_aarch64", ("elf", EM_AARCH64, "glibc")),
    "alpine-x64": (r"musllinux_1_[12]_x86_64", ("elf", EM_X86_64, "musl")),
    "darwin-x64": (r"macosx_1[01]_\d+_x86_64", ("macho", 0x01000007)),
    "darwin-arm64": (r"macosx_11_0_arm64", ("macho", 0x0100000C)),
    "win32-x64": (r"win_amd64", ("pe", 0x8664)),
    "win32-arm64": (r"win_arm64", ("pe", 0xAA64)),
}
# A platform archive must stay well below the Marketplace's limits and quick to download (they are ~9-10 MB).
MAX_PLATFORM_MB = 15.0
MAX_UNIVERSAL_MB = 1.0


def _archives() -> list[tuple[str, Path]]:
    if os.environ.get("FULLGRAPH_VSIX_DIR"):
        folder = Path(os.environ["FULLGRAPH_VSIX_DIR"])
        if not folder.is_absolute():
            folder = ROOT / folder
        found = [(t, folder / f"fullgraph-{t}.vsix") for t in [*PLATFORMS, UNIVERSAL]]
        missing = [p.name for _, p in found if not p.is_file()]
        if missing:
            raise RuntimeError(f"missing from {folder}: {missing}: run `npm ci && npm run package:all` first")
        return found
    if os.environ.get("FULLGRAPH_VSIX"):
        path = Path(os.environ["FULLGRAPH_VSIX"])
    elif os.environ.get("FULLGRAPH_REQUIRE_VSIX") == "1":
        path = ROOT / "fullgraph-linux-x64.vsix"
    else:
        pytest.skip("packaging tests run from .ci/editor.sh or `npm run test:vsix[:all]` (after npm run package[:all])",
                    allow_module_level=True)
    if not path.is_file():
        raise RuntimeError(f"{path} does not exist: run `npm ci && npm run package` first")
    return [(_target_of(path) or UNIVERSAL, path)]


def _target_of(path: Path) -> str | None:
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read("extension.vsixmanifest"))
    identity = next(el for el in root.iter() if el.tag.endswith("Identity"))
    return identity.get("TargetPlatform")


ARCHIVES = _archives()


@dataclass
class Vsix:
    target: str
    path: Path
    names: list[str] = field(default_factory=list)

    @property
    def bundled(self) -> bool:
        return self.target != UNIVERSAL


@pytest.fixture(scope="module", params=ARCHIVES, ids=[t for t, _ in ARCHIVES])
def vsix(request) -> Vsix:
    target, path = request.param
    with zipfile.ZipFile(path) as z:
        return Vsix(target, path, z.namelist())


@pytest.fixture(scope="module")
def names(vsix) -> list[str]:
    return vsix.names


@pytest.fixture(scope="module")
def manifest(vsix) -> dict:
    with zipfile.ZipFile(vsix.path) as z:
        return json.loads(z.read("extension/package.json"))


@pytest.fixture(scope="module")
def bundle(vsix) -> dict:
    if not vsix.bundled:
        pytest.skip("the universal package has no bundled server")
    with zipfile.ZipFile(vsix.path) as z:
        return json.loads(z.read("extension/bundled/manifest.json"))


@pytest.fixture(scope="module")
def extracted(vsix, tmp_path_factory) -> Path:
    if vsix.target != "linux-x64":
        pytest.skip("the bundled server runs here only from the linux-x64 package")
    dest = tmp_path_factory.mktemp("vsix")
    with zipfile.ZipFile(vsix.path) as z:
        z.extractall(dest)
    return dest / "extension"


def _has(names: list[str], path: str) -> bool:
    return f"extension/{path}" in names


def test_required_files_are_in(vsix, names):
    common = ["package.json", "client/out/extension.js", "syntaxes/fullgraph-suppression.injection.tmLanguage.json",
              "images/icon.png"]
    server = [
        "bundled/manifest.json",
        "bundled/libs/fullgraph/__init__.py",
        "bundled/libs/fullgraph/__main__.py",
        "bundled/libs/fullgraph/lsp/server.py",
        "bundled/libs/pygls/__init__.py",
        "bundled/libs/lsprotocol/types.py",
        "bundled/libs/libcst/__init__.py",
    ]
    for path in common + (server if vsix.bundled else []):
        assert _has(names, path), f"{path} missing from {vsix.path.name}"
    if not vsix.bundled:
        assert not [n for n in names if n.startswith("extension/bundled/")], "the universal package bundles nothing"
    lower = {n.lower() for n in names}
    assert "extension/readme.md" in lower, "README missing"
    assert "extension/changelog.md" in lower, "CHANGELOG missing"
    assert "extension/license.txt" in lower or "extension/license" in lower, "LICENSE missing"


def test_file_list_is_exactly_the_extension(vsix, names):
    """What `vsce ls` would list, and nothing else: the extension's own files plus, on a platform, bundled/."""
    own = {
        "extension.vsixmanifest", "[Content_Types].xml", "extension/package.json", "extension/readme.md",
        "extension/changelog.md", "extension/LICENSE.txt", "extension/images/icon.png",
        "extension/client/out/extension.js", "extension/syntaxes/fullgraph-suppression.injection.tmLanguage.json",
    }
    rest = set(names) - own
    assert own <= set(names), sorted(own - set(names))
    if vsix.bundled:
        assert all(n.startswith("extension/bundled/") for n in rest), sorted(rest)[:10]
    else:
        assert rest == set(), sorted(rest)


def test_readme_is_the_marketplace_page(vsix):
    """docs/marketplace.md, with images vsce accepts (https, not SVG) and no contributor commands."""
    with zipfile.ZipFile(vsix.path) as z:
        readme = z.read("extension/readme.md").decode()
    assert readme.startswith("# fullgraph: torch.compile graph breaks")
    assert "scripts/setup.sh" not in readme
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert len(images) >= 2 and all(i.startswith("https://") and not i.endswith(".svg") for i in images), images


def test_target_platform(vsix):
    with zipfile.ZipFile(vsix.path) as z:
        root = ET.fromstring(z.read("extension.vsixmanifest"))
    identity = next(el for el in root.iter() if el.tag.endswith("Identity"))
    assert identity.get("TargetPlatform") == (vsix.target if vsix.bundled else None)
    assert identity.get("Id") == "fullgraph" and identity.get("Publisher") == "fullgraph"


def test_size(vsix):
    mb = vsix.path.stat().st_size / 1e6
    bound = MAX_PLATFORM_MB if vsix.bundled else MAX_UNIVERSAL_MB
    assert mb < bound, f"{vsix.path.name} is {mb:.1f} MB (bound {bound} MB)"


def _binary_kind(data: bytes) -> tuple:
    """What a native module is built for, from its header: ("elf", e_machine, libc), ("macho", cputype, ...),
    ("pe", machine)."""
    if data[:4] == b"\x7fELF":
        (machine,) = struct.unpack_from("<H", data, 18)
        return ("elf", machine, "musl" if b"libc.musl-" in data else "glibc")
    if data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):  # thin Mach-O (64/32-bit), little endian
        (cputype,) = struct.unpack_from("<i", data, 4)
        return ("macho", cputype)
    if data[:4] == b"\xca\xfe\xba\xbe":  # universal (fat) Mach-O: every architecture it holds
        (count,) = struct.unpack_from(">I", data, 4)
        return ("macho", *sorted(struct.unpack_from(">i", data, 8 + 20 * i)[0] for i in range(count)))
    if data[:2] == b"MZ":
        (offset,) = struct.unpack_from("<I", data, 0x3C)
        assert data[offset:offset + 4] == b"PE\0\0"
        (machine,) = struct.unpack_from("<H", data, offset + 4)
        return ("pe", machine)
    return ("unknown", data[:4])


NATIVE = re.compile(r"\.(so|pyd|dylib|dll)$")


def test_native_files_are_for_the_platform(vsix, names):
    """Every native binary in the archive is built for the archive's platform (and the universal one has none)."""
    natives = [n for n in names if NATIVE.search(n)]
    if not vsix.bundled:
        assert natives == []
        return
    _, expected = PLATFORMS[vsix.target]
    assert natives, "no native modules"
    with zipfile.ZipFile(vsix.path) as z:
        wrong = {n: kind for n in natives if (kind := _binary_kind(z.read(n))) != expected}
    assert not wrong, f"not {expected}: {wrong}"


def test_libcst_native_module_for_every_supported_python(vsix, names, bundle):
    """libcst's parser for each CPython the bundle claims, from a wheel with the platform's tag; the other wheels
    are pure or of the same platform."""
    assert bundle["target"] == vsix.target
    claimed = [v.replace(".", "") for v in bundle["pythonVersions"]]
    assert set(REQUIRED_PYTHONS) <= set(claimed), f"bundle claims {claimed}"
    tags, _ = PLATFORMS[vsix.target]
    for version in bundle["pythonVersions"]:
        cp = "cp" + version.replace(".", "")
        wheels = bundle["wheels"][version]
        libcst = [w for w in wheels if w.startswith("libcst-")]
        assert len(libcst) == 1, wheels
        m = re.fullmatch(r"libcst-[\d.]+-(cp\d+)-(cp\d+)-(.+)\.whl", libcst[0])
        assert m and m.group(1) == cp and m.group(2) == cp, libcst[0]
        assert all(re.fullmatch(tags, t) for t in m.group(3).split(".")), libcst[0]
        for wheel in wheels:
            platform_tag = wheel[:-len(".whl")].rsplit("-", 1)[1]
            assert platform_tag == "any" or all(re.fullmatch(tags, t) for t in platform_tag.split(".")), wheel
        # ... and its module is in the archive, named as that CPython imports it on the platform
        tag = cp[2:]
        native = [n for n in names if re.fullmatch(
            rf"extension/bundled/libs/libcst/native\.(cpython-{tag}-[a-z0-9_-]+\.so|cp{tag}-win_[a-z0-9]+\.pyd)", n)]
        assert len(native) == 1, f"libcst native module for {cp}: {native}"
    assert {"pygls", "lsprotocol", "libcst", "attrs", "cattrs", "fullgraph"} <= set(bundle["packages"])
    assert "PyYAML" not in bundle["packages"], "PyYAML is needed only by libcst.tool, which fullgraph never imports"


def test_whole_server_package_is_bundled(vsix, names):
    """Every module of server/fullgraph is in the .vsix: a stale or partial copy would crash at import time."""
    if not vsix.bundled:
        pytest.skip("the universal package has no bundled server")
    src = ROOT / "server" / "fullgraph"
    expected = {
        p.relative_to(src).as_posix()
        for p in src.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
    }
    bundled = {n[len("extension/bundled/libs/fullgraph/"):] for n in names if n.startswith("extension/bundled/libs/fullgraph/")}
    assert expected - bundled == set(), f"not bundled: {sorted(expected - bundled)[:10]}"
    assert bundled - expected == set(), f"bundled but not in server/fullgraph (stale bundle?): {sorted(bundled - expected)[:10]}"


@pytest.mark.parametrize(
    "pattern, why",
    [
        (r"(^|/)node_modules/", "dependencies are bundled into extension.js by esbuild"),
        (r"^extension/client/src/", "TypeScript sources"),
        (r"\.ts$", "TypeScript sources"),
        (r"\.map$", "source maps"),
        (r"^extension/tests/", "tests"),
        (r"^extension/server/", "server sources outside bundled/"),
        (r"(^|/)\.venv/", "a virtualenv"),
        (r"(^|/)(__pycache__|\.pytest_cache|\.hypothesis|\.fullgraph|\.mypy_cache)/|\.pyc$", "caches"),
        (r"^extension/bundled/libs/bin/", "console scripts"),
        (r"^extension/(scripts|examples|bench|docs|\.ci|e2e-out|dist|build|bundled/wheels)/", "repository tooling"),
        (r"\.(vsix|whl|tar\.gz)$", "packages"),
        (r"(^|/)\.git(/|$)|\.github/", "git"),
    ],
)
def test_excluded(names, pattern, why):
    bad = [n for n in names if re.search(pattern, n)]
    assert not bad, f"{why} must not be packaged: {bad[:5]}"


def test_manifest_points_at_packaged_files(manifest, names):
    assert manifest["name"] == "fullgraph" and manifest["publisher"] == "fullgraph"
    assert "onLanguage:python" in manifest["activationEvents"]
    assert _has(names, manifest["main"].removeprefix("./"))
    assert _has(names, manifest["icon"].removeprefix("./"))
    assert manifest["galleryBanner"]["theme"] in ("dark", "light")
    for grammar in manifest["contributes"]["grammars"]:
        assert _has(names, grammar["path"].removeprefix("./")), grammar["path"]
        assert grammar["injectTo"] == ["source.python"]
        assert "language" not in grammar, "the extension must not replace VS Code's Python grammar"
    # @types/vscode must not be newer than engines.vscode (vsce enforces it; keep the engine explicit)
    assert re.fullmatch(r"\^1\.\d+\.\d+", manifest["engines"]["vscode"])


def test_manifest_settings_and_commands(manifest):
    props = manifest["contributes"]["configuration"]["properties"]
    expected = {
        "fullgraph.enable", "fullgraph.interpreter", "fullgraph.importStrategy", "fullgraph.select",
        "fullgraph.ignore", "fullgraph.torchVersion", "fullgraph.codeLens", "fullgraph.showNotifications",
        "fullgraph.logLevel", "fullgraph.trace.server",
    }
    assert expected <= set(props)
    for name, prop in props.items():
        assert prop.get("markdownDescription") or prop.get("description"), f"{name} is undocumented"
        assert "default" in prop, f"{name} has no default"
    assert props["fullgraph.importStrategy"]["default"] == "useBundled"
    assert props["fullgraph.importStrategy"]["enum"] == ["useBundled", "fromEnvironment"]
    assert props["fullgraph.showNotifications"]["enum"] == ["off", "onError", "onWarning", "always"]
    assert props["fullgraph.logLevel"]["enum"] == ["error", "warning", "info", "debug"]
    assert props["fullgraph.conditional"]["enum"] == ["hint", "information", "off"]
    assert props["fullgraph.conditional"]["default"] == "hint"
    assert props["fullgraph.interpreter"]["type"] == "array"
    assert props["fullgraph.interpreter"]["scope"] == "machine-overridable"

    trust = manifest["capabilities"]["untrustedWorkspaces"]
    assert trust["supported"] == "limited"
    assert set(trust["restrictedConfigurations"]) == {"fullgraph.interpreter", "fullgraph.importStrategy"}

    commands = {c["command"]: f'{c["category"]}: {c["title"]}' for c in manifest["contributes"]["commands"]}
    assert commands == {
        "fullgraph.restart": "fullgraph: Restart Server",
        "fullgraph.showLogs": "fullgraph: Show Logs",
        "fullgraph.fixAll": "fullgraph: Fix All Graph Breaks in File",
        "fullgraph.explainRule": "fullgraph: Explain Rule…",
        "fullgraph.runWithCapture": "fullgraph: Run with Graph-Break Capture…",
        "fullgraph.confirmWithDynamo": "fullgraph: Confirm with Dynamo",
    }


# ---- the bundled server runs from the extracted .vsix with a bare interpreter --------------------------------


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> str:
    """A Python with nothing installed: what a user who never ran `pip install fullgraph` has."""
    env_dir = tmp_path_factory.mktemp("bare-venv")
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    python = str(env_dir / "bin" / "python")
    probe = subprocess.run([python, "-c", "import importlib.util as u; print(u.find_spec('pygls'), u.find_spec('fullgraph'))"],
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "None None", "the bare venv must not see pygls or fullgraph"
    return python


def _frame(msg: dict) -> bytes:
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _reader(stream, out: queue.Queue) -> None:
    """Parse LSP frames from the server's stdout into a queue (None at EOF)."""
    try:
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.partition(b":")
                if key.lower() == b"content-length":
                    length = int(value)
            out.put(json.loads(stream.read(length)))
    finally:
        out.put(None)


class StdioClient:
    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.messages: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=_reader, args=(proc.stdout, self.messages), daemon=True).start()

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(_frame({"jsonrpc": "2.0", **msg}))
        self.proc.stdin.flush()

    def wait_for(self, pred, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                break
            if msg is None:
                raise AssertionError(f"server exited; messages: {self.seen[-5:]}")
            self.seen.append(msg)
            if pred(msg):
                return msg
            if "id" in msg and "method" in msg:  # a request from the server: answer it like a minimal client
                result = [None] * len(msg["params"]["items"]) if msg["method"] == "workspace/configuration" else None
                self.send({"id": msg["id"], "result": result})
        raise AssertionError(f"no expected message within {timeout} s; last messages: {self.seen[-5:]}")


def test_bundled_server_answers_lsp_with_bare_python(extracted, bare_python, tmp_path):
    """initialize → didOpen a compiled function calling a helper that prints → FG101, as a client would see it."""
    libs = extracted / "bundled" / "libs"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    source = (
        "import torch\n\n\n"
        "def helper(x):\n"
        '    print("😀 x:", x)\n'
        "    return x + 1\n\n\n"
        "@torch.compile(fullgraph=True)\n"
        "def f(x):\n"
        "    return helper(x)\n"
    )
    model = workspace / "model.py"
    model.write_text(source, encoding="utf-8")
    uri = model.as_uri()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(libs)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.Popen(
        [bare_python, "-m", "fullgraph", "lsp"], cwd=extracted, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    client = StdioClient(proc)
    try:
        client.send({"id": 1, "method": "initialize", "params": {
            "processId": os.getpid(), "rootUri": workspace.as_uri(), "capabilities": {},
            "workspaceFolders": [{"uri": workspace.as_uri(), "name": "ws"}],
            "initializationOptions": {"settings": {"select": [], "ignore": [], "torchVersion": "", "codeLens": True,
                                                   "logLevel": "info"}},
        }})
        init = client.wait_for(lambda m: m.get("id") == 1)
        assert init["result"]["serverInfo"]["name"] == "fullgraph"
        client.send({"method": "initialized", "params": {}})
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": source}}})
        published = client.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                    and m["params"]["uri"] == uri and m["params"]["diagnostics"])
        prints = [d for d in published["params"]["diagnostics"] if d["code"] == "FG101"]
        assert prints, published
        assert prints[0]["source"] == "fullgraph"
        # `print` on line 5 (0-based 4) after 4 spaces; the emoji comes later on the line
        assert prints[0]["range"]["start"] == {"line": 4, "character": 4}
        client.send({"id": 2, "method": "shutdown", "params": None})
        client.wait_for(lambda m: m.get("id") == 2)
        client.send({"method": "exit", "params": None})
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        stderr = proc.stderr.read().decode(errors="replace")
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    assert "Traceback" not in stderr, stderr
