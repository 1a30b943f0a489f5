/**
 * The SearchProvider contract as a test suite: every provider runs it against its real backend
 * (the built-in index in a SQLite file, a SearXNG speaking its JSON API), seeded with the same
 * pages through a backend-specific hook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexEntry, ProviderQuery, SearchProvider } from '@trawl/core';

/** An index entry for a store's own search-index tests: the given fields over plain defaults. */
export const indexEntry = (url: string, fields: Partial<IndexEntry> = {}): IndexEntry => ({
  team: 'default',
  url,
  title: '',
  description: '',
  headings: '',
  body: 'lighthouse keepers log the weather',
  domain: new URL(url).hostname,
  language: 'en',
  fetchedAt: Date.now(),
  ...fields,
});

/** A page the backend is seeded with. */
export interface SeedPage {
  url: string;
  title: string;
  content: string;
}

/** A provider under test and how to feed its backend. */
export interface SearchProviderFixture {
  provider: SearchProvider;
  /** Makes the pages findable by words of their title and content. */
  seed(pages: readonly SeedPage[]): Promise<void>;
  close(): Promise<void>;
}

const pages: SeedPage[] = Array.from({ length: 12 }, (_unused, index) => ({
  url: `https://host${index % 3}.example/harbour/${index}`,
  title: `Harbour pilot notes ${index}`,
  content: `The harbour pilot boards ship number ${index} at dawn.`,
}));

const queryOf = (query: string, more: Partial<ProviderQuery> = {}): ProviderQuery => ({
  query,
  limit: 10,
  sources: ['web'],
  categories: [],
  includeDomains: [],
  excludeDomains: [],
  highlights: true,
  ...more,
});

/** Registers the contract tests for one SearchProvider. */
export function describeSearchProviderContract(
  name: string,
  setup: () => Promise<SearchProviderFixture>,
): void {
  describe(`${name} search provider contract`, () => {
    let fixture: SearchProviderFixture;
    const ask = (query: ProviderQuery) =>
      fixture.provider.search(query, AbortSignal.timeout(10_000));
    beforeAll(async () => {
      fixture = await setup();
      await fixture.seed(pages);
    });
    afterAll(() => fixture.close());

    it('has a name and a kind', () => {
      expect(fixture.provider.name).toMatch(/^[a-z0-9-]+$/);
      expect(['local', 'web']).toContain(fixture.provider.kind);
    });

    it('finds seeded pages by a word of them, with URL, title and source', async () => {
      const answer = await ask(queryOf('harbour pilot'));
      expect(answer.web?.length).toBeGreaterThan(0);
      for (const result of answer.web ?? []) {
        expect(pages.map((page) => page.url)).toContain(result.url);
        expect(result.title).toMatch(/Harbour pilot notes/);
        expect(typeof result.source).toBe('string');
      }
    });

    it('gives at most limit results, each URL once', async () => {
      const answer = await ask(queryOf('harbour', { limit: 4 }));
      const urls = (answer.web ?? []).map((result) => result.url);
      expect(urls).toHaveLength(4);
      expect(new Set(urls).size).toBe(4);
    });

    it('answers a word nothing holds with no results, not an error', async () => {
      const answer = await ask(queryOf('zeppelin'));
      expect(answer.web ?? []).toEqual([]);
    });

    it('keeps to includeDomains and away from excludeDomains', async () => {
      const only = await ask(queryOf('harbour', { includeDomains: ['host1.example'] }));
      expect(only.web?.length).toBeGreaterThan(0);
      expect(only.web?.every((result) => result.url.startsWith('https://host1.example/'))).toBe(
        true,
      );
      const without = await ask(queryOf('harbour', { excludeDomains: ['host1.example'] }));
      expect(without.web?.some((result) => result.url.includes('host1.example'))).toBe(false);
    });

    it('takes query-language characters as text without failing', async () => {
      for (const query of ['harbour"', 'harbour*', 'NEAR(harbour pilot)', '-harbour', '(']) {
        const answer = await ask(queryOf(query));
        expect(Array.isArray(answer.web ?? [])).toBe(true);
      }
    });
  });
}
