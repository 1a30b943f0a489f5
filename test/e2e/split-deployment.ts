/**
 * Split deployments as real processes: one `trawl serve --role api` and any number
 * of `trawl worker` processes, sharing a fresh PostgreSQL database (the store) and a BullMQ queue
 * under a fresh prefix on the machine's Redis (`SplitDeployment`; `close()` kills what is left,
 * drops the database and unlinks the queue's keys); or two `trawl serve` processes on one
 * database and Redis prefix, or on the database alone (`apiProcessPair`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import pg from 'pg';
import {
  serveProcess,
  startServe,
  type KeyedServeProcess,
  type ServeProcess,
} from './serve-process.ts';
import {
  freshDatabase,
  redisPrefix,
  redisUrl,
  type FreshDatabase,
  type RedisPrefix,
} from './shared-services.ts';

export { redisUrl };

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
const adminUrl = 'postgres://postgres@127.0.0.1:5432/test';

/** Why the split-deployment tests cannot run here, or undefined when Redis and PostgreSQL answer. */
export async function servicesMissing(): Promise<string | undefined> {
  const redis = createClient({
    url: redisUrl,
    socket: { connectTimeout: 2000, reconnectStrategy: false },
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    return `Redis at ${redisUrl} is unreachable: ${(error as Error).message}`;
  } finally {
    if (redis.isOpen) redis.destroy();
  }
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch (error) {
    return `PostgreSQL at ${adminUrl} is unreachable: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
  return undefined;
}

/** A worker process. */
export interface WorkerProcess {
  child: ChildProcess;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
}

/** The shared services of one deployment, and its processes. */
export class SplitDeployment {
  readonly databaseName = `trawl_scale_${randomUUID().replaceAll('-', '')}`;
  readonly prefix = `trawl_test_${randomUUID()}`;
  readonly apiKey = 'fc-scale-test';
  readonly workers: WorkerProcess[] = [];
  api: ServeProcess | undefined;
  readonly #extraEnv: Record<string, string | undefined>;

  /**
   * `env`: more variables for every process (a benchmark's concurrency settings); a variable
   * set to undefined is taken out (the private-address guard's default, under test).
   */
  constructor(env: Record<string, string | undefined> = {}) {
    this.#extraEnv = env;
  }

  get databaseUrl(): string {
    return `postgres://postgres@127.0.0.1:5432/${this.databaseName}`;
  }

  /** The environment every process of the deployment shares. */
  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      TRAWL_STORE: 'postgres',
      TRAWL_DATABASE_URL: this.databaseUrl,
      TRAWL_QUEUE: 'bullmq',
      TRAWL_REDIS_URL: redisUrl,
      TRAWL_QUEUE_PREFIX: this.prefix,
      // Team limits, credits and token days are counted under the deployment's own prefix too.
      TRAWL_REDIS_PREFIX: this.prefix,
      // Short, so a killed worker's crawl is taken over within seconds.
      TRAWL_QUEUE_LEASE_MS: '2000',
      TRAWL_API_KEYS: this.apiKey,
      TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
      TRAWL_LOG_LEVEL: 'silent',
      ...this.#extraEnv,
      ...extra,
    };
  }

  /** Creates the database. */
  async open(): Promise<this> {
    await withAdmin((client) => client.query(`CREATE DATABASE ${this.databaseName}`));
    return this;
  }

  /** Starts (or starts again) the API process. */
  async startApi(options: { port?: number } = {}): Promise<ServeProcess> {
    this.api = await startServe(this.env(), {
      args: ['--role', 'api'],
      ...(options.port === undefined ? {} : { port: options.port }),
    });
    return this.api;
  }

  /** Starts a worker and resolves once it consumes (at most 60 s). */
  async startWorker(concurrency = 10): Promise<WorkerProcess> {
    const child = spawn(
      process.execPath,
      ['--conditions=development', bin, 'worker', '--concurrency', String(concurrency)],
      { env: { ...process.env, ...this.env() }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker did not start: ${stderr}`)), 60_000);
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('Trawl worker ')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker exited ${code}: ${stderr}`));
      });
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const worker: WorkerProcess = {
      child,
      kill: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      },
    };
    this.workers.push(worker);
    return worker;
  }

  /** Calls the API with the key; JSON in and out. */
  async call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    if (!this.api) throw new Error('no API process');
    const response = await fetch(`${this.api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    return (await response.json()) as Record<string, unknown>;
  }

  /** Kills every process, drops the database and unlinks the queue's keys. */
  async close(): Promise<void> {
    await Promise.allSettled([this.api?.kill(), ...this.workers.map((worker) => worker.kill())]);
    await withAdmin((client) =>
      client.query(`DROP DATABASE IF EXISTS ${this.databaseName} WITH (FORCE)`),
    ).catch(() => undefined);
    const redis = createClient({ url: redisUrl });
    await redis.connect();
    try {
      for await (const keys of redis.scanIterator({ MATCH: `${this.prefix}:*`, COUNT: 1000 })) {
        if (keys.length > 0) await redis.unlink(keys);
      }
    } finally {
      redis.destroy();
    }
  }
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Two `trawl serve` processes on one database (and Redis prefix), and their clean-up. */
export interface ApiProcessPair {
  processes: readonly [KeyedServeProcess, KeyedServeProcess];
  database: FreshDatabase;
  /** The prefix their counters use; undefined when they share PostgreSQL alone. */
  redis: RedisPrefix | undefined;
  /** Stops both, unlinks the prefix's keys and drops the database. */
  close(): Promise<void>;
}

/**
 * Two `trawl serve` processes (each answers and runs jobs) sharing a fresh PostgreSQL database
 * named after `label` and, unless `redis` is false, a Redis prefix of their own for their
 * counters: a team spreading its requests over two API processes. `env` goes to both.
 */
export async function apiProcessPair(
  label: string,
  env: Record<string, string> = {},
  options: { redis?: boolean } = {},
): Promise<ApiProcessPair> {
  const database = await freshDatabase(label);
  const redis = options.redis === false ? undefined : redisPrefix(label);
  const shared = {
    TRAWL_STORE: 'postgres',
    TRAWL_DATABASE_URL: database.url,
    ...(redis ? { TRAWL_REDIS_URL: redisUrl, TRAWL_REDIS_PREFIX: redis.prefix } : {}),
    ...env,
  };
  const started: KeyedServeProcess[] = [];
  const close = async () => {
    await Promise.all(started.map((server) => server.stop()));
    await redis?.clean();
    await database.drop();
  };
  try {
    // One after the other: the first creates the store's tables.
    started.push(await serveProcess(shared));
    started.push(await serveProcess(shared));
  } catch (error) {
    await close();
    throw error;
  }
  return { processes: [started[0]!, started[1]!], database, redis, close };
}
