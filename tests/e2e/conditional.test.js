// @ts-check
// End-to-end (issue 27): a transformers model compiled with `follow = ["transformers"]`. Its breaks on paths
// fullgraph cannot decide (other models' losses, attention back-ends, ...) are one hint on the compile call (no
// squiggle), whose hover lists them by condition; "Confirm with Dynamo" runs the file under runtime capture and
// the site Dynamo broke at becomes an error observed at runtime: GPT-2's loss property logs a warning once unless
// a loss was set on the model, which the script does only when asked (`--label-smoothing`), so the source does
// not decide it (without that line fullgraph shows the break before any run: nothing sets the loss).
//
//   node --test tests/e2e/conditional.test.js   (after `npm run package`)
//
// Environment: FULLGRAPH_E2E_TRANSFORMERS_PYTHON, a Python with torch 2.13 and transformers installed (default
// ./.venv/bin/python; the scenario is skipped when it has no transformers). The server is the one bundled in the
// .vsix (importStrategy useBundled), run by that Python; "Confirm with Dynamo" runs the file with it.
"use strict";

const { describe, it, before, after } = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { CodeServer, log, reportFailures, ROOT } = require("./harness");

const python = process.env.FULLGRAPH_E2E_TRANSFORMERS_PYTHON || path.join(ROOT, ".venv", "bin", "python");

/** @returns {string | undefined} why the scenario cannot run here */
function missing() {
  try {
    execFileSync(python, ["-c", "import torch, transformers"], { stdio: "ignore", timeout: 120000 });
    return undefined;
  } catch {
    return `${python} has no torch or no transformers (FULLGRAPH_E2E_TRANSFORMERS_PYTHON)`;
  }
}

const SCRIPT = `import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=64, n_positions=32)
model = GPT2LMHeadModel(config)
if "--label-smoothing" in sys.argv:  # a loss of one's own, on request: the model's loss property returns it then
    model.loss_function = lambda logits, labels, vocab_size, **kwargs: torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, vocab_size), labels[:, 1:].reshape(-1), label_smoothing=0.1)
compiled = torch.compile(model, fullgraph=True)
ids = torch.randint(0, 64, (1, 8))
try:
    compiled(ids, labels=ids)  # computing the loss logs a warning once: Dynamo breaks there
except Exception as e:
    print("fullgraph=True raised:", type(e).__name__)
`;
const COMPILE_LINE = SCRIPT.split("\n").findIndex((l) => l.includes("torch.compile(")) + 1;
const COMPILE_COL = SCRIPT.split("\n")[COMPILE_LINE - 1].indexOf("torch.compile") + 1;

const skip = missing();

describe("VS Code: a transformers model's undecided breaks, confirmed with Dynamo", { skip }, () => {
  /** @type {CodeServer} */
  let cs;

  before(async () => {
    cs = new CodeServer(
      "conditional",
      { "fullgraph.interpreter": [python], "fullgraph.logLevel": "debug" },
      { "gpt.py": SCRIPT, "pyproject.toml": '[tool.fullgraph]\nfollow = ["transformers"]\n' },
    );
    await cs.start();
    await cs.openFile("gpt.py");
  });

  after(async () => {
    await cs?.stop();
  });
  reportFailures(() => cs);

  /** Texts of the code lenses on screen. */
  const lenses = () => cs.p.$$eval(".codelens-decoration", (es) => es.map((e) => e.textContent || ""));

  it("shows no squiggle on the compile call: the undecided breaks are one hint", async () => {
    await cs.until("the compile call's code lens", async () =>
      (await lenses()).some((l) => l.includes("more on conditional paths")), 120000);
    await cs.until("the hint's dots", async () => (await cs.squiggleCount("hint")) > 0, 30000);
    for (const kind of ["error", "warning", "info"]) {
      assert.equal(await cs.squiggleCount(kind), 0, `a ${kind} squiggle`);
    }
    const text = (await lenses()).join(" | ");
    log("code lenses:", JSON.stringify(text));
    assert.match(text, /fullgraph-clean, \d+ more on conditional paths/);
    assert.match(text, /Confirm with Dynamo/);
    await cs.screenshot("conditional-hint");
  });

  it("lists the possible sites by condition on hover", async () => {
    await cs.goTo(COMPILE_LINE, COMPILE_COL);
    // the server's hover (below the diagnostic's own, which lists the related information) says this
    const text = await cs.hoverText("Each is a graph break inside `transformers`".replace(/`/g, ""));
    assert.match(text, /\d+ possible graph breaks inside transformers on paths this call may take/);
    log("hover:", JSON.stringify(text.slice(0, 1200)));
    // rendered Markdown: the conditions and the calls are code spans (no backticks in the text)
    assert.match(text, /when not \(hasattr\(self, "_loss_function"\)\): \d+ sites?/);
    assert.match(text, /logger\.warning_once\(\)/);
    assert.match(text, /transformers\.modeling_utils:\d+/);
    await cs.screenshot("conditional-hover");
    await cs.p.keyboard.press("Escape");
  });

  it("“Confirm with Dynamo” turns the site Dynamo broke at into an error observed at runtime", async () => {
    await cs.goTo(COMPILE_LINE, COMPILE_COL);
    const offered = await cs.quickFix("fullgraph: Confirm with Dynamo");
    log("quick fixes offered:", JSON.stringify(offered));
    // the run: GPT-2 under Dynamo in the terminal, then the server reads .fullgraph/breaks.json
    await cs.until("an error squiggle on the compile call", async () => (await cs.squiggleCount("error")) > 0, 300000);
    assert.ok(fs.existsSync(path.join(cs.workspace, ".fullgraph", "breaks.json")), "no runtime record");
    const rows = await cs.problems();
    log("Problems:", JSON.stringify(rows, null, 1));
    const errors = rows.filter((r) => r.label.startsWith("Error: "));
    assert.equal(errors.length, 1, JSON.stringify(rows));
    assert.match(errors[0].label, /graph break inside transformers \(transformers\.modeling_utils:\d+: `logger\.warning_once\(\)`/);
    assert.match(errors[0].label, /observed at runtime/);
    assert.match(errors[0].label, new RegExp(`at line ${COMPILE_LINE} `));
    assert.equal(rows.filter((r) => !r.label.startsWith("Error: ") && !r.label.startsWith("Hint: ")).length, 0,
      "the undecided ones stay a hint");
    await cs.until("the code lens counting it as a break", async () =>
      (await lenses()).some((l) => /^1 graph break reachable, \d+ more on conditional paths/.test(l)), 30000);
    await cs.screenshot("confirmed-with-dynamo");
  });
});
