/**
 * A site whose pages a test changes between monitor checks: set a page's text, make it fail with
 * a status, take it away. The home page `/` links every page that exists, so a crawl finds
 * exactly the current set; `/sitemap.xml` lists the same (or, with `sitemap: false`, there is none
 * and any `…/sitemap.xml` answers 200 with an HTML "not found" page, as many CMSs do). Every
 * request is counted per path.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One page of the site. */
export interface ChangingPage {
  /** Title and heading. */
  title: string;
  /** Body paragraphs, one per line. */
  text: string;
  /** Status to answer with (default 200); the page still shows its text. */
  status?: number;
  /** Milliseconds before the answer (default 0), so a check can be caught mid-way. */
  delayMs?: number;
}

/** How the site is set up. */
export interface ChangingSiteOptions {
  /** Whether the site has a sitemap (default true); see the module comment. */
  sitemap?: boolean;
}

/** A running changing site. */
export interface ChangingSite {
  url: string;
  /** Sets (adds or replaces) the page at `path` (`/pricing`). */
  set(path: string, page: ChangingPage): void;
  /** Takes a page away: it answers 404 and the home page no longer links it. */
  remove(path: string): void;
  /** Requests seen per path. */
  hits(path: string): number;
  close(): Promise<void>;
}

const escape = (text: string) =>
  text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] ?? c);

function render(page: ChangingPage): string {
  const paragraphs = page.text
    .split('\n')
    .map((line) => `<p>${escape(line)}</p>`)
    .join('\n');
  return `<!doctype html><html><head><title>${escape(page.title)}</title></head><body><main><h1>${escape(page.title)}</h1>\n${paragraphs}\n</main></body></html>`;
}

/** Starts a changing site on 127.0.0.1 with the given pages. */
export async function startChangingSite(
  pages: Record<string, ChangingPage> = {},
  options: ChangingSiteOptions = {},
): Promise<ChangingSite> {
  const current = new Map(Object.entries(pages));
  const hits = new Map<string, number>();
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://changing.invalid').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/') {
      const links = [...current.keys()]
        .sort()
        .map((href) => `<li><a href="${href}">${escape(current.get(href)?.title ?? href)}</a></li>`)
        .join('');
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>Home</title></head><body><main><h1>Home</h1><p>Every page of the changing site is listed below.</p><ul>${links}</ul></main></body></html>`,
        );
      return;
    }
    if (options.sitemap === false && path.endsWith('/sitemap.xml')) {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><html><body><h1>Page not found</h1></body></html>');
      return;
    }
    if (path === '/sitemap.xml') {
      const urls = ['/', ...[...current.keys()].sort()]
        .map((href) => `<url><loc>${origin}${href}</loc></url>`)
        .join('');
      res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
        );
      return;
    }
    const page = current.get(path);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not found</h1>');
      return;
    }
    const answer = () =>
      res
        .writeHead(page.status ?? 200, { 'content-type': 'text/html; charset=utf-8' })
        .end(render(page));
    if (page.delayMs) setTimeout(answer, page.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    set: (path, page) => void current.set(path, page),
    remove: (path) => void current.delete(path),
    hits: (path) => hits.get(path) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
