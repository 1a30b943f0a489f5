/**
 * PostgresCounters against the real PostgreSQL on 127.0.0.1:5432, database `test`: the Counters
 * contract with two instances (two processes' worth of pools) sharing one count, in a schema of
 * this run, dropped after.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { Pool } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCounters } from '@trawl/adapters';
import { describeCountersContract } from '../../../../test/contracts/counters.contract.ts';

const connectionString = 'postgres://127.0.0.1:5432/test';
const schema = `trawl_counters_${randomUUID().replaceAll('-', '')}`;
const [one, two] = [
  new PostgresCounters({ connectionString, schema }),
  new PostgresCounters({ connectionString, schema }),
];
const raw = new Pool({
  host: '127.0.0.1',
  port: 5432,
  database: 'test',
  user: process.env['PGUSER'] ?? userInfo().username,
  max: 1,
});
afterAll(async () => {
  await Promise.all([one.close(), two.close()]);
  await raw.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await raw.end();
});

describeCountersContract('PostgreSQL', () => [one, two]);

describe('PostgresCounters', () => {
  it('starts an expired key again from its seed', async () => {
    const key = `credits:${randomUUID()}`;
    await one.add(key, { debited: 3 }, { ttlMs: 500, seed: { debited: 10 } });
    expect(await two.read(key)).toEqual({ debited: 13 });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await two.read(key)).toBeUndefined();
    expect(await two.add(key, { debited: 1 }, { ttlMs: 60_000, seed: { debited: 20 } })).toEqual({
      debited: 21,
    });
  });
});
