/**
 * `trawl crawl` and `trawl map` as a user runs them: real processes on the pinned Node against
 * a local article site, reading stdout, stderr, the output folder and the exit code — including
 * Ctrl-C in the middle of a crawl and `--resume` afterwards.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from '@trawl/core';
import { startArticleSite, type ArticleSite } from '../fixture-site/article-site.ts';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
const execute = promisify(execFile);

let site: ArticleSite;
let slowSite: ArticleSite;
beforeAll(async () => {
  site = await startArticleSite(60);
  slowSite = await startArticleSite(150, 40);
});
afterAll(async () => {
  await site.close();
  await slowSite.close();
});

const newDataDir = () => mkdtempSync(join(tmpdir(), 'trawl-cli-crawl-'));

async function trawl(args: string[], dataDir = newDataDir()) {
  try {
    const { stdout, stderr } = await execute(
      process.execPath,
      ['--conditions=development', bin, ...args],
      { env: { ...process.env, TRAWL_DATA_DIR: dataDir }, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Document);

describe('trawl crawl', () => {
  it('prints every page as one JSON document per line, progress and a summary on stderr', async () => {
    const result = await trawl(['crawl', `${site.url}/`, '--formats', 'markdown,links']);
    expect(result.code).toBe(0);
    const documents = jsonLines(result.stdout);
    expect(documents.map((doc) => doc.metadata.sourceURL).sort()).toEqual([...site.urls].sort());
    const article = documents.find((doc) => doc.metadata.sourceURL?.endsWith('/articles/7'));
    expect(article?.markdown).toMatch(/^# Article 7\n/);
    expect(article?.links).toContain(`${site.url}/articles/8`);
    expect(result.stderr).toMatch(/^crawling http:\/\/127\.0\.0\.1:\d+\/ \(job [0-9a-f-]{36}\)\n/);
    expect(result.stderr).toContain(`completed: ${site.urls.length} pages, 0 failed`);
  });

  it('shows progress lines on stderr while a long crawl runs', async () => {
    // --delay makes the crawl last about three seconds: longer than one progress interval.
    const result = await trawl(['crawl', `${site.url}/`, '--delay', '0.1', '--limit', '30']);
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)).toHaveLength(30);
    expect(result.stderr).toMatch(
      /\n\d+ scraped · 0 failed · \d+ queued · \d+ discovered · [\d.]+ pages\/s · \d+ s\n/,
    );
  });

  it('passes crawl options through: limit, include and exclude paths, depth', async () => {
    const limited = await trawl(['crawl', `${site.url}/`, '--limit', '5']);
    expect(jsonLines(limited.stdout)).toHaveLength(5);
    expect(limited.stderr).toMatch(/completed: 5 pages/);

    const filtered = await trawl([
      'crawl',
      `${site.url}/`,
      '--include',
      '^/$',
      '--include',
      '^/articles/1\\d*$',
      '--exclude',
      '/articles/1[0-4]$',
      '--quiet',
    ]);
    const paths = jsonLines(filtered.stdout).map(
      (doc) => new URL(doc.metadata.sourceURL ?? '').pathname,
    );
    expect(paths.length).toBeGreaterThan(1);
    for (const path of paths) {
      expect(path).toMatch(/^\/$|^\/articles\/1\d*$/);
      expect(path).not.toMatch(/\/articles\/1[0-4]$/);
    }

    const shallow = await trawl(['crawl', `${site.url}/`, '--max-depth', '0', '--quiet']);
    expect(jsonLines(shallow.stdout).map((doc) => doc.metadata.sourceURL)).toEqual([
      `${site.url}/`,
    ]);
  });

  it('loads neither the server nor the shared-store clients for a crawl on the default store', async () => {
    // Every module URL the process resolves, printed on stderr at exit.
    const logModules = `data:text/javascript,${encodeURIComponent(
      "import { registerHooks } from 'node:module'; const seen = new Set();" +
        'registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.add(result.url); return result; } });' +
        "process.on('exit', () => process.stderr.write(`modules ${JSON.stringify([...seen])}\\n`));",
    )}`;
    const serverOrShared = /\/packages\/adapters\/|\/node_modules\/(fastify|bullmq|ioredis|pg)\//;
    const modulesOf = async (args: string[]) => {
      const { stderr } = await execute(
        process.execPath,
        ['--conditions=development', '--import', logModules, bin, ...args],
        { env: { ...process.env, TRAWL_DATA_DIR: newDataDir() }, timeout: 60_000 },
      );
      return JSON.parse(/^modules (.+)$/m.exec(stderr)?.[1] ?? '[]') as string[];
    };
    const crawled = await modulesOf(['crawl', `${site.url}/`, '--limit', '3', '--quiet']);
    expect(crawled.some((url) => url.includes('/packages/core/'))).toBe(true);
    expect(crawled.filter((url) => serverOrShared.test(url))).toEqual([]);
    // The same probe does see them where a command needs them: the worker takes BullMQ jobs.
    const worker = await modulesOf(['worker', '--help']);
    expect(worker.some((url) => serverOrShared.test(url))).toBe(true);
  });

  it('writes markdown files, an index and an error list with --out', async () => {
    const out = join(newDataDir(), 'out');
    const result = await trawl(['crawl', `${site.url}/`, '--limit', '12', '--out', out, '--quiet']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    const index = readFileSync(join(out, 'index.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { url: string; file: string; title: string; statusCode: number },
      );
    expect(index).toHaveLength(12);
    const host = new URL(site.url).host.replace(':', '_');
    const home = index.find((entry) => entry.url === `${site.url}/`);
    expect(home).toMatchObject({ file: `${host}/index.md`, title: 'Article 0', statusCode: 200 });
    for (const entry of index) {
      expect(readFileSync(join(out, entry.file), 'utf8')).toMatch(/^# Article \d+\n/);
    }
    expect(readFileSync(join(out, 'errors.jsonl'), 'utf8')).toBe('');
  });

  it('reports pages that failed and exits 1 when nothing could be scraped', async () => {
    const result = await trawl(['crawl', `${site.url}/articles/9999`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('0 pages, 1 failed');
    expect(result.stderr).toContain(`${site.url}/articles/9999: SCRAPE_HTTP_ERROR`);
  });

  it('refuses bad options with exit 2 and the reason', async () => {
    const sitemap = await trawl(['crawl', `${site.url}/`, '--sitemap', 'sometimes']);
    expect(sitemap.code).toBe(2);
    expect(sitemap.stderr).toMatch(/BAD_REQUEST: .*sitemap/);
    const regex = await trawl(['crawl', `${site.url}/`, '--include', '(unclosed']);
    expect(regex.code).toBe(2);
    expect(regex.stderr).toMatch(/BAD_REQUEST: .*includePaths/);
    const limit = await trawl(['crawl', `${site.url}/`, '--limit', 'many']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain("--limit takes a whole number of pages (got 'many')");
    const format = await trawl(['crawl', `${site.url}/`, '--formats', 'markdown,pdf']);
    expect(format.code).toBe(2);
    const resume = await trawl(['crawl', '--resume', crypto.randomUUID()]);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/no crawl '[0-9a-f-]+' in /);
    // Five CLI processes start one after another: bounded generously for a loaded machine.
  }, 90_000);

  it('stops on Ctrl-C with exit 130, and --resume finishes the crawl with every page once', async () => {
    const dataDir = newDataDir();
    const child = spawn(
      process.execPath,
      ['--conditions=development', bin, 'crawl', `${slowSite.url}/`, '--concurrency', '2'],
      { env: { ...process.env, TRAWL_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let seen = 0;
    for await (const _ of createInterface({ input: child.stdout })) {
      if (++seen === 20) child.kill('SIGINT');
    }
    expect(await exited).toBe(130);
    expect(seen).toBeLessThan(slowSite.urls.length);
    const id = /--resume ([0-9a-f-]{36})/.exec(stderr)?.[1];
    expect(stderr).toContain('Interrupted. The crawl is kept in');
    expect(id).toBeDefined();

    const resumed = await trawl(['crawl', '--resume', id ?? '', '--quiet'], dataDir);
    expect(resumed.code).toBe(0);
    const urls = jsonLines(resumed.stdout).map((doc) => doc.metadata.sourceURL);
    expect(urls).toHaveLength(new Set(urls).size);
    expect(urls.sort()).toEqual([...slowSite.urls].sort());
    expect(existsSync(join(dataDir, 'trawl.db'))).toBe(true);
  }, 60_000);

  it('stops as on Ctrl-C when its reader goes away (`| head`), without a stack trace', async () => {
    const child = spawn(
      process.execPath,
      ['--conditions=development', bin, 'crawl', `${slowSite.url}/`, '--concurrency', '2'],
      { env: { ...process.env, TRAWL_DATA_DIR: newDataDir() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // The first line read, the pipe closes, as `head -1` closes it.
    for await (const _ of createInterface({ input: child.stdout })) break;
    child.stdout.destroy();
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/--resume [0-9a-f-]{36}/);
    expect(stderr).not.toContain('EPIPE');
  }, 60_000);
});

describe('trawl map', () => {
  it('prints the site URLs one per line, limited and ranked by --search', async () => {
    const all = await trawl(['map', `${site.url}/`]);
    expect(all.code).toBe(0);
    expect(all.stdout.trim().split('\n').sort()).toEqual([...site.urls].sort());

    const ranked = await trawl(['map', `${site.url}/`, '--search', 'articles 42', '--limit', '3']);
    const lines = ranked.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`${site.url}/articles/42`);

    const json = await trawl(['map', `${site.url}/`, '--limit', '2', '--json']);
    expect((JSON.parse(json.stdout) as { links: { url: string }[] }).links).toHaveLength(2);
  });

  it('refuses a bad --sitemap value with exit 2', async () => {
    const result = await trawl(['map', `${site.url}/`, '--sitemap', 'maybe']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/BAD_REQUEST/);
  });
});
