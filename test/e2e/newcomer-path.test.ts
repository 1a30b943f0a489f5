/**
 * The README's newcomer path, in one fresh data folder, as a new user walks it with the `trawl`
 * binary and the JS SDK: scrape, crawl to a folder, a monitor made with the CLI, `trawl keys
 * create`, `trawl serve`; then the server shows that key the CLI's monitor and runs it, and refuses
 * the private page the CLI cached, each refusal naming the setting that changes it. Keys made or
 * revoked while the server runs count without a restart.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startServe, type ServeProcess } from './serve-process.ts';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
const site = inject('fixtureUrl');
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-newcomer-'));
// The user's environment: the guard at its default for every role.
const env = {
  ...process.env,
  TRAWL_ALLOW_PRIVATE_ADDRESSES: undefined,
  TRAWL_ALLOW_PRIVATE_TARGETS: undefined,
  TRAWL_API_KEYS: undefined,
  TRAWL_DATA_DIR: dataDir,
};

async function trawl(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ['--conditions=development', bin, ...args], {
    env,
    cwd: dataDir,
    timeout: 60_000,
  });
}

let server: ServeProcess;
let key: string;
let monitorId: string;

beforeAll(async () => {
  const page = await trawl('scrape', `${site}/articles/plain.html`, '--quiet');
  expect(page.stdout).toMatch(/^# /m);
  await trawl('crawl', `${site}/`, '--limit', '5', '--out', 'site', '--quiet');
  expect(existsSync(join(dataDir, 'site', 'index.jsonl'))).toBe(true);
  const created = await trawl(
    'monitor',
    'create',
    '--name',
    'Docs',
    '--schedule',
    'every day at 9am',
    '--json',
    `${site}/articles/plain.html`,
  );
  monitorId = (JSON.parse(created.stdout) as { id: string }).id;
  key = (await trawl('keys', 'create')).stdout.trim();
  server = await startServe({ ...env, TRAWL_DATA_DIR: dataDir }, { dataDir });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("the README's newcomer path", () => {
  it('wrote the crawl as markdown files with an index', () => {
    const index = readFileSync(join(dataDir, 'site', 'index.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(index.length).toBeGreaterThan(1);
  });

  it("shows the key the CLI's monitor, and runs it, saying why a private page fails", async () => {
    const firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
    const monitors = await firecrawl.listMonitors();
    expect(monitors.map((monitor) => monitor.id)).toContain(monitorId);
    const run = await firecrawl.runMonitor(monitorId);
    const done = await vi.waitFor(
      async () => {
        const check = await firecrawl.getMonitorCheck(monitorId, run.id);
        if (check.status === 'queued' || check.status === 'running') throw new Error('running');
        return check;
      },
      { timeout: 30_000, interval: 200 },
    );
    const [failed] = done.pages ?? [];
    expect(failed).toMatchObject({ status: 'error' });
    expect(failed?.error).toMatch(/TRAWL_ALLOW_PRIVATE_ADDRESSES/);
  });

  it('refuses the private page the CLI cached, naming the setting', async () => {
    const firecrawl = new Firecrawl({ apiKey: key, apiUrl: server.url });
    const refusal = await firecrawl
      .scrape(`${site}/articles/plain.html`)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ status: 403 });
    expect(String((refusal as Error).message)).toMatch(/TRAWL_ALLOW_PRIVATE_ADDRESSES/);
  });

  it('takes a key made, and refuses a key revoked, while it runs', async () => {
    const second = (await trawl('keys', 'create', '--team', 'ops')).stdout.trim();
    await trawl('keys', 'revoke', key.slice(0, 8));
    const listed = (apiKey: string) =>
      fetch(`${server.url}/v2/monitor`, { headers: { authorization: `Bearer ${apiKey}` } }).then(
        (response) => response.status,
      );
    await vi.waitFor(
      async () => {
        expect(await listed(key)).toBe(401);
        expect(await listed(second)).toBe(200);
      },
      { timeout: 15_000, interval: 500 },
    );
    // Revoking the last key closes the server to everyone: it never turns keyless again.
    await trawl('keys', 'revoke', second.slice(0, 8));
    await vi.waitFor(async () => expect(await listed(second)).toBe(401), {
      timeout: 15_000,
      interval: 500,
    });
    const bare = await fetch(`${server.url}/v2/monitor`);
    expect(bare.status).toBe(401);
  });
});
