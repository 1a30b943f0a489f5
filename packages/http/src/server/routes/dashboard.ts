/**
 * The dashboard: the web app built from `packages/http/dashboard` (`npm run build` writes it to
 * `dist/dashboard`), served at `/` with its hashed files under `/assets/`. It is only static
 * files: the app talks to the /v2 API with the key the user signs in with, like any other client,
 * so these routes need no key and know nothing of teams.
 *
 * The files are read once when the server starts and served from memory, by name: a Map of the
 * page and the files it names cannot serve anything else (no path joins, no traversal to guard
 * against), which is why this is not @fastify/static. A server started before a build serves
 * the build from its next start.
 *
 * Every answer carries a strict Content-Security-Policy: scripts and styles only from this
 * origin's files, no inline script, no plugins, no framing, and connections only back to this
 * server. Scraped pages the app shows are sanitised before they reach the DOM; the policy is
 * the second wall should that ever fail, and it keeps remote images in scraped markdown from
 * telling their sites who reads them.
 */
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Refusal } from '../errors.ts';
import type { RoutePlugin } from './index.ts';

/** Where the build puts the app: the same from `src/server/routes` and `dist/server/routes`. */
export const dashboardDir = fileURLToPath(new URL('../../../dist/dashboard/', import.meta.url));

/** The policy of every dashboard answer (see the module comment). */
export const dashboardCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const securityHeaders: Record<string, string> = {
  'content-security-policy': dashboardCsp,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

interface DashboardFile {
  body: Buffer;
  type: string;
}

const readIfThere = (path: string): Buffer | undefined => {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
};

/**
 * The built page and the files it names (`/assets/index-1a2b.js`), by URL path; undefined when
 * nothing was built. Only what the page names is served: a folder that older builds left files
 * in, or that a build is writing into right now, serves exactly one build.
 */
export function readDashboard(dir: string = dashboardDir): Map<string, DashboardFile> | undefined {
  const files = new Map<string, DashboardFile>();
  const page = readIfThere(join(dir, 'index.html'));
  if (!page) return undefined;
  files.set('/', { body: page, type: 'text/html; charset=utf-8' });
  for (const match of page.toString('utf8').matchAll(/["']\/assets\/([\w.-]+)["']/g)) {
    const name = match[1] ?? '';
    const type = contentTypes[extname(name)];
    // A file a build has not written yet is left out rather than stopping the server.
    const body = type ? readIfThere(join(dir, 'assets', name)) : undefined;
    if (type && body) files.set(`/assets/${name}`, { body, type });
  }
  return files;
}

export const dashboardRoutes: RoutePlugin = (app) => {
  const files = readDashboard();
  const serve = (path: string) => {
    const file = files?.get(path);
    if (!file && path === '/')
      throw new Refusal(
        'NOT_FOUND',
        "The dashboard is not built in this copy: run 'npm run build', then start the server again",
      );
    if (!file) throw new Refusal('NOT_FOUND', `Not found: GET ${path}`);
    return file;
  };

  app.get('/', (_request, reply) => {
    const file = serve('/');
    // The page names this build's files: it must be asked for again after an upgrade.
    return reply
      .headers(securityHeaders)
      .header('cache-control', 'no-cache')
      .type(file.type)
      .send(file.body);
  });

  app.get<{ Params: { name: string } }>('/assets/:name', (request, reply) => {
    const file = serve(`/assets/${request.params.name}`);
    // Names carry a hash of their content, so they never change.
    return reply
      .headers(securityHeaders)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .type(file.type)
      .send(file.body);
  });
};
