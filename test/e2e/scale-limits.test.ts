/**
 * Team limits across two `trawl serve` processes (issue 21, item 6): both share one PostgreSQL
 * store and one Redis (TRAWL_REDIS_URL, a key prefix of this file), and a team spreading its
 * requests over both meets one rate limit, one concurrency limit and one credit balance. Each
 * process alone would let through what its own counters allow.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';
import {
  freshDatabase,
  redisPrefix,
  redisUrl,
  type FreshDatabase,
  type RedisPrefix,
} from './shared-services.ts';

const fixture = inject('fixtureUrl');

let database: FreshDatabase;
let redis: RedisPrefix;
const started: KeyedServeProcess[] = [];

beforeAll(async () => {
  database = await freshDatabase('limits');
  redis = redisPrefix('limits');
});
afterAll(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
  await redis.clean();
  await database.drop();
});

/** Two API processes on the shared store and Redis, with `env` besides. */
async function twoProcesses(env: Record<string, string>): Promise<KeyedServeProcess[]> {
  const shared = {
    TRAWL_STORE: 'postgres',
    TRAWL_DATABASE_URL: database.url,
    TRAWL_REDIS_URL: redisUrl,
    TRAWL_REDIS_PREFIX: redis.prefix,
    ...env,
  };
  // One after the other: the first creates the store's table.
  const first = await serveProcess(shared);
  started.push(first);
  const second = await serveProcess(shared);
  started.push(second);
  return [first, second];
}

async function stopAll(): Promise<void> {
  await Promise.all(started.splice(0).map((server) => server.stop()));
}

describe('team limits shared by two API processes', () => {
  it('accepts exactly N of N+k requests per minute spread over both', async () => {
    const perMinute = 5;
    const servers = await twoProcesses({ TRAWL_RATE_LIMIT_PER_MINUTE: String(perMinute) });
    try {
      const answers = await Promise.all(
        Array.from({ length: perMinute + 4 }, (_, index) =>
          servers[index % 2]!.call('GET', '/v2/team/credit-usage'),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(perMinute);
      expect(statuses.filter((status) => status === 429)).toHaveLength(4);
      // Counted under the configured prefix, with an expiry.
      expect(await redis.keys('limits:rate:*')).not.toHaveLength(0);
    } finally {
      await stopAll();
    }
  });

  it('runs one scrape at a time for a team limited to one, whichever process takes it', async () => {
    const servers = await twoProcesses({ TRAWL_TEAM_CONCURRENCY: '1' });
    try {
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
      const check = await servers[0]!.call('GET', '/v2/concurrency-check');
      expect(check.body['concurrency']).toBe(0);
    } finally {
      await stopAll();
    }
  });

  it('keeps one credit balance: concurrent charges in both add up, then both refuse', async () => {
    const credits = 8;
    // A store and counters of its own: the credits the tests above spent count against the team,
    // and admission reserves against what is left (nothing races past it any more).
    const own = await freshDatabase('limits_credits');
    const ownRedis = redisPrefix('limits-credits');
    const servers = await twoProcesses({
      TRAWL_TEAM_CREDITS: String(credits),
      TRAWL_DATABASE_URL: own.url,
      TRAWL_REDIS_PREFIX: ownRedis.prefix,
    });
    try {
      // All start before any is charged, so all are let in; each charge must still count.
      const answers = await Promise.all(
        Array.from({ length: credits }, (_, index) =>
          servers[index % 2]!.call('POST', '/v2/scrape', {
            url: `${fixture}/?credit=${index}`,
            formats: ['markdown'],
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(credits).fill(200));
      for (const server of servers) {
        const usage = await server.call('GET', '/v2/team/credit-usage');
        expect(usage.body['data']).toMatchObject({ remainingCredits: 0 });
        const refused = await server.call('POST', '/v2/scrape', { url: `${fixture}/?late=1` });
        expect(refused.status).toBe(402);
      }
      expect(await ownRedis.keys('limits:credits:*')).not.toHaveLength(0);
    } finally {
      await stopAll();
      await ownRedis.clean();
      await own.drop();
    }
  });
});
