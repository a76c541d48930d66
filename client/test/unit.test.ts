// Unit tests of the client logic that does not need VS Code: path expansion of settings, interpreter probing and
// resolution (with real Python processes), rule-list parsing, status texts. Run: npm run test:unit
import { strict as assert } from "node:assert";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it, beforeEach } from "node:test";
import { state } from "./vscode-stub";
import { expandPath } from "../src/settings";
import { hostTarget, PythonEnvironments, probeInterpreter, resolveInterpreter, unusableReason } from "../src/python";
import { findingsText, isRecompileCode, torchText } from "../src/status";
import { parseRules } from "../src/rules";

const PYTHON = process.env.FULLGRAPH_TEST_PYTHON ?? "python3";
const here = { env: process.env, cwd: os.tmpdir() };

describe("expandPath (fullgraph.interpreter)", () => {
  beforeEach(() => {
    state.folders = [{ uri: { fsPath: "/work/proj" }, name: "proj", index: 0 }];
  });

  it("expands ~ and ${userHome}", () => {
    assert.equal(expandPath("~/venv/bin/python"), path.join(os.homedir(), "venv/bin/python"));
    assert.equal(expandPath("${userHome}/py/bin/python3"), `${os.homedir()}/py/bin/python3`);
  });

  it("expands ${workspaceFolder} and makes relative paths absolute against the first folder", () => {
    assert.equal(expandPath("${workspaceFolder}/.venv/bin/python"), "/work/proj/.venv/bin/python");
    assert.equal(expandPath(".venv/bin/python"), "/work/proj/.venv/bin/python");
  });

  it("expands ${env:NAME}", () => {
    process.env.FULLGRAPH_TEST_HOME = "/opt/py";
    assert.equal(expandPath("${env:FULLGRAPH_TEST_HOME}/bin/python"), "/opt/py/bin/python");
  });

  it("leaves a bare command for the PATH lookup, and trims blanks", () => {
    assert.equal(expandPath("  python3 "), "python3");
  });

  it("keeps a relative path relative when there is no workspace folder", () => {
    state.folders = undefined;
    assert.equal(expandPath("bin/python"), "bin/python");
  });
});

describe("interpreter checks", () => {
  it("probes a real interpreter's version", async () => {
    const probe = await probeInterpreter(PYTHON, [], here);
    assert.equal(probe.version[0], 3);
    assert.ok(path.isAbsolute(probe.executable));
  });

  it("reports a missing interpreter as not found", async () => {
    await assert.rejects(probeInterpreter("/nonexistent/python3", [], here), /not found/);
  });

  it("rejects Python older than 3.10, and versions the bundle has no native modules for", () => {
    const probe = (minor: number) => ({ version: [3, minor, 0] as [number, number, number], executable: "/x", fullgraph: false });
    assert.match(unusableReason(probe(9), { needsFullgraph: false }) ?? "", /Python 3\.9\.0 is older than 3\.10/);
    assert.equal(unusableReason(probe(10), { needsFullgraph: false }), undefined);
    assert.match(
      unusableReason(probe(15), { needsFullgraph: false, supportedVersions: ["3.10", "3.14"] }) ?? "",
      /no native libcst in the bundled server \(bundled for 3\.10, 3\.14\)/,
    );
    assert.match(unusableReason(probe(12), { needsFullgraph: true }) ?? "", /fullgraph is not installed/);
    const freeThreaded = { ...probe(14), freeThreaded: true };
    assert.match(unusableReason(freeThreaded, { needsFullgraph: false, supportedVersions: ["3.14"] }) ?? "", /free-threaded/);
    assert.equal(unusableReason(freeThreaded, { needsFullgraph: false }), undefined);
  });
});

describe("resolveInterpreter", () => {
  const python = new PythonEnvironments(); // the stub has no Python extension
  const base = { usePythonExtension: true, resource: undefined, probeEnv: here, requirements: { needsFullgraph: false } };

  it("uses fullgraph.interpreter when it works", async () => {
    const r = await resolveInterpreter(python, { ...base, configured: [PYTHON] });
    assert.ok(r.ok);
    assert.equal(r.interpreter.source, "fullgraph.interpreter");
    assert.equal(r.interpreter.command, PYTHON);
  });

  it("reports a broken fullgraph.interpreter instead of falling back to PATH", async () => {
    const r = await resolveInterpreter(python, { ...base, configured: ["/nonexistent/python3"] });
    assert.ok(!r.ok);
    assert.equal(r.explicit, true);
    assert.deepEqual(r.attempts, ["fullgraph.interpreter: /nonexistent/python3 — not found"]);
  });

  it("without a setting: notes the missing Python extension, then takes python3 from PATH", async () => {
    const r = await resolveInterpreter(python, { ...base, configured: [] });
    assert.ok(r.ok);
    assert.equal(r.interpreter.source, "PATH");
    assert.equal(r.interpreter.command, "python3");
    assert.deepEqual(r.attempts, ["Python extension — not installed"]);
  });

  it("does not ask the Python extension in an untrusted workspace", async () => {
    const r = await resolveInterpreter(python, { ...base, configured: [], usePythonExtension: false });
    assert.deepEqual(r.attempts, ["Python extension — skipped in an untrusted workspace"]);
  });

  it("lists every candidate it tried when none is usable", async () => {
    const r = await resolveInterpreter(python, {
      ...base,
      configured: [],
      requirements: { needsFullgraph: false, supportedVersions: ["2.7"] },
    });
    assert.ok(!r.ok);
    assert.equal(r.explicit, false);
    assert.equal(r.attempts.length, 3, JSON.stringify(r.attempts));
    assert.match(r.attempts[1], /^PATH: python3 — Python 3\.\d+ has no native libcst/);
  });
});

describe("universal package and platform bundles", () => {
  const python = new PythonEnvironments();
  const base = { usePythonExtension: true, resource: undefined, probeEnv: here };

  it("names the machine as vsce's --target does", () => {
    assert.equal(hostTarget("linux", "x64", false), "linux-x64");
    assert.equal(hostTarget("linux", "x64", true), "alpine-x64");
    assert.equal(hostTarget("darwin", "arm64", false), "darwin-arm64");
    assert.equal(hostTarget("win32", "arm64", false), "win32-arm64");
    assert.match(hostTarget(), /^(linux|alpine|darwin|win32)-(x64|arm64)$/);
  });

  it("offers the interpreter that lacks only fullgraph for a one-click install", async () => {
    const r = await resolveInterpreter(python, {
      ...base,
      configured: [PYTHON, "-I"], // -I: the working directory's packages are not seen
      probeEnv: { env: { ...process.env, PYTHONPATH: "" }, cwd: os.tmpdir() },
      requirements: { needsFullgraph: true },
    });
    if (r.ok) {
      return; // this Python has fullgraph installed: nothing to offer
    }
    assert.ok(r.withoutFullgraph, JSON.stringify(r));
    assert.equal(r.withoutFullgraph.command, PYTHON);
    assert.deepEqual(r.withoutFullgraph.args, ["-I"]);
    assert.match(r.attempts[0], /fullgraph is not installed/);
  });

  it("offers nothing when the interpreter is unusable for another reason", async () => {
    const r = await resolveInterpreter(python, {
      ...base,
      configured: [PYTHON],
      requirements: { needsFullgraph: true, supportedVersions: ["2.7"] },
    });
    assert.ok(!r.ok);
    assert.equal(r.withoutFullgraph, undefined);
  });
});

describe("texts", () => {
  it("counts graph breaks in the status item", () => {
    assert.equal(findingsText(0), "no graph breaks");
    assert.equal(findingsText(1), "1 graph break");
    assert.equal(findingsText(5), "5 graph breaks");
    assert.equal(findingsText(0, 1), "no graph breaks, 1 recompilation hazard");
    assert.equal(findingsText(2, 3), "2 graph breaks, 3 recompilation hazards");
    assert.ok(isRecompileCode("FG601") && isRecompileCode("Recompile") && isRecompileCode("GB0039"));
    assert.ok(isRecompileCode({ value: "FG609", target: undefined as never }));
    assert.ok(!isRecompileCode("FG101") && !isRecompileCode("GB0059") && !isRecompileCode(undefined));
  });

  it("shows the torch version and where it comes from", () => {
    assert.equal(torchText({ torchVersion: "2.13.0", torchSource: "installed" }), "torch 2.13.0 (installed)");
    assert.equal(torchText({ torchVersion: "2.9" }), "torch 2.9");
    const versions = "torch 2.16.0 installed; Dynamo 2.15.0's verdicts, the newest collected";
    assert.equal(torchText({ torchVersion: "2.16.0", torchSource: "installed", knowledgeVersion: "2.15.0", versions }),
      versions);
    assert.equal(torchText(undefined), undefined);
  });

  it("parses `fullgraph rules --format json`, skipping malformed entries", () => {
    const rules = parseRules(
      JSON.stringify([{ code: "FG101", name: "print-call", summary: "print() inside a compiled region", fixes: [] }, { name: "no code" }, 3]),
    );
    assert.deepEqual(rules, [{ code: "FG101", name: "print-call", summary: "print() inside a compiled region" }]);
    assert.throws(() => parseRules("{}"), /did not print a JSON list/);
  });
});
