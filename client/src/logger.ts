import * as vscode from "vscode";
import { CONFIG_SECTION, SERVER_NAME } from "./constants";

/**
 * The "fullgraph" LogOutputChannel, shared by the client's own messages and the language client
 * (server log messages and `fullgraph.trace.server` traces).
 */
let channel: vscode.LogOutputChannel | undefined;

export function createLogChannel(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel(SERVER_NAME, { log: true });
  return channel;
}

function out(): vscode.LogOutputChannel {
  return createLogChannel();
}

export const log = {
  trace(message: string): void {
    out().trace(message);
  },
  debug(message: string): void {
    out().debug(message);
  },
  info(message: string): void {
    out().info(message);
  },
  warn(message: string): void {
    out().warn(message);
  },
  error(message: string | Error): void {
    out().error(message);
  },
  show(preserveFocus = true): void {
    out().show(preserveFocus);
  },
};

export type NotificationLevel = "error" | "warning" | "info";
type ShowNotifications = "off" | "onError" | "onWarning" | "always";

const THRESHOLD: Record<ShowNotifications, number> = { off: 0, onError: 1, onWarning: 2, always: 3 };
const RANK: Record<NotificationLevel, number> = { error: 1, warning: 2, info: 3 };

/** Whether `fullgraph.showNotifications` lets a message of this level pop up. */
export function shouldNotify(level: NotificationLevel): boolean {
  const setting = vscode.workspace
    .getConfiguration(CONFIG_SECTION)
    .get<ShowNotifications>("showNotifications", "onError");
  // A hand-edited settings.json may hold anything; treat unknown values as the default.
  const threshold = Object.hasOwn(THRESHOLD, setting) ? THRESHOLD[setting] : THRESHOLD.onError;
  return RANK[level] <= threshold;
}

/**
 * Log a message and, if `fullgraph.showNotifications` allows it, show it as a notification.
 * Resolves to the action the user picked, or undefined.
 */
export async function notify<T extends string>(
  level: NotificationLevel,
  message: string,
  ...actions: T[]
): Promise<T | undefined> {
  if (level === "error") {
    log.error(message);
  } else if (level === "warning") {
    log.warn(message);
  } else {
    log.info(message);
  }
  if (!shouldNotify(level)) {
    return undefined;
  }
  const text = `fullgraph: ${message}`;
  if (level === "error") {
    return vscode.window.showErrorMessage(text, ...actions);
  }
  if (level === "warning") {
    return vscode.window.showWarningMessage(text, ...actions);
  }
  return vscode.window.showInformationMessage(text, ...actions);
}
