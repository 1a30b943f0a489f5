/**
 * POST /v2/parse over real HTTP: multipart uploads from the official SDK and by hand, every
 * refusal with its status and body, and a 60 MB upload refused both when its size is announced
 * and when it streams in chunks.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Firecrawl from '@mendable/firecrawl-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';
import { makeDocx, makeZip } from '../fixture-site/assets.ts';

const key = 'fc-parse-tests';
let baseUrl: string;
let close: () => Promise<void>;

const pdfFixture = (name: string) =>
  readFileSync(new URL(`../../packages/core/test/parse/fixtures/${name}`, import.meta.url));

beforeAll(async () => {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-server-parse-')), 'trawl.db'),
  });
  const app = buildServer({
    store,
    config: resolveEngineConfig(),
    keys: ApiKeys.parse(`team-a:${key}`),
    logLevel: 'silent',
  });
  baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    await store.close();
  };
});
afterAll(() => close());

async function upload(
  parts: { file?: { bytes: Uint8Array; name: string; type?: string }; options?: string },
  headers: Record<string, string> = {},
) {
  const form = new FormData();
  if (parts.options !== undefined) form.append('options', parts.options);
  if (parts.file)
    form.append(
      'file',
      new Blob([new Uint8Array(parts.file.bytes)], {
        type: parts.file.type ?? 'application/octet-stream',
      }),
      parts.file.name,
    );
  const response = await fetch(`${baseUrl}/v2/parse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...headers },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('POST /v2/parse', () => {
  it('parses a PDF sent by the official SDK, options included', async () => {
    const firecrawl = new Firecrawl({ apiKey: key, apiUrl: baseUrl });
    const doc = await firecrawl.parse(
      { data: pdfFixture('simple.pdf'), filename: 'simple.pdf', contentType: 'application/pdf' },
      { formats: ['markdown', 'html'] },
    );
    expect(doc.markdown).toMatch(/^# Annual Report 2026\n/);
    expect(doc.markdown).toContain('| South | | 8 |');
    expect(doc.html).toContain('<h2>Financial Results</h2>');
    expect(doc.metadata).toMatchObject({ numPages: 1, contentType: 'pdf' });
  });

  it('gives a markdown table for a DOCX with a table sent by the official SDK', async () => {
    const firecrawl = new Firecrawl({ apiKey: key, apiUrl: baseUrl });
    const docx = readFileSync(new URL('../parse-corpus/out/tables.docx', import.meta.url));
    const doc = await firecrawl.parse(
      {
        data: docx,
        filename: 'fleet.docx',
        contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      },
      { formats: ['markdown'] },
    );
    expect(doc.markdown).toContain('| Vessel type | Registered | Active | Average length (m) |');
    expect(doc.markdown).toMatch(/^\| --- \| --- \| --- \| --- \|$/m);
    expect(doc.markdown).toContain('| Trawler | 14 | 11 | 18.5 |');
    expect(doc.metadata).toMatchObject({ contentType: 'docx' });
  });

  it('answers with the job id (for feedback) as both id and metadata.scrapeId', async () => {
    const answer = await upload({
      file: { bytes: makeDocx(), name: 'handbook.docx' },
      options: JSON.stringify({ formats: ['markdown'] }),
    });
    expect(answer.status).toBe(200);
    const data = answer.body.data as { markdown: string; metadata: Record<string, unknown> };
    expect(answer.body).toMatchObject({ success: true, id: expect.any(String) });
    expect(data.metadata.scrapeId).toBe(answer.body.id);
    expect(data.markdown.length).toBeGreaterThan(0);
  });

  it('reads the file by its bytes when the extension lies', async () => {
    const answer = await upload({ file: { bytes: makeDocx(), name: 'really-a-word-file.pdf' } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ metadata: { contentType: 'docx' } });
  });

  it.each([
    ['the file part is missing', { options: '{}' }, /the file part is missing/],
    [
      'options is not JSON',
      { file: { bytes: pdfFixture('simple.pdf'), name: 'a.pdf' }, options: '{formats:' },
      /options part is not valid JSON/,
    ],
    [
      'options is not an object',
      { file: { bytes: pdfFixture('simple.pdf'), name: 'a.pdf' }, options: '[1]' },
      /must be a JSON object/,
    ],
  ])('400 BAD_REQUEST when %s', async (_, parts, message) => {
    const answer = await upload(parts);
    expect(answer).toEqual({
      status: 400,
      body: { success: false, code: 'BAD_REQUEST', error: expect.stringMatching(message) },
    });
    expect(answer.body.error).toMatch(/^Invalid multipart form-data request/);
  });

  it('400 BAD_REQUEST for a JSON body instead of multipart', async () => {
    const response = await fetch(`${baseUrl}/v2/parse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ file: 'x' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      code: 'BAD_REQUEST',
      error: expect.stringMatching(/^Invalid multipart form-data request/),
    });
  });

  it('400 for an empty file, a truncated PDF and a corrupted PDF, each saying why', async () => {
    const empty = await upload({ file: { bytes: new Uint8Array(0), name: 'empty.pdf' } });
    expect(empty).toEqual({
      status: 400,
      body: { success: false, code: 'BAD_REQUEST', error: 'The file is empty' },
    });
    const whole = pdfFixture('simple.pdf');
    const truncated = await upload({ file: { bytes: whole.subarray(0, 600), name: 'cut.pdf' } });
    expect(truncated.status).toBe(400);
    expect(truncated.body).toMatchObject({ code: 'BAD_REQUEST', error: /damaged or not a PDF/ });
    const locked = await upload({ file: { bytes: pdfFixture('encrypted.pdf'), name: 'x.pdf' } });
    expect(locked.status).toBe(400);
    expect(locked.body.error).toMatch(/password-protected/);
  });

  it('400 UNSUPPORTED_FILE_TYPE for bytes of no known kind, listing what is supported', async () => {
    const answer = await upload({
      file: { bytes: new Uint8Array([0, 1, 2, 3, 255, 254, 0, 7]), name: 'blob.bin' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      success: false,
      code: 'UNSUPPORTED_FILE_TYPE',
      error: expect.stringMatching(/supported now: PDF, DOCX/),
    });
  });

  it('413 CONTENT_TOO_LARGE for a zip bomb posing as a workbook, and the server stays up', async () => {
    // One entry that claims to inflate far beyond the ratio any real workbook has.
    const bomb = makeZip([
      ['[Content_Types].xml', '<Types/>'],
      ['xl/workbook.xml', '<workbook/>'],
      ['xl/worksheets/sheet1.xml', '0'.repeat(40 * 1024 * 1024)],
    ]);
    const answer = await upload({ file: { bytes: bomb, name: 'book.xlsx' } });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ success: false, code: 'CONTENT_TOO_LARGE' });
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
  });

  it('400 PARSE_UNSUPPORTED_OPTIONS for options that need a live page', async () => {
    const answer = await upload({
      file: { bytes: pdfFixture('simple.pdf'), name: 'a.pdf' },
      options: JSON.stringify({ formats: ['screenshot'], location: { country: 'de' } }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      success: false,
      code: 'PARSE_UNSUPPORTED_OPTIONS',
      details: { unsupported: ['location', 'formats: screenshot'] },
    });
  });

  it('400 BAD_REQUEST naming an unknown option', async () => {
    const answer = await upload({
      file: { bytes: pdfFixture('simple.pdf'), name: 'a.pdf' },
      options: JSON.stringify({ maxAge: 1000 }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'BAD_REQUEST',
      error: expect.stringMatching(/maxAge/),
    });
  });

  it('refuses a 60 MB upload announced by its length, before reading it', async () => {
    const big = new Uint8Array(60 * 1024 * 1024);
    const answer = await upload({ file: { bytes: big, name: 'big.pdf' } });
    expect(answer).toEqual({
      status: 400,
      body: {
        success: false,
        code: 'BAD_REQUEST',
        error: 'Uploaded file exceeds maximum size of 50MB.',
      },
    });
  });

  it('refuses a 60 MB upload streamed without a length, stopping at 50 MB', async () => {
    const boundary = 'trawl-boundary';
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    );
    const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent < 60) {
          controller.enqueue(chunk);
          sent += 1;
        } else {
          controller.enqueue(tail);
          controller.close();
        }
      },
    });
    const response = await fetch(`${baseUrl}/v2/parse`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: 'BAD_REQUEST',
      error: 'Uploaded file exceeds maximum size of 50MB.',
    });
  });

  it('401 without the key', async () => {
    const answer = await upload(
      { file: { bytes: pdfFixture('simple.pdf'), name: 'a.pdf' } },
      { authorization: 'Bearer wrong' },
    );
    expect(answer.status).toBe(401);
  });
});
