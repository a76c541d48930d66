import * as vscode from "vscode";
import { Commands, DIAGNOSTIC_SOURCE } from "./constants";
import { formatVersion } from "./python";
import { ServerManager, ServerState, ServerStatus } from "./server";

/** Number of fullgraph diagnostics of a document (diagnostics of other tools are not counted). */
/** "5 min ago" for the ISO time of the last runtime capture. */
export function captureAge(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) {
    return iso;
  }
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) {
    return `${s} s ago`;
  }
  if (s < 3600) {
    return `${Math.round(s / 60)} min ago`;
  }
  if (s < 86400) {
    return `${Math.round(s / 3600)} h ago`;
  }
  return `${Math.round(s / 86400)} days ago`;
}

/**
 * Whether a diagnostic's code is a recompilation, not a graph break: a hazard FG601-FG609, or a recompile of the
 * runtime record ("Recompile", GB0039 when the recompile limit was hit).
 * @param code a vscode.Diagnostic's code (an object when the diagnostic links to its documentation)
 */
export function isRecompileCode(code: vscode.Diagnostic["code"]): boolean {
  const value = typeof code === "object" ? code.value : code;
  return typeof value === "string" && (/^FG6\d\d$/.test(value) || value === "Recompile" || value === "GB0039");
}

/** The fullgraph diagnostics of a document: graph breaks (and the rest) and recompilation hazards, counted apart. */
export function countFindings(uri: vscode.Uri): { breaks: number; hazards: number } {
  const mine = vscode.languages.getDiagnostics(uri).filter((d) => d.source === DIAGNOSTIC_SOURCE);
  const hazards = mine.filter((d) => isRecompileCode(d.code)).length;
  return { breaks: mine.length - hazards, hazards };
}

export function findingsText(count: number, hazards = 0): string {
  const breaks = count === 0 ? "no graph breaks" : count === 1 ? "1 graph break" : `${count} graph breaks`;
  if (hazards === 0) {
    return breaks;
  }
  return `${breaks}, ${hazards} recompilation hazard${hazards === 1 ? "" : "s"}`;
}

export function torchText(status: ServerStatus | undefined): string | undefined {
  if (!status?.torchVersion) {
    return undefined;
  }
  if (status.versions) {
    return status.versions;
  }
  return status.torchSource ? `torch ${status.torchVersion} (${status.torchSource})` : `torch ${status.torchVersion}`;
}

/**
 * The language status item of Python files: the number of fullgraph findings in the active file, the torch
 * version the server checks against (from `fullgraph/status`) and the server's state.
 */
export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private readonly disposables: { dispose(): unknown }[] = [];
  private serverStatus: ServerStatus | undefined;
  private state: ServerState;

  constructor(manager: ServerManager) {
    this.item = vscode.languages.createLanguageStatusItem("fullgraph.status", { language: "python" });
    this.item.name = "fullgraph";
    this.state = manager.state;
    this.disposables.push(
      this.item,
      manager.onDidChangeState((state) => {
        this.state = state;
        if (state.kind !== "running") {
          this.serverStatus = undefined;
        }
        this.update();
      }),
      manager.onDidReceiveStatus((status) => {
        this.serverStatus = status;
        this.update();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => {
        this.update();
      }),
      vscode.languages.onDidChangeDiagnostics((e) => {
        const active = vscode.window.activeTextEditor?.document.uri.toString();
        if (active && e.uris.some((uri) => uri.toString() === active)) {
          this.update();
        }
      }),
    );
    this.update();
  }

  private update(): void {
    const item = this.item;
    item.busy = this.state.kind === "starting";
    item.severity = vscode.LanguageStatusSeverity.Information;
    item.command = { title: "Show Logs", command: Commands.showLogs };
    switch (this.state.kind) {
      case "disabled":
        item.text = "fullgraph: disabled";
        item.detail = "fullgraph.enable is off";
        return;
      case "starting":
        item.text = "fullgraph: starting";
        item.detail = undefined;
        return;
      case "failed":
        item.severity = vscode.LanguageStatusSeverity.Error;
        item.text = "fullgraph: not running";
        item.detail = this.state.message.length > 120 ? `${this.state.message.slice(0, 117)}…` : this.state.message;
        return;
      case "stopped":
        item.severity = vscode.LanguageStatusSeverity.Warning;
        item.text = "fullgraph: stopped";
        item.detail = undefined;
        item.command = { title: "Restart", command: Commands.restart };
        return;
      case "running": {
        const uri = vscode.window.activeTextEditor?.document.uri;
        const counted = uri ? countFindings(uri) : undefined;
        item.text = counted ? `fullgraph: ${findingsText(counted.breaks, counted.hazards)}` : "fullgraph";
        const { interpreter } = this.state.runtime;
        const parts = [
          torchText(this.serverStatus) ?? "torch version not reported yet",
          this.serverStatus?.fullgraphVersion ? `fullgraph ${this.serverStatus.fullgraphVersion}` : undefined,
          `Python ${formatVersion(interpreter.version)}`,
          this.serverStatus?.lastCapture ? `last capture ${captureAge(this.serverStatus.lastCapture)}` : undefined,
        ];
        item.detail = parts.filter((p): p is string => Boolean(p)).join(" · ");
        return;
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
