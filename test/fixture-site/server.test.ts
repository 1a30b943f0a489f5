import { Agent, fetch as undiciFetch, ProxyAgent } from 'undici';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { documentSamples, pdfLines } from './assets.ts';
import { encodingSamples, type EncodedPath } from './encodings.ts';
import { startFixtureSite } from './server.ts';

const url = inject('fixtureUrl');
const httpsUrl = inject('fixtureHttpsUrl');
const proxyUrl = inject('fixtureProxyUrl');

// The HTTPS certificate is self-signed, so clients in these tests must opt out of verification.
const insecure = new Agent({ connect: { rejectUnauthorized: false } });
// undici tunnels even plain HTTP through CONNECT unless told otherwise, so both modes are tested.
const viaProxy = new ProxyAgent({ uri: proxyUrl, requestTls: { rejectUnauthorized: false } });
const viaForwardingProxy = new ProxyAgent({ uri: proxyUrl, proxyTunnel: false });

afterAll(async () => {
  await Promise.all([insecure.close(), viaProxy.close(), viaForwardingProxy.close()]);
});

/** Follows redirects by hand and returns every status seen, final one last. */
async function redirectTrail(start: string): Promise<{ statuses: number[]; finalUrl: string }> {
  const statuses: number[] = [];
  let current = start;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(current, { redirect: 'manual' });
    statuses.push(res.status);
    await res.body?.cancel();
    const location = res.headers.get('location');
    if (!location) return { statuses, finalUrl: current };
    current = new URL(location, current).href;
  }
  throw new Error(`more than 20 redirects from ${start}`);
}

describe('fixture site', () => {
  it('provides URLs on 127.0.0.1 without a trailing slash', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('serves static pages as UTF-8 HTML', async () => {
    const res = await fetch(`${url}/articles/heavy-boilerplate.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<title>How a regional rail operator rebuilt its timetable engine');
    expect(html).toContain('class="language-python"');
  });

  it('serves a directory index and redirects a directory without its slash', async () => {
    const res = await fetch(`${url}/docs/`);
    expect(await res.text()).toContain('<h1>Quiver documentation</h1>');
    const { statuses, finalUrl } = await redirectTrail(`${url}/docs`);
    expect(statuses).toEqual([301, 200]);
    expect(finalUrl).toBe(`${url}/docs/`);
  });

  it('answers a conditional request for an unchanged static file with 304', async () => {
    const first = await fetch(`${url}/articles/plain.html`);
    const etag = first.headers.get('etag');
    await first.body?.cancel();
    expect(etag).toBeTruthy();
    const second = await fetch(`${url}/articles/plain.html`, {
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(second.status).toBe(304);
  });

  it('serves /status/:code with that status and an explanatory page', async () => {
    const notFound = await fetch(`${url}/status/404`);
    expect(notFound.status).toBe(404);
    expect(await notFound.text()).toContain('Page not found');
    const serverError = await fetch(`${url}/status/500`);
    expect(serverError.status).toBe(500);
    expect(await serverError.text()).toContain('Internal server error');
    const teapot = await fetch(`${url}/status/418`);
    expect(teapot.status).toBe(418);
    await teapot.body?.cancel();
  });

  it('answers unknown paths and path traversal with a 404 page', async () => {
    const res = await fetch(`${url}/no/such/page.html`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('/no/such/page.html');
    const traversal = await fetch(`${url}/%2e%2e/server.ts`);
    expect(traversal.status).toBe(404);
    await traversal.body?.cancel();
  });

  it('redirects with 302 and 301 to the given path', async () => {
    const found = await fetch(`${url}/redirect?to=/tables.html`, { redirect: 'manual' });
    expect(found.status).toBe(302);
    expect(found.headers.get('location')).toBe('/tables.html');
    await found.body?.cancel();
    const moved = await fetch(`${url}/redirect-301?to=/images.html`, { redirect: 'manual' });
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('/images.html');
    await moved.body?.cancel();
    const followed = await fetch(`${url}/redirect?to=/tables.html`);
    expect(followed.url).toBe(`${url}/tables.html`);
    await followed.body?.cancel();
  });

  it('takes exactly n hops through /redirect-chain before the plain article', async () => {
    const { statuses, finalUrl } = await redirectTrail(`${url}/redirect-chain?n=3`);
    expect(statuses).toEqual([302, 302, 302, 200]);
    expect(finalUrl).toBe(`${url}/articles/plain.html`);
  });

  it('holds /slow back until its delay has passed', async () => {
    // One-sided check: a 30 s delay cannot answer within 200 ms on any machine.
    await expect(
      fetch(`${url}/slow?ms=30000`, { signal: AbortSignal.timeout(200) }),
    ).rejects.toThrow();
    const res = await fetch(`${url}/slow?ms=20`, { signal: AbortSignal.timeout(10_000) });
    expect(await res.text()).toContain('waited 20 ms');
  });

  it('never answers /hang', async () => {
    await expect(fetch(`${url}/hang`, { signal: AbortSignal.timeout(200) })).rejects.toThrow();
  });

  it('streams a valid HTML page of about the requested size from /large', async () => {
    const res = await fetch(`${url}/large?mb=1`);
    expect(res.headers.get('content-length')).toBeNull();
    const html = await res.text();
    expect(Math.abs(Buffer.byteLength(html) - 1024 * 1024)).toBeLessThan(4096);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    const sized = await fetch(`${url}/large?mb=1&length=1`);
    const length = Number(sized.headers.get('content-length'));
    expect((await sized.arrayBuffer()).byteLength).toBe(length);
  });

  it('serves binary routes with their content types and real file signatures', async () => {
    const cases: Array<[string, string, string]> = [
      ['/image.png', 'image/png', '89504e470d0a1a0a'],
      ['/favicon.ico', 'image/x-icon', '00000100'],
      ['/doc.pdf', 'application/pdf', Buffer.from('%PDF-').toString('hex')],
      [
        '/doc.docx',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        '504b0304',
      ],
      [
        '/doc.xlsx',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        '504b0304',
      ],
      ['/binary.bin', 'application/octet-stream', ''],
      ['/garbage', 'text/html', ''],
    ];
    for (const [path, type, magic] of cases) {
      const res = await fetch(`${url}${path}`);
      expect(res.headers.get('content-type'), path).toBe(type);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, magic.length / 2).toString('hex'), path).toBe(magic);
    }
    const garbage = Buffer.from(await (await fetch(`${url}/garbage`)).arrayBuffer());
    expect(garbage.length).toBe(200 * 1024);
    const again = Buffer.from(await (await fetch(`${url}/garbage`)).arrayBuffer());
    expect(again.equals(garbage)).toBe(true);
  });

  it('writes the advertised text into the PDF and the parts into the office documents', async () => {
    const pdf = Buffer.from(await (await fetch(`${url}/doc.pdf`)).arrayBuffer()).toString('latin1');
    for (const line of pdfLines) expect(pdf).toContain(`(${line})`);
    // ZIP entry names are stored uncompressed, so the parts a parser needs can be checked here;
    // the text itself is deflated and belongs to the parser tests (see documentSamples).
    const docx = Buffer.from(await (await fetch(`${url}/doc.docx`)).arrayBuffer()).toString(
      'latin1',
    );
    expect(docx).toContain('word/document.xml');
    const xlsx = Buffer.from(await (await fetch(`${url}/doc.xlsx`)).arrayBuffer()).toString(
      'latin1',
    );
    expect(xlsx).toContain('xl/worksheets/sheet1.xml');
    expect(documentSamples.xlsx.rows[0]).toEqual(['Item', 'Quantity', 'Unit price']);
  });

  it('serves gzip, deflate and brotli bodies that decode to the plain article', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await fetch(`${url}/compressed.html?encoding=${encoding}`);
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(await res.text()).toContain('<h1>How timetables are planned</h1>');
    }
  });

  it.each(
    Object.entries(encodingSamples) as Array<[EncodedPath, (typeof encodingSamples)[EncodedPath]]>,
  )('serves %s in its charset, declared only where its name says', async (path, sample) => {
    const res = await fetch(`${url}${path}`);
    const contentType = res.headers.get('content-type') ?? '';
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(contentType.includes('charset=')).toBe(sample.declaredIn === 'header');
    const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    expect(hasBom).toBe(sample.declaredIn === 'bom');
    const raw = Buffer.from(bytes).toString('latin1');
    expect(/<meta[^>]+charset/i.test(raw)).toBe(sample.declaredIn === 'meta');
    const text = new TextDecoder(sample.charset).decode(bytes);
    for (const phrase of sample.expected) expect(text).toContain(phrase);
    // Decoding with the wrong charset must garble the phrases, or the page tests nothing.
    const wrong = new TextDecoder(sample.charset === 'utf-8' ? 'windows-1252' : 'utf-8').decode(
      bytes,
    );
    expect(sample.expected.some((phrase) => !wrong.includes(phrase))).toBe(true);
  });

  it('echoes the request method, URL, headers and body as JSON', async () => {
    const res = await fetch(`${url}/echo?x=1`, {
      method: 'POST',
      headers: { 'x-test': 'hello', 'content-type': 'text/plain' },
      body: 'ping',
    });
    const echo = (await res.json()) as Record<string, unknown>;
    expect(echo).toMatchObject({
      method: 'POST',
      url: '/echo?x=1',
      protocol: 'http',
      viaProxy: false,
      body: 'ping',
      headers: expect.objectContaining({ 'x-test': 'hello' }) as unknown,
    });
  });

  it('lists request headers one per paragraph on /echo.html', async () => {
    const html = await (
      await fetch(`${url}/echo.html`, { headers: { 'x-trawl-test': 'yes' } })
    ).text();
    expect(html).toContain('<p>x-trawl-test: yes</p>');
    expect(html).toContain('<p>via-proxy: no</p>');
  });

  it('serves different text to mobile and desktop user agents', async () => {
    const mobileUa = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148';
    const mobile = await (
      await fetch(`${url}/mobile-aware.html`, { headers: { 'user-agent': mobileUa } })
    ).text();
    const desktop = await (
      await fetch(`${url}/mobile-aware.html`, {
        headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' },
      })
    ).text();
    expect(mobile).toContain('MOBILE_VERSION');
    expect(desktop).toContain('DESKTOP_VERSION');
  });

  it('sets cookies, including one named in the query', async () => {
    const res = await fetch(`${url}/set-cookie?name=flavour&value=oat`);
    const cookies = res.headers.getSetCookie();
    await res.body?.cancel();
    expect(cookies.map((cookie) => cookie.split('=')[0])).toEqual([
      'trawl_session',
      'theme',
      'flavour',
    ]);
  });

  it('publishes robots.txt and a sitemap with absolute URLs of this site', async () => {
    const robots = await (await fetch(`${url}/robots.txt`)).text();
    expect(robots).toContain('Disallow: /private/');
    expect(robots).toContain(`Sitemap: ${url}/sitemap.xml`);
    const sitemap = await (await fetch(`${url}/sitemap.xml`)).text();
    expect(sitemap).toContain(`<loc>${url}/articles/heavy-boilerplate.html</loc>`);
    expect(sitemap).toContain(`<loc>${url}/docs/</loc>`);
    expect(sitemap).not.toContain('index.html');
    expect(sitemap).not.toContain('/private/');
  });

  it('counts visits to /counter.html', async () => {
    const visit = async () => {
      const text = await (await fetch(`${url}/counter.html`)).text();
      return Number(/Visit number (\d+)/.exec(text)?.[1]);
    };
    const first = await visit();
    const second = await visit();
    // Other test files may visit too, so only the order is certain.
    expect(second).toBeGreaterThan(first);
  });

  it('answers over HTTPS with a self-signed certificate', async () => {
    await expect(fetch(`${httpsUrl}/articles/plain.html`)).rejects.toThrow();
    const res = await undiciFetch(`${httpsUrl}/articles/plain.html`, { dispatcher: insecure });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('How timetables are planned');
  });

  it('forwards absolute-URI HTTP requests through the proxy with x-fixture-proxy added', async () => {
    const res = await undiciFetch(`${url}/echo.html`, { dispatcher: viaForwardingProxy });
    const html = await res.text();
    expect(html).toContain('<p>x-fixture-proxy: 1</p>');
    expect(html).toContain('<p>via-proxy: yes</p>');
  });

  it('reports plain HTTP tunnelled through the proxy as proxied', async () => {
    const res = await undiciFetch(`${url}/echo.html`, { dispatcher: viaProxy });
    const html = await res.text();
    expect(html).not.toContain('x-fixture-proxy');
    expect(html).toContain('<p>via-proxy: yes</p>');
  });

  it('tunnels HTTPS through the proxy with CONNECT', async () => {
    const res = await undiciFetch(`${httpsUrl}/echo`, { dispatcher: viaProxy });
    expect(await res.json()).toMatchObject({ protocol: 'https', viaProxy: true });
  });

  it('refuses to proxy to hosts other than loopback', async () => {
    // `.invalid` never resolves (RFC 6761), and the proxy answers before any lookup anyway.
    const res = await undiciFetch('http://blocked.invalid/', { dispatcher: viaForwardingProxy });
    expect(res.status).toBe(403);
    await res.body?.cancel();
    await expect(
      undiciFetch('https://blocked.invalid/', { dispatcher: viaProxy }),
    ).rejects.toThrow();
  });

  it('refuses requests to the proxy that are not absolute URIs', async () => {
    const res = await fetch(`${proxyUrl}/echo`);
    expect(res.status).toBe(400);
    await res.body?.cancel();
  });
});

describe('startFixtureSite', () => {
  it('closes cleanly while a request hangs and a keep-alive socket is open', async () => {
    const site = await startFixtureSite();
    const keepAlive = await fetch(`${site.url}/articles/plain.html`);
    await keepAlive.text();
    // Outcomes are captured at once: the requests fail during close(), before they are awaited.
    const outcome = (promise: Promise<Response>) =>
      promise.then(
        () => 'answered',
        () => 'failed',
      );
    const hanging = outcome(fetch(`${site.url}/hang`, { signal: AbortSignal.timeout(10_000) }));
    const slow = outcome(
      fetch(`${site.url}/slow?ms=30000`, { signal: AbortSignal.timeout(10_000) }),
    );
    // Give both requests time to reach the server before closing it.
    await fetch(`${site.url}/slow?ms=50`).then((res) => res.text());
    await site.close();
    expect(await hanging).toBe('failed');
    expect(await slow).toBe('failed');
    expect(await outcome(fetch(`${site.url}/`))).toBe('failed');
  });
});
