/**
 * A Store in one PostgreSQL table, shared by every process that points at the same database.
 *
 * Why `pg` (node-postgres) rather than keyv with @keyv/postgres: `Store.list` needs an ordered
 * scan of a key prefix with a cursor and a limit, which keyv's interface has no call for, and we
 * want control of the table (a "C" collation, expiry checked by the database). `pg` is pure
 * JavaScript; its optional `pg-native` binding is not used, as a native addon built for one Node
 * version breaks on another.
 *
 * The table, created on first use:
 *
 *     namespace text COLLATE "C", key text COLLATE "C", value json, expires_at timestamptz,
 *     PRIMARY KEY (namespace, key), plus a partial index on expires_at for the sweep.
 *
 * `key` uses the "C" collation so that ORDER BY and `>` compare bytes, as Redis and SQLite do, and
 * `LIKE 'prefix%'` can walk the primary key index. Bytes of UTF-8 sort in code point order: the
 * same as JavaScript's `<` except when characters above U+FFFF meet ones in U+E000–U+FFFF.
 *
 * `value` is `json`, not `jsonb`: jsonb rejects the escape `\u0000` and lone surrogates (both occur
 * in scraped text), reorders object keys and drops duplicates, while json keeps the text the
 * caller wrote. The contract rules out queries inside values, which is what jsonb is for.
 *
 * Expiry is computed and checked with the database clock (`now()`), so processes with skewed
 * clocks agree on what has expired. Needs PostgreSQL 11 or later (`hashtextextended`).
 */
import { userInfo } from 'node:os';
import { DatabaseError, escapeIdentifier, Pool, type PoolClient, type QueryResultRow } from 'pg';
import { StoreError, TrawlError, ValidationError } from '@trawl/core';
import type { Store, StoreEntry, StoreListOptions, StoreSetOptions } from '@trawl/core';
import { assertName, limitOf, reasonOf, toJson, ttlOf } from './input.ts';
import { PostgresSearchIndex } from './postgres-search-index.ts';

/** Options of `PostgresStore`. */
export interface PostgresStoreOptions {
  /**
   * Where PostgreSQL listens: `postgres://[user[:password]@]host[:port]/database[?sslmode=…]`.
   * Parts left out fall back to libpq's PG* environment variables, as with `psql`.
   * @default 'postgres://127.0.0.1:5432/test'
   */
  connectionString?: string;
  /**
   * The table holding the entries; created on first use when missing.
   * @default 'trawl_kv'
   */
  table?: string;
  /**
   * The schema of the table; created on first use when missing.
   * @default 'public'
   */
  schema?: string;
  /**
   * How long to wait for a connection, handshake included, before failing with STORE_UNAVAILABLE.
   * @default 5000
   */
  connectTimeoutMs?: number;
  /**
   * How long one statement may run before failing with STORE_UNAVAILABLE.
   * @default 5000
   */
  queryTimeoutMs?: number;
  /**
   * The most connections the store holds open at once.
   * @default 10
   */
  maxConnections?: number;
}

/** The defaults of `PostgresStoreOptions`, in one place. */
const defaults = {
  connectionString: 'postgres://127.0.0.1:5432/test',
  table: 'trawl_kv',
  schema: 'public',
  connectTimeoutMs: 5000,
  queryTimeoutMs: 5000,
  maxConnections: 10,
} as const satisfies Required<PostgresStoreOptions>;

/** Writes between two sweeps of expired rows: bounds the garbage at a negligible cost. */
const writesPerSweep = 1000;

/** PostgreSQL silently truncates longer identifiers, which could make two tables one. */
const maxIdentifierBytes = 63;

/** The SQL of each operation, built once per table. */
function statements(table: string) {
  const live = '(expires_at IS NULL OR expires_at > now())';
  return {
    get: `SELECT value FROM ${table} WHERE namespace = $1 AND key = $2 AND ${live}`,
    // A NULL ttl makes now() + NULL, which is NULL: no expiry.
    set: `INSERT INTO ${table} (namespace, key, value, expires_at)
      VALUES ($1, $2, $3::json, now() + $4::double precision * interval '1 millisecond')
      ON CONFLICT (namespace, key)
      DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    // An expired row still exists until swept, but the contract counts it as absent.
    delete: `DELETE FROM ${table} WHERE namespace = $1 AND key = $2 RETURNING ${live} AS live`,
    // LIKE with a constant prefix on a "C" column becomes a range scan of the primary key.
    list: `SELECT key, value FROM ${table}
      WHERE namespace = $1 AND key LIKE $2 AND ($3::text IS NULL OR key > $3) AND ${live}
      ORDER BY key LIMIT $4`,
    // Taken when free, expired, or held by the same owner (json keeps its text, so ::text compares
    // what was written); RETURNING says whether the row was written.
    claim: `INSERT INTO ${table} AS held (namespace, key, value, expires_at)
      VALUES ($1, $2, $3::json, now() + $4::double precision * interval '1 millisecond')
      ON CONFLICT (namespace, key)
      DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
      WHERE held.expires_at <= now() OR held.value::text = excluded.value::text
      RETURNING 1 AS taken`,
    clear: `DELETE FROM ${table} WHERE namespace = $1`,
    // Bounded, and by ctid so that a row rewritten since the inner select is left alone.
    sweep: `DELETE FROM ${table}
      WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE expires_at <= now() LIMIT 1000))
        AND expires_at <= now()`,
  };
}

/** Escapes LIKE's wildcards (and its escape character), so a prefix matches only itself. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
}

/** Checks a table or schema name; any text is allowed, since it is always quoted. */
export function assertIdentifier(role: 'table' | 'schema', name: string): void {
  assertName(role, name, { allowNul: false });
  if (name === '' || Buffer.byteLength(name) > maxIdentifierBytes) {
    throw new ValidationError(
      `The PostgreSQL ${role} name ${JSON.stringify(name)} must be 1 to ` +
        `${maxIdentifierBytes} bytes long`,
    );
  }
}

/**
 * Fills in the user name the way libpq (psql) does when none is given: from the operating system.
 * node-postgres falls back to $PGUSER, then $USER, and sends no name at all when both are unset,
 * as in many services and containers; the server then refuses the connection.
 */
export function withDefaultUser(connectionString: string): string {
  if (process.env['PGUSER'] || process.env['USER'] || process.env['USERNAME']) {
    return connectionString;
  }
  try {
    const url = new URL(connectionString);
    if (url.username !== '' || !['postgres:', 'postgresql:'].includes(url.protocol)) {
      return connectionString;
    }
    url.username = encodeURIComponent(userInfo().username);
    return url.href;
  } catch {
    // Not a URL (pg also takes socket paths), or no user account: leave it to pg.
    return connectionString;
  }
}

/** Names the server for messages without its password. */
export function describeTarget(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'the configured server';
  }
}

/**
 * Runs `work` in one transaction on a connection of `pool`: committed when it resolves, rolled
 * back when it throws, and then the connection is discarded rather than reused.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let failure: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(failure instanceof Error ? failure : undefined);
  }
}

/**
 * A Store in a PostgreSQL table, shared between processes. It connects, and creates its table if
 * needed, on the first call.
 *
 * @throws StoreError (STORE_UNAVAILABLE, retryable) from every method when PostgreSQL cannot be
 * reached, refuses a statement or does not answer in time; ValidationError (BAD_REQUEST) for a
 * namespace or key holding U+0000 or a lone surrogate, a value with no JSON form or a NaN `ttlMs`
 * or `limit`.
 */
export class PostgresStore implements Store {
  readonly capabilities = { persistent: true, shared: true };
  /** PostgreSQL full-text search over the pages scraped with this store, in `<table>_search`. */
  readonly searchIndex: PostgresSearchIndex;
  readonly #pool: Pool;
  readonly #schema: string;
  /** `"schema"."table"`, quoted for SQL. */
  readonly #table: string;
  readonly #sql: ReturnType<typeof statements>;
  /** `host:port/database` for messages: the connection string may hold a password. */
  readonly #target: string;
  #ready: Promise<void> | undefined;
  #writesSinceSweep = 0;
  /** The last error an idle connection reported, to explain the next failure. */
  #lastError: unknown;
  #closed = false;

  /** @throws ValidationError (BAD_REQUEST) when `table` or `schema` cannot be a PostgreSQL name. */
  constructor(options: PostgresStoreOptions = {}) {
    const connectionString = options.connectionString ?? defaults.connectionString;
    const table = options.table ?? defaults.table;
    this.#schema = options.schema ?? defaults.schema;
    assertIdentifier('table', table);
    assertIdentifier('schema', this.#schema);
    this.#table = `${escapeIdentifier(this.#schema)}.${escapeIdentifier(table)}`;
    this.#sql = statements(this.#table);
    this.searchIndex = new PostgresSearchIndex(
      (action, sql, params) => this.#query(action, sql, params),
      `${escapeIdentifier(this.#schema)}.${escapeIdentifier(`${table.slice(0, 55)}_search`)}`,
    );
    this.#target = describeTarget(connectionString);
    const queryTimeoutMs = options.queryTimeoutMs ?? defaults.queryTimeoutMs;
    // No connection is made here: the pool connects on the first call.
    this.#pool = new Pool({
      connectionString: withDefaultUser(connectionString),
      max: options.maxConnections ?? defaults.maxConnections,
      // Covers the TCP connect and the startup handshake, and waiting for a free connection.
      connectionTimeoutMillis: options.connectTimeoutMs ?? defaults.connectTimeoutMs,
      // The server cancels a slow statement and keeps the connection; the client-side timeout,
      // a little longer, catches a server that has stopped answering altogether.
      statement_timeout: queryTimeoutMs,
      query_timeout: queryTimeoutMs + 1000,
    });
    // An idle pooled connection that dies (server restart, network cut) is reported as an 'error'
    // event, which would crash the process without a listener. The pool drops that connection and
    // opens a fresh one on the next call, so only remember why.
    this.#pool.on('error', (error) => {
      this.#lastError = error;
    });
  }

  async get<T>(namespace: string, key: string): Promise<T | undefined> {
    this.#assertNames(namespace, key);
    const rows = await this.#query<{ value: T }>('read', this.#sql.get, [namespace, key]);
    return rows[0]?.value;
  }

  async set(
    namespace: string,
    key: string,
    value: unknown,
    options?: StoreSetOptions,
  ): Promise<void> {
    this.#assertNames(namespace, key);
    const json = toJson(key, value);
    const ttlMs = ttlOf(options);
    await this.#query('write', this.#sql.set, [namespace, key, json, ttlMs ?? null]);
    // Expired rows are invisible already; sweeping now and then keeps the table from growing.
    if (++this.#writesSinceSweep >= writesPerSweep) {
      this.#writesSinceSweep = 0;
      // Housekeeping only: the write has succeeded, and a later write sweeps again.
      await this.#query('sweep', this.#sql.sweep, []).catch(() => undefined);
    }
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    this.#assertNames(namespace, key);
    const rows = await this.#query<{ live: boolean }>('delete', this.#sql.delete, [namespace, key]);
    return rows[0]?.live === true;
  }

  async claim(namespace: string, key: string, owner: string, ttlMs: number): Promise<boolean> {
    this.#assertNames(namespace, key);
    const rows = await this.#query('claim', this.#sql.claim, [
      namespace,
      key,
      JSON.stringify(owner),
      Math.max(1, ttlMs),
    ]);
    return rows.length > 0;
  }

  async list<T>(namespace: string, options?: StoreListOptions): Promise<StoreEntry<T>[]> {
    const prefix = options?.prefix ?? '';
    const after = options?.after;
    this.#assertNames(namespace, prefix);
    if (after !== undefined) assertName('key', after, { allowNul: false });
    const limit = limitOf(options);
    if (limit === 0) return [];
    return this.#query<StoreEntry<T>>('list', this.#sql.list, [
      namespace,
      likePrefix(prefix),
      after ?? null,
      limit,
    ]);
  }

  async clear(namespace: string): Promise<void> {
    assertName('namespace', namespace, { allowNul: false });
    await this.#query('clear', this.#sql.clear, [namespace]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Waits for statements in flight, each bounded by queryTimeoutMs.
    await this.#pool.end();
  }

  #assertNames(namespace: string, key: string): void {
    assertName('namespace', namespace, { allowNul: false });
    assertName('key', key, { allowNul: false });
  }

  /** Runs one statement once the table exists, turning every failure into STORE_UNAVAILABLE. */
  async #query<R extends QueryResultRow = QueryResultRow>(
    action: string,
    sql: string,
    params: unknown[],
  ): Promise<R[]> {
    if (this.#closed) {
      throw new StoreError('The PostgreSQL store is closed; open a new PostgresStore');
    }
    try {
      // A failed set-up is forgotten, so the next call tries again (the server may be back).
      await (this.#ready ??= this.#createTable().catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      }));
      const result = await this.#pool.query<R>(sql, params);
      return result.rows;
    } catch (error) {
      throw this.#failure(`PostgreSQL store at ${this.#target} failed to ${action}`, error);
    }
  }

  /** Creates the schema, table and index unless they exist; safe when processes race to it. */
  async #createTable(): Promise<void> {
    const exists = async (client: Pool | PoolClient) => {
      const { rows } = await client.query<{ present: boolean }>(
        'SELECT to_regclass($1) IS NOT NULL AS present',
        [this.#table],
      );
      return rows[0]?.present === true;
    };
    // The common case needs no lock and no CREATE privilege: the table is there already.
    if (await exists(this.#pool)) return;
    await inTransaction(this.#pool, async (client) => {
      // CREATE ... IF NOT EXISTS is not safe on its own when two processes run it together: both
      // pass the check and one fails on a catalog unique index. An advisory lock, released at
      // COMMIT, lets one create while the other waits and then finds the table.
      await client.query(
        "SELECT pg_advisory_xact_lock(hashtextextended('trawl-store:' || $1, 0))",
        [this.#table],
      );
      if (await exists(client)) return;
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(this.#schema)}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
        namespace text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value json NOT NULL,
        expires_at timestamptz,
        PRIMARY KEY (namespace, key)
      )`);
      // Unnamed, so PostgreSQL picks a name that cannot clash with another table's index.
      await client.query(
        `CREATE INDEX ON ${this.#table} (expires_at) WHERE expires_at IS NOT NULL`,
      );
    });
  }

  /** Wraps a driver error, keeping errors that already carry a code. */
  #failure(message: string, error: unknown): TrawlError {
    if (error instanceof TrawlError) return error;
    let reason = reasonOf(error);
    if (error instanceof DatabaseError && error.code) reason += ` (SQLSTATE ${error.code})`;
    const background = this.#lastError === undefined ? undefined : reasonOf(this.#lastError);
    if (background !== undefined && background !== reason) reason += `; earlier: ${background}`;
    this.#lastError = undefined;
    return new StoreError(`${message}: ${reason}`, { cause: error });
  }
}
