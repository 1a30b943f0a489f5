import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '@trawl/http';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../core/test/parse/fixtures/${name}`, import.meta.url));
const report = fileURLToPath(new URL('../../../test/parse-corpus/out/report.pdf', import.meta.url));

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
  });
  return { code, stdout, stderr };
}

describe('trawl parse', () => {
  it('reads the engine settings as the other commands do (TRAWL_SOFFICE_PATH)', async () => {
    const legacyDoc = fileURLToPath(
      new URL('../../../test/parse-sample/poi/document/SampleDoc.doc', import.meta.url),
    );
    const result = await run(['parse', legacyDoc], { TRAWL_SOFFICE_PATH: '/nonexistent/soffice' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/TRAWL_SOFFICE_PATH \(sofficePath\) is \/nonexistent\/soffice/);
  });

  it('prints a PDF as markdown', async () => {
    const result = await run(['parse', fixture('simple.pdf')]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^# Annual Report 2026\n\n/);
    expect(result.stdout).toContain('| North | 10 | 12 |');
  });

  it('prints html, or the whole document with metadata as json', async () => {
    const html = await run(['parse', fixture('simple.pdf'), '--format', 'html']);
    expect(html.stdout).toContain('<h2>Financial Results</h2>');
    const json = await run(['parse', fixture('simple.pdf'), '--format', 'json']);
    const document = JSON.parse(json.stdout) as { markdown: string; metadata: object };
    expect(document.metadata).toMatchObject({ numPages: 1, title: 'simple.pdf' });
    expect(document.markdown).toContain('Financial Results');
  });

  it('reads only --max-pages pages and warns on stderr about the rest', async () => {
    const result = await run(['parse', report, '--max-pages', '1']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^trawl parse: warning: Only the first 1 of \d+ pages/);
  });

  it('refuses a missing file, a bad flag value and a damaged file with one clear line', async () => {
    const missing = await run(['parse', '/nonexistent/file.pdf']);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/no such file/);
    const badFormat = await run(['parse', fixture('simple.pdf'), '--format', 'docx']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(
      /--format takes markdown, html, json \(got 'docx'\); see 'trawl parse --help'/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'trawl-cli-parse-'));
    writeFileSync(join(dir, 'broken.pdf'), '%PDF-1.7\nnot really');
    const broken = await run(['parse', join(dir, 'broken.pdf')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/BAD_REQUEST: The PDF is damaged or not a PDF/);
  });
});
