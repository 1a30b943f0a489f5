/**
 * The service wing's hallway: one job host, made in one place (the process builder),
 * with each hosted kind of job registered on it and no route running a job of its own; one
 * builder of a process's services, which `trawl worker` uses without building an HTTP server.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore, resolveEngineConfig } from '@trawl/core';
import { buildProcess } from '@trawl/http';
import { repositoryRoot, sourceFiles } from './source-files.ts';

const httpSrc = join(repositoryRoot, 'packages/http/src');
const read = (path: string) => readFileSync(path, 'utf8');
const shortName = (path: string) => relative(repositoryRoot, path);

/** Files a module imports at run time (type-only imports vanish), transitively, from `entry`. */
function runtimeImports(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pattern = /(?:^|\n)\s*(?:import|export)(?!\s+type\b)[^;]*?from\s+'([^']+)'/g;
  const visit = (path: string) => {
    if (files.has(path)) return;
    files.add(path);
    for (const match of read(path).matchAll(pattern)) {
      const target = match[1] ?? '';
      if (target.startsWith('.')) visit(resolve(dirname(path), target));
      else packages.add(target);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the job host', () => {
  it('is made once, by the process builder', () => {
    const makers = sourceFiles().filter((path) => /\bnew JobHost\(/.test(read(path)));
    expect(makers.map(shortName)).toEqual(['packages/http/src/process/services.ts']);
  });

  it('has every kind of job registered, in every role; a process that runs jobs takes crawls too', async () => {
    for (const role of ['serve', 'api', 'worker', 'cli'] as const) {
      const services = buildProcess({
        role,
        store: new MemoryStore(),
        config: resolveEngineConfig(),
      });
      const runs = role === 'serve' || role === 'worker';
      // `job`: the unit that drives a crawl or batch scrape (with the embedded queue, its pages
      // and monitor checks run in the process that starts them, not as units).
      expect(services.host.kinds).toEqual(['agent', 'extract', ...(runs ? ['job'] : [])]);
      await services.stop();
    }
  });

  it('is the one place a process takes work off the queue', () => {
    const consumers = sourceFiles().filter((path) => /queue\.consume\(/i.test(read(path)));
    expect(consumers.map(shortName)).toEqual(['packages/core/src/jobs/host.ts']);
  });

  it('runs every job of the routes: no route plugin keeps running work or a queue of its own', () => {
    const routes = sourceFiles().filter((path) => path.startsWith(join(httpSrc, 'server/routes')));
    const offenders = routes.filter((path) => {
      const text = read(path);
      return (
        /new Map<string, AbortController>/.test(text) ||
        /\.queue\.(add|run|consume)\(/.test(text) ||
        /addHook\('onReady'/.test(text)
      );
    });
    expect(offenders.map(shortName)).toEqual([]);
  });
});

describe('trawl worker', () => {
  it('builds no HTTP server: neither Fastify nor the server context is loaded', () => {
    const { files, packages } = runtimeImports(join(httpSrc, 'cli/worker.ts'));
    expect([...packages].filter((name) => /fastify/.test(name))).toEqual([]);
    const serverOnly = ['server/app.ts', 'server/context.ts', 'server/door.ts', 'server/routes'];
    const loaded = [...files].map((path) => relative(httpSrc, path));
    expect(loaded.filter((path) => serverOnly.some((part) => path.startsWith(part)))).toEqual([]);
    // And it builds its services with the same builder as `trawl serve`.
    expect(read(join(httpSrc, 'cli/worker.ts'))).toMatch(/buildProcess\(/);
    expect(read(join(httpSrc, 'server/context.ts'))).toMatch(/buildProcess\(/);
  });
});
