/**
 * `trawl serve` as a real child process for the security tests: what an attacker reaches over the
 * network, started from the CLI with its environment, with its own event loop (a frozen server
 * cannot answer) and its own memory (read from /proc/<pid>/status).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');

/** A running server process. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Its data folder (TRAWL_DATA_DIR). */
  dataDir: string;
  /** Its start-up line: the address it is bound to, who can reach it, what it resumed. */
  line: string;
  /** Stops the process (SIGTERM) and waits, at most 10 s, for it to exit. */
  stop: () => Promise<void>;
  /** SIGKILL: a frozen server would not stop on SIGTERM. */
  kill: () => Promise<void>;
  /** Peak resident memory of the process so far (VmHWM), in bytes. */
  peakRss: () => number;
}

/** How to start it besides its environment. */
export interface StartServeOptions {
  /** More arguments of `trawl serve` (`--host`, `--allow-keyless-remote`…). */
  args?: string[];
  /** The data folder, to start a second server on what the first one left; a fresh one else. */
  dataDir?: string;
  /** The port, to start again where clients already point; a free one else. */
  port?: number;
}

/**
 * Starts `trawl serve` with `env` added to the test's environment (a variable set to undefined is
 * taken out of it), and resolves once it prints its start-up line (at most 60 s).
 */
export async function startServe(
  env: Record<string, string | undefined>,
  options: StartServeOptions = {},
): Promise<ServeProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'trawl-security-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=development',
      bin,
      'serve',
      '--port',
      String(options.port ?? 0),
      ...(options.args ?? []),
    ],
    {
      env: {
        ...process.env,
        TRAWL_DATA_DIR: dataDir,
        TRAWL_LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const [line, port] = await new Promise<[string, number]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      // The whole line (up to its newline): it may name resumed jobs and webhooks at its end.
      const found = /^(Trawl \/v2 server on http:\/\/(?:\[[^\]]+\]|[^\s:/]+):(\d+).*)\n/m.exec(
        stderr,
      );
      if (found) {
        clearTimeout(timer);
        resolve([found[1]!, Number(found[2])]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    // A server bound to every address answers on loopback too.
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    line,
    stop: async () => {
      if (hasExited()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    kill: async () => {
      if (hasExited()) return;
      child.kill('SIGKILL');
      await exited;
    },
    peakRss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kib = /^VmHWM:\s+(\d+) kB/m.exec(status);
      if (!kib) throw new Error('no VmHWM in /proc status');
      return Number(kib[1]) * 1024;
    },
  };
}

/** A keyed server whose calls carry the key. */
export interface KeyedServeProcess extends ServeProcess {
  key: string;
  /** Calls the API with the key; JSON in and out; the call is abandoned after `timeoutMs`. */
  call(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs?: number,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
}

/**
 * Starts `trawl serve` with one key and private addresses allowed (the fixture site is on
 * loopback), for attacks that need an authorised caller.
 */
export async function serveProcess(env: Record<string, string> = {}): Promise<KeyedServeProcess> {
  const key = 'fc-security-test';
  const server = await startServe({
    TRAWL_API_KEYS: key,
    TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
    ...env,
  });
  return {
    ...server,
    key,
    async call(method, path, body, timeoutMs = 30_000) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  };
}

/** An answer read by {@link rawRequest}. */
export interface RawAnswer {
  status: number;
  body: string;
}

/**
 * Sends a request with `path` exactly as given: fetch() and the URL class would resolve `/./`,
 * `..` and `%2e` before sending, and the attack is the spelling itself.
 */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...headers,
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        timeout: 30_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
