// @ts-check
// End-to-end (issue 28): a recompilation hazard in a real VS Code. A module counts its steps in a Python int
// (`self.step += 1` in forward) and is called in a training loop: Dynamo guards on the counter's value and compiles
// forward again on every step. The editor shows one warning squiggle (FG601) on that line, its hover quotes the
// guard Dynamo installs (`self.step == 7`), and the quick fix "counter-buffer" makes the counter a non-persistent
// buffer; the warning goes and the file still parses. The compile call's code lens counts it as a recompilation
// hazard, not as a graph break, and so does the language status. A run of the loop under `fullgraph trace` puts
// what Dynamo did on the same warning: "observed at runtime: Dynamo recompiled `forward` 8 times (guard ...)".
//
//   node --test tests/e2e/recompile.test.js   (after `npm run package`; .ci/editor.sh sets everything up)
//
// Environment: as editor.test.js (FULLGRAPH_VSIX, FULLGRAPH_E2E_PYTHON: a Python with fullgraph installed, whose
// server is used: importStrategy fromEnvironment; CODE_SERVER, CHROMIUM, FULLGRAPH_E2E_OUT).
"use strict";

const { describe, it, before, after } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { CodeServer, log, reportFailures, ROOT } = require("./harness");

const SOURCE = fs.readFileSync(path.join(__dirname, "workspace", "stepper.py"), "utf8");
const LINES = SOURCE.split("\n");
const COUNTER = "self.step += 1";
const COUNTER_LINE = LINES.findIndex((l) => l.includes(COUNTER)) + 1;
const COUNTER_COL = LINES[COUNTER_LINE - 1].indexOf(COUNTER) + 1;
const BUFFER = 'self.register_buffer("step", torch.tensor(0), persistent=False)';

describe("VS Code: a recompilation hazard (FG601), its guard on hover and its quick fix", () => {
  /** @type {CodeServer} */
  let cs;
  const python = process.env.FULLGRAPH_E2E_PYTHON || path.join(ROOT, ".venv", "bin", "python");

  before(async () => {
    cs = new CodeServer(
      "recompile",
      {
        "fullgraph.interpreter": [python],
        "fullgraph.importStrategy": "fromEnvironment",
        "fullgraph.logLevel": "debug",
      },
      // .fullgraph/ exists before the run: a file watcher may miss a record in a folder created after it started
      { "stepper.py": SOURCE, ".fullgraph/README": "fullgraph trace writes its record here\n" },
    );
    await cs.start();
    await cs.openFile("stepper.py");
  });

  after(async () => {
    await cs?.stop();
  });
  reportFailures(() => cs);

  /** Texts of the code lenses on screen. */
  const lenses = () => cs.p.$$eval(".codelens-decoration", (es) => es.map((e) => (e.textContent || "").trim()));

  it("underlines the step counter with one warning (a slowdown, not an error)", async () => {
    await cs.until("a warning squiggle", async () => (await cs.squiggleCount("warning")) > 0, 90000);
    assert.equal(await cs.squiggleCount("warning"), 1);
    assert.equal(await cs.squiggleCount("error"), 0);
    const status = await cs.languageStatusText();
    log("language status:", JSON.stringify(status));
    assert.match(status, /fullgraph: no graph breaks, 1 recompilation hazard/);
    await cs.p.keyboard.press("Escape");
    const rows = await cs.problems();
    log("Problems:", JSON.stringify(rows, null, 1));
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.match(rows[0].label, /^Warning: `self\.step` is a Python int attribute of the module changed on every call/);
    assert.match(rows[0].label, new RegExp(`at line ${COUNTER_LINE} and character ${COUNTER_COL}\\b`));
    assert.match(rows[0].text, /fullgraph\(?FG601\)?/);
    // the compile call's code lens: no graph break, one recompilation hazard
    await cs.until("the code lens", async () => (await lenses()).includes("fullgraph-clean, 1 recompilation hazard"));
    await cs.screenshot("recompile-warning");
  });

  it("shows Dynamo's guard on hover", async () => {
    await cs.goTo(COUNTER_LINE, COUNTER_COL);
    const text = await cs.hoverText("Why it recompiles");
    log("hover:", JSON.stringify(text.slice(0, 1200)));
    assert.match(text, /fullgraph FG601/);
    // the server's hover (rendered Markdown: code spans without backticks, unlike the diagnostic's own text above
    // it) quotes the guard as Dynamo prints it
    assert.match(text, /warning: a recompilation \(slowdown\)/);
    assert.match(text, /guards on its value \(self\.step == 7: it treats int attributes of an nn\.Module as static\)/);
    assert.match(text, /recompile_limit/);
    await cs.screenshot("recompile-hover");
    await cs.p.keyboard.press("Escape");
  });

  it("shows a run's recompiles on the warning, “observed at runtime” (fullgraph trace)", async () => {
    // the training loop under runtime capture, as a user runs it in a terminal: forward recompiles up to the limit
    const run = execFileSync(python, ["-m", "fullgraph", "trace", "--", python, "stepper.py"],
      { cwd: cs.workspace, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300000 });
    log("fullgraph trace:", JSON.stringify(run.slice(0, 400)));
    assert.ok(fs.existsSync(path.join(cs.workspace, ".fullgraph", "breaks.json")), "no runtime record");
    // the server reads the record when the file watcher reports it: the one warning says what Dynamo did
    /** @type {{label: string, text: string}[]} */
    let rows = [];
    await cs.until("the warning observed at runtime", async () => {
      rows = await cs.problems();
      return rows.some((r) => r.label.includes("observed at runtime"));
    }, 60000);
    log("Problems:", JSON.stringify(rows, null, 1));
    assert.equal(rows.length, 1, "the recompile confirms the hazard, no second diagnostic");
    assert.match(rows[0].label, /— observed at runtime: Dynamo recompiled `forward` 8 times \(guard `self\.step == 0` \.\.\. `self\.step == 7` failed; hit recompile_limit \(8\)\)/);
    assert.equal(await cs.squiggleCount("warning"), 1);
    await cs.goTo(COUNTER_LINE, COUNTER_COL);
    const text = await cs.hoverText("Observed at runtime");
    log("hover:", JSON.stringify(text.slice(0, 1500)));
    assert.match(text, /Observed at runtime \(fullgraph trace\): Dynamo recompiled forward 8 times\./);
    assert.match(text, /Guards that failed: self\.step == 0, self\.step == 1, self\.step == 2, \.\.\., self\.step == 7; hit recompile_limit \(8\)/);
    await cs.screenshot("observed-at-runtime");
    await cs.p.keyboard.press("Escape");
  });

  it("applies the quick fix “counter-buffer”: the warning goes and the file still parses", async () => {
    await cs.goTo(COUNTER_LINE, COUNTER_COL);
    const offered = await cs.quickFix("fullgraph (FG601): Make `self.step` a non-persistent buffer");
    log("quick fixes offered:", JSON.stringify(offered));
    assert.ok(offered.some((t) => t.startsWith("fullgraph (FG601): Disable FG601 for this line")), JSON.stringify(offered));
    await cs.until("the counter as a buffer", async () => (await cs.editorText()).includes(BUFFER));
    await cs.until("no warning left", async () => (await cs.squiggleCount("warning")) === 0, 60000);
    assert.equal(await cs.squiggleCount("error"), 0);
    await cs.until("the code lens without the hazard", async () => (await lenses()).includes("fullgraph-clean"));
    await cs.screenshot("after-counter-buffer");
    const saved = await cs.saveAndRead("stepper.py");
    assert.ok(saved.includes(`        ${BUFFER}\n`), saved);
    assert.ok(!saved.includes("self.step = 0"), saved);
    assert.ok(saved.includes(`        ${COUNTER}\n`), "the in-place update of the buffer stays");
    // the file still parses (and the module still builds: the buffer is a tensor updated in place)
    execFileSync(python, ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", path.join(cs.workspace, "stepper.py")],
      { stdio: "pipe", timeout: 60000 });
  });
});
