// A minimal stand-in for the `vscode` module, for unit tests of the client's pure logic outside VS Code.
// Only what the tested modules touch at import time or in the tested functions.

export interface StubFolder {
  uri: { fsPath: string };
  name: string;
  index: number;
}

export const state: { folders: StubFolder[] | undefined; config: Record<string, unknown> } = {
  folders: undefined,
  config: {},
};

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (listener: (e: T) => void): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of this.listeners) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

const channel = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  show: () => undefined,
  dispose: () => undefined,
};

export const window = {
  createOutputChannel: () => channel,
  showErrorMessage: () => Promise.resolve(undefined),
  showWarningMessage: () => Promise.resolve(undefined),
  showInformationMessage: () => Promise.resolve(undefined),
};

export const workspace = {
  get workspaceFolders(): StubFolder[] | undefined {
    return state.folders;
  },
  isTrusted: true,
  getConfiguration: () => ({
    get: <T>(key: string, fallback?: T): T | undefined => (key in state.config ? (state.config[key] as T) : fallback),
    inspect: () => undefined,
  }),
};

export const extensions = { getExtension: () => undefined };
