/**
 * Every ScrapeOption that needs neither a browser nor an LLM, against the fixture site. Each test
 * is built to fail if the option were ignored: it checks the output with and without it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { HttpFetcher, MemoryStore, resolveEngineConfig, scrape, SqliteStore } from '@trawl/core';

const site = inject('fixtureUrl');
const httpsSite = inject('fixtureHttpsUrl');
const proxyUrl = inject('fixtureProxyUrl');
const page = (path: string) => `${site}${path}`;

describe('formats', () => {
  it('returns only markdown by default', async () => {
    const doc = await scrape(page('/articles/plain.html'));
    expect(doc.markdown).toMatch(/^# /);
    expect(doc.html).toBeUndefined();
    expect(doc.rawHtml).toBeUndefined();
    expect(doc.links).toBeUndefined();
  });

  it('returns cleaned html, raw html, links and images when asked', async () => {
    const doc = await scrape(page('/articles/heavy-boilerplate.html'), {
      formats: ['html', 'rawHtml', 'links', 'images'],
    });
    expect(doc.markdown).toBeUndefined();
    expect(doc.rawHtml).toContain('<script');
    expect(doc.html).not.toContain('<script');
    expect(doc.html).toContain('<h2 id="an-old-planner">');
    expect(doc.html).not.toContain('onetrust');
    // links cover the whole page (nav included), absolute and without duplicates
    expect(doc.links).toContain(page('/docs/guide.html'));
    expect(doc.links?.every((link) => /^https?:\/\//.test(link))).toBe(true);
    expect(new Set(doc.links).size).toBe(doc.links?.length);
    expect(doc.images).toContain(page('/articles/images/signal-box.png'));
    expect(doc.images?.some((src) => src.startsWith('data:'))).toBe(false);
  });

  it.each([
    ['json', 'NOT_CONFIGURED', /LLM/],
    ['summary', 'NOT_CONFIGURED', /LLM/],
  ] as const)(
    'refuses the %s format with an error naming what it needs',
    async (format, code, why) => {
      await expect(
        scrape(page('/articles/plain.html'), { formats: ['markdown', format] }),
      ).rejects.toMatchObject({
        code,
        message: expect.stringMatching(why),
      });
    },
  );

  it("refuses changeTracking's json mode, which needs an LLM, before any fetch", async () => {
    await expect(
      scrape('http://127.0.0.1:1/never-fetched', {
        formats: ['markdown', { type: 'changeTracking', modes: ['json'] }],
      }),
    ).rejects.toMatchObject({
      code: 'NOT_CONFIGURED',
      message: expect.stringMatching(/LLM/),
    });
  });

  it('refuses unknown formats and impossible combinations as bad requests', async () => {
    await expect(scrape(page('/'), { formats: ['pdf' as never] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      scrape(page('/'), { formats: [{ type: 'changeTracking' }] }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/markdown/),
    });
  });
});

describe('onlyMainContent', () => {
  it('drops navigation, banners, ads, share widgets, newsletter and comments by default', async () => {
    const { markdown } = await scrape(page('/articles/heavy-boilerplate.html'));
    expect(markdown).toContain('# How a regional rail operator rebuilt its timetable engine');
    expect(markdown).toContain('```python');
    expect(markdown).toContain('| Measure | TTP (2023) | New engine (2025) |');
    expect(markdown).not.toMatch(
      /Accept all cookies|Share on Facebook|Subscribe from|Sign in|Advertisement/,
    );
    expect(markdown).not.toMatch(/newsletter/i);
  });

  it('keeps the whole page when false', async () => {
    const { markdown } = await scrape(page('/articles/heavy-boilerplate.html'), {
      onlyMainContent: false,
    });
    expect(markdown).toContain('Share on Facebook');
    expect(markdown).toContain('Subscribe from');
    expect(markdown).toContain('```python');
  });

  it('keeps a docs page body and drops its sidebar and footer', async () => {
    const full = await scrape(page('/docs/guide.html'), { onlyMainContent: false });
    const main = await scrape(page('/docs/guide.html'));
    expect(main.markdown!.length).toBeLessThan(full.markdown!.length);
    expect(main.markdown).toMatch(/^# /);
    expect(main.markdown).toContain('```');
  });
});

describe('includeTags and excludeTags', () => {
  it('keeps only what includeTags match', async () => {
    const { markdown } = await scrape(page('/tags.html'), {
      includeTags: ['#keep-me', '[data-role=pricing]'],
    });
    expect(markdown).toContain('MARKER_KEEP');
    expect(markdown).toContain('MARKER_PRICING');
    expect(markdown).not.toContain('MARKER_DROP');
    expect(markdown).not.toContain('MARKER_ARTICLE');
  });

  it('removes what excludeTags match', async () => {
    const without = await scrape(page('/tags.html'), { excludeTags: ['.drop-me', 'p.note'] });
    expect(without.markdown).not.toMatch(/MARKER_DROP|MARKER_NOTE/);
    expect(without.markdown).toContain('MARKER_KEEP');
    const withAll = await scrape(page('/tags.html'));
    expect(withAll.markdown).toMatch(/MARKER_DROP[\s\S]*MARKER_NOTE/);
  });

  it('rejects an invalid selector before fetching', async () => {
    await expect(scrape('http://127.0.0.1:1/', { excludeTags: ['div[['] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/excludeTags/),
    });
  });
});

describe('removeBase64Images', () => {
  it('replaces inline images with a placeholder that keeps the alt text by default', async () => {
    const { markdown } = await scrape(page('/articles/heavy-boilerplate.html'));
    expect(markdown).toContain(
      '![Bar chart of weekday punctuality rising from 86 to 94 percent](<Base64-Image-Removed>)',
    );
    expect(markdown).not.toContain('data:image');
  });

  it('keeps them when false', async () => {
    const { markdown } = await scrape(page('/articles/heavy-boilerplate.html'), {
      removeBase64Images: false,
    });
    expect(markdown).toMatch(/!\[Bar chart[^\]]*\]\(data:image\/png;base64,/);
  });
});

describe('blockAds', () => {
  it('drops ad slots, ad iframes and sponsored widgets by default', async () => {
    const { html } = await scrape(page('/ads.html'), { formats: ['html'], onlyMainContent: false });
    expect(html).not.toMatch(
      /doubleclick|amazon-adsystem|googlesyndication|adsbygoogle|Doctors stunned/,
    );
    expect(html).toContain('youtube.com/embed');
  });

  it('keeps them when false', async () => {
    const { html } = await scrape(page('/ads.html'), {
      formats: ['html'],
      onlyMainContent: false,
      blockAds: false,
    });
    expect(html).toMatch(/doubleclick/);
    expect(html).toMatch(/Doctors stunned/);
  });
});

describe('request shaping', () => {
  it('sends headers', async () => {
    const { markdown } = await scrape(page('/echo.html'), { headers: { 'X-Trawl-Test': 'hello' } });
    expect(markdown).toContain('x-trawl-test: hello');
  });

  it('sends a mobile user agent when mobile is true', async () => {
    const desktop = await scrape(page('/mobile-aware.html'));
    const mobile = await scrape(page('/mobile-aware.html'), { mobile: true });
    expect(desktop.markdown).toContain('DESKTOP_VERSION');
    expect(mobile.markdown).toContain('MOBILE_VERSION');
  });

  it('turns location.languages into Accept-Language and records the country', async () => {
    const doc = await scrape(page('/echo.html'), {
      location: { country: 'DE', languages: ['de-DE', 'en'] },
    });
    expect(doc.markdown).toContain('accept-language: de-DE,en;q=0.9');
    expect(doc.metadata.country).toBe('DE');
    const plain = await scrape(page('/echo.html'));
    expect(plain.markdown).toContain('accept-language: en-US');
  });

  it('fails with SCRAPE_TIMEOUT when the page is slower than timeout', async () => {
    await expect(scrape(page('/slow?ms=10000'), { timeout: 1000 })).rejects.toMatchObject({
      code: 'SCRAPE_TIMEOUT',
    });
    const doc = await scrape(page('/slow?ms=100'), { timeout: 5000 });
    expect(doc.metadata.statusCode).toBe(200);
  });

  it('accepts a self-signed certificate only with skipTlsVerification', async () => {
    const accepted = await scrape(`${httpsSite}/articles/plain.html`, {
      skipTlsVerification: true,
    });
    expect(accepted.markdown).toMatch(/^# /);
    await expect(
      scrape(`${httpsSite}/articles/plain.html`, { skipTlsVerification: false }),
    ).rejects.toMatchObject({
      code: 'SCRAPE_SSL_ERROR',
    });
    // The reference default: true, but false once headers are given.
    await expect(
      scrape(`${httpsSite}/articles/plain.html`, { headers: { 'X-A': '1' } }),
    ).rejects.toMatchObject({
      code: 'SCRAPE_SSL_ERROR',
    });
  });
});

describe('proxy', () => {
  const withProxy = resolveEngineConfig({ proxyUrl });

  it("sends 'basic' requests through the configured proxy", async () => {
    const doc = await scrape(page('/echo.html'), { proxy: 'basic' }, { config: withProxy });
    expect(doc.markdown).toContain('via-proxy: yes');
    expect(doc.metadata.proxyUsed).toBe('basic');
    expect(doc.metadata.fetchedVia).toBe('proxy');
  });

  it("goes direct with 'auto' and falls back to the proxy when blocked", async () => {
    const direct = await scrape(page('/echo.html'), { proxy: 'auto' }, { config: withProxy });
    expect(direct.markdown).toContain('via-proxy: no');
    // The SDKs' types allow only basic | stealth; the direct fetch is told apart in fetchedVia.
    expect(direct.metadata.proxyUsed).toBe('basic');
    expect(direct.metadata.fetchedVia).toBe('direct');
    const blocked = await scrape(page('/status/403'), { proxy: 'auto' }, { config: withProxy });
    expect(blocked.metadata.proxyUsed).toBe('basic');
    expect(blocked.metadata.fetchedVia).toBe('proxy');
  });

  it("refuses 'basic' without a proxy URL and 'stealth' outright", async () => {
    await expect(scrape(page('/echo.html'), { proxy: 'basic' })).rejects.toMatchObject({
      code: 'NOT_CONFIGURED',
    });
    await expect(scrape(page('/echo.html'), { proxy: 'stealth' })).rejects.toMatchObject({
      code: 'CAPABILITY_UNAVAILABLE',
    });
  });
});

describe('redactPII', () => {
  it('replaces e-mails, phone, card, IBAN and social security numbers, and nothing else', async () => {
    const { markdown, html } = await scrape(page('/pii.html'), {
      redactPII: true,
      formats: ['markdown', 'html'],
    });
    expect(markdown).not.toMatch(
      /dana\.whitfield|555-01|4111|5555555555554444|123-45-6789|GB82|DE89|7946/,
    );
    expect(markdown).toContain('Email: [EMAIL]');
    expect(markdown).toContain('Phone (US): [PHONE]');
    expect(markdown).toContain('[CREDIT_CARD]');
    expect(markdown).toContain('[IBAN]');
    expect(markdown).toContain('[SSN]');
    expect(html).toContain('[EMAIL]');
    // ordinary numbers stay: order number, prices, years, versions, dates
    for (const kept of ['2025-0311-7781', '$129.99', '2.4.1', '3/12/2025', '$1,284.60', '42-17']) {
      expect(markdown).toContain(kept);
    }
  });

  it('leaves personal data in place when off', async () => {
    const { markdown } = await scrape(page('/pii.html'));
    expect(markdown).toMatch(/dana\.whitfield/);
    expect(markdown).toContain('4111 1111 1111 1111');
  });

  it('masks or removes with replaceStyle, limited to the chosen entities', async () => {
    const { markdown } = await scrape(page('/pii.html'), {
      redactPII: { entities: ['PHONE'], replaceStyle: 'mask' },
    });
    expect(markdown).toContain('Phone (US): (***) ***-****');
    expect(markdown).toMatch(/dana\.whitfield/);
  });

  it('refuses entity kinds that need a language model', async () => {
    await expect(
      scrape(page('/pii.html'), { redactPII: { entities: ['PERSON'] } }),
    ).rejects.toMatchObject({
      code: 'CAPABILITY_UNAVAILABLE',
    });
  });
});

describe('onlyCleanContent', () => {
  it('drops link URLs and images but keeps their text', async () => {
    const plain = await scrape(page('/articles/heavy-boilerplate.html'));
    const clean = await scrape(page('/articles/heavy-boilerplate.html'), {
      onlyCleanContent: true,
    });
    expect(plain.markdown).toMatch(/\]\(http/);
    expect(clean.markdown).not.toMatch(/\]\(http|!\[/);
    expect(clean.markdown).toContain('explainer on timetable planning');
    expect(clean.markdown).toContain('```python');
  });
});

describe('the page cache', () => {
  const directory = mkdtempSync(join(tmpdir(), 'trawl-cache-'));
  const store = new SqliteStore({ path: join(directory, 'cache.db') });
  afterAll(() => store.close());
  const counterUrl = () => page(`/counter.html?test=${randomUUID()}`);
  const visit = (markdown: string | undefined) => /Visit number (\d+)/.exec(markdown ?? '')?.[1];

  it('serves a cached copy younger than maxAge, marked as a hit', async () => {
    const url = counterUrl();
    const first = await scrape(url, {}, { store });
    const second = await scrape(url, {}, { store });
    expect(first.metadata.cacheState).toBe('miss');
    expect(second.metadata.cacheState).toBe('hit');
    expect(visit(second.markdown)).toBe(visit(first.markdown));
    expect(second.metadata.cachedAt).toBe(first.metadata.cachedAt);
  });

  it('fetches fresh with maxAge 0, or when the copy is older than maxAge', async () => {
    const url = counterUrl();
    const first = await scrape(url, {}, { store });
    const fresh = await scrape(url, { maxAge: 0 }, { store });
    expect(visit(fresh.markdown)).not.toBe(visit(first.markdown));
    await new Promise((resolve) => setTimeout(resolve, 30));
    const stale = await scrape(url, { maxAge: 10 }, { store });
    expect(stale.metadata.cacheState).toBe('miss');
    expect(visit(stale.markdown)).not.toBe(visit(fresh.markdown));
  });

  it('writes nothing with storeInCache false, with headers, or with zeroDataRetention', async () => {
    for (const options of [
      { storeInCache: false },
      { headers: { 'X-A': '1' } },
      { zeroDataRetention: true },
    ]) {
      const url = counterUrl();
      await scrape(url, options, { store });
      const again = await scrape(url, {}, { store });
      expect(again.metadata.cacheState).toBe('miss');
    }
  });

  it('serves lockdown only from the cache and fails on a miss', async () => {
    const url = counterUrl();
    await expect(scrape(url, { lockdown: true }, { store })).rejects.toMatchObject({
      code: 'SCRAPE_LOCKDOWN_CACHE_MISS',
    });
    const first = await scrape(url, {}, { store });
    const locked = await scrape(url, { lockdown: true }, { store });
    expect(visit(locked.markdown)).toBe(visit(first.markdown));
    expect(locked.metadata.cacheState).toBe('hit');
  });

  it('never touches the network in lockdown', async () => {
    await expect(
      scrape('http://127.0.0.1:1/not-cached', { lockdown: true }, { store }),
    ).rejects.toMatchObject({
      code: 'SCRAPE_LOCKDOWN_CACHE_MISS',
    });
  });

  it('serves minAge only from a copy at least that old', async () => {
    const url = counterUrl();
    await expect(scrape(url, { minAge: 1 }, { store })).rejects.toMatchObject({
      code: 'SCRAPE_NO_CACHED_DATA',
    });
    const first = await scrape(url, {}, { store });
    await expect(scrape(url, { minAge: 60_000 }, { store })).rejects.toMatchObject({
      code: 'SCRAPE_NO_CACHED_DATA',
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const old = await scrape(url, { minAge: 1 }, { store });
    expect(visit(old.markdown)).toBe(visit(first.markdown));
  });

  it('keys the cache by device, so mobile and desktop copies differ', async () => {
    const memory = new MemoryStore();
    const url = page(`/mobile-aware.html?test=${randomUUID()}`);
    await scrape(url, {}, { store: memory });
    const mobile = await scrape(url, { mobile: true }, { store: memory });
    expect(mobile.markdown).toContain('MOBILE_VERSION');
  });
});

// The browser itself is tested in packages/core/test/browser; here, what happens without one.
describe('options that need the browser engine', () => {
  it.each([
    [{ waitFor: 1000 }, 'waitFor'],
    [{ actions: [{ type: 'wait' as const, milliseconds: 10 }] }, 'actions'],
    [{ profile: { name: 'shop' } }, 'profile'],
    [{ formats: ['screenshot' as const] }, 'screenshot'],
    [{ formats: ['branding' as const] }, 'branding'],
  ])('refuses %o when no browser fetcher is given, naming the option', async (options, name) => {
    await expect(
      scrape(page('/'), options, { fetchers: [new HttpFetcher()], store: new MemoryStore() }),
    ).rejects.toMatchObject({
      code: 'NOT_CONFIGURED',
      message: expect.stringMatching(new RegExp(`${name}.*browser`)),
    });
  });
});
