/**
 * The SearchProvider contract run against both providers: the built-in index in a fresh SQLite
 * file, and SearxngProvider against the fake SearXNG (its JSON API exactly; no Debian package).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSearchProvider, SearxngProvider, SqliteStore } from '@trawl/core';
import { describeSearchProviderContract } from '../../../../test/contracts/search-provider.contract.ts';
import { startFakeSearx } from '../../../../test/fakes/searxng-server.ts';

describeSearchProviderContract('local (SQLite FTS5)', () => {
  const store = new SqliteStore({
    path: join(mkdtempSync(join(tmpdir(), 'trawl-provider-')), 't.db'),
  });
  return Promise.resolve({
    provider: new LocalSearchProvider(store.searchIndex, 'default'),
    seed: async (pages) => {
      for (const page of pages) {
        await store.searchIndex.put({
          team: 'default',
          url: page.url,
          title: page.title,
          description: '',
          headings: '',
          body: page.content,
          domain: new URL(page.url).hostname,
          language: 'en',
          fetchedAt: Date.now(),
        });
      }
    },
    close: () => store.close(),
  });
});

describeSearchProviderContract('searxng (fake SearXNG JSON API)', async () => {
  const searx = await startFakeSearx();
  return {
    provider: new SearxngProvider({ url: searx.url }),
    seed: (pages) => {
      searx.corpus = pages.map((page) => ({ ...page, engine: 'duckduckgo', category: 'general' }));
      return Promise.resolve();
    },
    close: () => searx.close(),
  };
});
