/**
 * The checkout's CLI as the README runs it, `npm run -s trawl -- …`, from a folder of the user's
 *: stdout holds only the command's output (one JSON document per line
 * for a crawl, not npm's banner), and relative paths — the output folder, the file to parse, the
 * data folder `./.trawl` — are the user's folder's, not the checkout's.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const site = inject('fixtureUrl');
const repo = join(import.meta.dirname, '../..');
const exec = promisify(execFile);

/** `npm run -s trawl -- <args>` started in `cwd`, with the checkout given by --prefix. */
async function npmTrawl(cwd: string, command: string) {
  // A user's shell: nothing of the npm process running this test (npm_*, INIT_CWD) leaks in.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('npm_') && name !== 'INIT_CWD' && !name.startsWith('TRAWL_'),
    ),
  );
  return exec('bash', ['-c', `npm run -s --prefix '${repo}' trawl -- ${command}`], {
    cwd,
    env,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

describe('npm run -s trawl from another folder', () => {
  it('writes only JSON lines to a redirected crawl, and keeps the data folder there', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'trawl-npm-run-'));
    await npmTrawl(folder, `crawl ${site}/ --limit 3 --quiet > docs.jsonl`);
    const lines = readFileSync(join(folder, 'docs.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('metadata.sourceURL');
    expect(existsSync(join(folder, '.trawl/trawl.db'))).toBe(true);
  });

  it('reads parse <file> and writes --out relative to the folder it was run in', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'trawl-npm-run-'));
    copyFileSync(
      join(repo, 'packages/core/test/parse/fixtures/simple.pdf'),
      join(folder, 'report.pdf'),
    );
    const parsed = await npmTrawl(folder, 'parse report.pdf');
    expect(parsed.stdout).toMatch(/^# Annual Report 2026\n/);
    await npmTrawl(folder, `crawl ${site}/ --limit 2 --out site --quiet`);
    expect(existsSync(join(folder, 'site/index.jsonl'))).toBe(true);
  });
});
