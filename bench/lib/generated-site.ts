/**
 * A generated site for crawl benchmarks: `pages` article pages of 20–60 KB, each with a header
 * menu, breadcrumbs, an article (headings, paragraphs, lists, sometimes a table or code), a
 * sidebar of related links and a footer — about twenty internal links per page, a few external
 * ones — plus robots.txt and a sitemap (an index of 10,000-URL files when larger).
 *
 * Deterministic: page n is built from a PRNG seeded with n, so every run serves the same site.
 * Every page is rendered once, before the site answers: rendered on request, a page cost the
 * site ~1.3 ms of CPU, taken from the crawler it served on a two-core machine (a fifth of the
 * machine during a crawl at 180 pages/s). A real site is served from another machine; a
 * prepared buffer costs about what a static file server spends. 20,000 pages hold ~850 MB here.
 *
 * Run alone: `node --experimental-strip-types bench/lib/generated-site.ts --pages 5000` prints
 * `{"url": …}` and serves until killed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const words = (
  'crawl index page site data model engine search result query token vector cache store ' +
  'request response header status latency budget schedule frontier queue worker thread ' +
  'content markdown table list heading paragraph summary article author release version ' +
  'feature policy report metric chart review system network server client browser script ' +
  'the a of to and in for with on by from at as is are was were be this that these those ' +
  'quickly carefully often rarely every each many few more most less simple complex robust'
).split(' ');

/** mulberry32: a tiny seeded PRNG, enough for varied but repeatable pages. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(next: () => number, length: number): string {
  const chosen = Array.from({ length }, () => words[Math.floor(next() * words.length)] ?? 'page');
  const text = chosen.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function paragraph(next: () => number): string {
  const sentences = 3 + Math.floor(next() * 5);
  return Array.from({ length: sentences }, () => sentence(next, 8 + Math.floor(next() * 12))).join(
    ' ',
  );
}

/** The path of page n; page 0 is the home page. */
export const pagePath = (n: number): string => (n === 0 ? '/' : `/articles/${n}.html`);

/** The internal links of page n: its children in a 4-ary tree, its neighbours, random pages. */
function linkTargets(n: number, pages: number, next: () => number): number[] {
  const targets = new Set<number>();
  for (let child = 4 * n + 1; child <= 4 * n + 4 && child < pages; child++) targets.add(child);
  targets.add((n + 1) % pages);
  // A site of fewer than 14 pages cannot give 14 distinct targets: every page is then linked.
  while (targets.size < Math.min(14, pages)) targets.add(Math.floor(next() * pages));
  return [...targets];
}

/** Renders page n of a site of `pages` pages. */
export function renderPage(n: number, pages: number, origin: string): string {
  const next = random(n + 1);
  const targetBytes = 20_000 + Math.floor(next() * 40_000);
  const title = sentence(next, 4 + Math.floor(next() * 4)).slice(0, -1);
  const targets = linkTargets(n, pages, next);
  const menu = [0, 1, 2, 3, 4, 5]
    .filter((target) => target < pages)
    .map((target) => `<li><a href="${pagePath(target)}">Section ${target}</a></li>`)
    .join('');
  const related = targets
    .map((target) => `<li><a href="${pagePath(target)}">Article ${target}</a></li>`)
    .join('');
  const parts: string[] = [];
  let size = 0;
  let section = 0;
  while (size < targetBytes) {
    let block: string;
    const kind = next();
    if (section % 4 === 0) {
      block = `<h2 id="s${section}">${sentence(next, 5).slice(0, -1)}</h2>`;
    } else if (kind < 0.08) {
      const rows = Array.from(
        { length: 4 },
        (_, row) =>
          `<tr><td>${row}</td><td>${sentence(next, 3)}</td><td>${Math.floor(next() * 1000)}</td></tr>`,
      ).join('');
      block = `<table><thead><tr><th>#</th><th>Item</th><th>Value</th></tr></thead><tbody>${rows}</tbody></table>`;
    } else if (kind < 0.14) {
      block = `<pre><code class="language-js">const result = await crawl('${origin}/', { limit: ${Math.floor(next() * 100)} });\nfor await (const page of result) console.log(page.url);</code></pre>`;
    } else if (kind < 0.24) {
      block = `<ul>${Array.from({ length: 4 }, () => `<li>${sentence(next, 6)}</li>`).join('')}</ul>`;
    } else if (kind < 0.3) {
      const target = targets[Math.floor(next() * targets.length)] ?? 0;
      block = `<p>${paragraph(next)} Read <a href="${pagePath(target)}">the related article</a> or <a href="https://example.org/ref/${Math.floor(next() * 50)}">the external reference</a>.</p>`;
    } else if (kind < 0.33) {
      block = `<figure><img src="/img/${n}-${section}.png" alt="${sentence(next, 4)}" width="640" height="360"><figcaption>${sentence(next, 6)}</figcaption></figure>`;
    } else {
      block = `<p>${paragraph(next)}</p>`;
    }
    parts.push(block);
    size += block.length;
    section += 1;
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | Generated Site</title>
<meta name="description" content="${sentence(next, 14)}">
<meta property="og:title" content="${title}"><meta property="og:type" content="article">
<link rel="canonical" href="${origin}${pagePath(n)}">
<link rel="stylesheet" href="/assets/site.css"><script src="/assets/site.js" defer></script>
</head><body>
<header class="site-header"><a class="logo" href="/">Generated Site</a><nav class="menu"><ul>${menu}</ul></nav>
<form class="search" action="/search"><input name="q" placeholder="Search"></form></header>
<nav class="breadcrumbs"><a href="/">Home</a> › <a href="${pagePath(Math.max(0, Math.floor((n - 1) / 4)))}">Parent</a> › ${title}</nav>
<div class="layout"><main><article><h1>${title}</h1>
<p class="byline">By ${sentence(next, 2).slice(0, -1)} · ${1 + Math.floor(next() * 28)} March 2026</p>
${parts.join('\n')}
</article></main>
<aside class="sidebar"><h3>Related</h3><ul>${related}</ul>
<div class="newsletter">Subscribe to our newsletter for weekly updates.</div></aside></div>
<footer class="site-footer"><a href="/">Home</a> <a href="#top">Top</a> <a href="mailto:team@example.org">Contact</a>
<a href="https://twitter.com/example">Twitter</a> <p>© 2026 Generated Site. All rights reserved.</p></footer>
</body></html>`;
}

function sitemapXml(locs: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('\n')}\n</urlset>\n`;
}

/** A running generated site. */
export interface GeneratedSite {
  url: string;
  /** Every page path, in page order. */
  paths: string[];
  close(): Promise<void>;
}

const sitemapChunk = 10_000;

/** Serves a generated site of `pages` pages on 127.0.0.1. */
export async function startGeneratedSite(options: {
  pages: number;
  port?: number;
}): Promise<GeneratedSite> {
  const { pages } = options;
  let origin = '';
  const rendered: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const match = /^\/articles\/(\d+)\.html$/.exec(path);
    const n = path === '/' ? 0 : match ? Number(match[1]) : -1;
    const body = rendered[n];
    if (body) {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
      return;
    }
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`User-agent: *\nDisallow: /search\n\nSitemap: ${origin}/sitemap.xml\n`);
      return;
    }
    const sitemap = /^\/sitemap(?:-(\d+))?\.xml$/.exec(path);
    if (sitemap) {
      const all = Array.from({ length: pages }, (_, i) => `${origin}${pagePath(i)}`);
      let xml: string;
      if (sitemap[1] !== undefined) {
        const part = Number(sitemap[1]);
        xml = sitemapXml(all.slice(part * sitemapChunk, (part + 1) * sitemapChunk));
      } else if (pages > sitemapChunk) {
        const parts = Math.ceil(pages / sitemapChunk);
        xml = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${Array.from({ length: parts }, (_, i) => `<sitemap><loc>${origin}/sitemap-${i}.xml</loc></sitemap>`).join('\n')}\n</sitemapindex>\n`;
      } else {
        xml = sitemapXml(all);
      }
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(xml);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>Not found</h1>');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Pages name the origin (canonical link, code samples), known once the port is.
  for (let n = 0; n < pages; n++) rendered.push(Buffer.from(renderPage(n, pages, origin)));
  return {
    url: origin,
    paths: Array.from({ length: pages }, (_, i) => pagePath(i)),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { pages: { type: 'string', default: '5000' } } });
  const site = await startGeneratedSite({ pages: Number(values.pages) });
  process.stdout.write(`${JSON.stringify({ url: site.url })}\n`);
}
