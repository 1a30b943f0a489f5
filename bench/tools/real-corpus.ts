// trafilatura's public evaluation set (github:adbar/trafilatura, tests/eval, tests/cache and
// tests/evaldata.json) as real pages for the main-content bench. The pages are not ours to
// publish, so they are never committed: this script re-creates them from a fetched git directory
// into bench/real-corpus/ (git-ignored), and `loadRealCorpus()` reads them back.
//
//   npm run env -- node bench/tools/real-corpus.ts <git dir of github:adbar/trafilatura>
//
// The split into a dev part (~80 %) and a held-out part (~20 %) is fixed by a hash of each page's
// file name, so it never depends on the order of the annotations or on what was tuned: tune on
// dev, judge by held-out, and never read held-out pages one by one.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Where the pages are re-created (listed in .gitignore). */
export const realCorpusDir = new URL('../real-corpus/', import.meta.url).pathname;

/** The two parts of the split. */
export type CorpusPart = 'dev' | 'heldout';

/** One annotated page of the evaluation set. */
export interface RealPage {
  /** The annotation's key: the page's URL, or a label such as `hard::file.html` for a few. */
  key: string;
  /**
   * The URL given to the extractor: the key as it is, as a user holding the page would pass it.
   * About 40 keys are labels (`hard::…`) or mistyped URLs; htmlToDocument converts those too.
   */
  url: string;
  /** The file name, unique in the set; the split hashes it. */
  file: string;
  /** Path under the corpus directory (`tests/cache/…` wins over `tests/eval/…`, as upstream). */
  path: string;
  /** Snippets that must appear in the output. */
  with: string[];
  /** Snippets that must not appear in the output. */
  without: string[];
  part: CorpusPart;
}

interface Annotation {
  file: string;
  with: string[];
  without: string[];
}

// One page in five is held out: the first byte of the file name's SHA-256, modulo 5.
const heldOutShare = 5;

/** The part a page belongs to, from its file name alone. */
export function partOf(file: string): CorpusPart {
  const byte = createHash('sha256').update(file).digest()[0] ?? 0;
  return byte % heldOutShare === 0 ? 'heldout' : 'dev';
}

/** Reads the re-created corpus; throws with the command to run when it is missing. */
export function loadRealCorpus(dir = realCorpusDir): RealPage[] {
  const annotations = join(dir, 'tests/evaldata.json');
  if (!existsSync(annotations)) {
    throw new Error(
      `no real corpus in ${dir}: run \`npm run env -- node bench/tools/real-corpus.ts <git dir>\``,
    );
  }
  const data = JSON.parse(readFileSync(annotations, 'utf8')) as Record<string, Annotation>;
  const pages: RealPage[] = [];
  for (const key of Object.keys(data).sort()) {
    const item = data[key]!;
    const path = ['tests/cache/', 'tests/eval/']
      .map((folder) => folder + item.file)
      .find((candidate) => existsSync(join(dir, candidate)));
    if (!path) continue;
    pages.push({
      key,
      url: key,
      file: item.file,
      path,
      with: item.with,
      without: item.without,
      part: partOf(item.file),
    });
  }
  return pages;
}

/** Writes tests/eval, tests/cache and tests/evaldata.json of the git directory's HEAD to `dir`. */
export function recreateRealCorpus(gitDir: string, dir = realCorpusDir): void {
  const tar = execFileSync(
    'git',
    [
      '--git-dir',
      gitDir,
      'archive',
      '--format=tar',
      'HEAD',
      '--',
      'tests/eval',
      'tests/cache',
      'tests/evaldata.json',
    ],
    { maxBuffer: 1 << 30 },
  );
  rmSync(join(dir, 'tests'), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  const commit = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD']).toString().trim();
  const pages = loadRealCorpus(dir);
  const heldOut = pages.filter((page) => page.part === 'heldout').length;
  console.log(
    `${pages.length} annotated pages from commit ${commit} in ${dir}: ` +
      `${pages.length - heldOut} dev, ${heldOut} held-out`,
  );
}

if (import.meta.main) {
  const gitDir = process.argv[2];
  if (!gitDir) {
    console.error('usage: real-corpus.ts <git dir of github:adbar/trafilatura>');
    process.exitCode = 2;
  } else recreateRealCorpus(gitDir);
}
