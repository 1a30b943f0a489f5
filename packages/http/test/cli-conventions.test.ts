/**
 * The conventions the `trawl` commands share: a mistake in the command line is one
 * line naming the flag and `--help` with exit 2; a flag has one name on every page command;
 * `--quiet` prints nothing; options whose setting is missing are refused before any work.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli } from '@trawl/http';
import { parseCrawlArgs } from '../src/cli/crawl.js';
import { userDirectory } from '../src/cli/cwd.js';
import { listeningLine } from '../src/cli/listening.js';

const site = inject('fixtureUrl');

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-cli-conventions-'));
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { TRAWL_DATA_DIR: dataDir, ...env },
  });
  return { code, stdout, stderr };
}

describe('usage errors', () => {
  it('name an unknown flag, the flag it resembles and --help, on one line, with exit 2', async () => {
    const result = await run(['crawl', `${site}/`, '--formt', 'html']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "trawl crawl: unknown option '--formt' (did you mean '--format'?); see 'trawl crawl --help'\n",
    });
  });

  it('guess the command a typo meant', async () => {
    const result = await run(['scrap', `${site}/`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^trawl: unknown command 'scrap' \(did you mean 'scrape'\?\)\. /);
    expect((await run(['xyzzy'])).stderr).not.toMatch(/did you mean/);
  });

  it('say that a negative value is not one, rather than that it is missing', async () => {
    const result = await run(['scrape', `${site}/`, '--timeout', '-5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "trawl scrape: option '--timeout' takes no negative value (got '-5'); see 'trawl scrape --help'\n",
    );
  });

  it('print an error page but exit 1 with a line on stderr saying what the site answered', async () => {
    const result = await run(['scrape', `${site}/no-such-page`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/404/);
    expect(result.stderr).toBe(`trawl scrape: the site answered 404 for ${site}/no-such-page\n`);
  });

  it('note that a URL without a scheme is fetched over https', async () => {
    const bare = `${site}/`.replace(/^http:\/\//, '');
    const result = await run(['scrape', bare, '--timeout', '3000']);
    expect(result.stderr).toContain(
      `note: '${bare}' has no scheme: fetching https://${bare} (write http:// for a site without TLS)\n`,
    );
    expect((await run(['scrape', bare, '-q', '--timeout', '3000'])).stderr).not.toContain('note:');
  });

  it('name a flag given without its value', async () => {
    const result = await run(['scrape', `${site}/`, '--timeout']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "trawl scrape: option '--timeout' needs a value; see 'trawl scrape --help'\n",
    );
  });

  it('say what argument is missing', async () => {
    for (const command of ['scrape', 'crawl', 'map', 'batch', 'parse']) {
      const result = await run([command]);
      expect(result.code, command).toBe(2);
      expect(result.stderr, command).toMatch(
        new RegExp(`^trawl ${command}: give .+; see 'trawl ${command} --help'\\n$`),
      );
    }
  });
});

describe('every command', () => {
  const commands = [
    'scrape',
    'crawl',
    'batch',
    'map',
    'parse',
    'extract',
    'agent',
    'serve',
    'worker',
    'monitor',
    'keys',
    'feedback',
    'search',
    'index',
    'doctor',
    'completion',
  ];

  it('shows an example in its --help, and every command that ends takes -q', async () => {
    for (const command of commands) {
      const help = (await run([command, '--help'])).stdout;
      expect(help, command).toMatch(/\nExamples:\n {2}trawl /);
      expect(help, command).toMatch(/-q, --quiet/);
    }
  });

  it('starts and stops trawl serve -q without a line on stderr', async () => {
    let stderr = '';
    const stop = new AbortController();
    const served = runCli(['serve', '--port', '0', '-q'], {
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      env: { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-serve-quiet-')) },
      signal: stop.signal,
    });
    // Stopped at any moment, serve still writes its start-up and stop lines without -q.
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop.abort();
    expect(await served).toBe(0);
    expect(stderr).toBe('');
  });

  it('takes -q on the commands that refused it, and prints no notes with it', async () => {
    expect(await run(['monitor', 'list', '-q'])).toMatchObject({ code: 0, stderr: '' });
    expect(await run(['search', 'anything', '--source', 'local', '-q'])).toMatchObject({
      code: 0,
      stderr: '',
    });
    expect((await run(['extract', `${site}/`, '-q'])).stderr).not.toMatch(/unknown option/);
    expect(await run(['keys', 'list', '-q'])).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('--out', () => {
  it('is refused before the job starts when a file is in the way or it cannot be made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-out-'));
    const file = join(dir, 'afile');
    writeFileSync(file, 'x');
    const onFile = await run(['crawl', `${site}/`, '--limit', '1', '--out', file]);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toMatch(/^trawl crawl: --out .*afile is a file; give a folder/);
    const under = await run(['batch', `${site}/`, '--out', join(file, 'sub')]);
    expect(under.code).toBe(2);
    expect(under.stderr).toMatch(/--out .*afile\/sub cannot be written/);
  });

  it('replaces what an earlier run wrote, and leaves other files alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-out-'));
    const first = await run([
      'batch',
      `${site}/`,
      `${site}/articles/plain.html`,
      '-q',
      '--out',
      dir,
    ]);
    expect(first.code).toBe(0);
    const firstFiles = readFileSync(join(dir, 'index.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { file: string }).file);
    expect(firstFiles).toHaveLength(2);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect((await run(['batch', `${site}/`, '-q', '--out', dir])).code).toBe(0);
    const stale = firstFiles.find((file) => file.includes('plain')) ?? '';
    expect(existsSync(join(dir, stale))).toBe(false);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});

describe('trawl --version', () => {
  it('prints the package version and the Node.js it runs on', async () => {
    const result = await run(['--version']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^trawl \d+\.\d+\.\d+ \(Node\.js \d+\.\d+\.\d+\)\n$/);
  });
});

describe('the page flags', () => {
  it('take --format and --formats as one flag on crawl (a list, or repeated)', () => {
    const spellings = [
      ['--format', 'markdown,links'],
      ['--formats', 'markdown,links'],
      ['--format', 'markdown', '--formats', 'links'],
    ];
    for (const flags of spellings) {
      expect(
        parseCrawlArgs([site, ...flags]).options?.scrapeOptions?.formats,
        flags.join(' '),
      ).toEqual(['markdown', 'links']);
    }
  });

  it('give scrape several formats as one JSON document', async () => {
    const result = await run(['scrape', `${site}/`, '--formats', 'markdown,links', '--no-cache']);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as { markdown: string; links: string[] };
    expect(document.markdown.length).toBeGreaterThan(0);
    expect(Array.isArray(document.links)).toBe(true);
  });

  it('have the same names on batch and map', async () => {
    const batch = await run([
      'batch',
      `${site}/`,
      `${site}/tables.html`,
      '--formats',
      'links',
      '-q',
    ]);
    expect(batch.code).toBe(0);
    const lines = batch.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('links');
    const map = await run(['map', `${site}/`, '--format', 'json', '--limit', '3', '--quiet']);
    expect(map.code).toBe(0);
    expect((JSON.parse(map.stdout) as { links: unknown[] }).links.length).toBeLessThanOrEqual(3);
  });

  it('explain the page cache and its flags in --help', async () => {
    for (const command of ['scrape', 'crawl', 'batch']) {
      const help = (await run([command, '--help'])).stdout;
      expect(help, command).toContain('a page scraped in the last 2 days is served from the cache');
      expect(help, command).toMatch(/--max-age <ms>/);
      expect(help, command).toMatch(/--no-cache/);
    }
  });
});

describe('--quiet', () => {
  it('leaves stderr empty on a crawl that completed, summary included', async () => {
    const result = await run(['crawl', `${site}/`, '--limit', '2', '--quiet']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
    expect(result.stderr).toBe('');
  });
});

describe('options that need a setting', () => {
  it('refuse monitor create --email without TRAWL_SMTP_URL, creating nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-cli-conventions-'));
    const env = { TRAWL_DATA_DIR: dataDir };
    const created = await run(
      ['monitor', 'create', '--name', 'N', '--schedule', 'hourly', '--email', 'a@b.c', `${site}/`],
      env,
    );
    expect(created.code).toBe(2);
    expect(created.stderr).toMatch(/^trawl monitor: --email needs .*TRAWL_SMTP_URL/);
    expect((await run(['monitor', 'list'], env)).stdout).toBe('');
  });

  it('refuse --proxy basic without TRAWL_PROXY_URL before fetching', async () => {
    const result = await run(['scrape', `${site}/`, '--proxy', 'basic']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--proxy basic needs a proxy: set TRAWL_PROXY_URL/);
  });
});

describe('where relative paths point', () => {
  it('is the folder npm run was started from, for the checkout own scripts', () => {
    const npm = { INIT_CWD: '/home/me/notes', npm_lifecycle_event: 'trawl' };
    expect(userDirectory({ ...npm, npm_package_name: 'trawl' }, '/src/trawl')).toBe(
      '/home/me/notes',
    );
    // Another package's script keeps npm's rule; outside npm the working directory counts.
    expect(userDirectory({ ...npm, npm_package_name: 'my-site' }, '/src/my-site')).toBe(
      '/src/my-site',
    );
    expect(userDirectory({ INIT_CWD: '/elsewhere' }, '/here')).toBe('/here');
    // A test run started with npm keeps the folder it starts trawl in.
    const testRun = {
      INIT_CWD: '/src/trawl',
      npm_package_name: 'trawl',
      npm_lifecycle_event: 'npx',
    };
    expect(userDirectory(testRun, '/tmp/case')).toBe('/tmp/case');
  });
});

describe('the start-up line of trawl serve', () => {
  it('names every address and says a keyless server on it is reachable from elsewhere', () => {
    const line = listeningLine({ address: '0.0.0.0', family: 'IPv4', port: 3002 }, true);
    expect(line).toMatch(/^Trawl \/v2 server on http:\/\/0\.0\.0\.0:3002 \(every IPv4 address/);
    expect(line).toContain('keyless');
    expect(line).toContain('reachable from other machines');
    expect(line).not.toContain('loopback only');
  });

  it('says a keyless loopback server is reachable from this machine only', () => {
    const line = listeningLine({ address: '127.0.0.1', family: 'IPv4', port: 4000 }, true);
    expect(line).toBe(
      'Trawl /v2 server on http://127.0.0.1:4000; keyless: no API key configured, reachable from this machine only',
    );
  });
});
