/** Identifiers shared by the client modules. Keep in sync with package.json "contributes". */

export const EXTENSION_ID = "fullgraph.fullgraph";
export const SERVER_ID = "fullgraph";
export const SERVER_NAME = "fullgraph";
export const CONFIG_SECTION = "fullgraph";

/** `source` of every diagnostic the server publishes. */
export const DIAGNOSTIC_SOURCE = "fullgraph";

/** Code action kind of the server's "fix all" source action. */
export const FIX_ALL_KIND = "source.fixAll.fullgraph";

/** Custom notification the server sends after start and whenever its torch information changes. */
export const STATUS_NOTIFICATION = "fullgraph/status";

/** Oldest Python the server runs on (server/pyproject.toml `requires-python`). */
export const MIN_PYTHON: readonly [number, number] = [3, 10];

export const PYTHON_EXTENSION_ID = "ms-python.python";

export const Commands = {
  restart: "fullgraph.restart",
  showLogs: "fullgraph.showLogs",
  fixAll: "fullgraph.fixAll",
  explainRule: "fullgraph.explainRule",
  runWithCapture: "fullgraph.runWithCapture",
  /** Sent by the server (code lens and quick fix on conditional library breaks); runs the file under capture. */
  confirmWithDynamo: "fullgraph.confirmWithDynamo",
  /** The server's command (registered by the language client): read the runtime record once a run writes it. */
  awaitRuntimeRecord: "fullgraph.awaitRuntimeRecord",
} as const;

/**
 * Settings whose change restarts the server: all but showNotifications (read by the client when it notifies) and
 * trace.server (applied live by the language client); those reach the running server as
 * workspace/didChangeConfiguration. A restart guarantees that every open file is analysed again and its
 * diagnostics pulled again.
 */
export const RESTART_SETTINGS = [
  "fullgraph.enable",
  "fullgraph.interpreter",
  "fullgraph.importStrategy",
  "fullgraph.select",
  "fullgraph.ignore",
  "fullgraph.torchVersion",
  "fullgraph.extraPaths",
  "fullgraph.codeLens",
  "fullgraph.logLevel",
] as const;
