/**
 * The `trawl` command as a newcomer installs it (acceptance): the three packages are
 * packed with `npm pack` (their prepack builds dist/), installed globally into a temporary
 * prefix, and run from an empty folder — scrape, crawl to a JSON-lines file, parse a local PDF,
 * serve — on Node 24; with Node 20 first on PATH, `trawl` says in one line which Node it needs.
 * Slow (a build and an install from the npm cache); skipped with a message when npm cannot pack.
 */
import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';

const site = inject('fixtureUrl');
const repo = join(import.meta.dirname, '../..');
const exec = promisify(execFile);
/** The machine's own node, older than Trawl needs (the brief's Node 20). */
const oldNode = '/usr/bin/node';

const root = mkdtempSync(join(tmpdir(), 'trawl-install-'));
const prefix = join(root, 'prefix');
const empty = join(root, 'empty');
/** The pinned Node 24 first, as a user with a current Node has it. */
const currentPath = `${join(prefix, 'bin')}:${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;
let skipped: string | undefined;

beforeAll(async () => {
  const packs = join(root, 'packs');
  mkdirSync(packs);
  mkdirSync(empty);
  try {
    await exec(
      'npm',
      [
        'pack',
        ...['-w', 'packages/core', '-w', 'packages/adapters', '-w', 'packages/http'],
        ...['--pack-destination', packs],
      ],
      { cwd: repo, timeout: 240_000 },
    );
  } catch (error) {
    skipped = `npm pack could not run: ${(error as Error).message.split('\n')[0]}`;
    return;
  }
  const tarballs = readdirSync(packs).filter((name) => name.endsWith('.tgz'));
  // Offline as far as the cache allows: the dependencies come from the npm cache or registry;
  // @trawl/* come from the tarballs on the same command line.
  await exec(
    'npm',
    [
      'install',
      '-g',
      ...['--prefix', prefix],
      ...['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
      ...tarballs.map((name) => `./${name}`),
    ],
    { cwd: packs, timeout: 300_000 },
  );
}, 600_000);

/** Runs a shell command in the empty folder with `path` as PATH. */
async function sh(command: string, path = currentPath) {
  try {
    const { stdout, stderr } = await exec('bash', ['-c', command], {
      cwd: empty,
      env: { HOME: process.env['HOME'] ?? root, PATH: path },
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('trawl installed from packed tarballs', () => {
  it('packs each package with its built dist and pinned @trawl versions', (context) => {
    if (skipped) return context.skip(skipped);
    const installed = join(prefix, 'lib/node_modules/@trawl');
    for (const name of ['core', 'adapters', 'http'])
      expect(existsSync(join(installed, name, 'dist/index.js')), name).toBe(true);
    const http = JSON.parse(readFileSync(join(installed, 'http/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(http.dependencies['@trawl/core']).toBe('0.1.0');
    expect(existsSync(join(prefix, 'bin/trawl'))).toBe(true);
    // The dashboard ships built: `trawl serve` serves it at /.
    expect(existsSync(join(installed, 'http/dist/dashboard/index.html'))).toBe(true);
  });

  it('scrapes a page from an empty folder, keeping its data folder there', async (context) => {
    if (skipped) return context.skip(skipped);
    const result = await sh(`trawl scrape ${site}/articles/heavy-boilerplate.html`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# How a regional rail operator/);
    expect(existsSync(join(empty, '.trawl/trawl.db'))).toBe(true);
  });

  it('crawls to a file of JSON lines, every line a document', async (context) => {
    if (skipped) return context.skip(skipped);
    const result = await sh(`trawl crawl ${site}/ --limit 5 > docs.jsonl`);
    expect(result.code).toBe(0);
    const lines = readFileSync(join(empty, 'docs.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('metadata.sourceURL');
  });

  it('parses a local PDF given by a relative path', async (context) => {
    if (skipped) return context.skip(skipped);
    copyFileSync(
      join(repo, 'packages/core/test/parse/fixtures/simple.pdf'),
      join(empty, 'file.pdf'),
    );
    const result = await sh('trawl parse ./file.pdf');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().length).toBeGreaterThan(0);
  });

  it('serves the /v2 API and stops on SIGTERM', async (context) => {
    if (skipped) return context.skip(skipped);
    const child = spawn('trawl', ['serve', '--port', '0'], {
      cwd: empty,
      env: { PATH: currentPath, HOME: process.env['HOME'] ?? root, TRAWL_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      let stderr = '';
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start-up line: ${stderr}`)), 60_000);
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          const found = /server on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
          if (found) {
            clearTimeout(timer);
            resolve(Number(found[1]));
          }
        });
      });
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('says in one line that it needs Node 22 when an older node is first on PATH', async (context) => {
    if (skipped) return context.skip(skipped);
    const version = await sh(`${oldNode} --version`);
    if (!version.stdout.startsWith('v20') && !version.stdout.startsWith('v18'))
      return context.skip(`${oldNode} is ${version.stdout.trim()}, not an old Node`);
    const path = `${join(prefix, 'bin')}:${dirname(oldNode)}:${process.env['PATH'] ?? ''}`;
    const result = await sh('trawl scrape https://example.com', path);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^trawl: Trawl needs Node\.js 22 or newer \(22\.15\+\); this is Node\.js 20\.[^\n]*\n$/,
    );
    // The library says the same on import instead of a missing-built-in stack trace.
    const core = join(prefix, 'lib/node_modules/@trawl/core/dist/index.js');
    const library = await sh(`${oldNode} --input-type=module -e "await import('${core}')"`, path);
    expect(library.code).not.toBe(0);
    expect(library.stderr).toContain('Trawl needs Node.js 22 or newer');
    expect(library.stderr).not.toContain('ERR_UNKNOWN_BUILTIN_MODULE');
  });
});
