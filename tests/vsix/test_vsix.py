"""The packaged extension (fullgraph-linux-x64.vsix): what a user installs.

Checks the file list (what must be in, what must stay out), the manifest VS Code reads, and that the bundled
server really runs from the .vsix alone: its libs are extracted and `python -m fullgraph lsp` is started with a
bare interpreter (a venv with no packages) and `PYTHONPATH=<extension>/bundled/libs`, exactly as the client does.

Build first with `npm ci && npm run package`, then `npm run test:vsix`. The tests run only when asked for with
FULLGRAPH_REQUIRE_VSIX=1 (as .ci/editor.sh and `npm run test:vsix` do; a missing .vsix is then a failure) or
FULLGRAPH_VSIX=<path>: in a plain `pytest tests` a .vsix left over from an earlier build may be stale.
"""
from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import time
import venv
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VSIX = Path(os.environ.get("FULLGRAPH_VSIX", ROOT / "fullgraph-linux-x64.vsix"))
REQUIRED_PYTHONS = ("310", "311", "312", "313")

if os.environ.get("FULLGRAPH_REQUIRE_VSIX") != "1" and "FULLGRAPH_VSIX" not in os.environ:
    pytest.skip("packaging tests run from .ci/editor.sh or `npm run test:vsix` (after npm run package)",
                allow_module_level=True)
if not VSIX.is_file():
    raise RuntimeError(f"{VSIX} does not exist: run `npm ci && npm run package` first")


@pytest.fixture(scope="module")
def names() -> list[str]:
    with zipfile.ZipFile(VSIX) as z:
        return z.namelist()


@pytest.fixture(scope="module")
def manifest() -> dict:
    with zipfile.ZipFile(VSIX) as z:
        return json.loads(z.read("extension/package.json"))


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("vsix")
    with zipfile.ZipFile(VSIX) as z:
        z.extractall(dest)
    return dest / "extension"


def _has(names: list[str], path: str) -> bool:
    return f"extension/{path}" in names


def test_required_files_are_in(names):
    for path in (
        "package.json",
        "client/out/extension.js",
        "bundled/manifest.json",
        "bundled/libs/fullgraph/__init__.py",
        "bundled/libs/fullgraph/__main__.py",
        "bundled/libs/fullgraph/lsp/server.py",
        "bundled/libs/pygls/__init__.py",
        "bundled/libs/lsprotocol/types.py",
        "bundled/libs/libcst/__init__.py",
        "syntaxes/fullgraph-suppression.injection.tmLanguage.json",
    ):
        assert _has(names, path), f"{path} missing from {VSIX.name}"
    lower = {n.lower() for n in names}
    assert "extension/readme.md" in lower, "README missing"
    assert "extension/license.txt" in lower or "extension/license" in lower, "LICENSE missing"


def test_libcst_native_module_for_every_supported_python(names):
    natives = {
        m.group(1)
        for n in names
        if (m := re.fullmatch(r"extension/bundled/libs/libcst/native\.cpython-(\d+)-x86_64-linux-gnu\.so", n))
    }
    missing = [v for v in REQUIRED_PYTHONS if v not in natives]
    assert not missing, f"no libcst native module for cp{missing} (have {sorted(natives)})"


def test_whole_server_package_is_bundled(names):
    """Every module of server/fullgraph is in the .vsix: a stale or partial copy would crash at import time."""
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
        (r"(^|/)__pycache__/|\.pyc$", "bytecode caches"),
        (r"^extension/bundled/libs/bin/", "console scripts"),
        (r"^extension/(scripts|examples|bench|\.ci|e2e-out)/", "repository tooling"),
        (r"\.vsix$", "an older package"),
    ],
)
def test_excluded(names, pattern, why):
    bad = [n for n in names if re.search(pattern, n)]
    assert not bad, f"{why} must not be packaged: {bad[:5]}"


def test_target_platform_is_linux_x64():
    with zipfile.ZipFile(VSIX) as z:
        root = ET.fromstring(z.read("extension.vsixmanifest"))
    identity = next(el for el in root.iter() if el.tag.endswith("Identity"))
    assert identity.get("TargetPlatform") == "linux-x64"
    assert identity.get("Id") == "fullgraph" and identity.get("Publisher") == "fullgraph"


def test_manifest_points_at_packaged_files(manifest, names):
    assert manifest["name"] == "fullgraph" and manifest["publisher"] == "fullgraph"
    assert "onLanguage:python" in manifest["activationEvents"]
    assert _has(names, manifest["main"].removeprefix("./"))
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
    }


def test_bundle_manifest_matches_native_modules(extracted):
    bundle = json.loads((extracted / "bundled" / "manifest.json").read_text())
    for version in bundle["pythonVersions"]:
        tag = version.replace(".", "")
        assert (extracted / "bundled" / "libs" / "libcst" / f"native.cpython-{tag}-x86_64-linux-gnu.so").is_file()
    assert {"pygls", "lsprotocol", "libcst", "attrs", "cattrs", "fullgraph"} <= set(bundle["packages"])


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
