/**
 * A Chromium whose only DevTools connection is a pipe held by this process.
 *
 * With `--remote-debugging-pipe` Chromium reads CDP messages from fd 3 and writes its own to fd 4,
 * each a JSON text ended by a NUL byte. It opens no port and writes no `DevToolsActivePort`, so
 * no other process of the machine (another session's code included) can find it and attach: the
 * pipe's two ends exist only in Chromium and here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { chromiumArgs } from './pool.ts';

/** Options of one piped Chromium. */
export interface ChromiumPipeOptions {
  executablePath: string;
  /** The profile folder (`--user-data-dir`). */
  userDataDir: string;
  /** More switches, after the shared ones. */
  extraArgs?: readonly string[];
}

/** Keeps the end of Chromium's stderr, for the error when it does not start. */
const stderrKeptBytes = 4096;

// What Playwright also passes for a headless session browser: nothing that phones home, no
// extensions (an extension could read files), the usual automation quirks off.
const sessionArgs: readonly string[] = [
  '--headless',
  '--remote-debugging-pipe',
  '--disable-extensions',
  '--disable-default-apps',
  '--disable-breakpad',
  '--disable-dev-shm-usage',
  '--no-default-browser-check',
  '--password-store=basic',
  '--use-mock-keychain',
  '--hide-scrollbars',
  '--mute-audio',
  '--window-size=1920,1080',
];

/** Names of the server's settings and secrets, which a session's browser has no use for. */
const privateVariable = /^TRAWL_|KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|_URL$/i;

/** The server's environment without its settings and secrets. */
function browserEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !privateVariable.test(name)),
  );
}

/** One Chromium process and the two ends of its DevTools pipe. */
export class ChromiumPipe {
  readonly #child: ChildProcess;
  readonly #input: Writable;
  #buffered: Buffer[] = [];
  #stderr = '';
  readonly #listeners = new Set<(message: string) => void>();
  /** Resolves when the process is gone. */
  readonly exited: Promise<void>;

  constructor(options: ChromiumPipeOptions) {
    this.#child = spawn(
      options.executablePath,
      [
        ...chromiumArgs,
        ...sessionArgs,
        `--user-data-dir=${options.userDataDir}`,
        ...(options.extraArgs ?? []),
        'about:blank',
      ],
      // fd 3: what Chromium reads, fd 4: what it writes.
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: browserEnvironment() },
    );
    this.#input = this.#child.stdio[3] as Writable;
    const output = this.#child.stdio[4] as Readable;
    // Writes after Chromium died fail with EPIPE: its exit is reported through `exited`.
    this.#input.on('error', () => undefined);
    output.on('error', () => undefined);
    output.on('data', (chunk: Buffer) => this.#receive(chunk));
    this.#child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-stderrKeptBytes);
    });
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', () => resolve());
      this.#child.once('error', (error) => {
        this.#stderr += `\n${error.message}`;
        resolve();
      });
    });
  }

  /** The process id, for tests that look at the process tree. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Whether the process still runs. */
  get isRunning(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The last lines Chromium printed, for errors. */
  get stderr(): string {
    return this.#stderr.trim();
  }

  /** Sends one CDP message (a JSON text). */
  send(message: string): void {
    if (this.isRunning) this.#input.write(`${message}\0`);
  }

  /** Calls `listener` with each message Chromium sends. */
  onMessage(listener: (message: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Ends the process (SIGKILL: the profile is saved before, by the caller) and waits for it. */
  async kill(): Promise<void> {
    if (this.isRunning) this.#child.kill('SIGKILL');
    await this.exited;
  }

  #receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      this.#buffered.push(chunk.subarray(start, end));
      const message = Buffer.concat(this.#buffered).toString('utf8');
      this.#buffered = [];
      start = end + 1;
      for (const listener of this.#listeners) listener(message);
    }
    if (start < chunk.length) this.#buffered.push(chunk.subarray(start));
  }
}
