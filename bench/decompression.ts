/**
 * The decompression benchmark: peak RSS and time of refusing each bomb, in a
 * process of its own so that its peak is its own (building the bomb is not timed, but its few
 * MB count in the peak). The bombs are built here, never stored:
 *
 *   docx  a 1 MB DOCX whose headers declare 100 KB for a 1 GiB entry   parse()
 *   pdf   a 1 MB PDF with one 1 GiB Flate content stream              parse()
 *   gzip  a 1 MB gzip body that decodes to 1 GiB                       scrape()
 *   br    a brotli body that decodes to 1 GiB                          scrape()
 *
 *   npm run bench:decompression
 *   npm run bench:decompression -- --json
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { parse, resolveEngineConfig, scrape, TrawlError } from '@trawl/core';
import { compressedBomb, makeLyingDocx, makePdfBomb } from '../test/fixture-site/bombs.ts';

const cases = ['baseline', 'docx', 'pdf', 'gzip', 'br'] as const;
type Case = (typeof cases)[number];
const GiB = 1024 * 1024 * 1024;

interface Result {
  case: Case;
  /** What the refusal said: an error code, or 'ok' for the baseline. */
  outcome: string;
  ms: number;
  peakRssMb: number;
}

/** Builds the bomb, then returns the request that carries it, resolving with the refusal code. */
async function prepare(kind: Case): Promise<() => Promise<string>> {
  const refusal = (error: unknown) => (error instanceof TrawlError ? error.code : String(error));
  if (kind === 'baseline') {
    // Load the parsers as the attacks do, so the difference is the bomb.
    return () => parse(new TextEncoder().encode('hello'), { filename: 'a.txt' }).then(() => 'ok');
  }
  if (kind === 'docx') {
    const bomb = makeLyingDocx(GiB, 100 * 1024);
    return () => parse(bomb, { filename: 'bomb.docx' }).then(() => 'parsed', refusal);
  }
  if (kind === 'pdf') {
    const bomb = makePdfBomb(GiB);
    return () => parse(bomb, { filename: 'bomb.pdf' }).then(() => 'parsed', refusal);
  }
  const body = await compressedBomb(kind, GiB);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': kind });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const config = resolveEngineConfig({ allowPrivateAddresses: true });
  return () =>
    scrape(`http://127.0.0.1:${port}/`, {}, { config })
      .then(() => 'scraped', refusal)
      .finally(() => server.close());
}

/** Runs in a child process: one attack, then its figures as JSON. */
async function measure(kind: Case): Promise<Result> {
  const attack = await prepare(kind);
  const started = performance.now();
  const outcome = await attack();
  return {
    case: kind,
    outcome,
    ms: Math.round(performance.now() - started),
    // maxRSS is in kilobytes.
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

function inChild(kind: Case): Result {
  const output = execFileSync(
    process.execPath,
    [
      '--conditions=development',
      '--experimental-strip-types',
      import.meta.filename,
      '--child',
      kind,
    ],
    { encoding: 'utf8', maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(output.trim().split('\n').pop()!) as Result;
}

const { values } = parseArgs({
  options: { child: { type: 'string' }, json: { type: 'boolean', default: false } },
});
if (values.child) {
  console.log(JSON.stringify(await measure(values.child as Case)));
} else {
  const results = cases.map(inChild);
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else {
    console.log('case      outcome             ms   peak RSS MB');
    for (const result of results) {
      console.log(
        `${result.case.padEnd(9)} ${result.outcome.padEnd(18)} ${String(result.ms).padStart(5)}   ${String(result.peakRssMb).padStart(6)}`,
      );
    }
  }
}
