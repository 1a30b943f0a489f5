/**
 * Every hostile-site attack (test/fixture-site/hostile-site.ts) against a real `trawl serve`, one
 * after the other: for each, how long the request or crawl took and how it ended, the
 * slowest `/health` answer meanwhile (probed every 100 ms), the server's peak RSS (its own
 * process, and with its Chromium), and how long another team's ordinary scrape took right after.
 * The site runs in a child process of its own, so that building its bodies cannot delay the probe.
 *
 *   npm run bench:hostile
 *   npm run bench:hostile -- --only huge-title,jsonld-wide --cpu-prof /tmp/prof
 *   npm run bench:hostile -- --json
 *
 * `--cpu-prof DIR` writes the server's CPU profiles (main thread and workers) to DIR when it
 * stops; `--stalls DIR` then lists each profile's longest busy stretches and what ran in them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startHostileSiteProcess } from '../test/fixture-site/hostile-site.ts';
import { serveProcess, type KeyedServeProcess } from '../test/e2e/serve-process.ts';
import { treeRssKb } from './lib/process-tree.ts';

interface Case {
  name: string;
  /** What the bench sends: a scrape of `path` with `options`, or a crawl from it. */
  kind: 'scrape' | 'crawl';
  path: string;
  options?: Record<string, unknown>;
}

const browser = { waitFor: 500, timeout: 20_000 };
const cases: Case[] = [
  // The baseline: what /health does meanwhile on this machine under its present load.
  { name: 'friendly', kind: 'scrape', path: '/friendly' },
  { name: 'robots', kind: 'crawl', path: '/', options: { limit: 8, sitemap: 'skip' } },
  { name: 'calendar', kind: 'crawl', path: '/calendar', options: { limit: 15 } },
  { name: 'session-ids', kind: 'crawl', path: '/session', options: { limit: 15, sitemap: 'skip' } },
  { name: 'big-sitemap', kind: 'crawl', path: '/big-sitemap.xml', options: { limit: 5 } },
  { name: 'redirect-loop', kind: 'scrape', path: '/redirect-loop' },
  { name: 'redirect-chain', kind: 'scrape', path: '/redirect-chain' },
  { name: 'meta-refresh-http', kind: 'scrape', path: '/meta-refresh-loop' },
  { name: 'drip', kind: 'scrape', path: '/drip', options: { timeout: 5_000 } },
  { name: 'endless', kind: 'scrape', path: '/endless' },
  { name: 'huge-text', kind: 'scrape', path: '/huge-text' },
  { name: 'gzip-bomb', kind: 'scrape', path: '/bomb/gzip.html' },
  { name: 'br-bomb', kind: 'scrape', path: '/bomb/br.html' },
  { name: 'zstd-bomb', kind: 'scrape', path: '/bomb/zstd.html' },
  { name: 'br-page', kind: 'scrape', path: '/encoded/br' },
  { name: 'zstd-page', kind: 'scrape', path: '/encoded/zstd' },
  { name: 'gzip-br-page', kind: 'scrape', path: '/encoded/gzip-br' },
  { name: 'many-cookies', kind: 'scrape', path: '/many-cookies' },
  { name: 'huge-header', kind: 'scrape', path: '/huge-header' },
  { name: 'huge-title', kind: 'scrape', path: '/huge-title' },
  { name: 'lying-charset', kind: 'scrape', path: '/lying-charset' },
  { name: 'jsonld-deep', kind: 'scrape', path: '/jsonld-deep', options: { formats: ['product'] } },
  { name: 'jsonld-wide', kind: 'scrape', path: '/jsonld-wide', options: { formats: ['product'] } },
  { name: 'many-elements', kind: 'scrape', path: '/many-elements', options: { timeout: 30_000 } },
  {
    name: 'many-links',
    kind: 'scrape',
    path: '/many-links',
    options: { formats: ['links'], timeout: 30_000 },
  },
  {
    name: 'many-links-crawl',
    kind: 'crawl',
    path: '/many-links',
    options: { limit: 3, sitemap: 'skip' },
  },
  { name: 'deep-nesting', kind: 'scrape', path: '/deep-nesting', options: { timeout: 30_000 } },
  {
    name: 'giant-attributes',
    kind: 'scrape',
    path: '/giant-attributes',
    options: { formats: ['markdown', 'links', 'images'], timeout: 30_000 },
  },
  { name: 'meta-refresh-browser', kind: 'scrape', path: '/meta-refresh-loop', options: browser },
  { name: 'js-redirect-loop', kind: 'scrape', path: '/js-redirect-loop', options: browser },
  { name: 'popups', kind: 'scrape', path: '/popups', options: browser },
  { name: 'alert-loop', kind: 'scrape', path: '/alert-loop', options: browser },
  { name: 'busy-loop', kind: 'scrape', path: '/busy-loop', options: browser },
  { name: 'allocate', kind: 'scrape', path: '/allocate', options: browser },
  { name: 'grows', kind: 'scrape', path: '/grows', options: browser },
  {
    name: 'infinite-scroll',
    kind: 'scrape',
    path: '/infinite-scroll',
    options: { ...browser, formats: [{ type: 'screenshot', fullPage: true }] },
  },
  { name: 'huge-canvas', kind: 'scrape', path: '/huge-canvas', options: browser },
  {
    name: 'tall-screenshot',
    kind: 'scrape',
    path: '/tall',
    options: { ...browser, formats: [{ type: 'screenshot', fullPage: true }] },
  },
];

interface Result {
  case: string;
  outcome: string;
  ms: number;
  slowestHealthMs: number;
  peakServerRssMb: number;
  peakTreeRssMb: number;
  otherTeamMs: number;
}

const otherTeamKey = 'fc-bench-other-team';

/** `/v2/scrape` or a crawl to its end: the outcome as `status code` or `completed N pages`. */
async function attack(server: KeyedServeProcess, site: string, one: Case): Promise<string> {
  const url = `${site}${one.path}`;
  if (one.kind === 'scrape') {
    const answer = await server.call('POST', '/v2/scrape', { url, ...one.options }, 120_000);
    const data = answer.body['data'] as Record<string, unknown> | undefined;
    const note = data?.['warning'] ? ' (warning)' : '';
    return `${answer.status} ${(answer.body['code'] as string | undefined) ?? 'ok'}${note}`;
  }
  const started = await server.call('POST', '/v2/crawl', { url, ...one.options });
  const id = started.body['id'] as string;
  for (;;) {
    const status = (await server.call('GET', `/v2/crawl/${id}`, undefined, 30_000)).body;
    if (status['status'] !== 'scraping')
      return `${String(status['status'])} ${(status['data'] as unknown[]).length} pages`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function runCase(server: KeyedServeProcess, site: string, one: Case): Promise<Result> {
  let done = false;
  let slowest = 0;
  let peakServerKb = 0;
  let peakTreeKb = 0;
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(30_000) }).then(
        (answer) => answer.arrayBuffer(),
        () => undefined,
      );
      slowest = Math.max(slowest, performance.now() - started);
      const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
      peakServerKb = Math.max(peakServerKb, Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      peakTreeKb = Math.max(peakTreeKb, treeRssKb(server.child.pid!));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  const outcome = await attack(server, site, one).catch(
    (error: unknown) => `threw ${String(error)}`,
  );
  const ms = performance.now() - started;
  done = true;
  await probing;
  const other = performance.now();
  const friendly = await fetch(`${server.url}/v2/scrape`, {
    method: 'POST',
    headers: { authorization: `Bearer ${otherTeamKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${site}/friendly` }),
  });
  const otherTeamMs = friendly.status === 200 ? performance.now() - other : Number.NaN;
  return {
    case: one.name,
    outcome,
    ms: Math.round(ms),
    slowestHealthMs: Math.round(slowest),
    peakServerRssMb: Math.round(peakServerKb / 1024),
    peakTreeRssMb: Math.round(peakTreeKb / 1024),
    otherTeamMs: Math.round(otherTeamMs),
  };
}

/**
 * The longest stretches in which a CPU profile's thread never went idle, with the functions that
 * took most of each: where a thread stopped answering, and why.
 */
function stalls(file: string, top = 5): string[] {
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const idle = (id: number) => byId.get(id)!.callFrame.functionName === '(idle)';
  const frame = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    return `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${lineNumber + 1}`;
  };
  const stretches: { ms: number; ids: number[] }[] = [];
  let current: { ms: number; ids: number[] } | undefined;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (idle(id)) {
      if (current) stretches.push(current);
      current = undefined;
      return;
    }
    current ??= { ms: 0, ids: [] };
    current.ms += ms;
    current.ids.push(id);
  });
  if (current) stretches.push(current);
  return stretches
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top)
    .map((stretch) => {
      // Inclusive counts: each sample counts once for every function on its stack.
      const counts = new Map<string, number>();
      for (const id of stretch.ids) {
        const seen = new Set<string>();
        for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
          const name = frame(at);
          if (!seen.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
          seen.add(name);
        }
      }
      const heaviest = [...counts]
        .filter(([name]) => !/^\((root|program)\)/.test(name))
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([name, count]) => `    ${Math.round((100 * count) / stretch.ids.length)}% ${name}`);
      return [`  ${Math.round(stretch.ms)} ms busy`, ...heaviest].join('\n');
    });
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    stalls: { type: 'string' },
  },
});

if (values.stalls) {
  for (const name of readdirSync(values.stalls).filter((file) => file.endsWith('.cpuprofile'))) {
    console.log(`${name}\n${stalls(join(values.stalls, name)).join('\n')}`);
  }
} else {
  const only = values.only?.split(',');
  const chosen = only ? cases.filter((one) => only.includes(one.name)) : cases;
  const site = await startHostileSiteProcess();
  const profileDir = values['cpu-prof'];
  const server = await serveProcess({
    TRAWL_API_KEYS: `fc-security-test,other:${otherTeamKey}`,
    ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
  });
  const results: Result[] = [];
  try {
    // The first page loads the converter and its threads: start-up, not an attack.
    await server.call('POST', '/v2/scrape', { url: `${site.url}/friendly` }, 60_000);
    // And the first browser page loads Playwright's bundle, seconds of this thread on a busy
    // machine, once per process.
    await server.call('POST', '/v2/scrape', { url: `${site.url}/friendly`, waitFor: 1 }, 60_000);
    for (const one of chosen) {
      const result = await runCase(server, site.url, one);
      results.push(result);
      if (!values.json) console.log(JSON.stringify(result));
    }
  } finally {
    await server.stop();
    await site.close();
  }
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else {
    console.log(
      '\n| case | outcome | ms | slowest /health ms | server RSS MB | with Chromium MB | other team ms |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const r of results) {
      console.log(
        `| ${r.case} | ${r.outcome} | ${r.ms} | ${r.slowestHealthMs} | ${r.peakServerRssMb} | ${r.peakTreeRssMb} | ${r.otherTeamMs} |`,
      );
    }
  }
}
