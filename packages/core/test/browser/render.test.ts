import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  ActionError,
  BrowserFetcher,
  BrowserPool,
  HttpFetcher,
  MemoryStore,
  resolveEngineConfig,
  scrape,
  type EngineContext,
  type TrawlError,
  type ScrapeOptions,
} from '@trawl/core';
import { dataUriBytes, pngSize } from './png.ts';
import { chromiumMissing } from './chromium.ts';

const site = inject('fixtureUrl');
const httpsSite = inject('fixtureHttpsUrl');
const testFilters = join(import.meta.dirname, 'fixtures', 'test-filters.txt');

const pool = new BrowserPool({ idleCloseMs: 0 });
const http = new HttpFetcher();
const context: EngineContext = {
  fetchers: [http, new BrowserFetcher(pool, { adblockLists: [testFilters] })],
  store: new MemoryStore(),
};
afterAll(() => pool.close());

const render = (path: string, options: ScrapeOptions = {}, base = site) =>
  scrape(`${base}${path}`, { maxAge: 0, ...options }, context);
const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected the scrape to fail');
    },
    (error: unknown) => error as TrawlError,
  );

describe.skipIf(chromiumMissing)('browser rendering', () => {
  it('scrapes text that exists only after JavaScript ran, choosing the browser by itself', async () => {
    const doc = await render('/app-shell.html');
    expect(doc.markdown).toContain('RENDERED_BY_JAVASCRIPT');
    expect(doc.markdown).toContain('Harbour Lights Festival');
    expect(doc.metadata.title).toBe('Upcoming events | Tidewater Tickets');
  });

  it('over HTTP alone the same page has none of that text', async () => {
    const doc = await scrape(`${site}/app-shell.html`, { maxAge: 0 }, { fetchers: [http] });
    expect(doc.markdown).not.toContain('RENDERED_BY_JAVASCRIPT');
  });

  it('does not render a page that is complete without JavaScript', async () => {
    const served = pool.stats.pagesServed;
    const doc = await render('/articles/plain.html');
    expect(doc.markdown?.length).toBeGreaterThan(200);
    expect(pool.stats.pagesServed).toBe(served);
  });

  it('leaves the decision off when autoBrowser is false', async () => {
    const doc = await scrape(
      `${site}/app-shell.html`,
      { maxAge: 0 },
      { ...context, config: resolveEngineConfig({ autoBrowser: false }) },
    );
    expect(doc.markdown).not.toContain('RENDERED_BY_JAVASCRIPT');
  });

  it('waits waitFor milliseconds after load before capturing', async () => {
    expect(
      (await render('/browser/actions.html', { waitFor: 3000, timeout: 20_000 })).markdown,
    ).toContain('TIMETABLE_LOADED');
  });

  it('sends the caller’s headers from the browser', async () => {
    const doc = await render('/echo.html', { headers: { 'x-harbour-pass': 'gold' }, waitFor: 1 });
    expect(doc.markdown).toContain('x-harbour-pass: gold');
  });

  it('emulates a phone with mobile: true', async () => {
    const doc = await render('/mobile-aware.html', {
      mobile: true,
      actions: [
        { type: 'executeJavascript', script: '[screen.width, navigator.maxTouchPoints > 0]' },
      ],
    });
    expect(doc.markdown).toContain('MOBILE_VERSION');
    const [width, touch] = doc.actions?.javascriptReturns?.[0]?.value as [number, boolean];
    expect(width).toBeLessThan(500);
    expect(touch).toBe(true);
  });

  it('emulates the locale and time zone of location', async () => {
    const doc = await render('/echo.html', {
      location: { country: 'DE' },
      actions: [
        {
          type: 'executeJavascript',
          script: '[navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone]',
        },
      ],
    });
    expect(doc.actions?.javascriptReturns?.[0]?.value).toEqual(['de-DE', 'Europe/Berlin']);
    expect(doc.metadata.country).toBe('DE');
    const french = await render('/echo.html', {
      location: { country: 'CH', languages: ['fr-CH', 'de-CH'] },
      actions: [{ type: 'executeJavascript', script: 'navigator.language' }],
    });
    expect(french.actions?.javascriptReturns?.[0]?.value).toBe('fr-CH');
    expect(french.markdown).toContain('accept-language: fr-CH,de-CH;q=0.9');
  });

  it('refuses a private address when private addresses are not allowed (server mode)', async () => {
    const failure = await failureOf(
      scrape(
        `${site}/browser/actions.html`,
        { maxAge: 0, actions: [{ type: 'scrape' }] },
        { ...context, config: resolveEngineConfig({ allowPrivateAddresses: false }) },
      ),
    );
    expect(failure.code).toBe('URL_BLOCKED');
  });

  it('goes through the configured proxy with proxy: basic', async () => {
    const proxied = await scrape(
      `${site}/echo.html`,
      { maxAge: 0, waitFor: 1, proxy: 'basic' },
      { ...context, config: resolveEngineConfig({ proxyUrl: inject('fixtureProxyUrl') }) },
    );
    expect(proxied.markdown).toContain('via-proxy: yes');
    expect(proxied.metadata.proxyUsed).toBe('basic');
    expect((await render('/echo.html', { waitFor: 1 })).markdown).toContain('via-proxy: no');
  });

  it('accepts a self-signed certificate unless skipTlsVerification is false', async () => {
    const accepted = await render('/articles/plain.html', { waitFor: 1 }, httpsSite);
    expect(accepted.metadata.statusCode).toBe(200);
    const refused = await failureOf(
      render('/articles/plain.html', { waitFor: 1, skipTlsVerification: false }, httpsSite),
    );
    expect(refused.code).toBe('SCRAPE_SSL_ERROR');
  });

  it('leaves images unloaded unless something visual is captured', async () => {
    const probe: ScrapeOptions['actions'] = [
      { type: 'executeJavascript', script: 'document.images[0].naturalWidth' },
    ];
    const fast = await render('/images.html', { actions: probe });
    expect(fast.actions?.javascriptReturns?.[0]?.value).toBe(0);
    const visual = await render('/images.html', {
      actions: probe,
      formats: ['markdown', 'screenshot'],
    });
    expect(visual.actions?.javascriptReturns?.[0]?.value).toBeGreaterThan(0);
  });

  it('blocks ad requests listed in the filter lists with blockAds (the default)', async () => {
    expect((await render('/browser/ad-page.html', { waitFor: 1 })).markdown).not.toContain(
      'AD_SCRIPT_RAN',
    );
    const unblocked = await render('/browser/ad-page.html', {
      waitFor: 1,
      blockAds: false,
      onlyMainContent: false,
    });
    expect(unblocked.markdown).toContain('AD_SCRIPT_RAN');
  });

  it('fails with SCRAPE_TIMEOUT when rendering outlasts timeout', async () => {
    const failure = await failureOf(render('/hang', { waitFor: 1, timeout: 2000 }));
    expect(failure.code).toBe('SCRAPE_TIMEOUT');
  });
});

describe.skipIf(chromiumMissing)('screenshot format', () => {
  it('is a PNG of the 1920 × 1080 viewport by default, inline as a data URI in library mode', async () => {
    const doc = await render('/articles/plain.html', { formats: ['markdown', 'screenshot'] });
    expect(pngSize(dataUriBytes(doc.screenshot, 'image/png'))).toEqual({
      width: 1920,
      height: 1080,
    });
    expect(doc.markdown?.length).toBeGreaterThan(100);
  });

  it('covers the whole page with fullPage, and takes the viewport asked for', async () => {
    const full = await render('/browser/actions.html', {
      formats: [{ type: 'screenshot', fullPage: true }],
    });
    const fullSize = pngSize(dataUriBytes(full.screenshot, 'image/png'));
    expect(fullSize.width).toBe(1920);
    expect(fullSize.height).toBeGreaterThan(3000);
    const small = await render('/articles/plain.html', {
      formats: [{ type: 'screenshot', viewport: { width: 800, height: 600 } }],
    });
    expect(pngSize(dataUriBytes(small.screenshot, 'image/png'))).toEqual({
      width: 800,
      height: 600,
    });
  });

  it('is a JPEG when quality is given', async () => {
    const doc = await render('/articles/plain.html', {
      formats: [{ type: 'screenshot', quality: 40 }],
    });
    const bytes = dataUriBytes(doc.screenshot, 'image/jpeg');
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });
});

describe.skipIf(chromiumMissing)('branding format', () => {
  it('reads colors, fonts, typography, spacing, components and images from computed styles', async () => {
    const { branding } = await render('/browser/brand.html', { formats: ['branding'] });
    expect(branding).toMatchObject({
      colorScheme: 'light',
      brandName: 'Quayside Coffee',
      colors: {
        primary: '#C8553D',
        secondary: '#588B8B',
        background: '#FDF6EC',
        textPrimary: '#2B1D0E',
        link: '#0B6E4F',
      },
      fonts: [{ family: 'Trebuchet MS' }, { family: 'Georgia' }, { family: 'Courier New' }],
      typography: {
        fontFamilies: { primary: 'Trebuchet MS', heading: 'Georgia', code: 'Courier New' },
        fontSizes: { body: '16px', h1: '40px' },
        fontWeights: { regular: 400, bold: 700 },
        lineHeights: { body: 1.5, heading: 1.2 },
      },
      spacing: { baseUnit: 8, borderRadius: '6px' },
      components: {
        buttonPrimary: { background: '#C8553D', textColor: '#FFFFFF', borderRadius: '6px' },
        input: { borderColor: '#8C7A6B', borderRadius: '4px' },
      },
      images: {
        logo: `${site}/assets/logo.svg`,
        favicon: `${site}/favicon.ico`,
        ogImage: `${site}/image.png`,
      },
      logo: `${site}/assets/logo.svg`,
    });
  });
});

describe.skipIf(chromiumMissing)('profiles', () => {
  it('keeps a cookie from one job to the next when saveChanges is true', async () => {
    const profile = { name: 'harbour-login', saveChanges: true };
    await render('/set-cookie?name=profile_token&value=abc123', { profile });
    const second = await render('/echo.html', {
      profile: { name: 'harbour-login', saveChanges: false },
    });
    expect(second.markdown).toContain('profile_token=abc123');
    const stranger = await render('/echo.html', { waitFor: 1 });
    expect(stranger.markdown).not.toContain('profile_token');
  });

  it('keeps local storage too, and writes nothing back when saveChanges is false', async () => {
    await render('/browser/storage.html?set=blue', { profile: { name: 'prefs' } });
    await render('/browser/storage.html?set=green', {
      profile: { name: 'prefs', saveChanges: false },
    });
    const doc = await render('/browser/storage.html', {
      profile: { name: 'prefs', saveChanges: false },
    });
    expect(doc.markdown).toContain('STORED_blue');
  });

  it('keeps each team’s profiles apart', async () => {
    await scrape(
      `${site}/browser/storage.html?set=teal`,
      { maxAge: 0, profile: { name: 'shared-name' } },
      { ...context, team: 'team-a' },
    );
    const other = await scrape(
      `${site}/browser/storage.html`,
      { maxAge: 0, profile: { name: 'shared-name' } },
      { ...context, team: 'team-b' },
    );
    expect(other.markdown).toContain('Nothing stored yet');
  });

  it('needs a store', async () => {
    const failure = await failureOf(
      scrape(`${site}/echo.html`, { profile: { name: 'x' } }, { fetchers: context.fetchers! }),
    );
    expect(failure.code).toBe('BAD_REQUEST');
    expect(failure.message).toMatch(/needs? .*store|store.*none is configured/);
  });
});

describe.skipIf(chromiumMissing)('actions', () => {
  it('without actions, none of the markers they produce is on the page', async () => {
    const doc = await render('/browser/actions.html', { waitFor: 1 });
    for (const marker of [
      'TIMETABLE_LOADED',
      'LATE_ELEMENT_VISIBLE',
      'CLICKED_OPENING_HOURS',
      'TYPED_',
      'PRESSED_ENTER',
      'PAGE_SCROLLED_DOWN',
      'INNER_LIST_SCROLLED',
    ]) {
      expect(doc.markdown).not.toContain(marker);
    }
    expect(doc.markdown).toContain('Ticks: 0');
    expect(doc.actions).toBeUndefined();
  });

  it('wait for milliseconds', async () => {
    const doc = await render('/browser/actions.html', {
      actions: [{ type: 'wait', milliseconds: 3000 }],
      timeout: 20_000,
    });
    expect(doc.markdown).toContain('TIMETABLE_LOADED');
  });

  it('wait for a selector', async () => {
    const doc = await render('/browser/actions.html', {
      actions: [{ type: 'wait', selector: '#late-element' }],
      timeout: 20_000,
    });
    expect(doc.markdown).toContain('LATE_ELEMENT_VISIBLE');
  });

  it('click the first match, or every match with all', async () => {
    const one = await render('/browser/actions.html', {
      actions: [
        { type: 'click', selector: '#reveal' },
        { type: 'click', selector: '.tick' },
      ],
    });
    expect(one.markdown).toContain('CLICKED_OPENING_HOURS');
    expect(one.markdown).toContain('Ticks: 1');
    const every = await render('/browser/actions.html', {
      actions: [
        { type: 'click', selector: '.tick', all: true },
        { type: 'click', selector: '.no-such-button', all: true },
      ],
    });
    expect(every.markdown).toContain('Ticks: 3');
  });

  it('write into the focused field and press a key', async () => {
    const doc = await render('/browser/actions.html', {
      actions: [
        { type: 'click', selector: '#boat' },
        { type: 'write', text: 'Sea Otter' },
        { type: 'press', key: 'Enter' },
      ],
    });
    expect(doc.markdown).toContain('TYPED_Sea Otter');
    expect(doc.markdown).toContain('PRESSED_ENTER');
  });

  it('scroll the page, or an element named by selector', async () => {
    const page = await render('/browser/actions.html', {
      actions: [{ type: 'scroll', direction: 'down' }],
    });
    expect(page.markdown).toContain('PAGE_SCROLLED_DOWN');
    const inner = await render('/browser/actions.html', {
      actions: [{ type: 'scroll', selector: '#scroller' }],
    });
    expect(inner.markdown).toContain('INNER_LIST_SCROLLED');
    expect(inner.markdown).not.toContain('PAGE_SCROLLED_DOWN');
  });

  it('screenshot, scrape, executeJavascript and pdf land in document.actions', async () => {
    const doc = await render('/browser/actions.html', {
      actions: [
        { type: 'click', selector: '#reveal' },
        { type: 'scrape' },
        { type: 'screenshot', viewport: { width: 640, height: 480 } },
        { type: 'executeJavascript', script: 'window.harbourState.moorings * 2' },
        { type: 'executeJavascript', script: 'const title = document.title;\nreturn { title };' },
        { type: 'pdf', format: 'A4' },
      ],
    });
    const actions = doc.actions!;
    expect(actions.scrapes).toHaveLength(1);
    expect(actions.scrapes![0]!.url).toBe(`${site}/browser/actions.html`);
    expect(actions.scrapes![0]!.html).toContain('CLICKED_OPENING_HOURS');
    expect(pngSize(dataUriBytes(actions.screenshots![0], 'image/png'))).toEqual({
      width: 640,
      height: 480,
    });
    expect(actions.javascriptReturns).toEqual([
      { type: 'number', value: 84 },
      { type: 'object', value: { title: 'Harbour booking form' } },
    ]);
    expect(dataUriBytes(actions.pdfs![0], 'application/pdf').subarray(0, 5).toString()).toBe(
      '%PDF-',
    );
  });

  it('a failing action fails the scrape with SCRAPE_ACTION_ERROR naming its index', async () => {
    const failure = await failureOf(
      render('/browser/actions.html', {
        timeout: 4000,
        actions: [
          { type: 'click', selector: '#reveal' },
          { type: 'click', selector: '#no-such-element' },
        ],
      }),
    );
    expect(failure).toBeInstanceOf(ActionError);
    expect(failure.code).toBe('SCRAPE_ACTION_ERROR');
    expect(failure.message).toMatch(/^Action 1 \(click\) failed/);
    expect(failure.details).toEqual({ actionIndex: 1, actionType: 'click' });
    const thrown = await failureOf(
      render('/browser/actions.html', {
        actions: [{ type: 'executeJavascript', script: 'throw new Error("harbour closed")' }],
      }),
    );
    expect(thrown.message).toMatch(/^Action 0 \(executeJavascript\) failed: .*harbour closed/);
  });
});

describe('without a browser on the machine', () => {
  const noBrowser = (): EngineContext => ({
    config: resolveEngineConfig({ chromiumPath: '/nowhere/chromium' }),
  });

  it('browser features fail with NOT_CONFIGURED naming TRAWL_CHROMIUM_PATH', async () => {
    for (const options of [
      { actions: [{ type: 'scrape' as const }] },
      { formats: ['screenshot' as const] },
      { waitFor: 10 },
    ]) {
      const failure = await failureOf(scrape(`${site}/articles/plain.html`, options, noBrowser()));
      expect(failure.code).toBe('NOT_CONFIGURED');
      expect(failure.message).toContain('TRAWL_CHROMIUM_PATH');
    }
  });

  it('a JavaScript page still comes back as served, with a warning that says why', async () => {
    const doc = await scrape(`${site}/app-shell.html`, { maxAge: 0 }, noBrowser());
    expect(doc.markdown).not.toContain('RENDERED_BY_JAVASCRIPT');
    expect(doc.warning).toMatch(/looks rendered by JavaScript.*TRAWL_CHROMIUM_PATH/);
  });

  it('every other scrape works as before', async () => {
    const doc = await scrape(`${site}/articles/plain.html`, { maxAge: 0 }, noBrowser());
    expect(doc.markdown?.length).toBeGreaterThan(100);
    expect(doc.warning).toBeUndefined();
  });
});
