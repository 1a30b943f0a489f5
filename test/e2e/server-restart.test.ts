/**
 * `trawl serve` as a process: killed with SIGKILL in the middle of a crawl and started again on
 * the same data folder, it resumes the crawl, and GET /v2/crawl/{id} shows it finishing with
 * every page once. Also: it refuses to serve keyless on a public address.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArticleSite, type ArticleSite } from '../fixture-site/article-site.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
const key = 'fc-restart-test';

let site: ArticleSite;
beforeAll(async () => {
  site = await startArticleSite(150, 30);
});
afterAll(() => site.close());

/** Starts `trawl serve` on `dataDir` and `port` (0: any free one). */
function serve(dataDir: string, port: number, apiKeys = key): Promise<ServeProcess> {
  return startServe(
    { TRAWL_API_KEYS: apiKeys, TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true' },
    { dataDir, port },
  );
}

describe('trawl serve', () => {
  it('resumes a crawl after being killed, and the results are complete', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-serve-restart-'));
    const first = await serve(dataDir, 0);
    let server = first.child;
    const port = first.port;
    const api = `http://127.0.0.1:${port}`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const status = async (id: string, skip = 0) =>
      (await (await fetch(`${api}/v2/crawl/${id}?skip=${skip}`, { headers })).json()) as {
        status: string;
        completed: number;
        total: number;
        data: { metadata: { sourceURL: string } }[];
        next?: string;
      };

    const started = (await (
      await fetch(`${api}/v2/crawl`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `${site.url}/`, maxConcurrency: 2 }),
      })
    ).json()) as { id: string };
    for (let i = 0; i < 200 && (await status(started.id)).completed < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const before = await status(started.id);
    expect(before.status).toBe('scraping');
    expect(before.completed).toBeGreaterThanOrEqual(20);
    const killed = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await killed;

    // The same port: the client keeps the URL it was given.
    server = (await serve(dataDir, port)).child;
    try {
      let final = await status(started.id);
      for (let i = 0; i < 300 && final.status === 'scraping'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        final = await status(started.id);
      }
      expect(final.status).toBe('completed');
      const urls: string[] = [];
      for (let skip: number | undefined = 0; skip !== undefined;) {
        const page = await status(started.id, skip);
        urls.push(...page.data.map((doc) => doc.metadata.sourceURL));
        skip = page.next ? Number(new URL(page.next).searchParams.get('skip')) : undefined;
      }
      expect(urls).toHaveLength(new Set(urls).size);
      expect(urls.sort()).toEqual([...site.urls].sort());
      expect(final).toMatchObject({ completed: site.urls.length, total: site.urls.length });
    } finally {
      server.kill('SIGTERM');
    }
  }, 90_000);

  it('takes keys made by trawl keys create, stored as hashes only', async () => {
    const run = promisify(execFile);
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-keys-'));
    const env = { ...process.env, TRAWL_DATA_DIR: dataDir };
    const created = await run(
      process.execPath,
      ['--conditions=development', bin, 'keys', 'create', '--team', 'ops'],
      { env },
    );
    const newKey = created.stdout.trim();
    expect(newKey).toMatch(/^fc-[\w-]{32}$/);
    const listed = await run(process.execPath, ['--conditions=development', bin, 'keys', 'list'], {
      env,
    });
    expect(listed.stdout).toMatch(new RegExp(`^ops\\t${newKey.slice(0, 8)}…\\t\\d{4}-`));
    expect(listed.stdout).not.toContain(newKey);

    const { child: server, port } = await serve(dataDir, 0, '');
    try {
      const active = (headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/v2/crawl/active`, { headers });
      expect((await active({ authorization: `Bearer ${newKey}` })).status).toBe(200);
      expect((await active({})).status).toBe(401);
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('refuses to listen keyless on a non-loopback address', async () => {
    const run = promisify(execFile);
    const failure = (await run(
      process.execPath,
      ['--conditions=development', bin, 'serve', '--host', '0.0.0.0', '--port', '0'],
      {
        env: {
          ...process.env,
          TRAWL_API_KEYS: '',
          TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-')),
        },
      },
    ).catch((error: unknown) => error)) as { code: number; stderr: string };
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('Refusing to serve 0.0.0.0 without API keys');
  });
});
