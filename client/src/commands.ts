import { execFile } from "child_process";
import * as vscode from "vscode";
import { Commands, DIAGNOSTIC_SOURCE, FIX_ALL_KIND } from "./constants";
import { log, notify } from "./logger";
import { parseRules, RuleInfo } from "./rules";
import { Runtime, ServerManager } from "./server";

const RULE_SCHEME = "fullgraph-rule";
const CLI_TIMEOUT_MS = 30000;

/** Run `python -m fullgraph <args>` with the server's interpreter and environment; resolves to stdout. */
export function runCli(runtime: Runtime, args: readonly string[]): Promise<string> {
  const { interpreter } = runtime;
  const argv = [...interpreter.args, "-m", "fullgraph", ...args];
  log.debug(`Running ${[interpreter.command, ...argv].join(" ")}`);
  return new Promise((resolve, reject) => {
    execFile(
      interpreter.command,
      argv,
      { env: runtime.env, cwd: runtime.cwd, timeout: CLI_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          const detail = (stderr || error.message).trim();
          reject(new Error(`\`fullgraph ${args.join(" ")}\` failed: ${detail}`));
          return;
        }
        resolve(stdout);
      },
    );
  });
}

/** Rule codes of the fullgraph diagnostics on the cursor line of the active editor. */
function codesAtCursor(): string[] {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    return [];
  }
  const line = editor.selection.active.line;
  const codes = vscode.languages
    .getDiagnostics(editor.document.uri)
    .filter((d) => d.source === DIAGNOSTIC_SOURCE && d.range.start.line <= line && line <= d.range.end.line)
    .map((d) => (typeof d.code === "object" ? String(d.code.value) : String(d.code ?? "")))
    .filter((c) => c.length > 0);
  return [...new Set(codes)];
}

/** Read-only `fullgraph-rule:/FG101.md` documents with the Markdown of `fullgraph explain FG101`. */
class RuleDocumentProvider implements vscode.TextDocumentContentProvider {
  private readonly cache = new Map<string, string>();

  constructor(private readonly runtime: () => Promise<Runtime | undefined>) {}

  static uri(code: string): vscode.Uri {
    return vscode.Uri.from({ scheme: RULE_SCHEME, path: `/${code}.md` });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const code = uri.path.replace(/^\//, "").replace(/\.md$/, "");
    const cached = this.cache.get(code);
    if (cached !== undefined) {
      return cached;
    }
    const runtime = await this.runtime();
    if (!runtime) {
      return `# ${code}\n\nThe fullgraph server has no usable Python interpreter; see **fullgraph: Show Logs**.\n`;
    }
    const markdown = await runCli(runtime, ["explain", code]);
    this.cache.set(code, markdown);
    return markdown;
  }

  clear(): void {
    this.cache.clear();
  }
}

export function registerCommands(context: vscode.ExtensionContext, manager: ServerManager): void {
  const runtime = async (): Promise<Runtime | undefined> => {
    const state = manager.state;
    if (state.kind === "running" || (state.kind === "stopped" && state.runtime)) {
      return state.runtime;
    }
    const resolved = await manager.resolveRuntime(undefined, true);
    return "runtime" in resolved ? resolved.runtime : undefined;
  };
  const rules = new RuleDocumentProvider(runtime);

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(RULE_SCHEME, rules),
    manager.onDidChangeState(() => {
      rules.clear();
    }),

    vscode.commands.registerCommand(Commands.restart, () => manager.restart("fullgraph: Restart Server")),

    vscode.commands.registerCommand(Commands.showLogs, () => {
      log.show(false);
    }),

    vscode.commands.registerCommand(Commands.fixAll, fixAll),

    vscode.commands.registerCommand(Commands.runWithCapture, () => runWithCapture(runtime)),

    vscode.commands.registerCommand(Commands.confirmWithDynamo, (uri?: unknown) =>
      confirmWithDynamo(runtime, typeof uri === "string" ? uri : undefined),
    ),

    vscode.commands.registerCommand(Commands.explainRule, async (code?: unknown) => {
      try {
        await explainRule(typeof code === "string" ? code : undefined, runtime, rules);
      } catch (err) {
        void notify("error", err instanceof Error ? err.message : String(err), "Show Logs").then((picked) => {
          if (picked) {
            log.show(false);
          }
        });
      }
    }),
  );
}

/** Quote one argument for a POSIX shell. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * "Run with Graph-Break Capture…": run the current file (or a command the user types) under
 * `fullgraph trace` in a terminal. This executes the user's code, so it is an explicit command and only
 * available in a trusted workspace; the record it writes (.fullgraph/breaks.json) is picked up by the server.
 */
async function runWithCapture(runtime: () => Promise<Runtime | undefined>): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(
      "fullgraph: running code with graph-break capture needs a trusted workspace (it executes your program).",
    );
    return;
  }
  const rt = await runtime();
  if (!rt) {
    void vscode.window.showErrorMessage("fullgraph: no usable Python interpreter (see fullgraph: Show Logs).");
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const file = editor?.document.languageId === "python" ? editor.document.uri.fsPath : undefined;
  const python = rt.interpreter.command;
  const suggestion = file ? `${shellQuote(python)} ${shellQuote(file)}` : `${shellQuote(python)} -m pytest`;
  const command = await vscode.window.showInputBox({
    title: "fullgraph: Run with Graph-Break Capture",
    prompt: "The command to run; every graph break Dynamo meets is recorded and shown in the editor",
    value: suggestion,
    valueSelection: [suggestion.length, suggestion.length],
  });
  if (!command) {
    return;
  }
  const folder =
    (file ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file)) : undefined) ??
    vscode.workspace.workspaceFolders?.[0];
  const terminal = vscode.window.createTerminal({
    name: "fullgraph trace",
    cwd: folder?.uri.fsPath,
    env: rt.strategy === "useBundled" ? { PYTHONPATH: rt.env.PYTHONPATH } : undefined,
  });
  terminal.show();
  const launcher = [python, ...rt.interpreter.args, "-m", "fullgraph", "trace", "--"].map(shellQuote).join(" ");
  log.info(`Running with graph-break capture: ${launcher} ${command}`);
  terminal.sendText(`${launcher} ${command}`);
}

/**
 * "Confirm with Dynamo" (the server's code lens and quick fix on a followed library's undecided breaks): run the
 * file holding the compile call, `python <file>`, under `fullgraph trace` in a terminal, as "Run with Graph-Break
 * Capture…" does but without asking. Trusted workspaces only (it executes the file). The file is saved first: the
 * record applies to the file as it ran. The server picks up the record (.fullgraph/breaks.json): each site Dynamo
 * broke at becomes an error or warning "observed at runtime", the others are marked not reached in that run.
 */
async function confirmWithDynamo(runtime: () => Promise<Runtime | undefined>, uri: string | undefined): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(
      "fullgraph: Confirm with Dynamo needs a trusted workspace (it runs your program under runtime capture).",
    );
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const target = uri ? vscode.Uri.parse(uri) : editor?.document.uri;
  if (target?.scheme !== "file") {
    void vscode.window.showInformationMessage("fullgraph: Confirm with Dynamo runs a Python file saved on disk.");
    return;
  }
  const rt = await runtime();
  if (!rt) {
    void vscode.window.showErrorMessage("fullgraph: no usable Python interpreter (see fullgraph: Show Logs).");
    return;
  }
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
  if (document?.isDirty && !(await document.save())) {
    void vscode.window.showWarningMessage("fullgraph: save the file first; the run's record applies to it as saved.");
    return;
  }
  const file = target.fsPath;
  const folder = vscode.workspace.getWorkspaceFolder(target) ?? vscode.workspace.workspaceFolders?.[0];
  const terminal = vscode.window.createTerminal({
    name: "fullgraph: Confirm with Dynamo",
    cwd: folder?.uri.fsPath,
    env: rt.strategy === "useBundled" ? { PYTHONPATH: rt.env.PYTHONPATH } : undefined,
  });
  terminal.show(true);
  const python = rt.interpreter.command;
  const command = [python, ...rt.interpreter.args, "-m", "fullgraph", "trace", "--", python, file];
  log.info(`Confirm with Dynamo: ${command.join(" ")}`);
  try {
    // the server reads the record as soon as the run writes it (a file watcher may miss a new .fullgraph/)
    await vscode.commands.executeCommand(Commands.awaitRuntimeRecord);
  } catch (err) {
    log.warn(`The server does not wait for the run's record (${String(err)}); it reads it when the file watcher reports it`);
  }
  terminal.sendText(command.map(shellQuote).join(" "));
}

/**
 * Apply the server's `source.fixAll.fullgraph` action to the active Python file — the same action VS Code runs
 * for `"editor.codeActionsOnSave": {"source.fixAll.fullgraph": "explicit"}`.
 */
async function fixAll(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.languageId !== "python") {
    void vscode.window.showInformationMessage("fullgraph: open a Python file to fix its graph breaks.");
    return;
  }
  const document = editor.document;
  const kind = vscode.CodeActionKind.Empty.append(FIX_ALL_KIND);
  const whole = document.validateRange(new vscode.Range(0, 0, document.lineCount, 0));
  const actions =
    (await vscode.commands.executeCommand<vscode.CodeAction[] | undefined>(
      "vscode.executeCodeActionProvider",
      document.uri,
      whole,
      FIX_ALL_KIND,
      1, // resolve the edit of the first action if the server computes it lazily
    )) ?? [];
  const action = actions.find((a) => a.kind !== undefined && kind.contains(a.kind));
  if (!action?.edit && !action?.command) {
    const count = vscode.languages.getDiagnostics(document.uri).filter((d) => d.source === DIAGNOSTIC_SOURCE).length;
    void vscode.window.showInformationMessage(
      count === 0
        ? "fullgraph: no graph breaks in this file."
        : `fullgraph: none of the ${count} graph breaks in this file has a safe automatic fix; see the quick fixes (Ctrl+.) for each.`,
    );
    return;
  }
  log.info(`Applying "${action.title}" to ${document.uri.toString()}`);
  if (action.edit && !(await vscode.workspace.applyEdit(action.edit))) {
    void notify("error", `Could not apply "${action.title}": the file changed meanwhile; try again.`);
    return;
  }
  if (action.command) {
    await vscode.commands.executeCommand(action.command.command, ...((action.command.arguments ?? []) as unknown[]));
  }
}

interface RulePick extends vscode.QuickPickItem {
  code?: string;
}

async function explainRule(
  code: string | undefined,
  runtime: () => Promise<Runtime | undefined>,
  rules: RuleDocumentProvider,
): Promise<void> {
  let chosen = code?.trim().toUpperCase();
  if (!chosen) {
    const rt = await runtime();
    if (!rt) {
      return;
    }
    const all = parseRules(await runCli(rt, ["rules", "--format", "json"]));
    const here = codesAtCursor();
    const toItem = (r: RuleInfo): RulePick => ({ label: r.code, description: r.name, detail: r.summary, code: r.code });
    const items: RulePick[] = [];
    const nearby = all.filter((r) => here.includes(r.code));
    if (nearby.length > 0) {
      items.push({ label: "On this line", kind: vscode.QuickPickItemKind.Separator }, ...nearby.map(toItem));
      items.push({ label: "All rules", kind: vscode.QuickPickItemKind.Separator });
    }
    items.push(...all.map(toItem));
    const picked = await vscode.window.showQuickPick(items, {
      title: "fullgraph: Explain Rule",
      placeHolder: "Rule code or name, e.g. FG101",
      matchOnDescription: true,
      matchOnDetail: true,
    });
    chosen = picked?.code;
  }
  if (!chosen) {
    return;
  }
  const uri = RuleDocumentProvider.uri(chosen);
  // Fetch first so that an unknown code is reported instead of opening an empty preview.
  await rules.provideTextDocumentContent(uri);
  try {
    await vscode.commands.executeCommand("markdown.showPreview", uri);
  } catch (err) {
    log.warn(`Markdown preview unavailable (${String(err)}); opening the rule as text`);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}
