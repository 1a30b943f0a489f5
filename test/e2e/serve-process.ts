/**
 * `trawl serve` as a real process for the security tests: what an attacker reaches over the
 * network, started from the CLI with its environment, not a server built inside the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');

/** A running server process. */
export interface ServeProcess {
  url: string;
  port: number;
  /** Stops the process (SIGTERM) and waits, at most 10 s, for it to exit. */
  stop: () => Promise<void>;
}

/**
 * Starts `trawl serve` on a free loopback port with `env` added to the test's environment, and
 * resolves once it prints its address (at most 30 s).
 */
export async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=development', bin, 'serve', '--port', '0'],
    {
      env: {
        ...process.env,
        TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-security-')),
        TRAWL_LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const address = /Trawl \/v2 server on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (address) {
        clearTimeout(timer);
        resolve(Number(address[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
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
