/**
 * The search benchmark: query latency of the built-in index (SQLite FTS5) on generated
 * documents, its size on disk per document, and what indexing adds to a crawl.
 *
 *   npm run env -- node --conditions=development bench/search.ts                 100,000 docs
 *   npm run env -- node --conditions=development bench/search.ts --docs 10000 --pages 300
 *
 * Documents are made from a Zipf-distributed vocabulary, so some words are in most documents
 * and most words in few, as in real text. The crawl part crawls a generated local site with the
 * index and with a store that has none, alternately, and compares the process's CPU time per page
 * (the site runs in the same process, so its share is in both figures).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { crawl, search, SqliteStore, type Store } from '@trawl/core';
import { startGeneratedSite } from './lib/generated-site.ts';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '1000' },
    pages: { type: 'string', default: '500' },
    json: { type: 'boolean' },
  },
});
const docCount = Number(values.docs);
const queryCount = Number(values.queries);
const pageCount = Number(values.pages);

/** A deterministic generator, so every run indexes the same documents. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const vocabularySize = 50_000;
const syllables = ['ka', 'lo', 'mi', 're', 'su', 'ta', 'ne', 'vo', 'pi', 'da', 'ge', 'ru'];
const vocabulary = Array.from({ length: vocabularySize }, (_unused, index) => {
  let word = '';
  let rest = index + 1;
  while (rest > 0) {
    word += syllables[rest % syllables.length];
    rest = Math.floor(rest / syllables.length);
  }
  return word;
});
// Zipf: the word of rank r has weight 1/r; a cumulative table turns a uniform draw into a rank.
const cumulative: number[] = [];
let total = 0;
for (let rank = 1; rank <= vocabularySize; rank++) cumulative.push((total += 1 / rank));
function zipfWord(next: () => number): string {
  const target = next() * total;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((cumulative[middle] ?? 0) < target) low = middle + 1;
    else high = middle;
  }
  return vocabulary[low] ?? 'ka';
}
const words = (next: () => number, count: number) =>
  Array.from({ length: count }, () => zipfWord(next)).join(' ');

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function benchQueries() {
  const directory = mkdtempSync(join(tmpdir(), 'trawl-bench-search-'));
  const store = new SqliteStore({ path: join(directory, 'trawl.db') });
  const next = random(42);
  const started = performance.now();
  // Pages arrive as a crawl delivers them: a few dozen at a time.
  let batch: Promise<void>[] = [];
  for (let n = 0; n < docCount; n++) {
    if (batch.length === 50) batch = (await Promise.all(batch)).length > 0 ? [] : batch;
    batch.push(
      store.searchIndex.put({
        team: 'default',
        url: `https://site${n % 500}.example/doc/${n}`,
        title: words(next, 6),
        description: words(next, 20),
        headings: words(next, 8),
        body: words(next, 400),
        domain: `site${n % 500}.example`,
        language: n % 10 === 0 ? 'fr' : 'en',
        fetchedAt: Date.now() - n * 60_000,
      }),
    );
  }
  await Promise.all(batch);
  // The SQLite index adds a page's words when it is next read: the first read is part of the
  // indexing time.
  const stats = await store.searchIndex.stats();
  const indexMs = performance.now() - started;
  const latencies: number[] = [];
  for (let n = 0; n < queryCount; n++) {
    // Two or three words, drawn as users type them: mostly common, sometimes rare.
    const query = words(next, 2 + (n % 2));
    const begin = performance.now();
    await search(query, { limit: 10 }, { store });
    latencies.push(performance.now() - begin);
  }
  latencies.sort((a, b) => a - b);
  await store.close();
  rmSync(directory, { recursive: true, force: true });
  return {
    documents: stats.documents,
    indexDocsPerSecond: Math.round(docCount / (indexMs / 1000)),
    bytesPerDocument: Math.round((stats.bytes ?? 0) / Math.max(1, stats.documents)),
    p50Ms: Number(percentile(latencies, 50).toFixed(2)),
    p99Ms: Number(percentile(latencies, 99).toFixed(2)),
  };
}

/** The store without its index: everything else (cache, crawl state) stays the same. */
function withoutIndex(store: SqliteStore): Store {
  return {
    get: (namespace, key) => store.get(namespace, key),
    set: (namespace, key, value, options) => store.set(namespace, key, value, options),
    delete: (namespace, key) => store.delete(namespace, key),
    claim: (namespace, key, owner, ttlMs) => store.claim(namespace, key, owner, ttlMs),
    list: (namespace, options) => store.list(namespace, options),
    clear: (namespace) => store.clear(namespace),
    close: () => store.close(),
    capabilities: store.capabilities,
  };
}

async function crawlMs(url: string, indexed: boolean): Promise<number> {
  const directory = mkdtempSync(join(tmpdir(), 'trawl-bench-crawl-'));
  const sqlite = new SqliteStore({ path: join(directory, 'trawl.db') });
  const store = indexed ? sqlite : withoutIndex(sqlite);
  // CPU time, not wall time: on a shared machine the wall clock measures the neighbours.
  const begin = process.cpuUsage();
  const job = crawl(url, { limit: pageCount, maxConcurrency: 10 }, { store });
  for await (const _document of job) {
    // Drained; the documents themselves are not kept.
  }
  await job.done;
  await sqlite.close();
  const used = process.cpuUsage(begin);
  const elapsed = (used.user + used.system) / 1000;
  rmSync(directory, { recursive: true, force: true });
  return elapsed;
}

async function benchCrawl() {
  const site = await startGeneratedSite({ pages: pageCount });
  const runs = { indexed: [] as number[], plain: [] as number[] };
  try {
    // A warm-up, then alternating rounds so neither side always runs on a warmer process.
    await crawlMs(site.url, false);
    for (let round = 0; round < 5; round++) {
      runs.plain.push(await crawlMs(site.url, false));
      runs.indexed.push(await crawlMs(site.url, true));
    }
  } finally {
    await site.close();
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[2] ?? 0;
  const plain = median(runs.plain);
  const indexed = median(runs.indexed);
  return {
    pages: pageCount,
    plainMsPerPage: Number((plain / pageCount).toFixed(3)),
    indexedMsPerPage: Number((indexed / pageCount).toFixed(3)),
    overheadPercent: Number((((indexed - plain) / plain) * 100).toFixed(1)),
  };
}

const queries = await benchQueries();
const crawlCost = await benchCrawl();
if (values.json) {
  console.log(JSON.stringify({ queries, crawl: crawlCost }, null, 2));
} else {
  console.log(
    `index: ${queries.documents} docs, ${queries.indexDocsPerSecond} docs/s indexed, ${queries.bytesPerDocument} bytes/doc`,
  );
  console.log(
    `query latency: p50 ${queries.p50Ms} ms, p99 ${queries.p99Ms} ms (${queryCount} queries, limit 10)`,
  );
  console.log(
    `crawl of ${crawlCost.pages} pages: ${crawlCost.plainMsPerPage} CPU ms/page without the index, ${crawlCost.indexedMsPerPage} CPU ms/page with it (${crawlCost.overheadPercent} %)`,
  );
}
