/**
 * Every route the /v2 server registers, read from Fastify's own route tree, so tests that walk
 * the routes cover a route added later without anyone listing it.
 */
import { MemoryStore, resolveEngineConfig } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';

/** A method and the route pattern it is registered at (`/v2/crawl/:id`). */
export interface Route {
  method: string;
  url: string;
}

/** The routes of a server built with keys, as Fastify's printRoutes lists them. */
export async function registeredRoutes(): Promise<Route[]> {
  const app = buildServer({
    store: new MemoryStore(),
    config: resolveEngineConfig(),
    keys: ApiKeys.parse('fc-route-list'),
    logLevel: 'silent',
  });
  await app.ready();
  const tree = app.printRoutes({ commonPrefix: false });
  await app.close();
  const routes: Route[] = [];
  const prefixes: string[] = [];
  // Lines look like `│   └── /:id (GET, HEAD, DELETE)`: four columns of indent per level, and
  // each level's path continues its parent's.
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    const url = (prefixes[depth - 1] ?? '') + (match[2] ?? '');
    prefixes.length = depth;
    prefixes.push(url);
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url });
  }
  return routes;
}

/** A concrete path for a route pattern: each parameter becomes a well-formed id. */
export const concretePath = (url: string): string =>
  url.replace(/:\w+/g, '5f0c6f4e-8b0a-4a51-9d55-0d6c3c0a1b2c');
