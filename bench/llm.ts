/**
 * The LLM formats' benchmark:
 * - `json` on every corpus page through parse() and the LLM layer, against the fake
 *   OpenAI-compatible server (test/fakes): LLM calls and tokens per page with the chunker, for
 *   an 8k and a 4k-token context (the tokens are the fake's count: 4 characters each, as the
 *   engine estimates them);
 * - `product` and `highlights` with no model: ms per page over the corpus and the shop pages.
 *
 *   npm run bench:llm
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenAiLlmProvider } from '@trawl/adapters';
import { htmlToDocument, parse, resolveEngineConfig } from '@trawl/core';
import { startFakeOpenAi } from '../test/fakes/openai-server.ts';
import { loadCorpus } from './lib/corpus.ts';

const corpus = loadCorpus();
const shopDir = join(import.meta.dirname, '..', 'test', 'fixture-site', 'public', 'shop');
const shops = readdirSync(shopDir).map((file) => ({
  slug: file,
  html: readFileSync(join(shopDir, file), 'utf8'),
}));

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Median ms per page of one no-LLM format over `pages`, each page converted `runs` times. */
function timeFormat(
  pages: readonly { slug: string; html: string }[],
  format: Parameters<typeof htmlToDocument>[1]['formats'],
  runs = 5,
) {
  const perPage: number[] = [];
  for (const page of pages) {
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      htmlToDocument(page.html, { url: 'https://bench.example/page', formats: format });
      times.push(performance.now() - started);
    }
    perPage.push(median(times));
  }
  const round = (value: number) => +value.toFixed(2);
  return {
    pages: pages.length,
    medianMs: round(median(perPage)),
    maxMs: round(Math.max(...perPage)),
  };
}

const fake = await startFakeOpenAi();
fake.respond = () => ({ content: '{"title":"t","points":["a"]}' });
const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, points: { type: 'array', items: { type: 'string' } } },
  required: ['title'],
};
const llm = new OpenAiLlmProvider({ baseUrl: fake.baseUrl, model: 'bench' });
const json: Record<string, unknown> = {};
for (const contextTokens of [8192, 4096]) {
  fake.contextTokens = contextTokens;
  const calls: number[] = [];
  const tokens: number[] = [];
  for (const page of corpus) {
    const doc = await parse(
      new TextEncoder().encode(page.html),
      { filename: `${page.slug}.html`, formats: [{ type: 'json', schema }] },
      { llm, config: resolveEngineConfig({ llmContextTokens: contextTokens }) },
    );
    calls.push(Number(doc.metadata['llmCalls'] ?? 0));
    tokens.push(Number(doc.metadata['llmTokens'] ?? 0));
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  // One long page: every corpus article's body in one document, to show the chunker at work.
  const long = `<html><body><main>${corpus
    .map((page) => /<body[^>]*>([\s\S]*)<\/body>/i.exec(page.html)?.[1] ?? '')
    .join('\n')}</main></body></html>`;
  const longDoc = await parse(
    new TextEncoder().encode(long),
    { filename: 'long.html', onlyMainContent: false, formats: [{ type: 'json', schema }] },
    {
      llm,
      config: resolveEngineConfig({ llmContextTokens: contextTokens, llmMaxChunksPerPage: 256 }),
    },
  );
  json[`context ${contextTokens}`] = {
    longPage: {
      kb: Math.round(long.length / 1024),
      calls: longDoc.metadata['llmCalls'],
      tokens: longDoc.metadata['llmTokens'],
    },
    pages: corpus.length,
    callsPerPage: +(sum(calls) / corpus.length).toFixed(2),
    maxCallsOnOnePage: Math.max(...calls),
    tokensPerPage: Math.round(sum(tokens) / corpus.length),
    maxTokensOnOnePage: Math.max(...tokens),
  };
}
await fake.close();

const results = {
  json,
  productNoLlm: {
    corpus: timeFormat(corpus, ['product']),
    shopPages: timeFormat(shops, ['product']),
  },
  highlightsNoLlm: {
    corpus: timeFormat(corpus, [
      { type: 'highlights', query: 'how does it work and what does it cost' },
    ]),
  },
  markdownForReference: { corpus: timeFormat(corpus, ['markdown']) },
};
console.log(JSON.stringify(results, null, 2));
