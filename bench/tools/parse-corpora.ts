/**
 * Re-creates the real-document corpora of the parse benches from local git mirrors of
 * public repositories, into `bench/parse-corpora/` (git-ignored: the files are never committed).
 *
 *   tables/icdar/    ICDAR 2013 table competition PDFs with their `-str.xml` structure truth
 *                    (github:camelot-dev/camelot, tests/files/tabula/icdar2013-dataset/)
 *   tables/tabula/   tabula-java test PDFs with the CSV tabula expects for them
 *                    (github:tabulapdf/tabula-java, src/test/resources/technology/tabula/)
 *   robustness/poi/  Apache POI's test-data (real and deliberately broken Office files)
 *   robustness/pdfjs/ pdf.js's test PDFs (real and broken)
 *
 * The mirrors are git directories (no work tree), by default under /work/.mirror/<owner>+<name>/repo;
 * TRAWL_MIRRORS points elsewhere. Every file gets a deterministic split from a hash of its name
 * (about 80% dev, 20% held-out), written to `split.json`, so tuning never sees the held-out part.
 *
 *   node --experimental-strip-types bench/tools/parse-corpora.ts
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', 'parse-corpora');
const mirrors = process.env.TRAWL_MIRRORS ?? '/work/.mirror';

/** dev or held-out, from the file's name alone: the same name always lands on the same side. */
export function splitOf(name: string): 'dev' | 'heldout' {
  const digest = createHash('sha256').update(basename(name)).digest();
  return digest[0]! < 205 ? 'dev' : 'heldout';
}

interface Source {
  repo: string;
  /** Folder inside the repository. */
  path: string;
  /** Folder under bench/parse-corpora. */
  into: string;
  keep: (name: string) => boolean;
}

const sources: Source[] = [
  {
    repo: 'camelot-dev/camelot',
    path: 'tests/files/tabula/icdar2013-dataset',
    into: 'tables/icdar',
    keep: (name) => name.endsWith('.pdf') || name.endsWith('-str.xml'),
  },
  {
    repo: 'tabulapdf/tabula-java',
    path: 'src/test/resources/technology/tabula',
    into: 'tables/tabula',
    // The ICDAR copy inside tabula is the camelot one again.
    keep: (name) => !name.includes('icdar2013') && (name.endsWith('.pdf') || name.endsWith('.csv')),
  },
  { repo: 'apache/poi', path: 'test-data', into: 'robustness/poi', keep: () => true },
  {
    repo: 'mozilla/pdf.js',
    path: 'test/pdfs',
    into: 'robustness/pdfjs',
    keep: (name) => name.endsWith('.pdf'),
  },
];

function gitDir(repo: string): string | undefined {
  const dir = join(mirrors, repo.replace('/', '+'), 'repo');
  return existsSync(dir) ? dir : undefined;
}

/** Copies every source out of its mirror and writes the split. */
function recreate(): void {
  const split: Record<string, 'dev' | 'heldout'> = {};
  for (const source of sources) {
    const git = gitDir(source.repo);
    const target = join(root, source.into);
    if (!git) {
      console.log(`${source.repo}: no mirror under ${mirrors}; skipped (fetch it first)`);
      continue;
    }
    rmSync(target, { recursive: true, force: true });
    // Blob by blob from the tree: a snapshot may lack its largest blobs, which are then skipped.
    const listing = execFileSync(
      'git',
      ['--git-dir', git, 'ls-tree', '-r', '-z', 'HEAD', `${source.path}/`],
      { maxBuffer: 64 * 1024 ** 2 },
    ).toString('utf8');
    let kept = 0;
    let missing = 0;
    for (const entry of listing.split('\0')) {
      const match = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
      if (!match) continue;
      const file = relative(source.path, match[2]!);
      if (!source.keep(file)) continue;
      let bytes: Buffer;
      try {
        bytes = execFileSync('git', ['--git-dir', git, 'cat-file', 'blob', match[1]!], {
          maxBuffer: 256 * 1024 ** 2,
          stdio: ['ignore', 'pipe', 'ignore'],
        });
      } catch {
        missing++;
        continue;
      }
      mkdirSync(dirname(join(target, file)), { recursive: true });
      writeFileSync(join(target, file), bytes);
      kept++;
      split[join(source.into, file)] = splitOf(file.replace(/-str\.xml$|\.csv$/, '.pdf'));
    }
    if (missing) console.log(`${source.repo}: ${missing} blobs absent from the mirror, skipped`);
    console.log(`${source.repo}: ${kept} files into bench/parse-corpora/${source.into}`);
  }
  writeFileSync(join(root, 'split.json'), JSON.stringify(split, null, 1));
}

if (import.meta.main) recreate();
