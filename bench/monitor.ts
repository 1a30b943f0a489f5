/**
 * The monitor benchmark, on a local site whose pages change between checks:
 *
 * 1. checks/s of one 50-URL monitor, run back to back (half the checks find one page changed);
 * 2. pages per minute when 1,000 monitored pages (20 monitors × 50 URLs) are checked at once,
 *    `monitorConcurrency` checks at a time;
 * 3. the scheduler's overhead with 10,000 idle monitors: how long `start()` takes to read them
 *    and plan their runs, the memory it holds for them, and its CPU use while they wait.
 *
 * Every store is a SQLite file in a fresh temporary folder.
 *
 *   npm run bench:monitor                    all three
 *   npm run bench:monitor -- --idle 2000     fewer idle monitors
 *   npm run bench:monitor -- --json
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MonitorService, resolveEngineConfig, SqliteStore } from '@trawl/core';
import { startChangingSite, type ChangingSite } from '../test/fixture-site/changing-site.ts';

const config = resolveEngineConfig({ allowPrivateAddresses: true });

/** A page of a few paragraphs, like a pricing or docs page. */
const text = (index: number, version: number) =>
  Array.from(
    { length: 12 },
    (_, paragraph) =>
      `Paragraph ${paragraph} of page ${index}, version ${paragraph === 3 ? version : 0}: plans, prices and the small print that a monitor watches.`,
  ).join('\n');

function freshStore(label: string): { store: SqliteStore; remove: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), `trawl-bench-${label}-`));
  const store = new SqliteStore({ path: join(dir, 'trawl.db') });
  return {
    store,
    remove: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** 1. Back-to-back checks of one 50-URL monitor. */
async function singleMonitor(site: ChangingSite, checks: number) {
  const { store, remove } = freshStore('single');
  const service = new MonitorService({ store, config });
  const urls = Array.from({ length: 50 }, (_, index) => `${site.url}/single/${index}`);
  const monitor = await service.create({
    name: 'Fifty pages',
    schedule: { text: 'hourly' },
    targets: [{ type: 'scrape', urls }],
  });
  const run = async () => {
    const started = await service.run(monitor.id);
    return service.waitForCheck(monitor.id, started.id);
  };
  await run(); // baselines
  const cpu = process.cpuUsage();
  const began = performance.now();
  let changed = 0;
  for (let index = 0; index < checks; index++) {
    if (index % 2 === 1) site.set('/single/7', { title: 'Page 7', text: text(7, index) });
    changed += (await run()).summary.changed;
  }
  const seconds = (performance.now() - began) / 1000;
  const used = cpuMs(process.cpuUsage(cpu));
  await service.stop();
  await remove();
  return {
    checks,
    checksPerSecond: checks / seconds,
    pagesPerSecond: (checks * 50) / seconds,
    cpuMsPerCheck: used / checks,
    changedPages: changed,
  };
}

/** 2. 1,000 pages: 20 monitors of 50 URLs each, all checks started at once. */
async function thousandPages(site: ChangingSite, rounds: number) {
  const { store, remove } = freshStore('thousand');
  const service = new MonitorService({ store, config });
  const ids: string[] = [];
  for (let monitor = 0; monitor < 20; monitor++) {
    const urls = Array.from(
      { length: 50 },
      (_, index) => `${site.url}/many/${monitor * 50 + index}`,
    );
    ids.push(
      (
        await service.create({
          name: `Monitor ${monitor}`,
          schedule: { text: 'hourly' },
          targets: [{ type: 'scrape', urls }],
        })
      ).id,
    );
  }
  const round = async () => {
    const started = await Promise.all(ids.map((id) => service.run(id)));
    const done = await Promise.all(
      started.map((check, index) => service.waitForCheck(ids[index] ?? '', check.id)),
    );
    return done.reduce((pages, check) => pages + check.summary.totalPages, 0);
  };
  await round(); // baselines
  const cpu = process.cpuUsage();
  const began = performance.now();
  let pages = 0;
  for (let index = 0; index < rounds; index++) pages += await round();
  const minutes = (performance.now() - began) / 60_000;
  const used = cpuMs(process.cpuUsage(cpu));
  await service.stop();
  await remove();
  return {
    rounds,
    pages,
    pagesPerMinute: pages / minutes,
    checksPerMinute: (rounds * ids.length) / minutes,
    secondsPerRound: (minutes * 60) / rounds,
    cpuMsPerPage: used / pages,
    monitorConcurrency: config.monitorConcurrency,
  };
}

/** 3. The scheduler with `count` idle monitors. */
async function idleScheduler(count: number, idleSeconds: number) {
  const { store, remove } = freshStore('idle');
  const creator = new MonitorService({ store, config });
  const createBegan = performance.now();
  for (let index = 0; index < count; index++) {
    await creator.create({
      name: `Idle ${index}`,
      // Spread over the day, none due during the measurement.
      schedule: { cron: `${index % 60} ${index % 24} * * *` },
      targets: [{ type: 'scrape', urls: [`http://127.0.0.1:9/idle/${index}`] }],
    });
  }
  const createMs = performance.now() - createBegan;
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  const scheduler = new MonitorService({ store, config });
  const startBegan = performance.now();
  await scheduler.start();
  const startMs = performance.now() - startBegan;
  globalThis.gc?.();
  const heapHeld = process.memoryUsage().heapUsed - heapBefore;
  const cpu = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  const idleCpu = cpuMs(process.cpuUsage(cpu));
  const rssAfter = process.memoryUsage().rss;
  await scheduler.stop();
  await remove();
  return {
    monitors: count,
    createMsPerMonitor: createMs / count,
    startMs,
    heapHeldMb: heapHeld / 1024 / 1024,
    rssGrowthMb: (rssAfter - rssBefore) / 1024 / 1024,
    idleCpuPercent: (idleCpu / (idleSeconds * 1000)) * 100,
    idleSeconds,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      checks: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '3' },
      idle: { type: 'string', default: '10000' },
      'idle-seconds': { type: 'string', default: '10' },
      json: { type: 'boolean', default: false },
    },
  });
  const site = await startChangingSite();
  for (let index = 0; index < 50; index++)
    site.set(`/single/${index}`, { title: `Page ${index}`, text: text(index, 0) });
  for (let index = 0; index < 1000; index++)
    site.set(`/many/${index}`, { title: `Page ${index}`, text: text(index, 0) });
  // The idle scheduler first: nothing of the other runs is left to use CPU while it is measured.
  const idle = await idleScheduler(Number(values.idle), Number(values['idle-seconds']));
  const results = {
    idle,
    single: await singleMonitor(site, Number(values.checks)),
    thousand: await thousandPages(site, Number(values.rounds)),
  };
  await site.close();
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const { single, thousand } = results;
  const lines = [
    '| measurement | result |',
    '| --- | --- |',
    `| one 50-URL monitor, ${single.checks} checks back to back | ${single.checksPerSecond.toFixed(2)} checks/s (${single.pagesPerSecond.toFixed(0)} pages/s), ${single.cpuMsPerCheck.toFixed(0)} ms CPU per check |`,
    `| 1,000 pages (20 monitors × 50 URLs), ${thousand.rounds} rounds, ${thousand.monitorConcurrency} checks at a time | ${thousand.pagesPerMinute.toFixed(0)} pages/min, ${thousand.checksPerMinute.toFixed(0)} checks/min, ${thousand.secondsPerRound.toFixed(1)} s per round of all 1,000 pages, ${thousand.cpuMsPerPage.toFixed(1)} ms CPU per page |`,
    `| scheduler with ${idle.monitors.toLocaleString('en')} idle monitors | start ${idle.startMs.toFixed(0)} ms, heap held ${idle.heapHeldMb.toFixed(1)} MB (RSS +${idle.rssGrowthMb.toFixed(1)} MB), CPU while idle ${idle.idleCpuPercent.toFixed(2)} % over ${idle.idleSeconds} s; creating them ${idle.createMsPerMonitor.toFixed(2)} ms each |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
