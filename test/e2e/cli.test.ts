/**
 * The `trawl` command as a user runs it: a real process on the pinned Node, against the fixture
 * site, reading its stdout, stderr and exit code.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const site = inject('fixtureUrl');
const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
const run = promisify(execFile);

async function trawl(...args: string[]) {
  const env = { ...process.env, TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-e2e-')) };
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=development', bin, ...args],
      {
        env,
        timeout: 60_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the trawl command', () => {
  it('scrapes a page to clean markdown on stdout and exits 0', async () => {
    const result = await trawl('scrape', `${site}/articles/heavy-boilerplate.html`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# How a regional rail operator rebuilt its timetable engine\n/);
    expect(result.stdout).toContain('```python');
    expect(result.stdout).not.toContain('Accept all cookies');
    expect(result.stderr).toBe('');
  });

  it('serves a second run from the page cache in its data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-e2e-'));
    const url = `${site}/counter.html?e2e=${Date.now()}`;
    const once = async () =>
      JSON.parse(
        (
          await run(
            process.execPath,
            ['--conditions=development', bin, 'scrape', url, '--format', 'json'],
            {
              env: { ...process.env, TRAWL_DATA_DIR: dataDir },
            },
          )
        ).stdout,
      ) as { markdown: string; metadata: { cacheState: string } };
    const first = await once();
    const second = await once();
    expect(first.metadata.cacheState).toBe('miss');
    expect(second.metadata.cacheState).toBe('hit');
    expect(second.markdown).toBe(first.markdown);
  });

  it('prints one line on stderr and exits 1 when the site is down', async () => {
    const result = await trawl('scrape', 'http://127.0.0.1:9/');
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('SCRAPE_CONNECTION_REFUSED');
  });

  it('exits 2 on a usage error', async () => {
    const result = await trawl('scrape', '--format', 'pdf', site);
    expect(result.code).toBe(2);
  });
});
