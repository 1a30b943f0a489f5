/**
 * Vitest global setup: starts the fixture web site once per test project and hands its URLs to
 * the tests, which read them with `inject('fixtureUrl')` (STYLE.md, "Tests").
 */
import type { TestProject } from 'vitest/node';
import { startFixtureSite } from './fixture-site/server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `http://127.0.0.1:PORT` of the fixture site, no trailing slash. */
    fixtureUrl: string;
    /** `https://127.0.0.1:PORT` of the same site, with a self-signed certificate. */
    fixtureHttpsUrl: string;
    /** `http://127.0.0.1:PORT` of a forward proxy that adds `x-fixture-proxy: 1`. */
    fixtureProxyUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const site = await startFixtureSite();
  project.provide('fixtureUrl', site.url);
  project.provide('fixtureHttpsUrl', site.httpsUrl);
  project.provide('fixtureProxyUrl', site.proxyUrl);
  // The returned function is vitest's teardown; it runs after every test of the project.
  return () => site.close();
}
