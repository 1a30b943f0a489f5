/**
 * PostgresStore's search index keeps each team's pages apart (the team contract), on the real
 * PostgreSQL in a database made for this file, and a table of the layout without teams (keyed
 * by URL alone) still opens, its rows given to the default team.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '@trawl/adapters';
import { describeSearchIndexTeamContract } from '../../../../test/contracts/search-index.contract.ts';
import { freshDatabase, type FreshDatabase } from '../../../../test/e2e/shared-services.ts';

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase('search_teams');
});
afterAll(() => database?.drop());

const open = (table = `trawl_${randomUUID().replaceAll('-', '').slice(0, 12)}`) =>
  new PostgresStore({ connectionString: database.url, table });

describeSearchIndexTeamContract('PostgreSQL', () => {
  const store = open();
  return Promise.resolve({ store, close: () => store.close() });
});

describe('a PostgreSQL index table of the layout without teams', () => {
  it('opens, gives its rows to the default team, and takes the same URL for another team', async () => {
    const table = 'trawl_before_teams';
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(`
        CREATE TABLE public."${table}_search" (
          url text PRIMARY KEY, domain text NOT NULL, language text NOT NULL,
          fetched_at bigint NOT NULL, title text NOT NULL, description text NOT NULL,
          headings text NOT NULL, body text NOT NULL,
          tsv tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('simple', title), 'A') ||
            setweight(to_tsvector('simple', headings), 'B') ||
            setweight(to_tsvector('simple', description), 'C') ||
            setweight(to_tsvector('simple', body), 'D')
          ) STORED
        );
        INSERT INTO public."${table}_search" VALUES
          ('https://o.example/kept', 'o.example', 'en', 1, 'Kept', '', '', 'wheatear');
      `);
    } finally {
      await client.end();
    }
    // Two stores open it at once, as two processes of a deployment would.
    const [first, second] = [open(table), open(table)];
    const urls = (store: PostgresStore, team: string) =>
      store.searchIndex
        .query({ team, words: ['wheatear'], limit: 10 })
        .then((hits) => hits.map((hit) => hit.url));
    const [ofDefault, ofTeamA] = await Promise.all([
      urls(first, 'default'),
      urls(second, 'team-a'),
    ]);
    expect(ofDefault).toEqual(['https://o.example/kept']);
    expect(ofTeamA).toEqual([]);
    await first.searchIndex.put({
      team: 'team-a',
      url: 'https://o.example/kept',
      title: 'Of A',
      description: '',
      headings: '',
      body: 'wheatear',
      domain: 'o.example',
      language: 'en',
      fetchedAt: 2,
    });
    expect(await urls(second, 'team-a')).toEqual(['https://o.example/kept']);
    expect((await second.searchIndex.stats()).documents).toBe(2);
    await Promise.all([first.close(), second.close()]);
  });
});
