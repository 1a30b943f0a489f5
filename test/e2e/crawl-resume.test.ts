/**
 * A crawl survives kill -9: a 2,000-page crawl in a child process is killed mid-way, started
 * again from the same SQLite file, and must end with every page of the site stored exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeJob, SqliteStore, type JobSummary } from '@trawl/core';
import { startArticleSite, type ArticleSite } from '../fixture-site/article-site.ts';

const pages = 2000;
const child = join(import.meta.dirname, 'fixtures/crawl-child.ts');

let site: ArticleSite;
beforeAll(async () => {
  site = await startArticleSite(pages);
});
afterAll(() => site.close());

function run(args: string[]): { process: ChildProcess; lines: AsyncIterable<string> } {
  const proc = spawn(process.execPath, ['--conditions=development', child, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (!proc.stdout) throw new Error('no stdout');
  return { process: proc, lines: createInterface({ input: proc.stdout }) };
}

describe('a crawl killed with SIGKILL', () => {
  it('resumes from its store and stores every page exactly once', async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), 'trawl-resume-')), 'store.sqlite');
    const jobId = crypto.randomUUID();
    const limit = String(pages + 100);

    // First run: kill it hard once a quarter of the site is stored.
    const first = run(['start', `${site.url}/`, dbPath, jobId, limit]);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      first.process.once('exit', (_code, signal) => resolve(signal)),
    );
    let stored = 0;
    for await (const line of first.lines) {
      if (line === 'document' && ++stored === pages / 4) {
        first.process.kill('SIGKILL');
        break;
      }
    }
    expect(await exited).toBe('SIGKILL');

    // Second run: the same job from the same file, to the end.
    const second = run(['resume', `${site.url}/`, dbPath, jobId, limit]);
    let summary: JobSummary | undefined;
    for await (const line of second.lines) {
      if (line.startsWith('{')) summary = JSON.parse(line) as JobSummary;
    }
    expect(summary?.status).toBe('completed');

    const store = new SqliteStore({ path: dbPath });
    try {
      const job = await resumeJob(jobId, { store });
      const urls: string[] = [];
      for (let skip: number | undefined = 0; skip !== undefined;) {
        const page = await job!.results({ skip, limit: 500 });
        urls.push(...page.data.map((doc) => doc.metadata.sourceURL ?? ''));
        skip = page.nextSkip;
      }
      // The home page shows article 0 under its own URL: the site has pages + 1 URLs.
      expect(urls).toHaveLength(new Set(urls).size);
      expect(urls.sort()).toEqual([...site.urls].sort());
      expect(job!.progress).toMatchObject({ scraped: pages + 1, failed: 0, completed: pages + 1 });
    } finally {
      await store.close();
    }
  }, 240_000);
});
