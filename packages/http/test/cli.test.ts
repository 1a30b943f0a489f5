import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli } from '@trawl/http';

const site = inject('fixtureUrl');

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-cli-'));
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { TRAWL_DATA_DIR: dataDir, ...env },
  });
  return { code, stdout, stderr };
}

describe('trawl scrape', () => {
  it('prints the main content as markdown', async () => {
    const result = await run(['scrape', `${site}/articles/heavy-boilerplate.html`]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# How a regional rail operator/);
    expect(result.stdout).not.toContain('Accept all cookies');
  });

  it('keeps the whole page with --no-main-content and honours --exclude-tags', async () => {
    const result = await run([
      'scrape',
      `${site}/tags.html`,
      '--no-main-content',
      '--exclude-tags',
      '.drop-me,p.note',
    ]);
    expect(result.stdout).toContain('MARKER_FOOTER');
    expect(result.stdout).not.toMatch(/MARKER_DROP|MARKER_NOTE/);
  });

  it('keeps only --include-tags', async () => {
    const result = await run(['scrape', `${site}/tags.html`, '--include-tags', '#keep-me']);
    expect(result.stdout.trim()).toMatch(/^MARKER_KEEP/);
  });

  it('prints links one per line, and the whole document with --format json', async () => {
    const links = await run([
      'scrape',
      `${site}/articles/heavy-boilerplate.html`,
      '--format',
      'links',
    ]);
    expect(
      links.stdout
        .split('\n')
        .filter(Boolean)
        .every((line) => line.startsWith('http')),
    ).toBe(true);
    const json = await run(['scrape', `${site}/articles/plain.html`, '--format', 'json']);
    const document = JSON.parse(json.stdout) as {
      markdown: string;
      metadata: { statusCode: number };
    };
    expect(document.metadata.statusCode).toBe(200);
    expect(document.markdown).toMatch(/^# /);
  });

  it('prints html with --format html', async () => {
    const result = await run(['scrape', `${site}/articles/plain.html`, '--format', 'html']);
    expect(result.stdout).toMatch(/<h1/);
  });

  it('fails with one clear line and exit code 1 when the fetch fails', async () => {
    const result = await run(['scrape', 'http://127.0.0.1:9/']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^trawl scrape: SCRAPE_CONNECTION_REFUSED: .+\n$/);
    expect(result.stdout).toBe('');
  });

  it('exits 2 with a usage error for bad flags, a bad format or no URL', async () => {
    expect((await run(['scrape'])).code).toBe(2);
    expect((await run(['scrape', site, '--format', 'pdf'])).stderr).toMatch(
      /^trawl scrape: --format takes markdown, html, rawHtml, links, images, json \(got 'pdf'\); see 'trawl scrape --help'\n$/,
    );
    expect((await run(['scrape', site, '--bogus'])).code).toBe(2);
    expect((await run(['scrape', site, '--timeout', 'soon'])).code).toBe(2);
  });

  it('shows help for the CLI and for each command', async () => {
    const main = await run(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toContain('scrape');
    const scrape = await run(['scrape', '--help']);
    expect(scrape.stdout).toContain('--include-tags');
    expect((await run(['nope'])).code).toBe(2);
  });

  it('reports a bad setting from the environment', async () => {
    const result = await run(['scrape', site], { TRAWL_MAX_REDIRECTS: 'many' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('TRAWL_MAX_REDIRECTS');
  });
});
