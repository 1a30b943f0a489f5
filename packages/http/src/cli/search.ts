/**
 * `trawl search <query>` and `trawl index stats|rebuild`: the search of `POST /v2/search` from
 * the command line, over the built-in index of what this machine scraped (the data directory's
 * store) and, with `--source web`, the SearXNG of TRAWL_SEARXNG_URL.
 */
import {
  ValidationError,
  rebuildSearchIndex,
  search,
  SearxngProvider,
  type SearchOptions,
} from '@trawl/core';
import { loadConfig } from '../config.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { quietable, quietFlagOption, quietHelp, toInteger } from './page-flags.ts';
import { openStore } from './store.ts';

const searchUsage = `Usage: trawl search <query> [options]

Searches the pages Trawl scraped and crawled on this machine (the built-in index), or the web
through SearXNG (TRAWL_SEARXNG_URL). Prints one result per line: URL, then title.

Options:
  --limit <n>            most results (default 10, at most 100)
  --source <where>       local (the built-in index), web (SearXNG), or all (both, fused);
                         default: web when TRAWL_SEARXNG_URL is set, else local
  --domain <host>        only results on this host (repeatable)
  --scrape               scrape each result and print the documents as JSON
  --json                 print the whole answer as JSON
${quietHelp}
  -h, --help             show this help

Examples:
  trawl search 'refund policy' --source local --limit 5
`;

const indexUsage = `Usage: trawl index <stats|rebuild>

  stats     pages in the built-in search index and its size on disk
  rebuild   empty the index and fill it again from the page cache (nothing is fetched)
${quietHelp}

Examples:
  trawl index stats
`;

async function configAndStore(env: Record<string, string | undefined>) {
  const config = loadConfig({ role: 'cli', env });
  return { config, store: await openStore(config) };
}

/** The search command. */
export const searchCommand: Command = {
  usage: searchUsage,
  async run(args, cliIo) {
    const { values, positionals } = parseFlags(args, {
      limit: { type: 'string' },
      source: { type: 'string' },
      domain: { type: 'string', multiple: true },
      scrape: { type: 'boolean' },
      json: { type: 'boolean' },
      ...quietFlagOption,
    });
    const io = quietable(cliIo, values.quiet);
    if (positionals.length === 0) throw new UsageError('give a query');
    const options: SearchOptions = {};
    if (values.limit !== undefined) options.limit = toInteger(values.limit, '--limit', 'results');
    if (values.source !== undefined) options.source = values.source as SearchOptions['source'];
    if (values.domain) options.includeDomains = values.domain;
    if (values.scrape) options.scrapeOptions = { formats: ['markdown'] };
    const { config, store } = await configAndStore(io.env);
    try {
      const url = config.server.searxngUrl;
      const result = await search(positionals.join(' '), options, {
        store,
        config: config.engine,
        providers: url ? [new SearxngProvider({ url })] : [],
        ...(io.signal ? { signal: io.signal } : {}),
      });
      if (result.warning) io.stderr(`warning: ${result.warning}\n`);
      if (values.json || values.scrape) {
        const { counts: _counts, ...answer } = result;
        io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
      } else {
        io.stdout((result.web ?? []).map((item) => `${item.url}\t${item.title ?? ''}\n`).join(''));
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};

/** The index command. */
export const indexCommand: Command = {
  usage: indexUsage,
  async run(args, io) {
    const [action, ...extra] = parseFlags(args, quietFlagOption).positionals;
    if ((action !== 'stats' && action !== 'rebuild') || extra.length > 0)
      throw new UsageError('give stats or rebuild');
    const { config, store } = await configAndStore(io.env);
    try {
      if (action === 'rebuild') {
        const indexed = await rebuildSearchIndex(store);
        io.stdout(`indexed ${indexed} page(s) from the page cache\n`);
      } else {
        if (!store.searchIndex)
          throw new ValidationError(
            `the ${config.storage.store} store keeps no search index; search uses the page cache`,
          );
        const stats = await store.searchIndex.stats();
        io.stdout(
          `${stats.documents} page(s)${stats.bytes === undefined ? '' : `, ${stats.bytes} bytes on disk`}\n`,
        );
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
