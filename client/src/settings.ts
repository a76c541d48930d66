import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import { CONFIG_SECTION } from "./constants";
import { log } from "./logger";

export type ImportStrategy = "useBundled" | "fromEnvironment";
export type LogLevel = "error" | "warning" | "info" | "debug";
export type Conditional = "hint" | "information" | "off";
export type ShowNotifications = "off" | "onError" | "onWarning" | "always";

/** How the server process is started. A change of any of these restarts the server. */
export interface LaunchSettings {
  enable: boolean;
  /** `fullgraph.interpreter`, expanded; empty when unset (or set only at workspace level in an untrusted workspace). */
  interpreter: string[];
  importStrategy: ImportStrategy;
  logLevel: LogLevel;
  /** `vscode.workspace.isTrusted` at the time the settings were read. */
  trusted: boolean;
}

/** What the server gets as `initializationOptions.settings` (and in answers to `workspace/configuration`). */
export interface ServerSettings {
  enable: boolean;
  select: string[];
  ignore: string[];
  torchVersion: string;
  /** `fullgraph.extraPaths`: folders imports are also found in (the server resolves relative ones). */
  extraPaths: string[];
  codeLens: boolean;
  /** `fullgraph.conditional`: how a followed library's undecided breaks are shown. */
  conditional: Conditional;
  /** `vscode.workspace.isTrusted`: the server offers "Confirm with Dynamo" (it runs code) only then. */
  trusted: boolean;
  showNotifications: ShowNotifications;
  logLevel: LogLevel;
  importStrategy: ImportStrategy;
  interpreter: string[];
}

function primaryFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

/**
 * Expand `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` in a path-like setting, and make a relative
 * path (one containing a separator, like `.venv/bin/python`) absolute against the first workspace folder.
 * Bare command names such as `python3` are left for a PATH lookup.
 */
export function expandPath(value: string, folder: vscode.WorkspaceFolder | undefined = primaryFolder()): string {
  let result = value.trim();
  const home = os.homedir();
  if (result === "~" || result.startsWith("~/") || result.startsWith("~\\")) {
    result = home + result.slice(1);
  }
  result = result.replace(/\$\{userHome\}/g, home);
  result = result.replace(/\$\{env:([^}]+)\}/g, (_m, name: string) => process.env[name] ?? "");
  if (folder) {
    result = result.replace(/\$\{workspaceFolder\}/g, folder.uri.fsPath);
  }
  const looksLikePath = result.includes("/") || result.includes("\\");
  if (looksLikePath && !path.isAbsolute(result) && folder) {
    result = path.resolve(folder.uri.fsPath, result);
  }
  return result;
}

function readInterpreter(config: vscode.WorkspaceConfiguration, trusted: boolean): string[] {
  const info = config.inspect<string[]>("interpreter");
  let value: string[] | undefined;
  if (trusted) {
    value = config.get<string[]>("interpreter");
  } else {
    // Restricted setting: never run an interpreter chosen by an untrusted workspace.
    if ((info?.workspaceValue?.length ?? 0) > 0 || (info?.workspaceFolderValue?.length ?? 0) > 0) {
      log.warn(
        "Untrusted workspace: ignoring the workspace value of fullgraph.interpreter " +
          `(${JSON.stringify(info?.workspaceFolderValue ?? info?.workspaceValue)}); only the user setting applies.`,
      );
    }
    value = info?.globalValue ?? info?.defaultValue;
  }
  return (value ?? []).filter((part) => part.trim().length > 0).map((part, i) => (i === 0 ? expandPath(part) : part));
}

export function getLaunchSettings(): LaunchSettings {
  const trusted = vscode.workspace.isTrusted;
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION, primaryFolder()?.uri);
  let importStrategy = config.get<ImportStrategy>("importStrategy", "useBundled");
  if (!trusted && importStrategy !== "useBundled") {
    // Even a user-level fromEnvironment would run whatever `fullgraph` the interpreter imports, which may be an
    // editable install of workspace code: only the extension's own copy runs in an untrusted workspace.
    log.warn(
      `Untrusted workspace: using the bundled fullgraph instead of importStrategy "${importStrategy}" ` +
        "(nothing from the workspace is executed).",
    );
    importStrategy = "useBundled";
  }
  return {
    enable: config.get<boolean>("enable", true),
    interpreter: readInterpreter(config, trusted),
    importStrategy,
    logLevel: config.get<LogLevel>("logLevel", "info"),
    trusted,
  };
}

export function getServerSettings(launch: LaunchSettings, resource?: vscode.Uri): ServerSettings {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION, resource ?? primaryFolder()?.uri);
  return {
    enable: launch.enable,
    select: config.get<string[]>("select", []),
    ignore: config.get<string[]>("ignore", []),
    torchVersion: config.get<string>("torchVersion", "").trim(),
    extraPaths: config.get<string[]>("extraPaths", []).filter((p) => p.trim().length > 0),
    codeLens: config.get<boolean>("codeLens", true),
    conditional: config.get<Conditional>("conditional", "hint"),
    trusted: launch.trusted,
    showNotifications: config.get<ShowNotifications>("showNotifications", "onError"),
    logLevel: launch.logLevel,
    importStrategy: launch.importStrategy,
    interpreter: launch.interpreter,
  };
}

/** True when a configuration change needs a new server process (see RESTART_SETTINGS). */
export function needsRestart(event: vscode.ConfigurationChangeEvent, settings: readonly string[]): boolean {
  return settings.some((name) => event.affectsConfiguration(name));
}
