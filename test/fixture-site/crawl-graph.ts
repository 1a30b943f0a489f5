/**
 * A small multi-host site for crawl tests, with a link graph whose expected URL sets are easy to
 * state. One server answers for every host name (`site.test`, `www.site.test`, `docs.site.test`,
 * `other.test`, `slow.test`, `oddrobots.test`); tests make those names resolve to 127.0.0.1
 * with `new HttpFetcher({ hostAddresses })`.
 *
 * It records every request (host, path, start time) and the highest number of requests in
 * flight at once, so tests can see what a crawl did, not only what it returned.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makePdf } from './assets.ts';

/** Host names the graph answers for. */
export const crawlGraphHosts = [
  'site.test',
  'www.site.test',
  'docs.site.test',
  'other.test',
  'slow.test',
  'oddrobots.test',
] as const;

/** `hostAddresses` for `new HttpFetcher(...)`: every graph host on 127.0.0.1. */
export const crawlGraphAddresses: Record<string, string> = Object.fromEntries(
  crawlGraphHosts.map((host) => [host, '127.0.0.1']),
);

/** One request the server saw. */
export interface SeenRequest {
  host: string;
  path: string;
  startedAt: number;
}

/** A running crawl graph. */
export interface CrawlGraph {
  port: number;
  /** `http://<host>:<port>` for a host of the graph. */
  origin(host: (typeof crawlGraphHosts)[number]): string;
  requests: SeenRequest[];
  /** Most page requests (not robots.txt or sitemaps) in flight at once since `reset()`. */
  peakConcurrency(): number;
  /** Forgets requests, the peak and the 429 state. */
  reset(): void;
  close(): Promise<void>;
}

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body><main><h1>${title}</h1><p>Text of ${title}, long enough to be the main content of the page.</p>${body}</main></body></html>`;
const links = (...hrefs: string[]) =>
  `<ul>${hrefs.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul>`;

/** Pages of site.test (and www.site.test, which serves the same). */
function sitePages(origin: string): Record<string, string> {
  return {
    '/': page(
      'Home',
      links(
        '/blog/',
        '/blog/a',
        '/blog/b?ref=x',
        '/blog-archive',
        '/about',
        '/about#team',
        '/private/secret',
        '/deep/1',
        `http://www.site.test:${new URL(origin).port}/about/`,
        '/index.html',
        `http://docs.site.test:${new URL(origin).port}/`,
        `http://other.test:${new URL(origin).port}/page`,
        `http://other.test:${new URL(origin).port}/`,
        'mailto:team@site.test',
        'tel:+441234567',
        'https://twitter.com/sitetest',
        '/files/report.pdf',
        '/files/minutes.doc',
        '/img/logo.png',
        '/style.css',
        '/missing',
        '/broken',
        '/loop-a',
        '/moved',
        '/offsite',
        '/about-copy',
      ),
    ),
    '/index.html': page('Home', links('/blog/')),
    '/blog': page('Blog', links('/blog/a', '/blog/b?ref=x', '/blog/b?ref=y', '/blog-archive', '/')),
    '/blog/': page(
      'Blog',
      links('/blog/a', '/blog/b?ref=x', '/blog/b?ref=y', '/blog-archive', '/'),
    ),
    '/blog/a': page('Post A', links('/blog/', '/blog/c')),
    '/blog/b': page('Post B', links('/blog/a')),
    '/blog/c': page('Post C', ''),
    '/blog-archive': page('Archive', links('/blog/old')),
    '/blog/old': page('Old post', ''),
    '/about': page('About', links('/')),
    '/about/': page('About', links('/')),
    '/about-copy': page('About', links('/'), `<link rel="canonical" href="${origin}/about">`),
    '/private/secret': page('Secret', ''),
    '/deep/1': page('Deep 1', links('/deep/2')),
    '/deep/2': page('Deep 2', links('/deep/3')),
    '/deep/3': page('Deep 3', links('/deep/4')),
    '/deep/4': page('Deep 4', ''),
    '/hidden/from-sitemap': page('Only in the sitemap', ''),
    '/retry': page('Retry start', links('/limited')),
  };
}

export async function startCrawlGraph(): Promise<CrawlGraph> {
  let requests: SeenRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  let limitedAnswered = false;
  let port = 0;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const host = (req.headers.host ?? '').split(':')[0] ?? '';
    const url = new URL(req.url ?? '/', `http://${host}:${port}`);
    const path = url.pathname;
    const origin = `http://${host}:${port}`;
    const html = (status: number, body: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
    };
    const text = (status: number, body: string, type = 'text/plain'): void => {
      res.writeHead(status, { 'content-type': type }).end(body);
    };
    const redirect = (to: string): void => {
      res.writeHead(302, { location: to }).end();
    };

    if (host === 'site.test' || host === 'www.site.test') {
      if (path === '/files/report.pdf') {
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(makePdf());
        return;
      }
      if (path === '/robots.txt') {
        return text(
          200,
          `User-agent: *\nDisallow: /private/\n\nUser-agent: StrictBot\nDisallow: /private/\nDisallow: /blog/\n\nSitemap: ${origin}/sitemap.xml\n`,
        );
      }
      if (path === '/sitemap.xml') {
        const locs = ['/', '/blog/a', '/hidden/from-sitemap'];
        return text(
          200,
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((loc) => `<url><loc>${origin}${loc}</loc></url>`).join('')}</urlset>`,
          'application/xml',
        );
      }
      if (path === '/missing') return html(404, page('Not found', ''));
      if (path === '/broken') return html(500, page('Server error', ''));
      if (path === '/loop-a') return redirect('/loop-b');
      if (path === '/loop-b') return redirect('/loop-a');
      if (path === '/moved') return redirect('/about');
      if (path === '/offsite') return redirect(`http://other.test:${port}/landing`);
      if (path === '/limited') {
        if (!limitedAnswered) {
          limitedAnswered = true;
          return html(429, page('Slow down', ''), { 'retry-after': '1' });
        }
        return html(200, page('Limited', ''));
      }
      const body = sitePages(origin)[path];
      return body === undefined ? html(404, page('Not found', '')) : html(200, body);
    }
    if (host === 'docs.site.test') {
      if (path === '/') return html(200, page('Docs', links('/guide')));
      if (path === '/guide') return html(200, page('Guide', ''));
    }
    if (host === 'other.test') {
      if (path === '/') return html(200, page('Other home', links('/page')));
      if (path === '/page') return html(200, page('Other page', links('/page2')));
      if (path === '/page2') return html(200, page('Other page 2', ''));
      if (path === '/landing') return html(200, page('Landing', ''));
    }
    if (host === 'slow.test') {
      if (path === '/robots.txt') return text(200, 'User-agent: *\nCrawl-delay: 1\n');
      if (path === '/') return html(200, page('Slow home', links('/next')));
      if (path === '/next') return html(200, page('Slow next', ''));
    }
    if (host === 'oddrobots.test') {
      // An HTML page where robots.txt should be, and a "sitemap" that is HTML too.
      if (path === '/robots.txt') {
        return html(
          200,
          page('Robots', `<pre>User-agent: *\nDisallow: /\nSitemap: ${origin}/map.xml</pre>`),
        );
      }
      if (path === '/sitemap.xml') return html(200, page('Not a sitemap', ''));
      if (path === '/') return html(200, page('Odd home', links('/inner')));
      if (path === '/inner') return html(200, page('Odd inner', ''));
    }
    return html(404, page('Not found', ''));
  };

  const server = createServer((req, res) => {
    requests.push({
      host: (req.headers.host ?? '').split(':')[0] ?? '',
      path: req.url ?? '',
      startedAt: Date.now(),
    });
    // Pages only: robots.txt and sitemaps are read beside the crawl's own scrapes.
    const isPage = !/^\/robots\.txt|\.xml/.test(req.url ?? '');
    if (isPage) {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      res.once('close', () => {
        inFlight -= 1;
      });
    }
    // A short pause, so that concurrent requests overlap visibly.
    setTimeout(() => handle(req, res), 15);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: (host) => `http://${host}:${port}`,
    get requests() {
      return requests;
    },
    peakConcurrency: () => peak,
    reset() {
      requests = [];
      peak = 0;
      limitedAnswered = false;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
