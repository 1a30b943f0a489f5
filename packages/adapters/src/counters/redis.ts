/**
 * Counters in Redis, shared by every process pointing at one server and prefix: the team limits
 * of `trawl serve` processes (rate windows, scrape slots, credit totals). Each operation is one
 * Lua script, so a read and the write that depends on it cannot interleave with another
 * process's; scripts read Redis's own clock (TIME), so the clocks of the machines do not matter.
 *
 * Layout: `<prefix>:limits:<key>` — a string counter with a PX expiry for a rate window; a
 * sorted set of slot ids scored by their lease's end for slots; a hash for totals, and beside it
 * `<…key>:reservations`, a hash of reservation id → `amount:leaseEnd`. Every key expires: a
 * window at its end, a slot set after its latest lease, totals and their reservations `ttlMs`
 * after their last write.
 */
import { randomUUID } from 'node:crypto';
import type {
  CounterAddOptions,
  CounterFields,
  CounterHit,
  CounterReservation,
  Counters,
} from '@trawl/core';
import { openRedisPart, type RedisConnection, type RedisPartOptions } from '../redis/connection.ts';
import { script } from '../store/redis-scripts.ts';
import { assertName } from '../store/input.ts';

/** Options of `RedisCounters`. */
/** Options of `RedisCounters`: where Redis is and the key prefix (share the store's). */
export type RedisCountersOptions = RedisPartOptions;

/** KEYS: window. ARGV: limit, window ms. Returns [counted 0|1, count, ms left]. */
const hitScript = script(`
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then
  return {0, count, redis.call('PTTL', KEYS[1])}
end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, count, redis.call('PTTL', KEYS[1])}
`);

/** The server's time in ms, inside a script. */
const now = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`;

/** KEYS: slot set. ARGV: limit, lease ms, slot id. Returns 1 when the slot was taken. */
const acquireScript = script(`
${now}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`);

/** KEYS: slot set. ARGV: lease ms, slot id. Returns 1 when the slot was still held. */
const renewScript = script(`
${now}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
`);

/** KEYS: slot set. Returns the live slots. */
const heldScript = script(`
${now}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`);

/**
 * KEYS: hash, its reservations. ARGV: ttl ms, seed JSON ('' for none), deltas JSON, reservation
 * settled ('' for none). Returns HGETALL after.
 */
const addScript = script(`
if ARGV[4] ~= '' then redis.call('HDEL', KEYS[2], ARGV[4]) end
if ARGV[2] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
  for field, value in pairs(cjson.decode(ARGV[2])) do
    redis.call('HSET', KEYS[1], field, string.format('%d', value))
  end
end
for field, delta in pairs(cjson.decode(ARGV[3])) do
  redis.call('HINCRBY', KEYS[1], field, string.format('%d', delta))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`);

/** Drops the lapsed reservations of KEYS[2] (at `now`) and sums the others, except ARGV id. */
const liveReservations = `
local reserved = 0
local entries = redis.call('HGETALL', KEYS[2])
for index = 1, #entries, 2 do
  local amount, untilMs = string.match(entries[index + 1], '^(-?%d+):(%d+)$')
  if tonumber(untilMs) <= now then
    redis.call('HDEL', KEYS[2], entries[index])
  elseif entries[index] ~= skip then
    reserved = reserved + tonumber(amount)
  end
end`;

/**
 * KEYS: totals hash, reservations hash. ARGV: id, amount, max, weights JSON, lease ms, ttl ms,
 * seed JSON ('' for none). Returns 1 when reserved.
 */
const reserveScript = script(`
${now}
local skip = ARGV[1]
${liveReservations}
if ARGV[7] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
  for field, value in pairs(cjson.decode(ARGV[7])) do
    redis.call('HSET', KEYS[1], field, string.format('%d', value))
  end
end
local total = reserved + tonumber(ARGV[2])
for field, weight in pairs(cjson.decode(ARGV[4])) do
  total = total + weight * tonumber(redis.call('HGET', KEYS[1], field) or '0')
end
if total > tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], string.format('%d:%d', tonumber(ARGV[2]), now + tonumber(ARGV[5])))
for _, name in ipairs(KEYS) do
  if redis.call('PTTL', name) < tonumber(ARGV[6]) then redis.call('PEXPIRE', name, ARGV[6]) end
end
return 1
`);

/** KEYS: totals hash, reservations hash. Returns the sum of the live reservations. */
const reservedScript = script(`
${now}
local skip = ''
${liveReservations}
return reserved
`);

/**
 * `Counters` on Redis (node-redis, the client the Redis store uses).
 *
 * @throws StoreError (STORE_UNAVAILABLE, retryable) from every method when Redis cannot be
 * reached or does not answer in time; ValidationError (BAD_REQUEST) for a bad URL or prefix.
 */
export class RedisCounters implements Counters {
  readonly #prefix: string;
  readonly #redis: RedisConnection;

  constructor(options: RedisCountersOptions = {}) {
    ({ prefix: this.#prefix, redis: this.#redis } = openRedisPart(options, 'Redis counters'));
    assertName('prefix', this.#prefix, { allowNul: false });
  }

  async hit(key: string, limit: number, windowMs: number): Promise<CounterHit> {
    const [counted, count, leftMs] = (await this.#script('count', hitScript, key, [
      String(limit),
      String(Math.max(1, Math.round(windowMs))),
    ])) as [number, number, number];
    return { allowed: counted === 1, count, resetInMs: Math.max(0, leftMs) };
  }

  async acquire(key: string, limit: number, leaseMs: number): Promise<string | undefined> {
    const slot = randomUUID();
    const taken = await this.#script('take a slot', acquireScript, key, [
      String(limit),
      String(Math.max(1, Math.round(leaseMs))),
      slot,
    ]);
    return taken === 1 ? slot : undefined;
  }

  async renew(key: string, slot: string, leaseMs: number): Promise<boolean> {
    const held = await this.#script('renew a slot', renewScript, key, [
      String(Math.max(1, Math.round(leaseMs))),
      slot,
    ]);
    return held === 1;
  }

  async release(key: string, slot: string): Promise<void> {
    const name = this.#key(key);
    await this.#redis.run('give a slot back', (client) =>
      this.#redis.call(client, client.zRem(name, slot)),
    );
  }

  async held(key: string): Promise<number> {
    return (await this.#script('count slots', heldScript, key, [])) as number;
  }

  async add(
    key: string,
    deltas: CounterFields,
    options: CounterAddOptions,
  ): Promise<CounterFields> {
    const fields = (await this.#script(
      'add',
      addScript,
      key,
      [
        String(Math.max(1, Math.round(options.ttlMs))),
        options.seed ? JSON.stringify(options.seed) : '',
        JSON.stringify(deltas),
        options.settles ?? '',
      ],
      true,
    )) as string[];
    return pairsOf(fields);
  }

  async reserve(key: string, reservation: CounterReservation): Promise<boolean> {
    const { id, amount, ceiling, ...options } = reservation;
    const taken = await this.#script(
      'reserve',
      reserveScript,
      key,
      [
        id,
        String(Math.trunc(amount)),
        String(ceiling.max),
        JSON.stringify(ceiling.weights),
        String(Math.max(1, Math.round(options.leaseMs))),
        String(Math.max(1, Math.round(options.ttlMs))),
        options.seed ? JSON.stringify(options.seed) : '',
      ],
      true,
    );
    return taken === 1;
  }

  async unreserve(key: string, id: string): Promise<void> {
    const name = `${this.#key(key)}:reservations`;
    await this.#redis.run('drop a reservation', (client) =>
      this.#redis.call(client, client.hDel(name, id)),
    );
  }

  async reserved(key: string): Promise<number> {
    return (await this.#script('sum reservations', reservedScript, key, [], true)) as number;
  }

  async read(key: string): Promise<CounterFields | undefined> {
    const name = this.#key(key);
    const fields = await this.#redis.run('read', (client) =>
      this.#redis.call(client, client.hGetAll(name)),
    );
    const entries = Object.entries(fields);
    return entries.length === 0
      ? undefined
      : Object.fromEntries(entries.map(([field, value]) => [field, Number(value)]));
  }

  close(): Promise<void> {
    return this.#redis.close();
  }

  #key(key: string): string {
    assertName('key', key, { allowNul: false });
    return `${this.#prefix}:limits:${key}`;
  }

  #script(
    action: string,
    code: ReturnType<typeof script>,
    key: string,
    args: string[],
    withReservations = false,
  ): Promise<unknown> {
    const name = this.#key(key);
    const keys = withReservations ? [name, `${name}:reservations`] : [name];
    return this.#redis.run(action, (client) => this.#redis.eval(client, code, keys, args));
  }
}

/** HGETALL's flat reply as fields. */
function pairsOf(flat: string[]): CounterFields {
  const fields: CounterFields = {};
  for (let index = 0; index + 1 < flat.length; index += 2)
    fields[flat[index] as string] = Number(flat[index + 1]);
  return fields;
}
