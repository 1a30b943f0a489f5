/**
 * Decompression bombs, as the attack, against a real server process whose
 * peak memory (VmHWM) is read from /proc: a 1 MB DOCX whose headers declare 100 KB for a 1 GiB
 * entry, a PDF with a 1 GiB Flate stream, and gzip/brotli bodies that decode to 256 MiB. Each is
 * refused with 413 CONTENT_TOO_LARGE, and the server's memory stays far below the bomb.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { makeLyingDocx, makePdfBomb } from '../fixture-site/bombs.ts';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';

const fixture = inject('fixtureUrl');
const MiB = 1024 * 1024;
// Generous: the server idles at 150–300 MiB; inflating one bomb whole costs 1 GiB or more.
const peakBound = 700 * MiB;

let server: KeyedServeProcess;
beforeAll(async () => {
  server = await serveProcess();
}, 90_000);
afterAll(() => server.kill());

async function upload(bytes: Uint8Array, name: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  const response = await fetch(`${server.url}/v2/parse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}` },
    body: form,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('decompression bombs on a real server', () => {
  it('answers 413 to a DOCX whose headers declare 100 KB for a 1 GiB entry, memory bounded', async () => {
    const bomb = makeLyingDocx(1024 * MiB, 100 * 1024);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const refused = await upload(bomb, 'report.docx');
    expect(refused).toMatchObject({
      status: 413,
      body: { success: false, code: 'CONTENT_TOO_LARGE' },
    });
    expect(refused.body['error']).toContain('word/document.xml');
    expect(server.peakRss()).toBeLessThan(peakBound);
  }, 90_000);

  it('answers 413 to a PDF with a 1 GiB Flate stream, memory bounded', async () => {
    const refused = await upload(makePdfBomb(1024 * MiB), 'report.pdf');
    expect(refused).toMatchObject({
      status: 413,
      body: { success: false, code: 'CONTENT_TOO_LARGE' },
    });
    expect(server.peakRss()).toBeLessThan(peakBound);
  }, 90_000);

  it.each(['gzip', 'br'])(
    'answers 413 to a scrape whose %s body decodes past maxBodyBytes, memory bounded',
    async (encoding) => {
      const refused = await server.call(
        'POST',
        '/v2/scrape',
        { url: `${fixture}/bomb/${encoding}.html?mb=512` },
        60_000,
      );
      expect(refused).toMatchObject({
        status: 413,
        body: { success: false, code: 'CONTENT_TOO_LARGE' },
      });
      expect(server.peakRss()).toBeLessThan(peakBound);
    },
    90_000,
  );

  it('still parses an honest DOCX afterwards', async () => {
    const honest = readFileSync(new URL('../parse-corpus/out/report.docx', import.meta.url));
    const parsed = await upload(honest, 'report.docx');
    expect(parsed.status).toBe(200);
    expect(JSON.stringify(parsed.body['data'])).toContain('markdown');
  }, 60_000);
});
