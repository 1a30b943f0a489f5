/**
 * A web site built to hurt a crawler, on 127.0.0.1, started by the tests that attack with it (it
 * owns its robots.txt, which the shared fixture site cannot give up). Each attack is its own
 * path; big bodies are generated as they are sent, never held whole.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { compressedBomb, gzipSpacesAfter } from './bombs.ts';

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

const robotsText = hostileRobots();

/** A body of 128 MiB of spaces under `coding` (six times the body limit), a few KB on the wire. */
const bomb =
  (coding: 'gzip' | 'br' | 'zstd'): Route =>
  async (_req, res) => {
    const body = await compressedBomb(coding, 128 * 1024 * 1024);
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': coding });
    res.end(body);
  };

/** An ordinary article, a few KB of prose. */
export const friendlyPage = page(
  'An ordinary article',
  [],
  Array.from(
    { length: 12 },
    (_, i) =>
      `<p>Paragraph ${i}: a crawler reads this page while another team's site attacks the same server, and the answer is the same as on a quiet day.</p>`,
  ).join(''),
);

const coders: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => gzipSync(body),
  br: (body) => brotliCompressSync(body),
  zstd: (body) => zstdCompressSync(body),
};

/** The ordinary article under `codings` (`gzip, br`: gzip applied first), as Content-Encoding lists them. */
const encoded =
  (codings: string): Route =>
  (_req, res) => {
    let body: Buffer = Buffer.from(friendlyPage);
    for (const coding of codings.split(',')) body = coders[coding.trim()]!(body);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': codings });
    res.end(body);
  };
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
  '/bomb/gzip.html': bomb('gzip'),
  '/bomb/br.html': bomb('br'),
  '/bomb/zstd.html': bomb('zstd'),
  // An honest page under each coding, and under two stacked (gzip first, then br).
  '/encoded/gzip': encoded('gzip'),
  '/encoded/br': encoded('br'),
  '/encoded/zstd': encoded('zstd'),
  '/encoded/gzip-br': encoded('gzip, br'),
  // What another team asks for meanwhile: an ordinary article.
  '/friendly': (_req, res) => html(res, friendlyPage),
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
  // Two million elements in 16 MB, under the body limit.
  '/many-elements': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!DOCTYPE html><html><head><title>Many</title></head><body><div>');
    await stream(res, '<i>x</i>'.repeat(1000), 2000);
    res.end('</div></body></html>');
  },
  // 700,000 distinct links in 17 MB: every one of them a URL for a crawl to look at.
  '/many-links': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!DOCTYPE html><html><head><title>Links</title></head><body>');
    for (let block = 0; block < 700 && !res.destroyed; block++) {
      const links = Array.from({ length: 1000 }, (_, i) => `<a href="/l${block * 1000 + i}">x</a>`);
      if (!res.write(links.join(''))) await drained(res);
    }
    res.end('</body></html>');
  },
  // A million elements, each inside the one before, never closed.
  '/deep-nesting': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!DOCTYPE html><html><head><title>Deep</title></head><body>');
    await stream(res, '<div>'.repeat(1000), 1000);
    res.end('Deep text.</body></html>');
  },
  // An href and an alt of 6 MB each, and an element of half a million attributes.
  '/giant-attributes': async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write(
      '<!DOCTYPE html><html><head><title>Attributes</title></head><body><p>Text.</p><a href="/',
    );
    await stream(res, 'h'.repeat(8192), 768);
    res.write('">link</a><img src="/i.png" alt="');
    await stream(res, 'a'.repeat(8192), 768);
    res.write('"><div');
    await stream(res, Array.from({ length: 1000 }, (_, i) => ` a${i}="1"`).join(''), 500);
    res.end('>Div.</div></body></html>');
  },
  // A refresh to itself, again and again; and a script that does the same.
  '/js-redirect-loop': (_req, res, url) => {
    const n = Number(url.searchParams.get('n') ?? '0');
    html(
      res,
      page(`Hop ${n}`, [], `<script>location.replace('/js-redirect-loop?n=${n + 1}')</script>`),
    );
  },
  // The browser engine's own: scripts that open windows, dialogs, loop, allocate, grow the page.
  '/popups': (_req, res) =>
    html(
      res,
      page(
        'Popups',
        [],
        "<script>setInterval(() => { window.open('/popups', '_blank'); }, 10)</script>",
      ),
    ),
  '/alert-loop': (_req, res) =>
    html(
      res,
      page(
        'Alerts',
        [],
        "<p>Dialogs.</p><script>for (;;) { alert('a'); confirm('c'); prompt('p'); }</script>",
      ),
    ),
  '/busy-loop': (_req, res) =>
    html(res, page('Busy', [], '<p>Busy.</p><script>for (;;) {}</script>')),
  '/allocate': (_req, res) =>
    html(
      res,
      page(
        'Allocate',
        [],
        '<p>Allocate.</p><script>const kept = []; for (;;) kept.push(new Array(1e6).fill(Math.random()));</script>',
      ),
    ),
  // Adds a megabyte of text every 5 ms, forever.
  '/grows': (_req, res) =>
    html(
      res,
      page(
        'Grows',
        [],
        "<p>Grows.</p><script>setInterval(() => document.body.insertAdjacentHTML('beforeend', '<p>' + 'x'.repeat(1e6) + '</p>'), 5)</script>",
      ),
    ),
  // More content whenever its end comes into view: a full-page screenshot makes all of it visible.
  '/infinite-scroll': (_req, res) =>
    html(
      res,
      page(
        'Infinite',
        [],
        `<div id="feed"></div><div id="end">end</div><script>
new IntersectionObserver(() => {
  const feed = document.getElementById('feed');
  for (let i = 0; i < 50; i++) feed.insertAdjacentHTML('beforeend', '<p style="height:400px">item</p>');
}).observe(document.getElementById('end'));</script>`,
      ),
    ),
  '/huge-canvas': (_req, res) =>
    html(
      res,
      page(
        'Canvas',
        [],
        '<canvas id="c" width="32767" height="32767"></canvas><script>const c = document.getElementById(\'c\').getContext(\'2d\'); c.fillStyle = \'red\'; c.fillRect(0, 0, 32767, 32767);</script>',
      ),
    ),
  // 200,000 pixels tall, in stripes (a PNG of one colour would be small whatever its size).
  '/tall': (_req, res) =>
    html(
      res,
      page(
        'Tall',
        [],
        '<div style="height:200000px;background:repeating-linear-gradient(red 0 3px, blue 3px 7px, green 7px 11px)"></div>',
      ),
    ),
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
  // A plain urlset of 350,000 URLs in 17 MB, under the body limit: all of it to parse.
  '/big-sitemap.xml': async (_req, res, url) => {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.write('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    for (let block = 0; block < 350 && !res.destroyed; block++) {
      const entries = Array.from(
        { length: 1000 },
        (_, i) => `<url><loc>http://${url.host}/calendar?m=${block * 1000 + i}</loc></url>`,
      );
      if (!res.write(entries.join(''))) await drained(res);
    }
    res.end('</urlset>');
  },
  // A gzip sitemap inflating to 2 GiB: a urlset, then spaces (2 MB on the wire).
  '/sitemap-bomb.xml.gz': (_req, res, url) => {
    res.writeHead(200, { 'content-type': 'application/gzip' });
    res.end(
      gzipSpacesAfter(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://${url.host}/calendar?m=1</loc></url>`,
        2048 * 1024 * 1024,
      ),
    );
  },
};

/**
 * Starts the hostile site in a child process of its own (hostile-site-main.ts): building and
 * compressing its bodies then costs that process, not the one that times `/health`.
 */
export async function startHostileSiteProcess(): Promise<HostileSite> {
  const main = new URL('./hostile-site-main.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--conditions=development', main], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const found = /^SITE (\S+)$/m.exec(out);
      if (found) resolve(found[1]!);
    });
    void exited.then(([code]) => reject(new Error(`the hostile site exited with ${String(code)}`)));
  });
  return {
    url,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill();
      await exited;
    },
  };
}

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
