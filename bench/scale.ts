/**
 * The scale-out benchmark: a 5,000-page crawl of the generated bench site through the
 * /v2 API, run as
 *
 * - `single`: one `trawl serve` on the embedded defaults (SQLite, in-process queue);
 * - `single-pg`: one `trawl serve` on PostgreSQL with the in-process queue (the store's share);
 * - `split-1`: `trawl serve --role api` + 1 `trawl worker` (PostgreSQL store, BullMQ on Redis);
 * - `split-2`: the same with 2 workers.
 *
 * Per run: pages/s from the crawl's POST to its `completed` status; CPU of every Trawl process
 * (utime + stime from /proc), of the Redis server (INFO cpu) and of every PostgreSQL process
 * (/proc), each per page; Redis commands per page (INFO commandstats) and PostgreSQL row writes
 * per page (pg_stat_database of the run's own database); each process's peak RSS (VmHWM). Redis
 * and PostgreSQL serve other users of this machine too: their figures are upper bounds.
 *
 *   npm run bench:scale                       every run, 5,000 pages
 *   npm run bench:scale -- --pages 2000 --only split-2
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createClient } from '@redis/client';
import pg from 'pg';
import { startServe, type ServeProcess } from '../test/e2e/serve-process.ts';
import { redisUrl, SplitDeployment } from '../test/e2e/split-deployment.ts';

const ticksPerSecond = 100;

/** CPU ms (user + system, threads included) of a process so far; 0 once it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return 0;
  }
}

/** Peak RSS in MB of a live process (VmHWM). */
function peakRssMbOf(pid: number): number {
  const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(kib?.[1] ?? 0) / 1024);
}

/** CPU ms of every PostgreSQL process of the machine. */
function postgresCpuMs(): number {
  let sum = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    sum += cpuMsOf(Number(name));
  }
  return sum;
}

/** What the Redis server reports: CPU ms and commands run so far. */
async function redisCounters(): Promise<{ cpuMs: number; commands: number }> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  try {
    const cpu = await client.info('cpu');
    const stats = await client.info('commandstats');
    const seconds = [...cpu.matchAll(/^used_cpu_(?:user|sys):([\d.]+)/gm)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
    const commands = [...stats.matchAll(/calls=(\d+)/g)].reduce((s, m) => s + Number(m[1]), 0);
    return { cpuMs: seconds * 1000, commands };
  } finally {
    client.destroy();
  }
}

/** Row writes in one database so far. */
async function postgresWrites(database: string | undefined): Promise<number> {
  if (!database) return 0;
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await client.connect();
  try {
    const result = await client.query<{ writes: string }>(
      'SELECT tup_inserted + tup_updated + tup_deleted AS writes FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    return Number(result.rows[0]?.writes ?? 0);
  } finally {
    await client.end();
  }
}

/** One measured run. */
interface RunResult {
  run: string;
  pages: number;
  wallMs: number;
  /** CPU ms per process name (api, worker-1 …, serve). */
  cpuMs: Record<string, number>;
  peakRssMb: Record<string, number>;
  redisCpuMs: number;
  redisCommands: number;
  postgresCpuMs: number;
  postgresWrites: number;
  siteCpuMs: number;
}

const crawlSettings = {
  // The crawl's pages in flight over the whole deployment, and per host (one host here).
  TRAWL_CRAWL_CONCURRENCY: '32',
  TRAWL_HOST_CONCURRENCY: '64',
  NODE_OPTIONS: '--max-semi-space-size=8 --max-old-space-size=1024',
};

async function measure(
  run: string,
  siteUrl: string,
  sitePid: number,
  pages: number,
): Promise<RunResult> {
  const processes: Record<string, number> = {};
  let deployment: SplitDeployment | undefined;
  let serve: ServeProcess | undefined;
  let database: string | undefined;
  const workers = run === 'split-2' ? 2 : run === 'split-1' ? 1 : 0;
  try {
    let apiUrl: string;
    let call: (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;
    if (workers > 0 || run === 'single-pg') {
      deployment = await new SplitDeployment(crawlSettings).open();
      database = deployment.databaseName;
      if (workers > 0) {
        serve = await deployment.startApi();
        for (let index = 1; index <= workers; index++) {
          const worker = await deployment.startWorker(16);
          processes[`worker-${index}`] = worker.child.pid ?? 0;
        }
      } else {
        serve = await startServe(deployment.env({ TRAWL_QUEUE: 'in-process' }));
        deployment.api = serve;
      }
      processes[workers > 0 ? 'api' : 'serve'] = serve.child.pid ?? 0;
      apiUrl = serve.url;
      call = (method, path, body) => deployment!.call(method, path, body);
    } else {
      serve = await startServe({ ...crawlSettings, TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true' });
      processes['serve'] = serve.child.pid ?? 0;
      apiUrl = serve.url;
      call = async (method, path, body) => {
        const response = await fetch(`${apiUrl}${path}`, {
          method,
          ...(body === undefined
            ? {}
            : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        });
        return (await response.json()) as Record<string, unknown>;
      };
    }
    const cpuBefore = Object.fromEntries(
      Object.entries(processes).map(([name, pid]) => [name, cpuMsOf(pid)]),
    );
    const redisBefore = await redisCounters();
    const postgresBefore = postgresCpuMs();
    const writesBefore = await postgresWrites(database);
    const siteBefore = cpuMsOf(sitePid);
    const started = performance.now();
    const crawl = await call('POST', '/v2/crawl', {
      url: `${siteUrl}/`,
      limit: pages,
      maxConcurrency: 32,
    });
    const id = crawl['id'] as string;
    let status: Record<string, unknown>;
    for (;;) {
      status = await call('GET', `/v2/crawl/${id}?limit=1`);
      if (status['status'] !== 'scraping') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const wallMs = performance.now() - started;
    const cpuMs = Object.fromEntries(
      Object.entries(processes).map(([name, pid]) => [name, cpuMsOf(pid) - (cpuBefore[name] ?? 0)]),
    );
    const peakRssMb = Object.fromEntries(
      Object.entries(processes).map(([name, pid]) => [name, peakRssMbOf(pid)]),
    );
    const siteCpuMs = cpuMsOf(sitePid) - siteBefore;
    const postgresCpu = postgresCpuMs() - postgresBefore;
    const redisAfter = await redisCounters();
    // pg_stat_database is flushed by each backend about once a second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const writes = (await postgresWrites(database)) - writesBefore;
    if (status['status'] !== 'completed')
      throw new Error(`${run}: crawl ${String(status['status'])}`);
    return {
      run,
      pages: Number(status['completed']),
      wallMs,
      cpuMs,
      peakRssMb,
      redisCpuMs: redisAfter.cpuMs - redisBefore.cpuMs,
      redisCommands: redisAfter.commands - redisBefore.commands,
      postgresCpuMs: postgresCpu,
      postgresWrites: writes,
      siteCpuMs,
    };
  } finally {
    if (deployment) await deployment.close();
    else await serve?.kill();
  }
}

export async function runScaleBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: 'string', default: '5000' },
      only: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const pages = Number(values.pages);
  const runs = values.only ? values.only.split(',') : ['single', 'single-pg', 'split-1', 'split-2'];
  const site = spawn(
    process.execPath,
    [
      '--experimental-strip-types',
      join(import.meta.dirname, 'lib/generated-site.ts'),
      '--pages',
      String(pages),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = await once(createInterface({ input: site.stdout }), 'line');
    const siteUrl = (JSON.parse(String(line)) as { url: string }).url;
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
    const results: RunResult[] = [];
    for (const run of runs) results.push(await measure(run, siteUrl, site.pid ?? 0, pages));
    if (values.json) {
      console.log(JSON.stringify({ pages, load, results }, null, 2));
      return 0;
    }
    console.log(
      `${cpus().length} cores; load average before: ${load}; ${new Date().toISOString()}\n`,
    );
    console.log(
      '| run | pages | wall s | pages/s | Trawl CPU ms/page | + Redis + PG ms/page | Redis cmds/page | PG writes/page | site ms/page | peak RSS MB |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const r of results) {
      const trawl = Object.values(r.cpuMs).reduce((sum, ms) => sum + ms, 0);
      const all = trawl + r.redisCpuMs + r.postgresCpuMs;
      const rss = Object.entries(r.peakRssMb)
        .map(([name, mb]) => `${name} ${mb}`)
        .join(', ');
      const detail = Object.entries(r.cpuMs)
        .map(([name, ms]) => `${name} ${(ms / r.pages).toFixed(2)}`)
        .join(', ');
      console.log(
        `| ${r.run} | ${r.pages} | ${(r.wallMs / 1000).toFixed(1)} | ${((r.pages / r.wallMs) * 1000).toFixed(1)} | ${(trawl / r.pages).toFixed(2)} (${detail}) | ${(all / r.pages).toFixed(2)} | ${(r.redisCommands / r.pages).toFixed(1)} | ${(r.postgresWrites / r.pages).toFixed(1)} | ${(r.siteCpuMs / r.pages).toFixed(2)} | ${rss} |`,
      );
    }
    return 0;
  } finally {
    site.kill();
  }
}

if (import.meta.main) process.exitCode = await runScaleBench(process.argv.slice(2));
