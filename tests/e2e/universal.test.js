// @ts-check
// End-to-end: the universal .vsix (no bundled server) in a real VS Code, with an interpreter that has no fullgraph:
// the notification says so, its "Install fullgraph" button pip-installs the package into that interpreter, and the
// server starts. The wheel of ./server comes from a local directory (fullgraph is not on the index the test uses), the
// dependencies from the wheels scripts/bundle_server.py downloaded (build/wheels/linux-x64/<python>) and, for the
// rest (PyYAML, which libcst requires but the bundle leaves out), the package index.
//
//   node --test tests/e2e/universal.test.js   (after `npm run package:all`; .ci/editor.sh runs it)
//
// Environment: FULLGRAPH_UNIVERSAL_VSIX (default dist/vsix/fullgraph-universal.vsix; the suite is skipped when it
// is missing), FULLGRAPH_E2E_PYTHON (default ./.venv/bin/python; makes the venv and builds the wheel).
"use strict";

const { describe, it, before, after } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { CodeServer, log, reportFailures, ROOT } = require("./harness");

const VSIX = process.env.FULLGRAPH_UNIVERSAL_VSIX || path.join(ROOT, "dist", "vsix", "fullgraph-universal.vsix");
const PYTHON = process.env.FULLGRAPH_E2E_PYTHON || path.join(ROOT, ".venv", "bin", "python");
const MODEL = fs.readFileSync(path.join(__dirname, "workspace", "model.py"), "utf8");
/** model.py's graph breaks (editor.test.js EXPECTED). */
const ERRORS = 5;

/** A venv with pip and nothing else, and pip settings that find fullgraph's wheel (and cached dependencies). */
function prepare() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "fullgraph-e2e-universal-py-"));
  const venv = path.join(tmp, "venv");
  execFileSync(PYTHON, ["-m", "venv", venv], { stdio: "inherit" });
  const python = path.join(venv, "bin", "python");
  const version = execFileSync(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8" }).trim();
  const wheels = path.join(tmp, "wheels");
  execFileSync(PYTHON, ["-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", wheels,
    path.join(ROOT, "server")], { stdio: "inherit", env: { ...process.env, PIP_CONSTRAINT: "" } });
  const deps = path.join(ROOT, "build", "wheels", "linux-x64", version);
  const env = {
    PIP_FIND_LINKS: fs.existsSync(deps) ? `${wheels} ${deps}` : wheels,
    PIP_CONSTRAINT: "",
  };
  log("universal: venv", python, `(Python ${version}), pip finds links in`, env.PIP_FIND_LINKS);
  return { python, env };
}

describe("VS Code: the universal package installs fullgraph into the selected interpreter", () => {
  /** @type {CodeServer | undefined} */
  let cs;
  /** @type {{python: string, env: Record<string, string>}} */
  let py;

  before(async () => {
    if (!fs.existsSync(VSIX)) {
      return;
    }
    py = prepare();
    cs = new CodeServer("universal", { "fullgraph.interpreter": [py.python] }, { "model.py": MODEL },
      { vsix: VSIX, env: py.env });
    await cs.start();
    await cs.openFile("model.py");
  });

  after(async () => {
    await cs?.stop();
  });

  reportFailures(() => cs);

  it("says that fullgraph is missing from the interpreter and offers to install it", { skip: !fs.existsSync(VSIX) && "no universal .vsix" }, async () => {
    const c = /** @type {CodeServer} */ (cs);
    await c.until("the notification", async () =>
      (await c.notifications()).some((n) => n.includes("fullgraph is not installed for")), 60000);
    const [toast] = (await c.notifications()).filter((n) => n.includes("fullgraph is not installed for"));
    log("notification:", JSON.stringify(toast));
    assert.ok(toast.includes(py.python) || toast.includes(path.dirname(path.dirname(py.python))), toast);
    assert.match(toast, /has no bundled server for this platform/);
    assert.match(toast, /Install fullgraph/);
    assert.equal(await c.squiggleCount("error"), 0);
    await c.screenshot("fullgraph-missing");
    assert.match(c.extensionLog(), /has no bundled server/);
  });

  it("installs it with one click and starts the server", { skip: !fs.existsSync(VSIX) && "no universal .vsix" }, async () => {
    const c = /** @type {CodeServer} */ (cs);
    await c.p.locator(".notification-toast .monaco-button", { hasText: "Install fullgraph" }).first().click();
    await c.until(`${ERRORS} error squiggles (or pip failing)`, async () =>
      (await c.squiggleCount("error")) === ERRORS || c.extensionLog().includes("Installing fullgraph failed"), 180000);
    assert.doesNotMatch(c.extensionLog(), /Installing fullgraph failed/);
    await c.screenshot("after-install");
    const logText = c.extensionLog();
    assert.match(logText, /Installing fullgraph: \S+ -m pip install/);
    assert.match(logText, /Server command: \S+ -m fullgraph lsp \(Python [\d.]+, fromEnvironment/);
    const installed = execFileSync(py.python, ["-c", "import fullgraph; print(fullgraph.__file__)"], { encoding: "utf8" });
    assert.ok(installed.startsWith(path.dirname(path.dirname(py.python))), installed);
  });
});
