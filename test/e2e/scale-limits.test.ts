/**
 * Team limits across two `trawl serve` processes: both share one PostgreSQL
 * store, and their counters live in one Redis (TRAWL_REDIS_URL, a key prefix of each test) or,
 * without Redis, in that PostgreSQL database. A team spreading its requests over both meets one
 * rate limit, one concurrency limit and one credit balance. Each process alone would let through
 * what its own counters allow.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { apiProcessPair, type ApiProcessPair } from './split-deployment.ts';

const fixture = inject('fixtureUrl');

let pair: ApiProcessPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

describe('team limits shared by two API processes', () => {
  it('accepts exactly N of N+k requests per minute spread over both', async () => {
    const perMinute = 5;
    pair = await apiProcessPair('limits_rate', { TRAWL_RATE_LIMIT_PER_MINUTE: String(perMinute) });
    const servers = pair.processes;
    const answers = await Promise.all(
      Array.from({ length: perMinute + 4 }, (_, index) =>
        servers[index % 2]!.call('GET', '/v2/team/credit-usage'),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(perMinute);
    expect(statuses.filter((status) => status === 429)).toHaveLength(4);
    // Counted under the configured prefix, with an expiry.
    expect(await pair.redis!.keys('limits:rate:*')).not.toHaveLength(0);
  });

  it('runs one scrape at a time for a team limited to one, whichever process takes it', async () => {
    pair = await apiProcessPair('limits_slots', { TRAWL_TEAM_CONCURRENCY: '1' });
    const servers = pair.processes;
    const answers = await Promise.all(
      servers.map((server, index) =>
        server.call('POST', '/v2/scrape', {
          url: `${fixture}/slow?ms=1500&process=${index}`,
          formats: ['markdown'],
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const limited = answers.map(
      (answer) =>
        (answer.body['data'] as { metadata: Record<string, unknown> }).metadata[
          'concurrencyLimited'
        ] === true,
    );
    // One ran at once; the other waited for the slot the first held in the other process.
    expect(limited.filter(Boolean)).toHaveLength(1);
    const check = await servers[0].call('GET', '/v2/concurrency-check');
    expect(check.body['concurrency']).toBe(0);
  });

  for (const redis of [true, false])
    it(`keeps one credit balance ${redis ? 'in Redis' : 'in PostgreSQL, with no Redis'}: concurrent charges in both add up, then both refuse`, async () => {
      const credits = 8;
      pair = await apiProcessPair(
        redis ? 'limits_credits' : 'limits_credits_pg',
        { TRAWL_TEAM_CREDITS: String(credits) },
        { redis },
      );
      const servers = pair.processes;
      // Twice the credits at once, spread over both: exactly the credits are let through.
      const answers = await Promise.all(
        Array.from({ length: credits * 2 }, (_, index) =>
          servers[index % 2]!.call('POST', '/v2/scrape', {
            url: `${fixture}/slow?ms=300&credit=${index}`,
            formats: ['markdown'],
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(credits);
      expect(statuses.filter((status) => status === 402)).toHaveLength(credits);
      for (const server of servers) {
        const usage = await server.call('GET', '/v2/team/credit-usage');
        expect(usage.body['data']).toMatchObject({ remainingCredits: 0, creditsUsed: credits });
        const refused = await server.call('POST', '/v2/scrape', { url: `${fixture}/?late=1` });
        expect(refused.status).toBe(402);
      }
      if (pair.redis) expect(await pair.redis.keys('limits:credits:*')).not.toHaveLength(0);
    });
});
