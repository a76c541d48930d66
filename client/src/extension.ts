import * as vscode from "vscode";
import { registerCommands } from "./commands";
import { CONFIG_SECTION, RESTART_SETTINGS } from "./constants";
import { createLogChannel, log } from "./logger";
import { PythonEnvironments } from "./python";
import { ServerManager } from "./server";
import { needsRestart } from "./settings";
import { StatusItem } from "./status";

let manager: ServerManager | undefined;

/** Restarts requested in quick succession (e.g. several settings written at once) collapse into one. */
function debounced(fn: (reason: string) => void, ms: number): (reason: string) => void {
  let timer: NodeJS.Timeout | undefined;
  return (reason) => {
    if (timer) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = undefined;
      fn(reason);
    }, ms);
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(createLogChannel());
  const version = (context.extension.packageJSON as { version?: string }).version ?? "?";
  log.info(`fullgraph extension ${version} activating (VS Code ${vscode.version}, ${process.platform}-${process.arch})`);

  const python = new PythonEnvironments();
  manager = new ServerManager(context, python);
  context.subscriptions.push(python, manager, new StatusItem(manager));
  registerCommands(context, manager);

  const restart = debounced((reason) => {
    void manager?.restart(reason);
  }, 300);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (needsRestart(event, RESTART_SETTINGS)) {
        restart("settings changed");
      } else if (event.affectsConfiguration(CONFIG_SECTION) && !event.affectsConfiguration("fullgraph.trace")) {
        void manager?.sendSettings();
      }
    }),
    python.onDidChange(() => {
      // Only matters while fullgraph.interpreter is unset (otherwise it wins over the Python extension).
      if (vscode.workspace.getConfiguration(CONFIG_SECTION).get<string[]>("interpreter", []).length === 0) {
        restart("the Python extension's active environment changed");
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      restart("workspace trusted");
    }),
  );

  await manager.restart("extension activated");
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}
