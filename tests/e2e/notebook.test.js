// @ts-check
// End-to-end: fullgraph in VS Code's notebook editor (code-server 4.100.3, its built-in .ipynb support): the cells
// of a notebook are one program, the graph break shows in the cell it is in, with its hover, and a quick fix
// edits that cell. Run as editor.test.js is (`node --test tests/e2e/`).
"use strict";

const { describe, it, before, after } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { CodeServer, log, reportFailures, ROOT } = require("./harness");

const NOTEBOOK = fs.readFileSync(path.join(__dirname, "workspace", "train.ipynb"), "utf8");
const GUARD = 'fullgraph (FG101): Skip `print("温度 🔥", x.shape)` when compiled';

/**
 * The text of each code cell's editor on screen, in cell order.
 * @param {CodeServer} cs
 */
function cellTexts(cs) {
  return cs.editorTexts(".notebook-editor .code-cell-row .monaco-editor .view-lines");
}

/** The number of error squiggles in each code cell's editor. @param {CodeServer} cs */
function cellSquiggles(cs) {
  return cs.p.$$eval(".notebook-editor .code-cell-row .monaco-editor", (editors) =>
    editors.map((e) => e.querySelectorAll(".squiggly-error").length),
  );
}

/**
 * The centre of the first error squiggle in the notebook (the text layer above it takes the pointer events, so
 * the mouse goes there by coordinates).
 * @param {CodeServer} cs
 */
async function squiggleCentre(cs) {
  const box = await cs.p.locator(".notebook-editor .squiggly-error").first().boundingBox();
  assert.ok(box, "no squiggle on screen");
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/**
 * Open a notebook from the Explorer and wait for its cells' editors. On a loaded machine the notebook editor (the
 * built-in .ipynb extension activating) can miss the first double-click: it is tried again, with a screenshot of
 * each failed attempt.
 * @param {CodeServer} cs @param {string} name
 */
async function openNotebook(cs, name) {
  for (let attempt = 1; ; attempt++) {
    await cs.p.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first().dblclick();
    try {
      await cs.p.waitForSelector(".notebook-editor .code-cell-row .monaco-editor .view-lines", { timeout: 40000 });
      return;
    } catch (e) {
      await cs.screenshot(`open-attempt-${attempt}`);
      if (attempt === 3) {
        throw e;
      }
      log(cs.name, `the notebook's cells did not appear (attempt ${attempt}); opening it again`);
    }
  }
}

describe("VS Code: a notebook's cells", () => {
  /** @type {CodeServer} */
  let cs;
  const python = process.env.FULLGRAPH_E2E_PYTHON || path.join(ROOT, ".venv", "bin", "python");

  before(async () => {
    cs = new CodeServer(
      "notebook",
      {
        "fullgraph.interpreter": [python],
        "fullgraph.importStrategy": "fromEnvironment",
        "fullgraph.logLevel": "debug",
      },
      { "train.ipynb": NOTEBOOK },
    );
    await cs.start();
    await openNotebook(cs, "train.ipynb");
  });

  after(async () => {
    await cs?.stop();
  });
  reportFailures(() => cs);

  it("underlines the print in the cell that defines the model, compiled in another cell", async () => {
    await cs.until("a squiggle in a cell", async () => (await cellSquiggles(cs)).some((n) => n > 0), 90000);
    const texts = await cellTexts(cs);
    log("cells:", JSON.stringify(texts));
    const counts = await cellSquiggles(cs);
    log("squiggles per cell:", JSON.stringify(counts));
    const modelCell = texts.findIndex((t) => t.includes("class Net"));
    assert.ok(modelCell >= 0, JSON.stringify(texts));
    assert.deepEqual(counts, texts.map((_, i) => (i === modelCell ? 1 : 0)));
    await cs.screenshot("notebook-diagnostics");
  });

  it("explains it on hover", async () => {
    const { x, y } = await squiggleCentre(cs);
    await cs.p.mouse.move(x, y);
    await cs.p.waitForFunction(
      () => [...document.querySelectorAll(".monaco-hover")].some((h) => (h.textContent || "").includes("Reached from")),
      null,
      { timeout: 30000 },
    );
    const text = await cs.p.$$eval(".monaco-hover", (hs) => hs.map((h) => /** @type {HTMLElement} */ (h).innerText).join("\n"));
    log("hover:", JSON.stringify(text.slice(0, 400)));
    assert.match(text, /fullgraph FG101/);
    assert.match(text, /forward/);
    await cs.screenshot("notebook-hover");
    await cs.p.keyboard.press("Escape");
  });

  it("applies a quick fix in the cell and the squiggle goes; saving keeps the notebook's outputs", async () => {
    // a click on the squiggle puts the cursor there and the cell in edit mode
    const { x, y } = await squiggleCentre(cs);
    await cs.p.mouse.click(x, y);
    const offered = await cs.quickFix(GUARD);
    log("quick fixes offered:", JSON.stringify(offered));
    await cs.until("the guarded print", async () =>
      (await cellTexts(cs)).some((t) => t.includes("if not torch.compiler.is_compiling():")));
    await cs.until("no squiggles", async () => (await cellSquiggles(cs)).every((n) => n === 0));
    await cs.screenshot("notebook-after-quick-fix");
    await cs.p.keyboard.press("Escape");
    await cs.p.keyboard.press("Control+S");
    const file = path.join(cs.workspace, "train.ipynb");
    await cs.until("the notebook saved", async () => fs.readFileSync(file, "utf8").includes("is_compiling"));
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    const model = saved.cells.find((/** @type {any} */ c) => String(c.source.join ? c.source.join("") : c.source).includes("class Net"));
    assert.match(model.source.join(""), /\n( +)if not torch\.compiler\.is_compiling\(\):\n\1 {4}print\("温度 🔥", x\.shape\)\n/);
    const compiled = saved.cells.find((/** @type {any} */ c) => c.id === "compile");
    assert.deepEqual(compiled.outputs, JSON.parse(NOTEBOOK).cells[3].outputs);
  });
});
