/**
 * SearxngProvider against a real searx (Debian's package) whose json_engine queries the fixture
 * site: results come back through the real JSON API, scraped on request, and an engine that
 * cannot be reached is named in the warning. Skipped where searx is not installed.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { search, SearxngProvider } from '@trawl/core';
import { hasSearx, startSearx, type SearxProcess } from '../fakes/searx-process.ts';

const site = inject('fixtureUrl');

describe.skipIf(!hasSearx)('search() over a real searx', () => {
  let searx: SearxProcess;
  let providers: SearxngProvider[];
  beforeAll(async () => {
    searx = await startSearx(site);
    providers = [new SearxngProvider({ url: searx.url })];
  }, 40_000);
  afterAll(() => searx.stop());

  it('finds the fixture pages through the json_engine and names the dead engine', async () => {
    const result = await search('binary', { limit: 5 }, { providers });
    expect(result.web?.[0]).toMatchObject({
      url: `${site}/docs/install.html`,
      title: 'Installation',
      metadata: { source: 'fixture' },
    });
    expect(result.warning).toMatch(/deadengine/);
  });

  it('scrapes the results it found', async () => {
    const result = await search(
      'environment',
      { scrapeOptions: { formats: ['markdown'] } },
      { providers },
    );
    expect(result.web?.[0]?.url).toBe(`${site}/docs/configuration.html`);
    expect(result.web?.[0]?.markdown).toMatch(/QUIVER_LOG_LEVEL/);
  });
});
