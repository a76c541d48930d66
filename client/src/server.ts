import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  MessageType,
  RevealOutputChannelOn,
  ServerOptions,
  ShowMessageNotification,
  State,
} from "vscode-languageclient/node";
import { CONFIG_SECTION, PYTHON_EXTENSION_ID, SERVER_ID, SERVER_NAME, STATUS_NOTIFICATION } from "./constants";
import { createLogChannel, log, notify } from "./logger";
import {
  formatVersion,
  hostTarget,
  Interpreter,
  PythonEnvironments,
  Requirements,
  resolveInterpreter,
} from "./python";
import { getLaunchSettings, getServerSettings, ImportStrategy, LaunchSettings } from "./settings";

/** Params of the server's `fullgraph/status` notification. */
export interface ServerStatus {
  torchVersion?: string | null;
  /** "installed" | "configured" | "assumed ..." */
  torchSource?: string | null;
  /** The collected torch release whose Dynamo verdicts stand for torchVersion. */
  knowledgeVersion?: string | null;
  /** Both in one phrase: "torch 2.15.0 installed; Dynamo 2.15.0's verdicts". */
  versions?: string | null;
  fullgraphVersion?: string | null;
  lastCapture?: string | null;
}

export type ServerState =
  | { kind: "disabled" }
  | { kind: "starting" }
  | { kind: "running"; runtime: Runtime }
  | { kind: "stopped"; runtime?: Runtime }
  | { kind: "failed"; message: string };

/** How to run `python -m fullgraph ...`: shared by the server and the CLI calls of the commands. */
export interface Runtime {
  interpreter: Interpreter;
  strategy: ImportStrategy;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** How long `pip install fullgraph` may take before it is given up. */
const PIP_TIMEOUT_MS = 5 * 60 * 1000;

/** `bundled/manifest.json`, written by scripts/bundle_server.py. */
interface BundleManifest {
  /** The VS Code target the bundle's native modules are for, e.g. "darwin-arm64" (absent before 0.2). */
  target?: string;
  pythonVersions: string[];
  platform: string;
  packages: Record<string, string>;
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private current: ServerState = { kind: "stopped" };
  private queue: Promise<void> = Promise.resolve();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly statusEmitter = new vscode.EventEmitter<ServerStatus>();
  /** Fires whenever the server starts, stops, fails or is disabled. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires on each `fullgraph/status` notification. */
  readonly onDidReceiveStatus = this.statusEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly python: PythonEnvironments,
  ) {}

  get state(): ServerState {
    return this.current;
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  private setState(state: ServerState): void {
    this.current = state;
    this.stateEmitter.fire(state);
  }

  /** (Re)start the server. Calls are serialised: a restart never overlaps another one. */
  restart(reason: string): Promise<void> {
    this.queue = this.queue
      .then(() => this.doRestart(reason))
      .catch((err: unknown) => {
        log.error(`Restart failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      });
    return this.queue;
  }

  stop(): Promise<void> {
    this.queue = this.queue.then(() => this.stopClient());
    return this.queue;
  }

  private get bundledLibs(): string {
    return this.context.asAbsolutePath(path.join("bundled", "libs"));
  }

  private readBundleManifest(): BundleManifest | undefined {
    const file = this.context.asAbsolutePath(path.join("bundled", "manifest.json"));
    try {
      return JSON.parse(fs.readFileSync(file, "utf8")) as BundleManifest;
    } catch {
      return undefined;
    }
  }

  /**
   * Environment and working directory of every Python process the extension starts. The working directory is
   * the extension's own folder unless the user chose their own fullgraph in a trusted workspace: `python -m`
   * puts the working directory first on sys.path, and a workspace must not be able to shadow our modules.
   */
  private processEnvironment(strategy: ImportStrategy, trusted: boolean): { env: NodeJS.ProcessEnv; cwd: string } {
    const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: "1" };
    if (strategy === "useBundled") {
      const existing = process.env.PYTHONPATH;
      env.PYTHONPATH = existing ? `${this.bundledLibs}${path.delimiter}${existing}` : this.bundledLibs;
      return { env, cwd: this.context.extensionPath };
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return { env, cwd: trusted && folder ? folder : this.context.extensionPath };
  }

  /**
   * Decide strategy, interpreter and environment; when nothing usable exists, report why (a notification if
   * `interactive`) and return the message. Also used by commands that run the CLI while no server runs.
   */
  async resolveRuntime(
    launch: LaunchSettings = getLaunchSettings(),
    interactive = true,
  ): Promise<{ runtime: Runtime } | { error: string }> {
    let strategy = launch.importStrategy;
    let requirements: Requirements = { needsFullgraph: strategy === "fromEnvironment" };
    if (strategy === "useBundled") {
      const manifest = this.readBundleManifest();
      const host = hostTarget();
      const present = manifest !== undefined && fs.existsSync(path.join(this.bundledLibs, "fullgraph", "__init__.py"));
      const foreign = present && manifest.target !== undefined && manifest.target !== host;
      if (foreign) {
        log.warn(
          `The bundled server is built for ${manifest.target}, but this machine is ${host}: its native modules ` +
            "would not load. Install the extension for this platform; meanwhile fullgraph from the interpreter's " +
            "environment is used.",
        );
      }
      if (present && !foreign) {
        requirements = { needsFullgraph: false, supportedVersions: manifest.pythonVersions };
        log.info(
          `Import strategy useBundled: ${this.bundledLibs} (Python ${manifest.pythonVersions.join(", ")}, ` +
            `${manifest.platform})`,
        );
      } else if (launch.trusted) {
        if (!foreign) {
          log.info(
            `This copy of the extension (the universal package) has no bundled server (${this.bundledLibs} is ` +
              "missing): running the fullgraph installed in the interpreter's environment.",
          );
        }
        strategy = "fromEnvironment";
        requirements = { needsFullgraph: true };
      } else {
        return this.fail(
          "This copy of the extension has no bundled server, and an untrusted workspace may not use the " +
            "environment's fullgraph. Trust the workspace or install the extension from its .vsix.",
          interactive,
        );
      }
    } else {
      log.info("Import strategy fromEnvironment: running the fullgraph installed with the interpreter");
    }

    const where = this.processEnvironment(strategy, launch.trusted);
    const resolution = await resolveInterpreter(this.python, {
      configured: launch.interpreter,
      usePythonExtension: launch.trusted,
      resource: vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri,
      probeEnv: where,
      requirements,
    });
    if (!resolution.ok && resolution.withoutFullgraph) {
      const why =
        launch.importStrategy === "fromEnvironment"
          ? 'importStrategy is "fromEnvironment".'
          : "This copy of the extension has no bundled server for this platform.";
      return this.failWithoutFullgraph(resolution.withoutFullgraph, why, resolution.attempts, interactive);
    }
    if (!resolution.ok) {
      const fix = resolution.explicit
        ? 'Fix the "fullgraph.interpreter" setting, or clear it to use the Python extension\'s environment or python3 on PATH.'
        : 'Install Python 3.10 or newer, select it in the Python extension, or set "fullgraph.interpreter" to its path.';
      const message =
        `No usable Python interpreter for the fullgraph server. Tried: ${resolution.attempts.join("; ")}. ${fix}`;
      return this.fail(message, interactive);
    }
    return { runtime: { interpreter: resolution.interpreter, strategy, ...where } };
  }

  /**
   * The interpreter would do but has no fullgraph (the universal package, or importStrategy fromEnvironment): say
   * so, and offer to `pip install fullgraph` into that interpreter with one click.
   */
  private failWithoutFullgraph(
    interpreter: Interpreter,
    why: string,
    attempts: string[],
    interactive: boolean,
  ): { error: string } {
    const message =
      `fullgraph is not installed for ${interpreter.executable} (Python ${formatVersion(interpreter.version)}). ` +
      `${why} Install it there, or select another interpreter.`;
    log.info(`Interpreters tried: ${attempts.join("; ")}`);
    if (!interactive) {
      log.error(message);
      return { error: message };
    }
    const actions = ["Install fullgraph", "Show Logs"];
    if (vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) {
      actions.splice(1, 0, "Select Interpreter");
    }
    void notify("error", message, ...actions).then((picked) => {
      if (picked === "Install fullgraph") {
        void this.installFullgraph(interpreter);
      } else if (picked === "Select Interpreter") {
        void vscode.commands.executeCommand("python.setInterpreter");
      } else if (picked === "Show Logs") {
        log.show(false);
      }
    });
    return { error: message };
  }

  /** `<interpreter> -m pip install fullgraph`, with progress; restarts the server when it worked. */
  async installFullgraph(interpreter: Interpreter): Promise<boolean> {
    const argv = [...interpreter.args, "-m", "pip", "install", "--disable-pip-version-check", "fullgraph"];
    log.info(`Installing fullgraph: ${[interpreter.command, ...argv].join(" ")}`);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Installing fullgraph into ${interpreter.executable}…` },
      () =>
        new Promise<{ ok: boolean; output: string }>((resolve) => {
          execFile(
            interpreter.command,
            argv,
            { timeout: PIP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true, cwd: this.context.extensionPath },
            (error, stdout, stderr) => {
              resolve({ ok: !error, output: `${stdout}${stderr}`.trim() });
            },
          );
        }),
    );
    for (const line of result.output.split("\n")) {
      log.info(`pip: ${line}`);
    }
    if (result.ok) {
      void notify("info", `Installed fullgraph into ${interpreter.executable}; restarting the server.`);
      await this.restart("fullgraph installed");
      return true;
    }
    const managed = result.output.includes("externally-managed-environment");
    const hint = managed
      ? " This Python is managed by the system (PEP 668): create a virtual environment (`python3 -m venv .venv`), " +
        "select it, and install there."
      : "";
    const last = result.output.split("\n").filter((l) => l.trim()).slice(-1)[0] ?? "";
    void notify("error", `Installing fullgraph failed: ${last}${hint}`, "Show Logs").then((picked) => {
      if (picked === "Show Logs") {
        log.show(false);
      }
    });
    return false;
  }

  /** Log (and, if interactive, notify about) why no server can run; returns the message. */
  private fail(message: string, interactive: boolean): { error: string } {
    if (!interactive) {
      log.error(message);
      return { error: message };
    }
    const actions = ["Open Settings", "Show Logs"];
    if (vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) {
      actions.unshift("Select Interpreter");
    }
    void notify("error", message, ...actions).then((picked) => {
      if (picked === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "fullgraph.interpreter");
      } else if (picked === "Show Logs") {
        log.show(false);
      } else if (picked === "Select Interpreter") {
        void vscode.commands.executeCommand("python.setInterpreter");
      }
    });
    return { error: message };
  }

  private async doRestart(reason: string): Promise<void> {
    log.info(`(Re)starting the server: ${reason}`);
    await this.stopClient();
    const launch = getLaunchSettings();
    if (!launch.enable) {
      log.info("fullgraph.enable is off: not starting the server");
      this.setState({ kind: "disabled" });
      return;
    }
    this.setState({ kind: "starting" });
    log.info(
      `Settings: interpreter ${JSON.stringify(launch.interpreter)}, importStrategy ${launch.importStrategy}, ` +
        `logLevel ${launch.logLevel}, workspace ${launch.trusted ? "trusted" : "untrusted (Restricted Mode)"}`,
    );
    const resolved = await this.resolveRuntime(launch);
    if ("error" in resolved) {
      this.setState({ kind: "failed", message: resolved.error });
      return;
    }
    const { runtime } = resolved;
    const { interpreter } = runtime;
    const args = [...interpreter.args, "-m", "fullgraph", "lsp"];
    log.info(
      `Server command: ${[interpreter.command, ...args].join(" ")} (Python ${formatVersion(interpreter.version)}, ` +
        `${runtime.strategy}${runtime.strategy === "useBundled" ? `, PYTHONPATH=${runtime.env.PYTHONPATH}` : ""}, ` +
        `cwd ${runtime.cwd})`,
    );

    const serverOptions: ServerOptions = {
      command: interpreter.command,
      args,
      options: { env: runtime.env, cwd: runtime.cwd },
    };
    const channel = createLogChannel();
    const clientOptions: LanguageClientOptions = {
      // Python files, and the Python cells of notebooks: the server offers notebookDocumentSync for
      // `jupyter-notebook`, so vscode-languageclient syncs a notebook's cells as one notebook document.
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
        { scheme: "vscode-notebook-cell", language: "python" },
      ],
      outputChannel: channel,
      traceOutputChannel: channel,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // Later changes: a restart (see RESTART_SETTINGS) or sendSettings(); the server also asks for the
      // `fullgraph` section with workspace/configuration, which the client answers from the settings.
      initializationOptions: { settings: getServerSettings(launch) },
      initializationFailedHandler: (error) => {
        log.error(`Server initialization failed: ${String(error)}`);
        return false;
      },
    };
    const client = new LanguageClient(SERVER_ID, SERVER_NAME, serverOptions, clientOptions);
    client.onNotification(STATUS_NOTIFICATION, (params: ServerStatus) => {
      log.debug(`fullgraph/status ${JSON.stringify(params)}`);
      this.statusEmitter.fire(params);
    });
    // Route the server's window/showMessage through fullgraph.showNotifications (replaces the default handler).
    client.onNotification(ShowMessageNotification.type, ({ type, message }) => {
      const level = type === MessageType.Error ? "error" : type === MessageType.Warning ? "warning" : "info";
      void notify(level, message);
    });
    client.onDidChangeState(({ newState }) => {
      if (this.client !== client) {
        return;
      }
      if (newState === State.Running) {
        this.setState({ kind: "running", runtime });
      } else if (newState === State.Stopped && this.current.kind === "running") {
        this.setState({ kind: "stopped", runtime });
      }
    });
    this.client = client;
    try {
      await client.start();
      const info = client.initializeResult?.serverInfo;
      log.info(`Server started: ${info ? `${info.name} ${info.version ?? ""}`.trim() : "(no serverInfo)"}`);
    } catch (err) {
      this.client = undefined;
      const message = err instanceof Error ? err.message : String(err);
      const { error } = this.fail(
        `The fullgraph server failed to start with ${interpreter.executable}: ${message}. ` +
          "The fullgraph output channel has the server's error output.",
        true,
      );
      this.setState({ kind: "failed", message: error });
      await client.dispose().catch(() => undefined);
    }
  }

  /** Tell the running server about settings that do not need a restart (workspace/didChangeConfiguration). */
  async sendSettings(): Promise<void> {
    const client = this.client;
    if (!client?.isRunning()) {
      return;
    }
    const settings = getServerSettings(getLaunchSettings());
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [CONFIG_SECTION]: settings } });
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) {
      return;
    }
    try {
      if (client.isRunning()) {
        await client.stop();
      }
      await client.dispose();
    } catch (err) {
      log.warn(`Stopping the server: ${String(err)}`);
    }
    if (this.current.kind === "running") {
      this.setState({ kind: "stopped", runtime: this.current.runtime });
    }
  }

  dispose(): void {
    void this.stopClient();
    this.stateEmitter.dispose();
    this.statusEmitter.dispose();
  }
}
