/**
 * A split deployment as real processes (issue 21): one `trawl serve --role api` and any number
 * of `trawl worker` processes, sharing a fresh PostgreSQL database (the store) and a BullMQ queue
 * under a fresh prefix on the machine's Redis. `close()` kills what is left, drops the database
 * and unlinks the queue's keys.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import pg from 'pg';
import { startServe, type ServeProcess } from './serve-process.ts';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
export const redisUrl = 'redis://127.0.0.1:6379';
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
