/**
 * `trawl search` and `trawl index`: pages scraped into the data directory's store are found from
 * the command line, the index reports its size, and a rebuild refills it from the page cache.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { scrape, SqliteStore } from '@trawl/core';
import { runCli } from '@trawl/http';

const site = inject('fixtureUrl');
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-search-cli-'));
const env = { TRAWL_DATA_DIR: dataDir };

async function trawl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  const store = new SqliteStore({ path: join(dataDir, 'trawl.db') });
  await scrape(`${site}/docs/install.html`, {}, { store });
  await scrape(`${site}/docs/configuration.html`, {}, { store });
  await store.close();
});

describe('trawl search and trawl index', () => {
  it('prints the best match first, URL and title', async () => {
    const result = await trawl('search', 'environment', 'variables');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(
      `${site}/docs/configuration.html\tConfiguration reference — Quiver documentation`,
    );
  });

  it('keeps to --domain and scrapes with --scrape', async () => {
    const none = await trawl('search', 'binary', '--domain', 'elsewhere.example');
    expect(none.stdout).toBe('');
    const scraped = await trawl('search', 'binary', '--scrape', '--limit', '1');
    const answer = JSON.parse(scraped.stdout) as { web: { markdown?: string }[] };
    expect(answer.web[0]?.markdown).toMatch(/single binary/);
  });

  it('reports the index size and rebuilds it from the page cache', async () => {
    expect((await trawl('index', 'stats')).stdout).toMatch(/^2 page\(s\), \d+ bytes on disk\n$/);
    expect((await trawl('index', 'rebuild')).stdout).toBe(
      'indexed 2 page(s) from the page cache\n',
    );
    const after = await trawl('search', 'binary');
    expect(after.stdout).toContain(`${site}/docs/install.html`);
  });

  it('refuses a search without a query and an unknown index action, with exit 2', async () => {
    expect((await trawl('search')).code).toBe(2);
    expect((await trawl('index', 'drop')).code).toBe(2);
    expect((await trawl('search', 'x', '--source', 'web')).code).not.toBe(0);
  });
});
