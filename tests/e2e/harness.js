// @ts-check
// Drives a real VS Code (code-server 4.100.3 = VS Code 1.100.3, in headless Debian Chromium via playwright-core)
// with the packaged fullgraph extension installed from its .vsix. Used by editor.test.js.
//
// Pitfalls this file handles (see docs/editors.md, "Testing"):
// - code-server is started detached and killed as a process group: it leaves bootstrap-fork children otherwise.
// - `--config <tmp file>`: without it even `code-server --version` writes ~/.config/code-server/config.yaml.
// - Menus (Quick Fix) block mouse clicks with .context-view-pointerBlock: use the keyboard.
// - Quick Open + Enter races the file search: open files by double-clicking them in the Explorer.
"use strict";

const { spawn, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");
const { afterEach } = require("node:test");
const { chromium } = require("playwright-core");

const ROOT = path.resolve(__dirname, "..", "..");

const config = {
  codeServer: process.env.CODE_SERVER || path.join(__dirname, "code-server", "node_modules", ".bin", "code-server"),
  vsix: process.env.FULLGRAPH_VSIX || path.join(ROOT, "fullgraph-linux-x64.vsix"),
  chromium: process.env.CHROMIUM || "/usr/bin/chromium",
  out: path.resolve(process.env.FULLGRAPH_E2E_OUT || path.join(ROOT, "e2e-out")),
};

const T0 = Date.now();
/** @param {unknown[]} args */
function log(...args) {
  console.log(`[e2e ${((Date.now() - T0) / 1000).toFixed(1)}s]`, ...args);
}

/** @returns {Promise<number>} a free TCP port on 127.0.0.1 */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * @param {string} url
 * @param {number} ms
 */
function waitHttp(url, ms) {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      http
        .get(url, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
        .on("error", () => (Date.now() > end ? reject(new Error(`timeout waiting for ${url}`)) : setTimeout(attempt, 250)));
    };
    attempt();
  });
}

/** User settings every scenario starts from: no telemetry, no marketplace, no start page, fast hovers. */
const BASE_SETTINGS = {
  "workbench.startupEditor": "none",
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "chat.disableAIFeatures": true,
  "editor.hover.delay": 100,
  "editor.minimap.enabled": false,
  "editor.lightbulb.enabled": "on",
  "files.autoSave": "off",
  "window.commandCenter": false,
  "git.enabled": false,
};

/** Settings with scope machine(-overridable) in package.json. */
const MACHINE_SETTINGS = ["fullgraph.interpreter"];

/** code-server process groups still running; killed if the test process is interrupted (e.g. by `timeout`). */
const liveGroups = new Set();
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.once(signal, () => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    process.exit(130);
  });
}

class CodeServer {
  /**
   * @param {string} name scenario name, used for screenshots and logs
   * @param {Record<string, unknown>} settings user settings (merged over BASE_SETTINGS)
   * @param {Record<string, string>} files workspace files: relative path -> content
   * @param {{trusted?: boolean, vsix?: string, env?: Record<string, string>}} options trusted: false opens the
   *   workspace in Restricted Mode; vsix: the package to install (default config.vsix); env: added to
   *   code-server's environment (its extension host, the server and what they start inherit it)
   */
  constructor(name, settings, files, options = {}) {
    this.name = name;
    this.trusted = options.trusted ?? true;
    this.vsix = options.vsix ?? config.vsix;
    this.env = options.env ?? {};
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), `fullgraph-e2e-${name}-`));
    this.userData = path.join(this.tmp, "user-data");
    this.extensions = path.join(this.tmp, "extensions");
    this.workspace = path.join(this.tmp, "workspace");
    this.csConfig = path.join(this.tmp, "code-server.yaml");
    this.out = path.join(config.out, name);
    fs.rmSync(this.out, { recursive: true, force: true });
    fs.mkdirSync(this.out, { recursive: true });
    for (const dir of [this.extensions, this.workspace, path.join(this.userData, "User")]) {
      fs.mkdirSync(dir, { recursive: true });
    }
    fs.writeFileSync(this.csConfig, "auth: none\ncert: false\n");
    this.writeUserSettings(settings);
    for (const [rel, content] of Object.entries(files)) {
      const file = path.join(this.workspace, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
    /** @type {import("node:child_process").ChildProcess | undefined} */
    this.proc = undefined;
    /** @type {import("playwright-core").Browser | undefined} */
    this.browser = undefined;
    /** @type {import("playwright-core").Page | undefined} */
    this.page = undefined;
    this.shots = 0;
  }

  /**
   * Write the settings files before the start: machine-scoped settings (fullgraph.interpreter) go to the Remote
   * settings (Machine/settings.json), where VS Code reads them in a remote window such as code-server's; the
   * rest to the User settings.
   * @param {Record<string, unknown>} settings merged over BASE_SETTINGS
   */
  writeUserSettings(settings) {
    const trust = this.trusted
      ? { "security.workspace.trust.enabled": false }
      : { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never" };
    /** @type {Record<string, unknown>} */
    const user = { ...BASE_SETTINGS, ...trust };
    /** @type {Record<string, unknown>} */
    const machine = {};
    for (const [key, value] of Object.entries(settings)) {
      (MACHINE_SETTINGS.includes(key) ? machine : user)[key] = value;
    }
    fs.writeFileSync(path.join(this.userData, "User", "settings.json"), JSON.stringify(user, null, 2));
    fs.mkdirSync(path.join(this.userData, "Machine"), { recursive: true });
    fs.writeFileSync(path.join(this.userData, "Machine", "settings.json"), JSON.stringify(machine, null, 2));
  }

  /**
   * Change settings as a user does: open the settings.json, replace its text, save (VS Code does not notice a
   * settings.json rewritten behind its back). "remote" is the Remote (machine) settings of code-server, where
   * machine-scoped settings such as fullgraph.interpreter belong in a remote window: VS Code does not apply
   * them from the local User settings there. Returns to the previous editor.
   * @param {"user" | "remote"} which
   * @param {Record<string, unknown>} settings merged over what the file has
   */
  async editSettings(which, settings) {
    const file = path.join(this.userData, which === "user" ? "User" : "Machine", "settings.json");
    const current = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8") || "{}") : {};
    const wanted = { ...current, ...settings };
    await this.runCommand(which === "user" ? "Preferences: Open User Settings (JSON)" : "Preferences: Open Remote Settings (JSON)");
    await this.p.waitForSelector('.tab.active[aria-label*="settings.json"]', { timeout: 30000 });
    await this.focusEditor();
    await this.p.keyboard.press("Control+A");
    await this.p.keyboard.press("Delete");
    await this.p.keyboard.insertText(JSON.stringify(wanted)); // one input event: no auto-closing brackets
    await this.p.keyboard.press("Control+S");
    await this.p.waitForSelector('.tab.active[aria-label*="settings.json"]:not(.dirty)', { timeout: 10000 });
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    if (JSON.stringify(saved) !== JSON.stringify(wanted)) {
      throw new Error(`settings.json was not saved as typed: ${JSON.stringify(saved)}`);
    }
    await this.p.keyboard.press("Control+W");
  }

  /** Install the .vsix, start code-server and open the workspace in Chromium. */
  async start() {
    if (!fs.existsSync(this.vsix)) {
      throw new Error(`${this.vsix} does not exist: run \`npm run package\` first`);
    }
    const installed = execFileSync(
      config.codeServer,
      ["--config", this.csConfig, "--user-data-dir", this.userData, "--extensions-dir", this.extensions,
        "--install-extension", this.vsix],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120000 },
    );
    log(this.name, "install-extension:", installed.trim().split("\n").slice(-1)[0]);

    const port = await freePort();
    const csLog = fs.openSync(path.join(this.out, "code-server.log"), "w");
    this.proc = spawn(
      config.codeServer,
      ["--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
        ...(this.trusted ? ["--disable-workspace-trust"] : []), "--disable-getting-started-override",
        ...(process.env.FULLGRAPH_E2E_TRACE ? ["--log", "trace"] : []),
        "--config", this.csConfig, "--user-data-dir", this.userData, "--extensions-dir", this.extensions,
        this.workspace],
      // EXTENSIONS_GALLERY={}: no marketplace. detached: its own process group, killed as a whole in stop().
      { stdio: ["ignore", csLog, csLog], env: { ...process.env, ...this.env, EXTENSIONS_GALLERY: "{}" }, detached: true },
    );
    fs.closeSync(csLog);
    if (this.proc.pid) {
      liveGroups.add(this.proc.pid);
    }
    await waitHttp(`http://127.0.0.1:${port}/healthz`, 60000);
    log(this.name, `code-server up on port ${port} (pid ${this.proc.pid})`);

    this.browser = await chromium.launch({
      executablePath: config.chromium,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
    });
    const page = await this.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (e) => fs.appendFileSync(path.join(this.out, "page-errors.log"), `${String(e)}\n`));
    this.page = page;
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(this.workspace)}`);
    await page.waitForSelector(".monaco-workbench", { timeout: 90000 });
    await page.waitForSelector(".explorer-folders-view .monaco-list-row", { timeout: 90000 });
    log(this.name, "workbench loaded");
  }

  /** @returns {import("playwright-core").Page} */
  get p() {
    if (!this.page) {
      throw new Error("not started");
    }
    return this.page;
  }

  /** @param {string} step */
  async screenshot(step) {
    this.shots += 1;
    const file = path.join(this.out, `${String(this.shots).padStart(2, "0")}-${step}.png`);
    await this.p.screenshot({ path: file });
    log(this.name, "screenshot", path.relative(config.out, file));
  }

  /**
   * After a failed test: a screenshot, and the tail of the extension's log (with the server's own messages) on
   * stdout, so that a CI run that only keeps the output still shows what happened.
   * @param {string} test the failed test's name
   */
  async reportFailure(test) {
    await this.screenshot("failed").catch(() => undefined);
    const lines = this.extensionLog().trimEnd().split("\n");
    const tail = lines.slice(-150);
    log(this.name, `"${test}" failed; the extension's log, last ${tail.length} of ${lines.length} lines:\n${tail.join("\n")}`);
  }

  /** Open a workspace file by double-clicking it in the Explorer. @param {string} name */
  async openFile(name) {
    await this.p.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first().dblclick();
    await this.p.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: 30000 });
    await this.p.waitForSelector(".monaco-editor .view-lines", { timeout: 30000 });
  }

  /** Give the keyboard focus to the active editor (View: Focus First Editor Group), closing any open widget. */
  async focusEditor() {
    await this.p.keyboard.press("Escape");
    await this.p.keyboard.press("Control+1");
    await this.p.waitForSelector(".editor-group-container.active .monaco-editor.focused", { timeout: 10000 });
  }

  /** Move the cursor with Go to Line (1-based line and column). @param {number} line @param {number} col */
  async goTo(line, col) {
    await this.focusEditor();
    await this.p.keyboard.press("Control+G");
    await this.p.waitForSelector(".quick-input-widget input", { state: "visible" });
    await this.p.keyboard.type(`${line}:${col}`);
    await this.p.keyboard.press("Enter");
    await this.p.waitForSelector(".quick-input-widget", { state: "hidden" });
  }

  /**
   * The text of the editor lines on screen, top to bottom (Monaco reuses line elements, so DOM order is not
   * line order). Lines scrolled out of view are not included.
   */
  async editorText() {
    return (await this.editorTexts(".editor-group-container.active .editor-instance .monaco-editor .view-lines"))[0];
  }

  /**
   * The text on screen of every editor whose `.view-lines` element matches `selector` (a notebook's cells), in
   * document order; each as editorText() reads it.
   * @param {string} selector
   */
  editorTexts(selector) {
    return this.p.$$eval(selector, (editors) =>
      editors.map((e) =>
        [...e.querySelectorAll(".view-line")]
          .map((l) => ({ top: l.getBoundingClientRect().top, text: (l.textContent || "").replace(/\u00a0/g, " ") }))
          .sort((a, b) => a.top - b.top)
          .map((l) => l.text)
          .join("\n"),
      ),
    );
  }

  /** Save the active editor (Ctrl+S) and return the file's content on disk. @param {string} name */
  async saveAndRead(name) {
    await this.focusEditor();
    await this.p.keyboard.press("Control+S");
    const file = path.join(this.workspace, name);
    await this.p.waitForSelector(".tab.active:not(.dirty)", { timeout: 10000 });
    return fs.readFileSync(file, "utf8");
  }

  /** @param {string} kind "error" | "warning" */
  squiggleCount(kind = "error") {
    return this.p.$$eval(`.editor-instance .squiggly-${kind}`, (els) => els.length);
  }

  /**
   * Wait until a browser-side predicate holds, with a useful message when it never does.
   * @param {string} what
   * @param {() => boolean | Promise<boolean>} predicate evaluated in Node, polled
   * @param {number} timeoutMs
   */
  async until(what, predicate, timeoutMs = 30000) {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (await predicate()) {
        return;
      }
      await this.p.waitForTimeout(200);
    }
    await this.screenshot(`timeout-${what.replace(/[^A-Za-z0-9]+/g, "-")}`).catch(() => undefined);
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }

  /**
   * The problems in the Problems panel (file rows and related-information rows left out): each row's aria-label,
   * e.g. "Error: <message> at line 11 and character 5. … generated by fullgraph", and its visible text, which has
   * the code: "<message> fullgraph(FG101) [Ln 11, Col 5]". Closes the panel again.
   */
  async problems() {
    await this.p.keyboard.press("Control+Shift+M");
    await this.p.waitForSelector(".markers-panel .monaco-list-row", { timeout: 20000 });
    await this.p.waitForTimeout(300);
    const rows = await this.p.$$eval(".markers-panel .monaco-list-row", (rs) =>
      rs.map((r) => ({ label: r.getAttribute("aria-label") || "", text: (r.textContent || "").trim() })),
    );
    await this.screenshot("problems-panel");
    await this.p.keyboard.press("Control+J"); // hide the panel: the editor gets its full height back
    return rows.filter((r) => /^(Error|Warning|Info|Hint): /.test(r.label));
  }

  /** Show the hover at the cursor (Ctrl+K Ctrl+I) and return its text once it contains `expect`. @param {string} expect */
  async hoverText(expect) {
    await this.p.keyboard.press("Control+K");
    await this.p.keyboard.press("Control+I");
    await this.p.waitForFunction(
      (needle) => [...document.querySelectorAll(".monaco-hover")].some((h) => (h.textContent || "").includes(needle)),
      expect,
      { timeout: 20000 },
    );
    return this.p.$$eval(".monaco-hover", (hs) => hs.map((h) => /** @type {HTMLElement} */ (h).innerText).join("\n"));
  }

  /**
   * Open Quick Fix (Ctrl+.) at the cursor, and apply the action whose text starts with `title` using the keyboard.
   * @param {string} title
   * @returns {Promise<string[]>} the titles offered
   */
  async quickFix(title) {
    // The menu opens once the editor has asked for the code actions at the cursor; a key press that lands
    // while the cursor is still moving opens nothing, so it is pressed again (the server logs each request).
    for (let attempt = 1; ; attempt++) {
      await this.p.keyboard.press("Control+.");
      try {
        await this.p.waitForSelector(".action-widget .monaco-list-row", { timeout: 7000 });
        break;
      } catch (e) {
        if (attempt === 3) {
          throw e;
        }
        log(this.name, `the Quick Fix menu did not open (attempt ${attempt}); pressing Ctrl+. again`);
        await this.p.keyboard.press("Escape");
      }
    }
    await this.p.waitForTimeout(200);
    const offered = await this.p.$$eval(".action-widget .monaco-list-row", (rs) => rs.map((r) => (r.textContent || "").trim()));
    const index = offered.findIndex((t) => t.startsWith(title));
    if (index < 0) {
      throw new Error(`no code action "${title}" among ${JSON.stringify(offered)}`);
    }
    await this.screenshot("quick-fix-menu");
    for (let i = 0; i < offered.length + 2; i++) {
      const focused = await this.p.$eval(".action-widget", (w) => {
        const row = w.querySelector(".monaco-list-row.focused");
        return row ? (row.textContent || "").trim() : "";
      });
      if (focused.startsWith(title)) {
        await this.p.keyboard.press("Enter");
        await this.p.waitForSelector(".action-widget", { state: "hidden", timeout: 10000 });
        return offered;
      }
      await this.p.keyboard.press("ArrowDown");
    }
    throw new Error(`could not focus "${title}" in the Quick Fix menu`);
  }

  /** Run a command from the Command Palette by its label. @param {string} label */
  async runCommand(label) {
    await this.focusEditor();
    await this.p.keyboard.press("F1");
    await this.p.waitForSelector(".quick-input-widget input", { state: "visible" });
    await this.p.keyboard.type(label);
    const row = this.p.locator(".quick-input-list .monaco-list-row", { hasText: label }).first();
    await row.waitFor({ timeout: 20000 });
    await this.p.keyboard.press("Enter");
  }

  /** Texts of the notification toasts on screen. */
  notifications() {
    return this.p.$$eval(".notifications-toasts .notification-toast", (ts) =>
      ts.map((t) => /** @type {HTMLElement} */ (t).innerText.replace(/\s+/g, " ").trim()),
    );
  }

  /** Text of the language status hover (the `{}` item next to "Python" in the status bar). */
  async languageStatusText() {
    const item = this.p.locator('[id="status.languageStatus"]');
    await item.hover();
    const hover = this.p.locator(".monaco-hover .language-status-hover, .context-view .hover-language-status").first();
    try {
      await hover.waitFor({ timeout: 5000 });
      return await hover.innerText();
    } catch {
      // older/newer layouts: any hover that mentions fullgraph
      await this.p.waitForFunction(
        () => [...document.querySelectorAll(".monaco-hover, .workbench-hover")].some((h) => (h.textContent || "").includes("fullgraph")),
        null,
        { timeout: 10000 },
      );
      return this.p.$$eval(".monaco-hover, .workbench-hover", (hs) => hs.map((h) => /** @type {HTMLElement} */ (h).innerText).join("\n"));
    }
  }

  /** Screen geometry of the first squiggle on the line containing `lineText`, and of `word` on that line. @param {string} lineText @param {string} word */
  squiggleGeometry(lineText, word) {
    return this.p.evaluate(
      ([lineText, word]) => {
        const editor = document.querySelector(".editor-instance .monaco-editor");
        if (!editor) {
          return null;
        }
        const line = [...editor.querySelectorAll(".view-lines .view-line")].find((l) =>
          (l.textContent || "").replace(/\u00a0/g, " ").includes(lineText),
        );
        if (!line) {
          return null;
        }
        // `word` may span several token <span>s: map its offsets in the line's text onto the text nodes
        /** @type {Node[]} */
        const nodes = [];
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let node;
        while ((node = walker.nextNode())) {
          nodes.push(node);
        }
        const full = nodes.map((n) => (n.textContent || "").replace(/\u00a0/g, " ")).join("");
        const start = full.indexOf(word);
        if (start < 0) {
          return null;
        }
        /** @param {number} offset @returns {[Node, number]} */
        const locate = (offset) => {
          let seen = 0;
          for (const n of nodes) {
            const len = (n.textContent || "").length;
            if (offset <= seen + len) {
              return [n, offset - seen];
            }
            seen += len;
          }
          return [nodes[nodes.length - 1], (nodes[nodes.length - 1].textContent || "").length];
        };
        const range = document.createRange();
        range.setStart(...locate(start));
        range.setEnd(...locate(start + word.length));
        const rect = range.getBoundingClientRect();
        const top = line.getBoundingClientRect().top;
        const squiggle = [...editor.querySelectorAll(".squiggly-error, .squiggly-warning")]
          .map((e) => e.getBoundingClientRect())
          .filter((b) => Math.abs(b.top - top) < 3)
          .sort((a, b) => a.left - b.left)[0];
        return rect && squiggle
          ? { textLeft: rect.left, textRight: rect.right, squiggleLeft: squiggle.left, squiggleRight: squiggle.right }
          : null;
      },
      [lineText, word],
    );
  }

  /** The token spans (text, colour) of the line containing `lineText`. @param {string} lineText */
  tokens(lineText) {
    return this.p.evaluate((lineText) => {
      const line = [...document.querySelectorAll(".editor-instance .view-lines .view-line")].find((l) =>
        (l.textContent || "").replace(/\u00a0/g, " ").includes(lineText),
      );
      return line
        ? [...line.querySelectorAll("span > span")].map((s) => ({ text: (s.textContent || "").replace(/\u00a0/g, " "), color: getComputedStyle(s).color }))
        : [];
    }, lineText);
  }

  /** The extension's "fullgraph" output channel, as VS Code writes it to the logs folder. */
  extensionLog() {
    const logs = path.join(this.userData, "logs");
    /** @type {string[]} */
    const found = [];
    /** @param {string} dir */
    const walk = (dir) => {
      for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          walk(p);
        } else if (/fullgraph/i.test(entry.name) && entry.name.endsWith(".log")) {
          found.push(p);
        }
      }
    };
    walk(logs);
    return found.map((f) => fs.readFileSync(f, "utf8")).join("\n");
  }

  /** Python processes running `-m fullgraph lsp` under this code-server, with their PYTHONPATH. */
  serverProcesses() {
    /** @type {{pid: number, argv: string[], pythonPath: string | undefined}[]} */
    const result = [];
    const pgid = this.proc?.pid;
    for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
        if (!(argv.includes("-m") && argv.includes("fullgraph") && argv.includes("lsp"))) {
          continue;
        }
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) !== pgid) {
          continue; // another code-server's (or someone else's) server
        }
        const env = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
        const pp = env.find((e) => e.startsWith("PYTHONPATH="));
        result.push({ pid: Number(pid), argv, pythonPath: pp ? pp.slice("PYTHONPATH=".length) : undefined });
      } catch {
        // the process ended meanwhile
      }
    }
    return result;
  }

  /** Close the browser, kill code-server's process group, keep logs in the output folder, delete the rest. */
  async stop() {
    try {
      if (this.page) {
        await this.page.close().catch(() => undefined);
      }
      if (this.browser) {
        await this.browser.close().catch(() => undefined);
      }
    } finally {
      fs.writeFileSync(path.join(this.out, "fullgraph-extension.log"), this.extensionLog());
      const pid = this.proc?.pid;
      if (pid) {
        try {
          process.kill(-pid, "SIGTERM");
        } catch {
          // already gone
        }
        const end = Date.now() + 5000;
        while (Date.now() < end && groupAlive(pid)) {
          await new Promise((r) => setTimeout(r, 200));
        }
        if (groupAlive(pid)) {
          try {
            process.kill(-pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
        liveGroups.delete(pid);
      }
      fs.rmSync(this.tmp, { recursive: true, force: true });
      log(this.name, "stopped");
    }
  }
}

/** @param {number} pgid */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * After each failed test of the suite, a screenshot and the tail of the extension's log on stdout.
 * @param {() => CodeServer | undefined} current the suite's code-server
 */
function reportFailures(current) {
  afterEach(async (t) => {
    if ("passed" in t && !t.passed) {
      await current()?.reportFailure(t.name);
    }
  });
}

module.exports = { CodeServer, config, log, reportFailures, ROOT };
