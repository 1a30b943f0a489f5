// Loads the benchmark corpus: bench/corpus/<slug>/{source.html, expected.txt, meta.json}.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface CorpusPage {
  slug: string;
  type: string;
  url: string;
  notes: string;
  html: string;
  /** Size of source.html in bytes (what throughput figures are computed from). */
  bytes: number;
  expected: string;
}

export const corpusDir = join(import.meta.dirname, '..', 'corpus');

interface Meta {
  type: string;
  url: string;
  notes: string;
}

function readMeta(file: string): Meta {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const meta = raw as Partial<Record<keyof Meta, unknown>>;
  for (const key of ['type', 'url', 'notes'] as const)
    if (typeof meta[key] !== 'string') throw new Error(`${file}: "${key}" must be a string`);
  return meta as Meta;
}

/** All pages, sorted by slug; `only` restricts the set and fails loudly on unknown slugs. */
export function loadCorpus(only: readonly string[] = []): CorpusPage[] {
  const all = readdirSync(corpusDir)
    .filter((slug) => statSync(join(corpusDir, slug)).isDirectory())
    .sort();
  const unknown = only.filter((slug) => !all.includes(slug));
  if (unknown.length > 0) throw new Error(`unknown corpus page(s): ${unknown.join(', ')}`);
  const slugs = only.length > 0 ? all.filter((slug) => only.includes(slug)) : all;
  return slugs.map((slug) => {
    const dir = join(corpusDir, slug);
    const html = readFileSync(join(dir, 'source.html'), 'utf8');
    const meta = readMeta(join(dir, 'meta.json'));
    return {
      slug,
      ...meta,
      html,
      bytes: Buffer.byteLength(html),
      expected: readFileSync(join(dir, 'expected.txt'), 'utf8'),
    };
  });
}
