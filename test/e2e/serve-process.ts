/**
 * `trawl serve` as a real child process for the security tests: its own event loop (a frozen
 * server cannot answer) and its own memory (read from /proc/<pid>/status).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');

/** A running server: its base URL, a call helper with the key, and a hard stop. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  key: string;
  /** Calls the API with the key; JSON in and out; the call is abandoned after `timeoutMs`. */
  call(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs?: number,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Peak resident memory of the process so far (VmHWM), in bytes. */
  peakRss(): number;
  /** SIGKILL: a frozen server would not stop on SIGTERM. */
  kill(): Promise<void>;
}

/** Starts `trawl serve` on a free port with a fresh data folder and resolves once it listens. */
export async function serveProcess(env: Record<string, string> = {}): Promise<ServeProcess> {
  const key = 'fc-security-test';
  const child = spawn(process.execPath, ['--conditions=development', bin, 'serve'], {
    env: {
      ...process.env,
      TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-security-')),
      PORT: '0',
      TRAWL_API_KEYS: key,
      TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
      TRAWL_LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const address = /Trawl \/v2 server on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (address) {
        clearTimeout(timer);
        resolve(Number(address[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    key,
    async call(method, path, body, timeoutMs = 30_000) {
      const response = await fetch(`${url}${path}`, {
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
    peakRss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kib = /^VmHWM:\s+(\d+) kB/m.exec(status);
      if (!kib) throw new Error('no VmHWM in /proc status');
      return Number(kib[1]) * 1024;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
