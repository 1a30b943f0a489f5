/**
 * The SearchIndex contract's team rules as a test suite, run by every built-in index (SQLite in
 * a file, PostgreSQL on the real server): an entry belongs to the team it was put for, every read
 * names a team and finds that team's entries only, the same URL of two teams is two entries, and
 * search() over a store answers from its context's team alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search, type IndexEntry, type SearchIndex, type Store } from '@trawl/core';

/** An index under test, in a store of its own (emptied between tests by `clear`). */
export interface SearchIndexFixture {
  store: Store & { searchIndex: SearchIndex };
  close(): Promise<void>;
}

const entry = (team: string, url: string, fields: Partial<IndexEntry> = {}): IndexEntry => ({
  team,
  url,
  title: '',
  description: '',
  headings: '',
  body: '',
  domain: new URL(url).hostname,
  language: 'en',
  fetchedAt: Date.now(),
  ...fields,
});

/** Registers the team contract tests of one SearchIndex. */
export function describeSearchIndexTeamContract(
  name: string,
  setup: () => Promise<SearchIndexFixture>,
): void {
  describe(`${name} search index: data belongs to a team`, () => {
    let fixture: SearchIndexFixture;
    const index = () => fixture.store.searchIndex;
    const urlsOf = async (team: string, words: string[], more: object = {}) =>
      (await index().query({ team, words, limit: 10, ...more })).map((hit) => hit.url);
    beforeAll(async () => {
      fixture = await setup();
    });
    afterAll(() => fixture.close());

    it("finds a team's entries for that team only", async () => {
      await index().clear();
      await index().put(
        entry('team-a', 'https://intranet.example/payroll', { body: 'zebrafinch' }),
      );
      expect(await urlsOf('team-a', ['zebrafinch'])).toEqual(['https://intranet.example/payroll']);
      expect(await urlsOf('team-b', ['zebrafinch'])).toEqual([]);
      expect(await urlsOf('default', ['zebrafinch'])).toEqual([]);
      // A filter that would take every page still takes none of another team's.
      expect(await urlsOf('team-b', ['zebrafinch'], { includeDomains: ['example'] })).toEqual([]);
    });

    it('keeps the same URL of two teams as two entries, replaced and removed apart', async () => {
      await index().clear();
      const url = 'https://shared.example/page';
      await index().put(entry('team-a', url, { title: 'Of A', body: 'heron alpha' }));
      await index().put(entry('team-b', url, { title: 'Of B', body: 'heron beta' }));
      expect((await index().stats()).documents).toBe(2);
      const titleFor = async (team: string) =>
        (await index().query({ team, words: ['heron'], limit: 10 })).map((hit) => hit.title);
      expect(await titleFor('team-a')).toEqual(['Of A']);
      expect(await titleFor('team-b')).toEqual(['Of B']);
      // A's page scraped again replaces A's entry only.
      await index().put(entry('team-a', url, { title: 'Of A again', body: 'heron gamma' }));
      expect(await titleFor('team-a')).toEqual(['Of A again']);
      expect(await urlsOf('team-b', ['beta'])).toEqual([url]);
      expect(await urlsOf('team-a', ['beta'])).toEqual([]);
      // A removing its entry leaves B's.
      expect(await index().remove('team-a', url)).toBe(true);
      expect(await index().remove('team-a', url)).toBe(false);
      expect(await titleFor('team-a')).toEqual([]);
      expect(await titleFor('team-b')).toEqual(['Of B']);
    });

    it("answers search() from the context's team, the default team when it names none", async () => {
      await index().clear();
      await index().put(entry('team-a', 'https://a.example/osprey', { body: 'osprey merger' }));
      await index().put(entry('default', 'https://d.example/osprey', { body: 'osprey library' }));
      const { store } = fixture;
      const urls = async (team?: string) =>
        (
          await search('osprey', { source: 'local' }, { store, ...(team ? { team } : {}) })
        ).web?.map((result) => result.url);
      expect(await urls('team-a')).toEqual(['https://a.example/osprey']);
      expect(await urls('team-b')).toEqual([]);
      expect(await urls()).toEqual(['https://d.example/osprey']);
    });
  });
}
