/**
 * A web site built to hurt a crawler, on 127.0.0.1, started by the tests that attack with it (it
 * owns its robots.txt, which the shared fixture site cannot give up). Each attack is its own
 * path; big bodies are generated as they are sent, never held whole.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, createGzip } from 'node:zlib';
import { compressedBomb } from './bombs.ts';

/** A running hostile site. */
export interface HostileSite {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** How many rules the hostile robots.txt holds (about 1.1 MB, as found in the wild's worst). */
export const hostileRobotsRules = 20_000;
/** The length of the paths the robots start page links to. */
export const longPathLength = 1_500;

/**
 * `Disallow: /*a*a*…*a*<i>z`: every rule almost matches a long path of `a`s and fails only at its
 * last piece, the worst case of a matcher that tries each rule at each place.
 */
function hostileRobots(): string {
  const lines = ['User-agent: *'];
  for (let i = 0; i < hostileRobotsRules; i++) lines.push(`Disallow: /${'*a'.repeat(22)}*${i}z`);
  // Past 500 KiB: a crawler that stops there, as RFC 9309 allows, never sees it.
  lines.push('Disallow: /after-the-limit');
  return `${lines.join('\n')}\n`;
}

/** A long path of `a`s, numbered: none of the robots rules matches it. */
const longPath = (n: number) => `/${'a'.repeat(longPathLength)}${n}`;

/** A page linking to `hrefs`. */
const page = (title: string, hrefs: readonly string[], extra = '') =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${extra}${hrefs
    .map((href, i) => `<a href="${href}">link ${i}</a>`)
    .join(' ')}</body></html>`;

type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

const html = (res: ServerResponse, body: string, status = 200) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
};

/** Resolves when `stream` drains or closes, leaving no listener behind. */
function drained(stream: NodeJS.WritableStream & { destroyed: boolean }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** Writes `chunk` `times` times, respecting back-pressure, unless the client went away. */
async function stream(res: ServerResponse, chunk: Buffer | string, times: number): Promise<void> {
  for (let i = 0; i < times && !res.destroyed; i++) {
    if (!res.write(chunk)) await drained(res);
  }
}

/** A gzip body of `bytes` decoded bytes, written as it is compressed. */
async function gzipStream(res: ServerResponse, head: string, block: string, times: number) {
  const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
  gzip.pipe(res);
  res.on('close', () => gzip.destroy());
  gzip.write(head);
  for (let i = 0; i < times && !res.destroyed; i++) {
    if (!gzip.write(block)) await drained(gzip);
  }
  gzip.end();
}

const robotsText = hostileRobots();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const routes: Record<string, Route> = {
  '/robots.txt': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(robotsText);
  },
  // The start of the robots attack: links to long paths, each of which links on.
  '/': (_req, res) =>
    html(
      res,
      page(
        'Long paths',
        Array.from({ length: 40 }, (_, i) => longPath(i)),
      ),
    ),
  '/redirect-loop': (_req, res) => {
    res.writeHead(302, { location: '/redirect-loop-back' });
    res.end();
  },
  '/redirect-loop-back': (_req, res) => {
    res.writeHead(302, { location: '/redirect-loop' });
    res.end();
  },
  // /redirect-chain?hop=N: 50 hops, then a page.
  '/redirect-chain': (_req, res, url) => {
    const hop = Number(url.searchParams.get('hop') ?? '0');
    if (hop >= 50) return html(res, page('End of the chain', []));
    res.writeHead(301, { location: `/redirect-chain?hop=${hop + 1}` });
    res.end();
  },
  '/meta-refresh-loop': (_req, res) =>
    html(
      res,
      page('Refresh', [], '<meta http-equiv="refresh" content="0; url=/meta-refresh-loop?again">'),
    ),
  // One byte a second, forever (until the client gives up).
  '/drip': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    const text = '<!DOCTYPE html><html><body><p>' + 'drip '.repeat(1000);
    for (let i = 0; i < text.length && !res.destroyed; i++) {
      res.write(text[i]);
      await sleep(1000);
    }
    res.end();
  },
  // A chunked body with no end, as fast as the client reads.
  '/endless': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!DOCTYPE html><html><body>');
    await stream(res, `<p>${'endless '.repeat(128)}</p>`, Number.POSITIVE_INFINITY);
  },
  // 100,000 headers' worth of Set-Cookie: past any header limit a client should have.
  '/many-cookies': (_req, res) => {
    res.setHeader(
      'set-cookie',
      Array.from({ length: 20_000 }, (_, i) => `c${i}=${'v'.repeat(40)}`),
    );
    html(res, page('Cookies', []));
  },
  '/huge-header': (_req, res) => {
    res.setHeader('x-huge', 'h'.repeat(1024 * 1024));
    html(res, page('Huge header', []));
  },
  // An infinite calendar: every month links to the next one.
  '/calendar': (_req, res, url) => {
    const month = Number(url.searchParams.get('m') ?? '0');
    html(res, page(`Month ${month}`, [`/calendar?m=${month + 1}`, `/calendar?m=${month + 2}`]));
  },
  // A fresh session id in every link: the same pages under endless URLs.
  '/session': (_req, res, url) => {
    const at = Number(url.searchParams.get('p') ?? '0');
    const sid = () => Math.random().toString(36).slice(2);
    html(
      res,
      page(`Session page ${at}`, [
        `/session?p=${at}&sid=${sid()}`,
        `/session?p=${at + 1}&sid=${sid()}`,
      ]),
    );
  },
  '/bomb/gzip.html': async (_req, res) => {
    const body = await compressedBomb('gzip', 512 * 1024 * 1024);
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    res.end(body);
  },
  // A 100 MB text node, streamed.
  '/huge-text': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<!DOCTYPE html><html><body><p>');
    await stream(res, 'x'.repeat(64 * 1024), 1600);
    res.end('</p></body></html>');
  },
  // A title and a description of 4 MB each.
  '/huge-title': (_req, res) =>
    html(
      res,
      `<!DOCTYPE html><html><head><title>${'T'.repeat(4 << 20)}</title><meta name="description" content="${'d'.repeat(4 << 20)}"></head><body><p>Body.</p></body></html>`,
    ),
  // Declares UTF-16 and sends Latin-1 bytes, a NUL in the middle.
  '/lying-charset': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-16' });
    res.end(
      Buffer.from(
        '<!DOCTYPE html><html><head><meta charset="shift_jis"><title>Caf\u00e9</title></head><body><p>na\u00efve \u0000 r\u00e9sum\u00e9</p></body></html>',
        'latin1',
      ),
    );
  },
  // JSON-LD nested 100,000 deep, and an array of a million offers (below).
  '/jsonld-deep': (_req, res) => {
    const depth = 100_000;
    const nested = `${'{"@type":"Product","name":"n","isRelatedTo":'.repeat(depth)}null${'}'.repeat(depth)}`;
    html(res, page('Deep', [], `<script type="application/ld+json">${nested}</script>`));
  },
  '/jsonld-wide': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write(
      '<!DOCTYPE html><html><head><title>Wide</title><script type="application/ld+json">{"@type":"Product","name":"Wide","offers":[',
    );
    // A million offers in 12 MB, under the body limit.
    await stream(res, '{"price":1},'.repeat(1000), 1000);
    res.end('{"@type":"Offer","price":"2.00"}]}</script></head><body><p>Wide.</p></body></html>');
  },
  // Content that tries to run code in whoever shows it (the dashboard): scripts, event-handler
  // attributes, a javascript: link, and text that reads as markup once unescaped. Each sets
  // window.__pwned, which must stay unset wherever the page's scrape is displayed.
  '/script-injection': (_req, res) =>
    html(
      res,
      `<!DOCTYPE html><html><head><title>Injection</title><script>window.__pwned = 'head script'</script></head><body><main>
<h1>Injection attempts</h1>
<p>Plain text stays readable.</p>
<script>window.__pwned = 'body script'</script>
<img src="/missing.png" onerror="window.__pwned = 'onerror'" alt="broken image">
<p>Markup as text: &lt;img src=x onerror="window.__pwned='escaped onerror'"&gt; and &lt;script&gt;window.__pwned='escaped script'&lt;/script&gt;</p>
<p><a href="javascript:window.__pwned='link'">a javascript link</a></p>
<svg onload="window.__pwned = 'svg onload'"><circle r="4"></circle></svg>
</main></body></html>`,
    ),
  // Sitemaps: an index nested as deep as the reader goes, each level wide.
  '/sitemap.xml': (_req, res, url) => {
    const level = Number(url.searchParams.get('level') ?? '0');
    const origin = `http://${url.host}`;
    res.writeHead(200, { 'content-type': 'application/xml' });
    const entries = Array.from(
      { length: 200 },
      (_, i) => `<sitemap><loc>${origin}/sitemap.xml?level=${level + 1}&amp;n=${i}</loc></sitemap>`,
    );
    entries.unshift(`<sitemap><loc>${origin}/sitemap-bomb.xml.gz</loc></sitemap>`);
    res.end(
      `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</sitemapindex>`,
    );
  },
  // A gzip sitemap inflating to 2 GiB of URLs, compressed as it is sent.
  '/sitemap-bomb.xml.gz': async (_req, res, url) => {
    res.writeHead(200, { 'content-type': 'application/gzip' });
    const entry = `<url><loc>http://${url.host}/calendar?m=1</loc></url>`;
    const block = entry.repeat(Math.floor((64 * 1024) / entry.length));
    await gzipStream(
      res,
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      block,
      (2048 * 1024 * 1024) / (64 * 1024),
    );
  },
};

/** Starts the hostile site on a free port of 127.0.0.1. */
export async function startHostileSite(): Promise<HostileSite> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const route =
      routes[url.pathname] ??
      // Long paths: a page that links to more of them, so a crawl always has somewhere to go.
      (url.pathname.startsWith('/aaaa')
        ? (_req: IncomingMessage, out: ServerResponse) => {
            const n = Number(url.pathname.slice(longPathLength + 1)) || 0;
            html(
              out,
              page(
                `Long path ${n}`,
                Array.from({ length: 40 }, (_, i) => longPath(n * 40 + i + 1)),
              ),
            );
          }
        : undefined);
    if (!route) return html(res, page('Not found', []), 404);
    void Promise.resolve(route(req, res, url)).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
