// WCXB, the public multi-type main-content benchmark (github:Murrough-Foley/web-content-extraction-
// benchmark): 7 page types with a human-checked main text per page. The pages are not ours to
// publish, so they are never committed: this script re-creates the benchmark's dev/ and test/
// folders from a fetched git directory into bench/wcxb-corpus/ (git-ignored), and
// `loadWcxbCorpus()` reads them back.
//
//   npm run env -- node bench/tools/wcxb-corpus.ts <git dir of the benchmark>
//
// The split is the benchmark's own: dev/ is where rules are tuned; the test/ pages that are not
// also in dev/ (372) are held out, scored in aggregate to report and never read one by one.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** Where the pages are re-created (listed in .gitignore). */
export const wcxbCorpusDir = new URL('../wcxb-corpus/', import.meta.url).pathname;

export type WcxbPart = 'dev' | 'heldout';

/** One page of the benchmark. */
export interface WcxbPage {
  id: string;
  url: string;
  /** The page type; the benchmark's `category` is its `collection`, as its evaluate.py says. */
  type: string;
  part: WcxbPart;
  /** The reference main text. */
  mainContent: string;
  /** Path of the gzipped HTML. */
  htmlPath: string;
}

interface GroundTruth {
  url?: string;
  _internal?: { page_type?: string | { primary?: string } };
  ground_truth?: { main_content?: string } | null;
}

function pageType(truth: GroundTruth): string {
  const raw = truth._internal?.page_type;
  const type = raw && typeof raw === 'object' ? (raw.primary ?? 'article') : (raw ?? 'article');
  return type === 'category' ? 'collection' : type;
}

function idsIn(dir: string, folder: string): string[] {
  const path = join(dir, folder, 'ground-truth');
  if (!existsSync(path)) return [];
  return readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -5))
    .sort();
}

/** Reads the re-created corpus; throws with the command to run when it is missing. */
export function loadWcxbCorpus(part: WcxbPart, dir = wcxbCorpusDir): WcxbPage[] {
  if (!existsSync(join(dir, 'dev'))) {
    throw new Error(
      `no WCXB corpus in ${dir}: run \`npm run env -- node bench/tools/wcxb-corpus.ts <git dir>\``,
    );
  }
  const dev = idsIn(dir, 'dev');
  const folder = part === 'dev' ? 'dev' : 'test';
  const devIds = new Set(dev);
  const ids = part === 'dev' ? dev : idsIn(dir, 'test').filter((id) => !devIds.has(id));
  const pages: WcxbPage[] = [];
  for (const id of ids) {
    const truth = JSON.parse(
      readFileSync(join(dir, folder, 'ground-truth', `${id}.json`), 'utf8'),
    ) as GroundTruth;
    // The benchmark's evaluate.py skips pages without a ground truth object.
    if (!truth.ground_truth || typeof truth.ground_truth !== 'object') continue;
    pages.push({
      id,
      url: truth.url || 'https://example.com/',
      type: pageType(truth),
      part,
      mainContent: truth.ground_truth.main_content ?? '',
      htmlPath: join(dir, folder, 'html', `${id}.html.gz`),
    });
  }
  return pages;
}

/** The page's HTML, as the benchmark's tools read it (UTF-8). */
export function readWcxbHtml(page: WcxbPage): string {
  return gunzipSync(readFileSync(page.htmlPath)).toString('utf8');
}

/** Writes dev/ and test/ of the git directory's HEAD to `dir`. */
export function recreateWcxbCorpus(gitDir: string, dir = wcxbCorpusDir): void {
  const tar = execFileSync(
    'git',
    ['--git-dir', gitDir, 'archive', '--format=tar', 'HEAD', '--', 'dev', 'test'],
    { maxBuffer: 1 << 30 },
  );
  rmSync(join(dir, 'dev'), { recursive: true, force: true });
  rmSync(join(dir, 'test'), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-x', '-C', dir], { input: tar, maxBuffer: 1 << 30 });
  const commit = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD']).toString().trim();
  const dev = loadWcxbCorpus('dev', dir).length;
  const heldOut = loadWcxbCorpus('heldout', dir).length;
  console.log(`WCXB from commit ${commit} in ${dir}: ${dev} dev, ${heldOut} held-out pages`);
}

if (import.meta.main) {
  const gitDir = process.argv[2];
  if (!gitDir) {
    console.error(
      'usage: wcxb-corpus.ts <git dir of github:Murrough-Foley/web-content-extraction-benchmark>',
    );
    process.exitCode = 2;
  } else recreateWcxbCorpus(gitDir);
}
