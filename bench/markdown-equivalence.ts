// Our markdown writer against mdast-util-to-markdown (remark-stringify + remark-gfm, our settings)
// on every tree real pages give: each page of the corpora below is converted with and without
// main-content extraction, and every mdast tree written is also written by the library; any byte
// of difference is reported (there must be none). The corpora:
//   bench/corpus                 the benchmark's own pages
//   generated                    the crawl bench's generated site (bench/lib/generated-site.ts)
//   wcxb                         WCXB dev and test pages, re-created by bench/tools/wcxb-corpus.ts
//   trafilatura                  trafilatura's evaluation pages, read from a git dir of
//                                github:adbar/trafilatura (tests/evaldata.json, tests/cache|eval)
//
//   node --conditions=development --experimental-strip-types bench/markdown-equivalence.ts \
//     [--generated 2000] [--trafilatura <git dir>] [--show 3] [--only wcxb,trafilatura]

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Root } from 'mdast';
import { htmlToDocument } from '@trawl/core';
import { libraryMarkdown, observeWrittenTrees } from '@trawl/core/server';
import { loadCorpus } from './lib/corpus.ts';
import { renderPage } from './lib/generated-site.ts';
import { loadWcxbCorpus, readWcxbHtml, wcxbCorpusDir } from './tools/wcxb-corpus.ts';

interface Source {
  name: string;
  pages: () => Iterable<{ url: string; html: () => string }>;
}

interface Tally {
  pages: number;
  trees: number;
  differences: number;
  errors: number;
}

const { values } = parseArgs({
  options: {
    generated: { type: 'string', default: '2000' },
    trafilatura: { type: 'string' },
    show: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const show = Number(values.show);

const sources: Source[] = [
  {
    name: 'bench/corpus',
    pages: () => loadCorpus().map((page) => ({ url: page.url, html: () => page.html })),
  },
  {
    name: 'generated site',
    pages: function* () {
      const pages = Number(values.generated);
      for (let n = 0; n < pages; n++)
        yield {
          url: `http://127.0.0.1:1${n === 0 ? '/' : `/articles/${n}.html`}`,
          html: () => renderPage(n, pages, 'http://127.0.0.1:1'),
        };
    },
  },
];
if (existsSync(join(wcxbCorpusDir, 'dev'))) {
  sources.push({
    name: 'wcxb',
    pages: () =>
      [...loadWcxbCorpus('dev'), ...loadWcxbCorpus('heldout')].map((page) => ({
        url: page.url,
        html: () => readWcxbHtml(page),
      })),
  });
} else {
  console.error(`no WCXB pages in ${wcxbCorpusDir}: run bench/tools/wcxb-corpus.ts first`);
}
if (values.trafilatura) {
  const gitDir = values.trafilatura;
  const git = (...args: string[]): Buffer =>
    execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 1 << 30 });
  sources.push({
    name: 'trafilatura',
    pages: function* () {
      const evaldata = JSON.parse(
        git('show', 'HEAD:tests/evaldata.json').toString('utf8'),
      ) as Record<string, { file: string }>;
      const files = new Set(
        git('ls-tree', '-r', '--name-only', '-z', 'HEAD', 'tests/eval', 'tests/cache')
          .toString('utf8')
          .split('\0'),
      );
      for (const url of Object.keys(evaldata).sort()) {
        const path = ['tests/cache/', 'tests/eval/']
          .map((dir) => dir + evaldata[url]!.file)
          .find((candidate) => files.has(candidate));
        if (path) yield { url, html: () => git('show', `HEAD:${path}`).toString('utf8') };
      }
    },
  });
}

const only = values.only?.split(',');
let current: Tally | undefined;
let shown = 0;
observeWrittenTrees((mdast: Root, ours: string) => {
  if (!current) return;
  current.trees++;
  const expected = libraryMarkdown(structuredClone(mdast));
  if (expected === ours) return;
  current.differences++;
  if (shown++ < show) {
    let at = 0;
    while (at < ours.length && ours[at] === expected[at]) at++;
    console.log(
      `difference at ${at}:\n  ours:    ${JSON.stringify(ours.slice(Math.max(0, at - 60), at + 60))}\n  library: ${JSON.stringify(expected.slice(Math.max(0, at - 60), at + 60))}`,
    );
  }
});

let total = 0;
console.log('| corpus | pages | trees | differences | errors |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const source of sources) {
  if (only && !only.includes(source.name)) continue;
  const tally: Tally = { pages: 0, trees: 0, differences: 0, errors: 0 };
  current = tally;
  for (const page of source.pages()) {
    tally.pages++;
    const html = page.html();
    for (const onlyMainContent of [true, false]) {
      try {
        htmlToDocument(html, { url: page.url, onlyMainContent, formats: ['markdown'] });
      } catch (error) {
        tally.errors++;
        console.error(`${page.url}: ${(error as Error).message}`);
      }
    }
  }
  current = undefined;
  total += tally.differences;
  console.log(
    `| ${source.name} | ${tally.pages} | ${tally.trees} | ${tally.differences} | ${tally.errors} |`,
  );
}
process.exitCode = total === 0 ? 0 : 1;
