/**
 * playwright-core, loaded the first time a browser is needed. Loading it costs about 80 MB of
 * RSS (measured on Node 24), which a crawl or a server that never renders a page should not pay
 *; modules that only use its types import those, which are erased.
 */
import type * as PlaywrightModule from 'playwright-core';

type Playwright = typeof PlaywrightModule;

let loading: Promise<Playwright> | undefined;

/** The playwright-core module, imported once. */
export function loadPlaywright(): Promise<Playwright> {
  loading ??= import('playwright-core');
  return loading;
}
