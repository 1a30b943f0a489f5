/**
 * A site of numbered articles for tests that need many pages: each article links the next
 * twenty (mod the page count), so a crawl's frontier stays wide and every page is reachable from
 * the home page, which shows article 0. Optional latency per page makes a crawl last long
 * enough to interrupt.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running article site. */
export interface ArticleSite {
  url: string;
  /** Every page URL: the home page and each article. */
  urls: string[];
  close(): Promise<void>;
}

function articlePage(n: number, pages: number): string {
  const links = Array.from({ length: 20 }, (_, i) => (n + 1 + i * 97) % pages)
    .map((target) => `<li><a href="/articles/${target}">Article ${target}</a></li>`)
    .join('');
  const paragraphs = Array.from(
    { length: 8 },
    (_, i) =>
      `<p>Paragraph ${i} of article ${n}: a crawl that is killed must not lose or repeat this page.</p>`,
  ).join('');
  return `<!doctype html><html><head><title>Article ${n}</title></head><body>
<nav><a href="/">Home</a></nav><main><h1>Article ${n}</h1>${paragraphs}</main>
<aside><ul>${links}</ul></aside></body></html>`;
}

/** Serves `pages` articles on 127.0.0.1, each answered after `latencyMs`. */
export async function startArticleSite(pages: number, latencyMs = 0): Promise<ArticleSite> {
  const server: Server = createServer((req, res) => {
    const match = /^\/articles\/(\d+)$/.exec(req.url ?? '');
    const n = req.url === '/' ? 0 : match ? Number(match[1]) : -1;
    if (n < 0 || n >= pages) {
      res.writeHead(404).end();
      return;
    }
    const answer = () =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(articlePage(n, pages));
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    urls: [`${url}/`, ...Array.from({ length: pages }, (_, i) => `${url}/articles/${i}`)],
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
