/**
 * The fixture web site every test and benchmark scrapes: static pages from `public/`, plus
 * routes for odd behaviour (statuses, redirects, slow and hanging responses, huge and binary
 * bodies, legacy charsets, header echo), served over HTTP and HTTPS, with a forward proxy.
 *
 * Odd behaviour the engine must handle is added here as a new route, never mocked (STYLE.md,
 * "Tests"). Every route is deterministic, and every wait is bounded, except `/hang`, which
 * lasts until the site closes.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, resolve, sep } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { makeDocx, makeIco, makeNoise, makePdf, makePng, makeXlsx } from './assets.ts';
import { compressedBomb } from './bombs.ts';
import { encodedPages } from './encodings.ts';
import { largePageBlocks, largePageLength, streamLargePage } from './large-page.ts';
import { proxyHeader, startForwardProxy } from './proxy.ts';
import { makeSelfSignedCert } from './tls.ts';

/** A running fixture site. Every URL is on 127.0.0.1 and has no trailing slash. */
export interface FixtureSite {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** `https://127.0.0.1:PORT2`, the same routes behind a self-signed certificate. */
  httpsUrl: string;
  /** `http://127.0.0.1:PORT3`, a forward proxy that only reaches loopback addresses. */
  proxyUrl: string;
  /** Closes the servers and the proxy, including keep-alive sockets and pending `/slow` timers. */
  close(): Promise<void>;
}

/** The folder of static pages. */
export const publicDir = fileURLToPath(new URL('./public/', import.meta.url));

/** Longest wait `/slow` accepts, so a typo in a test cannot stall the run. */
const maxSlowMs = 30_000;

/** Largest page `/large` streams. */
const maxLargeMb = 200;

/** A fixed Last-Modified for static files, so responses do not depend on checkout time. */
const lastModified = 'Mon, 03 Mar 2025 09:00:00 GMT';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.pdf': 'application/pdf',
};

// Binary bodies are built once per process: they are pure functions of constants.
const png = makePng(16, 16, (x, y) =>
  ((x >> 2) + (y >> 2)) % 2 === 0 ? [28, 61, 90] : [240, 244, 248],
);
const favicon = makeIco(png, 16);
const pdf = makePdf();
const docx = makeDocx();
const xlsx = makeXlsx();
// The corpus deck LibreOffice made: a real presentation package, not a hand-built one.
const pptx = readFileSync(new URL('../parse-corpus/out/deck.pptx', import.meta.url));
const ods = readFileSync(new URL('../parse-corpus/out/workbook.ods', import.meta.url));
const epub = readFileSync(new URL('../parse-corpus/out/report.epub', import.meta.url));
const garbage = makeNoise(200 * 1024);
const binary = makeNoise(64 * 1024, 0x5eed);

/** Mutable state of one running site; two sites never share counters. */
interface SiteState {
  /** Visits to `/counter.html` since start or the last `/counter/reset`. */
  visits: number;
  /** Pending `/slow` timers, cleared on close so they cannot keep the process alive. */
  timers: Set<NodeJS.Timeout>;
  /** Local ports of the proxy's CONNECT tunnels, to tell proxied HTTPS requests apart. */
  tunnelPorts: Set<number>;
  /** Static HTML pages listed in the sitemap, as root-relative paths. */
  sitemapPaths: string[];
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, state: SiteState) => unknown;

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A small complete HTML document. `body` is trusted markup. */
function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
</head>
<body>
${body}
</body>
</html>
`;
}

function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: OutgoingHttpHeaders = {},
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': bytes.length,
    ...headers,
  });
  res.end(bytes);
}

const sendHtml = (
  res: ServerResponse,
  status: number,
  html: string,
  headers?: OutgoingHttpHeaders,
) => send(res, status, 'text/html; charset=utf-8', html, headers);

/** Reads an integer query parameter, falling back to `fallback` and clamping to [min, max]. */
function intParam(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  const value = raw === null || raw.trim() === '' ? fallback : Number(raw);
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.trunc(value))) : fallback;
}

const isEncrypted = (req: IncomingMessage) => (req.socket as Partial<TLSSocket>).encrypted === true;

/** The request's own origin, for absolute URLs in robots.txt and the sitemap. */
const originOf = (req: IncomingMessage) =>
  `${isEncrypted(req) ? 'https' : 'http'}://${req.headers.host ?? '127.0.0.1'}`;

// Friendly texts for the statuses tests use most; others fall back to the standard reason.
const statusMessages: Record<number, string> = {
  400: 'Bad request: the server could not understand the request.',
  401: 'Unauthorized: you need to sign in to see this page.',
  403: 'Forbidden: you do not have permission to see this page.',
  404: 'Page not found: the page you asked for does not exist.',
  408: 'Request timeout: the server gave up waiting for the request.',
  410: 'Gone: this page has been removed permanently.',
  429: 'Too many requests: slow down and try again later.',
  500: 'Internal server error: something went wrong on our side.',
  502: 'Bad gateway: the upstream server sent an invalid response.',
  503: 'Service unavailable: the site is down for maintenance.',
  504: 'Gateway timeout: the upstream server did not answer in time.',
};

function statusPage(res: ServerResponse, code: number, detail?: string): void {
  const reason = STATUS_CODES[code] ?? 'Unknown status';
  const message = statusMessages[code] ?? `The server answered with status ${code} ${reason}.`;
  const headers: OutgoingHttpHeaders = {};
  // Rate-limit and maintenance statuses carry Retry-After, as real servers send it.
  if (code === 429 || code === 503) headers['retry-after'] = '1';
  if (code === 401) headers['www-authenticate'] = 'Basic realm="fixture"';
  // These statuses must not carry a body (RFC 9110 §15.3.5, §15.4.5).
  if (code === 204 || code === 304) {
    res.writeHead(code, headers).end();
    return;
  }
  const body = `<main>
<h1>${code} ${escapeHtml(reason)}</h1>
<p>${escapeHtml(message)}</p>
${detail ? `<p>${escapeHtml(detail)}</p>\n` : ''}<p><a href="/">Back to the home page</a></p>
</main>`;
  sendHtml(res, code, page(`${code} ${reason}`, body), headers);
}

const notFound = (res: ServerResponse, url: URL) =>
  statusPage(res, 404, `Nothing is served at ${url.pathname}.`);

function redirect(res: ServerResponse, status: number, location: string): void {
  sendHtml(
    res,
    status,
    page(
      'Redirecting',
      `<p>Redirecting to <a href="${escapeHtml(location)}">${escapeHtml(location)}</a>.</p>`,
    ),
    { location },
  );
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the cap the rest is drained and dropped, so a huge upload cannot exhaust memory.
    if (size <= maxBytes) chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Header pairs in arrival order with lower-cased names. */
function headerPairs(req: IncomingMessage): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    pairs.push([(req.rawHeaders[i] ?? '').toLowerCase(), req.rawHeaders[i + 1] ?? '']);
  }
  return pairs;
}

const wasProxied = (req: IncomingMessage, state: SiteState) =>
  req.headers[proxyHeader] === '1' || state.tunnelPorts.has(req.socket.remotePort ?? -1);

/** Routes matched by exact pathname; anything else is a static file or a 404. */
const routes: Record<string, Handler> = {
  '/redirect': (_req, res, url) =>
    redirect(res, 302, url.searchParams.get('to') ?? '/articles/plain.html'),

  '/redirect-301': (_req, res, url) =>
    redirect(res, 301, url.searchParams.get('to') ?? '/articles/plain.html'),

  // `n` hops in all: n=3 answers 302 three times, then serves /articles/plain.html.
  '/redirect-chain': (_req, res, url) => {
    const hops = intParam(url, 'n', 3, 1, 100);
    redirect(res, 302, hops > 1 ? `/redirect-chain?n=${hops - 1}` : '/articles/plain.html');
  },

  // A page that reaches `target` (an origin) every way a page can: sub-resources, fetch, a
  // frame, a WebSocket, a worker's fetch, and finally a script navigation. For the private-address
  // guard of the browser engine: none of these may reach a refused address.
  '/reach.html': (_req, res, url) => {
    const target = url.searchParams.get('target') ?? '';
    const ws = target.replace(/^http/, 'ws');
    const script = `
const target = ${JSON.stringify(target)};
const log = (line) => document.getElementById('log').append(line + ' ');
fetch(target + '/fetch', { mode: 'no-cors' }).then(() => log('fetch:reached'), () => log('fetch:failed'));
try {
  const socket = new WebSocket(${JSON.stringify(`${ws}/socket`)});
  socket.onopen = () => log('ws:open');
  socket.onerror = () => log('ws:failed');
} catch { log('ws:failed'); }
const worker = new Worker(URL.createObjectURL(new Blob(
  ['fetch(' + JSON.stringify(target + '/worker') + ', { mode: "no-cors" }).then(() => postMessage("reached"), () => postMessage("failed"))'],
  { type: 'text/javascript' })));
worker.onmessage = (event) => log('worker:' + event.data);
if (${url.searchParams.has('navigate')}) setTimeout(() => { location.href = target + '/navigated'; }, 100);
`;
    const body = `<main><h1>Reaching out</h1><p id="log">log: </p>
<img src="${escapeHtml(target)}/image.png" alt="">
<link rel="stylesheet" href="${escapeHtml(target)}/style.css">
<iframe src="${escapeHtml(target)}/frame"></iframe>
<script>${script}</script></main>`;
    sendHtml(res, 200, page('Reaching out', body), { 'cache-control': 'no-store' });
  },

  '/slow': (_req, res, url, state) => {
    const ms = intParam(url, 'ms', 1000, 0, maxSlowMs);
    const timer = setTimeout(() => {
      state.timers.delete(timer);
      sendHtml(
        res,
        200,
        page(
          'Slow page',
          `<main><h1>Slow page</h1><p>This page waited ${ms} ms before answering.</p></main>`,
        ),
      );
    }, ms);
    state.timers.add(timer);
    res.once('close', () => {
      clearTimeout(timer);
      state.timers.delete(timer);
    });
  },

  // Never answers; the socket is destroyed when the site closes (closeAllConnections).
  '/hang': () => undefined,

  '/large': async (req, res, url) => {
    const mb = intParam(url, 'mb', 10, 0, maxLargeMb);
    // `kb` sizes a page below a megabyte (a 300 KB page for the LLM chunker).
    const kb = intParam(url, 'kb', 0, 0, 1024);
    const blocks = largePageBlocks(kb > 0 ? kb * 1024 : mb * 1024 * 1024);
    const headers: OutgoingHttpHeaders = { 'content-type': 'text/html; charset=utf-8' };
    // Chunked by default, so size limits must be enforced while streaming; `length=1` sends
    // Content-Length too, for tests of rejecting a body before downloading it.
    if (url.searchParams.get('length') === '1') headers['content-length'] = largePageLength(blocks);
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return void res.end();
    await streamLargePage(res, blocks);
  },

  // Elements nested `levels` deep: deeper than a recursive tree walk's stack.
  '/deep.html': (_req, res, url) => {
    const levels = intParam(url, 'levels', 100_000, 1, 1_000_000);
    sendHtml(
      res,
      200,
      page(
        'Deep page',
        `<main><h1>Deep page</h1>${'<div>'.repeat(levels)}bottom${'</div>'.repeat(levels)}</main>`,
      ),
    );
  },

  '/garbage': (_req, res) => send(res, 200, 'text/html', garbage),
  // One letter `kb` KB long as plain text: what made redactPII's e-mail pattern backtrack.
  '/one-letter.txt': (_req, res, url) =>
    send(
      res,
      200,
      'text/plain; charset=utf-8',
      'a'.repeat(intParam(url, 'kb', 80, 1, 4096) * 1024),
    ),
  '/binary.bin': (_req, res) => send(res, 200, 'application/octet-stream', binary),
  '/image.png': (_req, res) => send(res, 200, 'image/png', png),
  '/favicon.ico': (_req, res) => send(res, 200, 'image/x-icon', favicon),
  '/doc.pdf': (_req, res) => send(res, 200, 'application/pdf', pdf),
  '/doc.docx': (_req, res) =>
    send(res, 200, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', docx),
  '/files/deck.pptx': (_req, res) =>
    send(
      res,
      200,
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      pptx,
    ),
  '/files/workbook.ods': (_req, res) =>
    send(res, 200, 'application/vnd.oasis.opendocument.spreadsheet', ods),
  // Served as a download, so only the bytes tell what it is.
  '/files/report.epub': (_req, res) => send(res, 200, 'application/octet-stream', epub),
  '/doc.xlsx': (_req, res) =>
    send(res, 200, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xlsx),

  // /articles/plain.html with a Content-Encoding chosen by `?encoding=gzip|deflate|br`.
  '/compressed.html': async (_req, res, url) => {
    const html = await readFile(join(publicDir, 'articles', 'plain.html'));
    const encoding = url.searchParams.get('encoding') ?? 'gzip';
    const compress = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }[encoding];
    if (!compress) return statusPage(res, 400, 'encoding must be gzip, deflate or br.');
    send(res, 200, 'text/html; charset=utf-8', compress(html), {
      'content-encoding': encoding,
      vary: 'Accept-Encoding',
    });
  },

  // Decompression bombs: `?mb=` MiB of HTML in a small gzip or brotli body.
  '/bomb/gzip.html': async (_req, res, url) =>
    send(
      res,
      200,
      'text/html',
      await compressedBomb('gzip', intParam(url, 'mb', 256, 1, 1024) << 20),
      {
        'content-encoding': 'gzip',
      },
    ),
  '/bomb/br.html': async (_req, res, url) =>
    send(
      res,
      200,
      'text/html',
      await compressedBomb('br', intParam(url, 'mb', 256, 1, 1024) << 20),
      {
        'content-encoding': 'br',
      },
    ),

  // A link whose path is 100,000 a's and a '!': the worst case of a backtracking `(a+)+$`.
  '/long-link.html': (_req, res) =>
    sendHtml(res, 200, page('Long link', `<a href="/${'a'.repeat(100_000)}!">long</a>`)),

  '/echo': async (req, res, url, state) => {
    const body = await readBody(req, 1024 * 1024);
    const echo = {
      method: req.method,
      url: `${url.pathname}${url.search}`,
      httpVersion: req.httpVersion,
      protocol: isEncrypted(req) ? 'https' : 'http',
      viaProxy: wasProxied(req, state),
      headers: req.headers,
      body,
    };
    send(res, 200, 'application/json', JSON.stringify(echo, null, 2), {
      'cache-control': 'no-store',
    });
  },

  // One `<p>name: value</p>` per header, so a scrape's markdown shows what was sent.
  '/echo.html': (req, res, _url, state) => {
    const lines = headerPairs(req).map(
      ([name, value]) => `<p>${escapeHtml(`${name}: ${value}`)}</p>`,
    );
    const body = `<main>
<h1>Request headers</h1>
<p>method: ${escapeHtml(req.method ?? '')}</p>
<p>via-proxy: ${wasProxied(req, state) ? 'yes' : 'no'}</p>
${lines.join('\n')}
</main>`;
    sendHtml(res, 200, page('Request headers', body), { 'cache-control': 'no-store' });
  },

  '/mobile-aware.html': (req, res) => {
    const isMobile = (req.headers['user-agent'] ?? '').includes('Mobile');
    const body = isMobile
      ? '<main><h1>Store finder</h1><p>MOBILE_VERSION Tap a pin to see opening hours and directions.</p></main>'
      : '<main><h1>Store finder</h1><p>DESKTOP_VERSION Hover over a store on the map to see its opening hours.</p></main>';
    sendHtml(res, 200, page('Store finder', body), { vary: 'User-Agent' });
  },

  // Sets a session cookie and a preference cookie, plus `?name=&value=` when given, and shows
  // the cookies the request carried, so a second request can prove they were kept.
  '/set-cookie': (req, res, url) => {
    const cookies = [
      'trawl_session=4f9c2a7e1b; Path=/; HttpOnly; SameSite=Lax',
      'theme=dark; Path=/; Max-Age=3600',
    ];
    const name = url.searchParams.get('name');
    if (name && /^[\w-]+$/.test(name)) {
      cookies.push(`${name}=${encodeURIComponent(url.searchParams.get('value') ?? '')}; Path=/`);
    }
    const received = req.headers.cookie ?? '(none)';
    const body = `<main>
<h1>Cookies set</h1>
<p>This response sets ${cookies.length} cookies.</p>
<p>Cookies received: ${escapeHtml(received)}</p>
</main>`;
    sendHtml(res, 200, page('Cookies set', body), {
      'set-cookie': cookies,
      'cache-control': 'no-store',
    });
  },

  // A site search answering JSON, for a real SearXNG's json_engine to query .
  '/search-api.json': (req, res, url) => {
    const words = (url.searchParams.get('q') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const pages = [
      ['/docs/install.html', 'Installation', 'Quiver ships as a single binary for Linux.'],
      ['/docs/configuration.html', 'Configuration reference', 'Environment variables win.'],
      ['/docs/guide.html', 'Getting started guide', 'Write a first sync job.'],
    ];
    const results = pages
      .filter(([, title, content]) =>
        words.some((word) => `${title} ${content}`.toLowerCase().includes(word)),
      )
      .map(([path, title, content]) => ({ url: `${originOf(req)}${path}`, title, content }));
    send(res, 200, 'application/json', JSON.stringify({ results }));
  },

  '/robots.txt': (req, res) => {
    const robots = `# robots.txt for the Trawl fixture site
User-agent: *
Disallow: /private/
Disallow: /search
Disallow: /account/

User-agent: GPTBot
Disallow: /

Sitemap: ${originOf(req)}/sitemap.xml
`;
    send(res, 200, 'text/plain; charset=utf-8', robots);
  },

  '/sitemap.xml': (req, res, _url, state) => {
    const origin = originOf(req);
    const entries = state.sitemapPaths
      .map(
        (path) =>
          `  <url>\n    <loc>${origin}${path}</loc>\n    <lastmod>2025-03-03</lastmod>\n  </url>`,
      )
      .join('\n');
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries}
</urlset>
`;
    send(res, 200, 'application/xml', xml);
  },

  // Each request returns the next number; a cached scrape shows an old one.
  '/counter.html': (req, res, _url, state) => {
    if (req.method !== 'HEAD') state.visits += 1;
    const body = `<main><h1>Visit counter</h1><p>Visit number ${state.visits}</p></main>`;
    sendHtml(res, 200, page('Visit counter', body), { 'cache-control': 'no-store' });
  },

  '/counter/reset': (_req, res, _url, state) => {
    state.visits = 0;
    send(res, 200, 'text/plain; charset=utf-8', 'counter reset\n', { 'cache-control': 'no-store' });
  },

  // Sitemap variants for crawl/map: an index over a plain and a gzip sitemap, a broken one, a
  // missing one and itself (a loop), so the loader must recurse, unpack, skip and stop.
  '/sitemap-index.xml': (req, res) => {
    const origin = originOf(req);
    const children = ['/sitemap-a.xml', '/sitemap-b.xml.gz', '/sitemap-broken.xml']
      .concat('/sitemap-missing.xml', '/sitemap-index.xml')
      .map((path) => `  <sitemap><loc>${origin}${path}</loc></sitemap>`)
      .join('\n');
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${children}
</sitemapindex>
`;
    send(res, 200, 'application/xml', xml);
  },

  // Padded, entity-encoded, relative, duplicate, CDATA and non-http <loc>s, and an image <loc>.
  '/sitemap-a.xml': (req, res) => {
    const origin = originOf(req);
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>
    ${origin}/articles/plain.html
  </loc></url>
  <url><loc>${origin}/tables.html?a=1&amp;b=2</loc></url>
  <url><loc>/docs/</loc></url>
  <url><loc><![CDATA[${origin}/tags.html]]></loc></url>
  <url><loc>${origin}/articles/plain.html</loc></url>
  <url><loc>mailto:someone@example.com</loc></url>
  <url><loc>ftp://127.0.0.1/file.txt</loc></url>
  <url>
    <loc>${origin}/images.html</loc>
    <image:image><image:loc>${origin}/assets/logo.png</image:loc></image:image>
  </url>
</urlset>
`;
    send(res, 200, 'application/xml', xml);
  },

  // Served packed as a file, not with Content-Encoding: the client must gunzip it itself.
  '/sitemap-b.xml.gz': (req, res) => {
    const origin = originOf(req);
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>${origin}/pii.html</loc></url>
  <url><loc>${origin}/canonical.html</loc></url>
</urlset>
`;
    send(res, 200, 'application/gzip', gzipSync(xml));
  },

  // Not XML at all: an HTML page where a sitemap should be.
  '/sitemap-broken.xml': (_req, res) =>
    sendHtml(res, 200, page('Oops', '<p>This is <b>not</b> a sitemap &amp; never was')),
};

/** Serves a file from public/, or returns false when there is none. */
async function serveStatic(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return false;
  }
  let file = resolve(publicDir, `.${pathname}`);
  // Refuse anything that escapes public/ (`..`, encoded or not).
  if (file !== publicDir.replace(/[\\/]$/, '') && !file.startsWith(publicDir)) return false;
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) {
    // Like most servers: /docs redirects to /docs/, which serves docs/index.html.
    if (!pathname.endsWith('/')) {
      redirect(res, 301, `${url.pathname}/${url.search}`);
      return true;
    }
    file = join(file, 'index.html');
  } else if (!info?.isFile()) {
    return false;
  }
  const body = await readFile(file).catch(() => undefined);
  if (!body) return false;
  const etag = `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
  const headers = { etag, 'last-modified': lastModified };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers).end();
    return true;
  }
  const type = contentTypes[extname(file).toLowerCase()] ?? 'application/octet-stream';
  send(res, 200, type, body, headers);
  return true;
}

function makeHandler(state: SiteState): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fixture.invalid');
      const route = routes[url.pathname];
      if (route) return void (await route(req, res, url, state));
      const status = /^\/status\/(\d{3})$/.exec(url.pathname)?.[1];
      if (status !== undefined) {
        const code = Number(status);
        return code >= 200 && code <= 599
          ? statusPage(res, code)
          : statusPage(res, 400, 'The status must be between 200 and 599.');
      }
      const encoded = encodedPages.get(url.pathname);
      if (encoded) return send(res, 200, encoded.contentType, encoded.body);
      if (!(await serveStatic(req, res, url))) notFound(res, url);
    } catch (error) {
      // A broken route should fail the test that hit it, not crash the whole run.
      if (!res.headersSent) {
        send(res, 500, 'text/plain; charset=utf-8', `fixture site error: ${String(error)}\n`);
      } else {
        res.destroy();
      }
    }
  };
  // handle() never rejects: every error becomes a 500 above.
  return (req, res) => void handle(req, res);
}

/** Every static HTML page outside private/, for the sitemap. */
async function listPages(): Promise<string[]> {
  const entries = await readdir(publicDir, { recursive: true, withFileTypes: true });
  return (
    entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.html'))
      .map(
        (entry) =>
          `/${relative(publicDir, join(entry.parentPath, entry.name)).split(sep).join('/')}`,
      )
      .filter((path) => !path.startsWith('/private/'))
      // Sitemaps list a folder's address, not its index file, as real sites do.
      .map((path) => path.replace(/(^|\/)index\.html$/, '$1'))
      .sort()
  );
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  // close() only stops accepting; keep-alive and hanging sockets must be destroyed explicitly.
  server.closeAllConnections();
  await closed;
}

/**
 * Starts the fixture site on three free ports of 127.0.0.1: HTTP, HTTPS and the proxy.
 *
 * @example
 * const site = await startFixtureSite();
 * const res = await fetch(`${site.url}/articles/plain.html`);
 * await site.close();
 */
export async function startFixtureSite(): Promise<FixtureSite> {
  const state: SiteState = {
    visits: 0,
    timers: new Set(),
    tunnelPorts: new Set(),
    sitemapPaths: await listPages(),
  };
  const handler = makeHandler(state);
  const { key, cert } = await makeSelfSignedCert();
  const http = createServer(handler);
  const https = createHttpsServer({ key, cert }, handler);
  const [port, httpsPort] = await Promise.all([listen(http), listen(https)]);
  const proxy = await startForwardProxy(state.tunnelPorts);

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    httpsUrl: `https://127.0.0.1:${httpsPort}`,
    proxyUrl: proxy.url,
    close() {
      // Idempotent: a test's afterAll and the global teardown may both call it.
      closing ??= (async () => {
        for (const timer of state.timers) clearTimeout(timer);
        state.timers.clear();
        await proxy.close();
        await Promise.all([closeServer(http), closeServer(https)]);
      })();
      return closing;
    },
  };
}
