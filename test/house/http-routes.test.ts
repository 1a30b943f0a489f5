/**
 * HTTP routes as plugins with one error path: app.ts only wires, every route lives
 * in a plugin of routes/, and no route answers an error status by hand (refusals are thrown as
 * TrawlErrors and answered by the error handler, with a code from docs/errors.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const server = join(import.meta.dirname, '../../packages/http/src/server');
const read = (path: string) => readFileSync(join(server, path), 'utf8');
const serverFiles = [
  ...readdirSync(server).filter((name) => name.endsWith('.ts')),
  ...readdirSync(join(server, 'routes')).map((name) => `routes/${name}`),
];

describe('the /v2 server', () => {
  it('registers no route in app.ts: it wires the plugins of routes/', () => {
    const app = read('app.ts');
    expect(app).not.toMatch(/\.(get|post|put|patch|delete|route)[<(]/);
    expect(app).not.toMatch(/function routes\(/);
    expect(app).toMatch(/routePlugins/);
  });

  it('lists every route plugin file in the plugin list', () => {
    const index = read('routes/index.ts');
    const plugins = readdirSync(join(server, 'routes')).filter(
      (name) => name !== 'index.ts' && read(`routes/${name}`).includes(': RoutePlugin ='),
    );
    expect(plugins.length).toBeGreaterThan(5);
    for (const name of plugins) expect(index).toContain(`'./${name}'`);
  });

  it('answers no error status by hand outside the error path (the health probe aside)', () => {
    const byHand = serverFiles.filter(
      (path) =>
        path !== 'errors.ts' &&
        path !== 'routes/health.ts' &&
        /\.code\(\s*[45]\d\d\s*\)|statusCode\s*=\s*[45]\d\d/.test(read(path)),
    );
    expect(byHand).toEqual([]);
  });
});
