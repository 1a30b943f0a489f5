/**
 * Running a session's code (`POST /v2/browser/{id}/execute` with `code`): a child Node process
 * under Node's permission model, connected to the session's relay over CDP.
 *
 * A crash or endless loop in the code cannot take the server down, and the permission model
 * (`--permission`) denies it the file system (it may read Playwright's own files and write its
 * scratch folder, nothing else), child processes, worker threads, native addons, WASI and the
 * inspector. Its environment holds only its own session's CDP address. The network stays open
 * (Node 24's permission model has no switch for it): the README says so.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserExecuteResult } from './session-options.ts';

/** Largest output kept of a run. */
const maxOutputBytes = 1024 * 1024;

// Playwright's connectOverCDP makes an artifacts folder under os.tmpdir(): TMPDIR points it at
// the run's scratch folder, the only place the code may write.
const runnerSource = `
const { chromium } = await import(process.env.TRAWL_PLAYWRIGHT_URL);
let code = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) code += chunk;
const browser = await chromium.connectOverCDP(process.env.TRAWL_CDP_URL);
const context = browser.contexts()[0] ?? (await browser.newContext());
const page = context.pages()[0] ?? (await context.newPage());
const AsyncFunction = (async () => {}).constructor;
let exitCode = 0;
try {
  const value = await new AsyncFunction('page', 'context', 'browser', code)(page, context, browser);
  if (value !== undefined) console.log(typeof value === 'string' ? value : JSON.stringify(value));
} catch (error) {
  console.error(error && error.stack ? error.stack : String(error));
  exitCode = 1;
}
process.exit(exitCode);
`;

/** What a run needs. */
export interface SessionCodeRun {
  /** The session's relay, as a WebSocket URL with its token. */
  cdpUrl: string;
  code: string;
  timeoutMs: number;
  /** The run's scratch folder (inside the session's own folder, mode 0700). */
  scratchDir: string;
}

/** Runs code in a child Node process connected to the session; never throws for the code's faults. */
export function runSessionCode({
  cdpUrl,
  code,
  timeoutMs,
  scratchDir,
}: SessionCodeRun): Promise<BrowserExecuteResult> {
  const playwrightUrl = import.meta.resolve('playwright-core');
  const playwrightDir = dirname(fileURLToPath(playwrightUrl));
  const child = spawn(
    process.execPath,
    [
      '--permission',
      // node:sqlite opens files past the permission model (Node 24): the store's database, too.
      '--no-experimental-sqlite',
      `--allow-fs-read=${playwrightDir}`,
      `--allow-fs-read=${scratchDir}`,
      `--allow-fs-write=${scratchDir}`,
      // Playwright asks whether it runs under WSL; nothing else of /proc (other processes'
      // environments and command lines) is readable.
      '--allow-fs-read=/proc/sys/fs/binfmt_misc/WSLInterop',
      '--allow-fs-read=/proc/version',
      '--allow-fs-read=/run/WSL',
      '--input-type=module',
      '--eval',
      runnerSource,
    ],
    {
      env: {
        TRAWL_PLAYWRIGHT_URL: playwrightUrl,
        TRAWL_CDP_URL: cdpUrl,
        TMPDIR: scratchDir,
        PATH: process.env['PATH'] ?? '',
      },
      cwd: scratchDir,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const output = { stdout: '', stderr: '', truncated: false };
  const collect = (name: 'stdout' | 'stderr') => (chunk: Buffer) => {
    if (output[name].length + chunk.length > maxOutputBytes) {
      output.truncated = true;
      output[name] += chunk.toString('utf8', 0, Math.max(0, maxOutputBytes - output[name].length));
    } else {
      output[name] += chunk.toString('utf8');
    }
  };
  child.stdout.on('data', collect('stdout'));
  child.stderr.on('data', collect('stderr'));
  child.stdin.on('error', () => undefined);
  child.stdin.end(code);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      const stdout = output.stdout.trimEnd();
      const stderr = output.stderr.trimEnd();
      const failed = killed || exitCode !== 0;
      const error = killed
        ? `The code ran longer than ${timeoutMs / 1000} s and was stopped`
        : failed
          ? (stderr.split('\n').find((line) => /^\w*Error\b/.test(line)) ??
            stderr.split('\n')[0] ??
            'The code failed')
          : undefined;
      resolve({
        success: true,
        result: stdout,
        stdout,
        stderr,
        exitCode: exitCode ?? 137,
        killed,
        truncated: output.truncated,
        ...(error ? { error } : {}),
      });
    });
  });
}
