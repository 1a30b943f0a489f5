/**
 * Counters in PostgreSQL, shared by every process pointing at one database: what two API
 * processes on a PostgreSQL store without Redis count as one (credit balances, token days, rate
 * windows, scrape slots). Every operation that reads and then writes runs in one transaction that
 * first upserts the key's row (`INSERT … ON CONFLICT DO UPDATE … RETURNING`): that row lock
 * serialises the key's writers across processes, so a reservation or an add cannot interleave
 * with another's. Times are the database's (`now()`), so the machines' clocks do not matter.
 *
 * Two tables, created on first use: `<table>` (key, fields as jsonb, expires_at) and
 * `<table>_leases` (key, id, amount, until) for slots and reservations. A key's fields start
 * again from its seed once expired; a lease lapses at its `until`. Expired rows are swept now and
 * then.
 */
import { randomUUID } from 'node:crypto';
import { DatabaseError, escapeIdentifier, Pool } from 'pg';
import {
  StoreError,
  TrawlError,
  type CounterAddOptions,
  type CounterFields,
  type CounterHit,
  type CounterReservation,
  type Counters,
} from '@trawl/core';
import { assertName, reasonOf } from '../store/input.ts';
import {
  assertIdentifier,
  describeTarget,
  inTransaction,
  withDefaultUser,
} from '../store/postgres.ts';

/** Options of `PostgresCounters`. */
export interface PostgresCountersOptions {
  /** Where PostgreSQL listens (the store's). @default 'postgres://127.0.0.1:5432/test' */
  connectionString?: string;
  /** The counters' table; its leases go in `<table>_leases`. @default 'trawl_counters' */
  table?: string;
  /** The schema of the tables. @default 'public' */
  schema?: string;
  /** The most connections held open at once. @default 5 */
  maxConnections?: number;
  /** How long one statement may run before failing with STORE_UNAVAILABLE. @default 5000 */
  queryTimeoutMs?: number;
}

/** Writes between two sweeps of expired rows. */
const writesPerSweep = 1000;
const ms = `$3::double precision * interval '1 millisecond'`;

/** What one row-locking upsert does to the key's expiry: keep it, push it out to at least, set. */
type Expiry = 'keep' | 'extend' | 'set';

/** `Counters` on PostgreSQL (node-postgres, the client the PostgreSQL store uses). */
export class PostgresCounters implements Counters {
  readonly #pool: Pool;
  readonly #table: string;
  readonly #leases: string;
  readonly #schema: string;
  readonly #target: string;
  #ready: Promise<void> | undefined;
  #writes = 0;
  #closed = false;

  /** @throws ValidationError (BAD_REQUEST) when `table` or `schema` cannot be a PostgreSQL name. */
  constructor(options: PostgresCountersOptions = {}) {
    const connectionString = options.connectionString ?? 'postgres://127.0.0.1:5432/test';
    const table = options.table ?? 'trawl_counters';
    this.#schema = options.schema ?? 'public';
    assertIdentifier('table', `${table}_leases`);
    assertIdentifier('schema', this.#schema);
    const schema = escapeIdentifier(this.#schema);
    this.#table = `${schema}.${escapeIdentifier(table)}`;
    this.#leases = `${schema}.${escapeIdentifier(`${table}_leases`)}`;
    this.#target = describeTarget(connectionString);
    const queryTimeoutMs = options.queryTimeoutMs ?? 5000;
    this.#pool = new Pool({
      connectionString: withDefaultUser(connectionString),
      max: options.maxConnections ?? 5,
      connectionTimeoutMillis: 5000,
      statement_timeout: queryTimeoutMs,
      query_timeout: queryTimeoutMs + 1000,
    });
    // A dropped idle connection is replaced on the next call; without a listener it would crash.
    this.#pool.on('error', () => undefined);
  }

  async hit(key: string, limit: number, windowMs: number): Promise<CounterHit> {
    return this.#transaction('count', key, async (query, locked) => {
      const { fields, leftMs } = await locked({}, Math.max(1, windowMs), 'keep');
      const count = fields['count'] ?? 0;
      if (count >= limit) return { allowed: false, count, resetInMs: leftMs };
      await query(`UPDATE ${this.#table} SET fields = $2::jsonb WHERE key = $1`, [
        key,
        JSON.stringify({ count: count + 1 }),
      ]);
      return { allowed: true, count: count + 1, resetInMs: leftMs };
    });
  }

  async acquire(key: string, limit: number, leaseMs: number): Promise<string | undefined> {
    return this.#transaction('take a slot', key, async (query, locked) => {
      await locked({}, leaseMs, 'extend');
      if ((await this.#live(query, key, '')).count >= limit) return undefined;
      const slot = randomUUID();
      await this.#lease(query, key, slot, 1, leaseMs);
      return slot;
    });
  }

  async renew(key: string, slot: string, leaseMs: number): Promise<boolean> {
    const rows = await this.#query(
      'renew a slot',
      key,
      `UPDATE ${this.#leases} SET until = now() + ${ms}
        WHERE key = $1 AND id = $2 AND until > now() RETURNING 1`,
      [key, slot, Math.max(1, leaseMs)],
    );
    return rows.length > 0;
  }

  async release(key: string, slot: string): Promise<void> {
    await this.#query(
      'give a slot back',
      key,
      `DELETE FROM ${this.#leases} WHERE key = $1 AND id = $2`,
      [key, slot],
    );
  }

  async held(key: string): Promise<number> {
    return (
      await this.#live((sql, params) => this.#query('count slots', key, sql, params), key, '')
    ).count;
  }

  async add(
    key: string,
    deltas: CounterFields,
    options: CounterAddOptions,
  ): Promise<CounterFields> {
    return this.#transaction('add', key, async (query, locked) => {
      const { fields } = await locked(options.seed ?? {}, options.ttlMs, 'set');
      for (const [field, delta] of Object.entries(deltas))
        fields[field] = (fields[field] ?? 0) + Math.trunc(delta);
      await query(`UPDATE ${this.#table} SET fields = $2::jsonb WHERE key = $1`, [
        key,
        JSON.stringify(fields),
      ]);
      if (options.settles !== undefined)
        await query(`DELETE FROM ${this.#leases} WHERE key = $1 AND id = $2`, [
          key,
          options.settles,
        ]);
      return fields;
    });
  }

  async reserve(key: string, reservation: CounterReservation): Promise<boolean> {
    const { id, amount, ceiling, ...options } = reservation;
    return this.#transaction('reserve', key, async (query, locked) => {
      const { fields } = await locked(options.seed ?? {}, options.ttlMs, 'extend');
      let total = Math.trunc(amount) + (await this.#live(query, key, id)).sum;
      for (const [field, weight] of Object.entries(ceiling.weights))
        total += weight * (fields[field] ?? 0);
      if (total > ceiling.max) return false;
      await this.#lease(query, key, id, Math.trunc(amount), options.leaseMs);
      return true;
    });
  }

  async unreserve(key: string, id: string): Promise<void> {
    await this.release(key, id);
  }

  async reserved(key: string): Promise<number> {
    return (
      await this.#live((sql, params) => this.#query('sum reservations', key, sql, params), key, '')
    ).sum;
  }

  async read(key: string): Promise<CounterFields | undefined> {
    const rows = await this.#query(
      'read',
      key,
      `SELECT fields FROM ${this.#table} WHERE key = $1 AND expires_at > now()`,
      [key],
    );
    const fields = rows[0]?.['fields'] as CounterFields | undefined;
    return fields && Object.keys(fields).length > 0 ? numbers(fields) : undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  /** The live leases of `key` (`except` left out of the sum): how many, and their amounts. */
  async #live(query: Query, key: string, except: string): Promise<{ count: number; sum: number }> {
    const rows = await query(
      `SELECT count(*)::bigint AS count,
          coalesce(sum(amount) FILTER (WHERE id <> $2), 0)::bigint AS sum
        FROM ${this.#leases} WHERE key = $1 AND until > now()`,
      [key, except],
    );
    return { count: Number(rows[0]?.['count'] ?? 0), sum: Number(rows[0]?.['sum'] ?? 0) };
  }

  /** Holds (or holds again, with its new amount) the lease `id` of `key`. */
  async #lease(query: Query, key: string, id: string, amount: number, leaseMs: number) {
    await query(
      `INSERT INTO ${this.#leases} (key, id, amount, until) VALUES ($1, $2, $4, now() + ${ms})
        ON CONFLICT (key, id) DO UPDATE SET amount = excluded.amount, until = excluded.until`,
      [key, id, Math.max(1, leaseMs), amount],
    );
  }

  /**
   * Runs `work` in one transaction, handing it `locked`: the upsert that locks the key's row
   * (starting it from `seed` when missing or expired) and returns its fields and time left.
   */
  async #transaction<T>(
    action: string,
    key: string,
    work: (
      query: Query,
      locked: (
        seed: CounterFields,
        ttlMs: number,
        expiry: Expiry,
      ) => Promise<{ fields: CounterFields; leftMs: number }>,
    ) => Promise<T>,
  ): Promise<T> {
    assertName('key', key, { allowNul: false });
    await this.#connect(action);
    try {
      const result = await inTransaction(this.#pool, (client) => {
        const query: Query = async (sql, params) =>
          (await client.query<Record<string, unknown>>(sql, params)).rows;
        return work(query, async (seed, ttlMs, expiry) => {
          const rows = await query(
            `INSERT INTO ${this.#table} AS c (key, fields, expires_at)
              VALUES ($1, $2::jsonb, now() + ${ms})
              ON CONFLICT (key) DO UPDATE SET
                fields = CASE WHEN c.expires_at <= now() THEN excluded.fields ELSE c.fields END,
                expires_at = CASE
                  WHEN c.expires_at <= now() OR $4 = 'set' THEN excluded.expires_at
                  WHEN $4 = 'extend' THEN greatest(c.expires_at, excluded.expires_at)
                  ELSE c.expires_at END
              RETURNING fields,
                greatest(0, ceil(extract(epoch FROM expires_at - now()) * 1000))::bigint AS left_ms`,
            [key, JSON.stringify(seed), Math.max(1, ttlMs), expiry],
          );
          return {
            fields: numbers((rows[0]?.['fields'] ?? {}) as CounterFields),
            leftMs: Number(rows[0]?.['left_ms'] ?? 0),
          };
        });
      });
      if (++this.#writes >= writesPerSweep) {
        this.#writes = 0;
        await this.#sweep().catch(() => undefined);
      }
      return result;
    } catch (error) {
      throw this.#failure(action, error);
    }
  }

  async #query(
    action: string,
    key: string,
    sql: string,
    params: unknown[],
  ): Promise<Record<string, unknown>[]> {
    assertName('key', key, { allowNul: false });
    await this.#connect(action);
    try {
      return (await this.#pool.query(sql, params)).rows as Record<string, unknown>[];
    } catch (error) {
      throw this.#failure(action, error);
    }
  }

  /** Makes sure the tables exist before the first statement. */
  async #connect(action: string): Promise<void> {
    if (this.#closed) throw new StoreError('The PostgreSQL counters are closed');
    try {
      await (this.#ready ??= this.#createTables().catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      }));
    } catch (error) {
      throw this.#failure(action, error);
    }
  }

  /** Creates the schema and tables unless they exist; safe when processes race to it. */
  async #createTables(): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      await client.query(
        "SELECT pg_advisory_xact_lock(hashtextextended('trawl-counters:' || $1, 0))",
        [this.#table],
      );
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(this.#schema)}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
        key text COLLATE "C" PRIMARY KEY,
        fields jsonb NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#leases} (
        key text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        amount bigint NOT NULL,
        until timestamptz NOT NULL,
        PRIMARY KEY (key, id)
      )`);
    });
  }

  /** Drops expired keys and lapsed leases, a bounded number at a time. */
  async #sweep(): Promise<void> {
    await this.#pool.query(
      `DELETE FROM ${this.#leases} WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM ${this.#leases} WHERE until <= now() LIMIT 1000))`,
    );
    await this.#pool.query(
      `DELETE FROM ${this.#table} c WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM ${this.#table} WHERE expires_at <= now() LIMIT 1000))
        AND NOT EXISTS (SELECT 1 FROM ${this.#leases} l WHERE l.key = c.key)`,
    );
  }

  #failure(action: string, error: unknown): TrawlError {
    if (error instanceof TrawlError) return error;
    let reason = reasonOf(error);
    if (error instanceof DatabaseError && error.code) reason += ` (SQLSTATE ${error.code})`;
    return new StoreError(`PostgreSQL counters at ${this.#target} failed to ${action}: ${reason}`, {
      cause: error,
    });
  }
}

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/** jsonb numbers come back as numbers; bigint-sized ones as they are. */
function numbers(fields: CounterFields): CounterFields {
  return Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, Number(value)]));
}
