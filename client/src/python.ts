import { execFile } from "child_process";
import * as vscode from "vscode";
import { PythonExtension } from "@vscode/python-extension";
import { MIN_PYTHON, PYTHON_EXTENSION_ID } from "./constants";
import { log } from "./logger";

export type InterpreterSource = "fullgraph.interpreter" | "Python extension" | "PATH";

/** A Python that can run the server: `command args... -m fullgraph lsp`. */
export interface Interpreter {
  command: string;
  /** Extra leading arguments from a multi-part `fullgraph.interpreter`, e.g. `["-X", "utf8"]`. */
  args: string[];
  source: InterpreterSource;
  version: [number, number, number];
  /** `sys.executable` as the interpreter reports it. */
  executable: string;
  /** Whether `import fullgraph` finds a package with the environment the probe ran with. */
  hasFullgraph: boolean;
}

export interface ProbeEnvironment {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** What decides whether a probed interpreter is usable for the chosen import strategy. */
export interface Requirements {
  /** Versions with bundled native modules, e.g. ["3.10", "3.11"]; undefined when anything >= MIN_PYTHON goes. */
  supportedVersions?: readonly string[];
  /** fromEnvironment: the interpreter's environment must have fullgraph installed. */
  needsFullgraph: boolean;
}

export type Resolution =
  | { ok: true; interpreter: Interpreter; attempts: string[] }
  | {
      ok: false;
      attempts: string[];
      explicit: boolean;
      /** The first candidate that would do but for fullgraph missing from its environment (fromEnvironment). */
      withoutFullgraph?: Interpreter;
    };

/**
 * The VS Code target platform of this machine, as `vsce package --target` names it: `${platform}-${arch}`, with
 * `alpine-` for Linux on musl (where the glibc wheels in a linux-x64 package do not load).
 */
export function hostTarget(
  platform: string = process.platform,
  arch: string = process.arch,
  musl: boolean = platform === "linux" && isMusl(),
): string {
  return `${musl ? "alpine" : platform}-${arch}`;
}

function isMusl(): boolean {
  try {
    const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return report?.header !== undefined && !report.header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

const PROBE = [
  "import importlib.util, json, sys, sysconfig",
  "print(json.dumps({'version': list(sys.version_info[:3]), 'executable': sys.executable,",
  "                  'fullgraph': importlib.util.find_spec('fullgraph') is not None,",
  "                  'freeThreaded': bool(sysconfig.get_config_var('Py_GIL_DISABLED'))}))",
].join("\n");

interface ProbeResult {
  version: [number, number, number];
  executable: string;
  fullgraph: boolean;
  /** A free-threaded build (3.13t, 3.14t): its extension modules have their own ABI (cp314t). */
  freeThreaded?: boolean;
}

/** Run the interpreter once to learn its version (the same check as `python -c "import sys; print(sys.version_info[:2])"`). */
export function probeInterpreter(
  command: string,
  args: readonly string[],
  where: ProbeEnvironment,
  timeoutMs = 20000,
): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...args, "-c", PROBE],
      { env: where.env, cwd: where.cwd, timeout: timeoutMs, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") {
            reject(new Error("not found"));
          } else if (error.killed) {
            reject(new Error(`did not answer within ${timeoutMs / 1000} s`));
          } else {
            reject(new Error((stderr || error.message).trim().split("\n").slice(-1)[0]));
          }
          return;
        }
        try {
          const parsed = JSON.parse(stdout.trim().split("\n").slice(-1)[0]) as ProbeResult;
          resolve(parsed);
        } catch {
          reject(new Error(`unexpected output ${JSON.stringify(stdout.slice(0, 200))}`));
        }
      },
    );
  });
}

export function formatVersion(v: readonly number[]): string {
  return v.join(".");
}

/** Why an interpreter cannot be used, or undefined when it can. */
export function unusableReason(probe: ProbeResult, req: Requirements): string | undefined {
  const [major, minor] = probe.version;
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    return `Python ${formatVersion(probe.version)} is older than ${formatVersion(MIN_PYTHON)}`;
  }
  if (req.supportedVersions && probe.freeThreaded) {
    return (
      `Python ${major}.${minor} is a free-threaded build, which the bundled server has no native libcst for; ` +
      'use importStrategy "fromEnvironment" with fullgraph installed'
    );
  }
  if (req.supportedVersions && !req.supportedVersions.includes(`${major}.${minor}`)) {
    return (
      `Python ${major}.${minor} has no native libcst in the bundled server ` +
      `(bundled for ${req.supportedVersions.join(", ")}); use importStrategy "fromEnvironment" with fullgraph installed`
    );
  }
  if (req.needsFullgraph && !probe.fullgraph) {
    return "fullgraph is not installed in this environment (importStrategy is fromEnvironment)";
  }
  return undefined;
}

/** Access to the Python extension's active environment, if that extension is installed. */
export class PythonEnvironments implements vscode.Disposable {
  private api: PythonExtension | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the user selects another interpreter in the Python extension. */
  readonly onDidChange = this.changed.event;

  async initialize(): Promise<void> {
    if (this.api || !vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) {
      return;
    }
    try {
      this.api = await PythonExtension.api();
      this.disposables.push(
        this.api.environments.onDidChangeActiveEnvironmentPath((e) => {
          log.info(`Python extension: active environment is now ${e.path}`);
          this.changed.fire();
        }),
      );
    } catch (err) {
      log.warn(`Python extension present but its API is not available: ${String(err)}`);
    }
  }

  get available(): boolean {
    return this.api !== undefined;
  }

  /** The active environment's python executable for a resource, as the Python extension resolves it. */
  async activeExecutable(resource: vscode.Uri | undefined): Promise<string | undefined> {
    if (!this.api) {
      return undefined;
    }
    const envPath = this.api.environments.getActiveEnvironmentPath(resource);
    const resolved = await this.api.environments.resolveEnvironment(envPath);
    // An environment without a python executable (e.g. an empty conda env) has only a folder: the probe then
    // reports it as unusable and the next candidate is tried.
    return resolved?.executable.uri?.fsPath ?? envPath.path;
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
    this.changed.dispose();
  }
}

export interface ResolveOptions {
  /** `fullgraph.interpreter` (already expanded); empty when unset. */
  configured: string[];
  /** Whether the Python extension may be asked (not in an untrusted workspace). */
  usePythonExtension: boolean;
  resource: vscode.Uri | undefined;
  probeEnv: ProbeEnvironment;
  requirements: Requirements;
}

/**
 * Find the interpreter for the server, in this order (each step logged):
 * 1. `fullgraph.interpreter` — if set, it is the only candidate: a broken setting is reported, not skipped;
 * 2. the Python extension's active environment (when installed, and only in a trusted workspace);
 * 3. `python3`, then `python`, on PATH.
 */
export async function resolveInterpreter(python: PythonEnvironments, opts: ResolveOptions): Promise<Resolution> {
  const attempts: string[] = [];
  let withoutFullgraph: Interpreter | undefined;
  const tryCandidate = async (
    command: string,
    args: string[],
    source: InterpreterSource,
  ): Promise<Interpreter | undefined> => {
    const label = `${source}: ${[command, ...args].join(" ")}`;
    try {
      const probe = await probeInterpreter(command, args, opts.probeEnv);
      const reason = unusableReason(probe, opts.requirements);
      if (
        reason &&
        !withoutFullgraph &&
        !probe.fullgraph &&
        unusableReason(probe, { ...opts.requirements, needsFullgraph: false }) === undefined
      ) {
        withoutFullgraph = {
          command,
          args,
          source,
          version: probe.version,
          executable: probe.executable,
          hasFullgraph: false,
        };
      }
      if (reason) {
        attempts.push(`${label} — ${reason}`);
        log.warn(`Interpreter ${label} (${probe.executable}) is not usable: ${reason}`);
        return undefined;
      }
      log.info(`Using interpreter from ${source}: ${probe.executable} (Python ${formatVersion(probe.version)})`);
      return {
        command,
        args,
        source,
        version: probe.version,
        executable: probe.executable,
        hasFullgraph: probe.fullgraph,
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      attempts.push(`${label} — ${message}`);
      log.warn(`Interpreter ${label} is not usable: ${message}`);
      return undefined;
    }
  };

  // 1. fullgraph.interpreter
  if (opts.configured.length > 0) {
    const [command, ...args] = opts.configured;
    const found = await tryCandidate(command, args, "fullgraph.interpreter");
    return found ? { ok: true, interpreter: found, attempts } : { ok: false, attempts, explicit: true, withoutFullgraph };
  }
  log.info("fullgraph.interpreter is not set; trying the Python extension's environment, then PATH");

  // 2. Python extension
  if (!opts.usePythonExtension) {
    attempts.push("Python extension — skipped in an untrusted workspace");
    log.info("Untrusted workspace: not using the Python extension's environment (it may live in the workspace)");
  } else {
    await python.initialize();
    if (!python.available) {
      attempts.push("Python extension — not installed");
      log.info("Python extension (ms-python.python) is not installed");
    } else {
      let executable: string | undefined;
      try {
        executable = await python.activeExecutable(opts.resource);
      } catch (err) {
        log.warn(`Python extension could not resolve the active environment: ${String(err)}`);
      }
      if (executable) {
        const found = await tryCandidate(executable, [], "Python extension");
        if (found) {
          return { ok: true, interpreter: found, attempts };
        }
      } else {
        attempts.push("Python extension — no active environment");
      }
    }
  }

  // 3. PATH
  for (const name of ["python3", "python"]) {
    const found = await tryCandidate(name, [], "PATH");
    if (found) {
      return { ok: true, interpreter: found, attempts };
    }
  }
  return { ok: false, attempts, explicit: false, withoutFullgraph };
}
