/**
 * What scrape() makes of real pages: character sets, metadata, redirects, error pages, and bad
 * input (malformed URLs, dead hosts, huge and binary bodies) answered with typed errors.
 */
import { describe, expect, inject, it } from 'vitest';
import { resolveEngineConfig, scrape } from '@trawl/core';
import { encodingSamples } from '../../../../test/fixture-site/encodings.ts';
import { documentSamples, pdfLines, pdfTitle } from '../../../../test/fixture-site/assets.ts';

const site = inject('fixtureUrl');
const page = (path: string) => `${site}${path}`;

describe('character sets', () => {
  it.each(Object.entries(encodingSamples))('decodes %s without mojibake', async (path, sample) => {
    const doc = await scrape(page(path), { formats: ['markdown'] });
    expect(doc.metadata.title).toBe(sample.title);
    for (const phrase of sample.expected) expect(doc.markdown).toContain(phrase);
    expect(doc.markdown).not.toMatch(/Ã|â€|ï¿½|\uFFFD/);
    expect(doc.metadata.charset).toBe(sample.charset);
  });
});

describe('metadata', () => {
  it('reads title, description, language, keywords, og and twitter tags and the favicon', async () => {
    const { metadata } = await scrape(page('/articles/heavy-boilerplate.html'));
    expect(metadata.title).toBe(
      'How a regional rail operator rebuilt its timetable engine | The Meridian Post',
    );
    expect(metadata.description).toMatch(/^Eastbrook Regional Rail replaced/);
    expect(metadata.language).toBe('en');
    expect(metadata.keywords).toContain('timetable');
    expect(metadata['og:title']).toBe('How a regional rail operator rebuilt its timetable engine');
    expect(metadata['twitter:card']).toBe('summary_large_image');
    expect(metadata['article:published_time']).toBe('2025-11-04T07:30:00+00:00');
    expect(metadata.favicon).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/favicon/);
    expect(metadata.statusCode).toBe(200);
    expect(metadata.contentType).toMatch(/^text\/html/);
    expect(metadata.scrapeId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives each scrape its own scrapeId', async () => {
    const [a, b] = await Promise.all([
      scrape(page('/articles/plain.html')),
      scrape(page('/articles/plain.html')),
    ]);
    expect(a.metadata.scrapeId).not.toBe(b.metadata.scrapeId);
  });

  it('records the canonical link', async () => {
    const { metadata } = await scrape(page('/canonical.html'));
    expect(metadata.canonicalUrl).toMatch(/^https?:\/\//);
  });

  it('keeps sourceURL as asked and url after redirects', async () => {
    const asked = page('/redirect-chain?n=3');
    const { metadata } = await scrape(asked);
    expect(metadata.sourceURL).toBe(asked);
    expect(metadata.url).toBe(page('/articles/plain.html'));
    expect(metadata.statusCode).toBe(200);
  });

  it('resolves relative links against <base href>', async () => {
    const doc = await scrape(page('/base-href.html'), { formats: ['markdown', 'links'] });
    expect(doc.links?.some((link) => link.startsWith(page('/docs/')))).toBe(true);
  });
});

describe('error pages', () => {
  it.each([404, 500])('returns the content of a %i page with metadata.error', async (status) => {
    const doc = await scrape(page(`/status/${status}`));
    expect(doc.metadata.statusCode).toBe(status);
    expect(doc.metadata.error).toMatch(new RegExp(`^${status} `));
    expect(doc.markdown?.length).toBeGreaterThan(0);
  });

  it('fails after too many redirects', async () => {
    const config = resolveEngineConfig({ maxRedirects: 2 });
    await expect(scrape(page('/redirect-chain?n=5'), {}, { config })).rejects.toMatchObject({
      code: 'FETCH_FAILED',
    });
  });
});

describe('bad input', () => {
  it.each(['not a url', 'ftp://example.com/file', 'http://', 'https://exa mple.com'])(
    'refuses the malformed URL %j with INVALID_URL',
    async (url) => {
      await expect(scrape(url)).rejects.toMatchObject({ code: 'INVALID_URL' });
    },
  );

  it('takes a host with a port and no scheme as an https URL, not as a scheme', async () => {
    const plain = page('/').replace(/^http:\/\//, '');
    // The fixture site speaks plain HTTP, so https fails at the fetch, after parsing.
    await expect(scrape(plain, { timeout: 2000 })).rejects.not.toMatchObject({
      code: 'INVALID_URL',
    });
    await expect(scrape(`localhost:1/`, { timeout: 2000 })).rejects.not.toMatchObject({
      code: 'INVALID_URL',
    });
  });

  it('refuses unknown options and wrong types with BAD_REQUEST listing the field', async () => {
    await expect(scrape(page('/'), { onlyMainContnet: false } as never)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(scrape(page('/'), { timeout: 10 })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      details: [expect.objectContaining({ path: ['timeout'] })],
    });
  });

  it('answers an unreachable host with a DNS error and a closed port with connection refused', async () => {
    await expect(scrape('http://trawl-no-such-host.invalid/')).rejects.toMatchObject({
      code: 'SCRAPE_DNS_RESOLUTION_ERROR',
    });
    await expect(scrape('http://127.0.0.1:9/')).rejects.toMatchObject({
      code: 'SCRAPE_CONNECTION_REFUSED',
    });
  });

  it('converts a 10 MB page into a document', async () => {
    const doc = await scrape(page('/large?mb=10'), { timeout: 60_000 });
    expect(doc.metadata.statusCode).toBe(200);
    expect(doc.markdown!.length).toBeGreaterThan(1_000_000);
  });

  it('refuses a body over maxBodyBytes with CONTENT_TOO_LARGE', async () => {
    const config = resolveEngineConfig({ maxBodyBytes: 1024 * 1024 });
    await expect(scrape(page('/large?mb=3'), {}, { config })).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
    });
    await expect(scrape(page('/large?mb=3&length=1'), {}, { config })).rejects.toMatchObject({
      code: 'CONTENT_TOO_LARGE',
    });
  });

  it('refuses binary garbage served as text/html with UNSUPPORTED_FILE_TYPE', async () => {
    await expect(scrape(page('/garbage'))).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE_TYPE' });
  });

  it('parses a PDF served at a URL, as parse() does: text in order, title and page count', async () => {
    const doc = await scrape(page('/doc.pdf'), { formats: ['markdown'] });
    // The lines below the title are set at one pitch, with no paragraph spacing: one paragraph.
    expect(doc.markdown).toBe(`# ${pdfLines[0]}\n\n${pdfLines.slice(1).join(' ')}`);
    expect(doc.metadata).toMatchObject({ numPages: 1, statusCode: 200, title: pdfTitle });
  });

  it('parses Word, Excel and PowerPoint files served at a URL', async () => {
    const word = await scrape(page('/doc.docx'));
    expect(word.markdown).toContain(documentSamples.docx.heading);
    const workbook = await scrape(page('/doc.xlsx'));
    expect(workbook.markdown).toMatch(/^## .+\n\n\|/);
    const deck = await scrape(page('/files/deck.pptx'));
    expect(deck.markdown).toContain('## Harbour Trust Annual Meeting');
    expect(deck.metadata.statusCode).toBe(200);
  });

  it('parses OpenDocument and EPUB files served at a URL, by content type or by their bytes', async () => {
    const sheet = await scrape(page('/files/workbook.ods'));
    expect(sheet.markdown).toContain('| Report date | 2024-12-31 |');
    const book = await scrape(page('/files/report.epub'));
    expect(book.markdown).toMatch(/^Northwind Harbour Survey: Annual Report\n/);
  });

  it('refuses a PDF when parsers leaves pdf out, saying how to read it', async () => {
    await expect(scrape(page('/doc.pdf'), { parsers: [] })).rejects.toMatchObject({
      code: 'UNSUPPORTED_FILE_TYPE',
      message: expect.stringMatching(/add 'pdf' to parsers/),
    });
  });

  it.each(['/image.png', '/binary.bin'])(
    'refuses the non-HTML file %s with UNSUPPORTED_FILE_TYPE',
    async (path) => {
      await expect(scrape(page(path))).rejects.toMatchObject({ code: 'UNSUPPORTED_FILE_TYPE' });
    },
  );

  it('returns text responses as their own content', async () => {
    const doc = await scrape(page('/data.csv'), { formats: ['markdown', 'rawHtml'] });
    expect(doc.markdown).toMatch(/^```\n/);
    expect(doc.rawHtml).not.toContain('<');
  });

  it('decompresses gzip, deflate and brotli bodies', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const doc = await scrape(page(`/compressed.html?encoding=${encoding}`));
      expect(doc.markdown?.length).toBeGreaterThan(20);
      expect(doc.markdown).not.toMatch(/\uFFFD/);
    }
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = scrape(page('/hang'), {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'FETCH_FAILED', retryable: false });
  });
});

describe('server-mode address rules', () => {
  it('refuses loopback targets when private addresses are not allowed', async () => {
    const config = resolveEngineConfig({ allowPrivateAddresses: false });
    await expect(scrape(page('/'), {}, { config })).rejects.toMatchObject({ code: 'URL_BLOCKED' });
    await expect(scrape('http://localhost:1/', {}, { config })).rejects.toMatchObject({
      code: 'URL_BLOCKED',
    });
  });
});
