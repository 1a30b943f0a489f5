/** `trawl scrape <url>`: one page to stdout. */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { scrape, SqliteStore, ValidationError, type ScrapeOptions } from '@trawl/core';
import { loadConfig } from '../config.ts';
import type { Command } from './index.ts';
import { pageFlagOptions, pageFlagsHelp, pageOptionsFrom } from './page-flags.ts';
import { llmFlagOptions, llmFlagsHelp, llmFormatsFrom, llmOf, llmOutput } from './llm-flags.ts';

const outputFormats = ['markdown', 'html', 'rawHtml', 'links', 'images', 'json'] as const;
type OutputFormat = (typeof outputFormats)[number];

const usage = `Usage: trawl scrape <url> [options]

Fetches one page and prints it.

Options:
  --format <f>           markdown (default), html, rawHtml, links, images, or json
                         (the whole document with metadata)
${pageFlagsHelp}
${llmFlagsHelp}
  -h, --help             show this help

The page cache lives in $TRAWL_DATA_DIR (default ./.trawl).
`;

/** The scrape command. */
export const scrapeCommand: Command = {
  name: 'scrape',
  summary: 'Scrape one page to markdown, html, links or JSON',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      allowNegative: true,
      options: {
        format: { type: 'string', default: 'markdown' },
        ...pageFlagOptions,
        ...llmFlagOptions,
      },
    });
    const [url, ...extra] = positionals;
    if (!url || extra.length > 0)
      throw new ValidationError(
        `give exactly one URL (got ${positionals.length}); see 'trawl scrape --help'`,
      );
    const format = values.format as OutputFormat;
    if (!outputFormats.includes(format)) {
      throw new ValidationError(
        `--format must be one of ${outputFormats.join(', ')} (got '${values.format}')`,
      );
    }

    // The LLM flags print what the model answered, unless --format json asks for everything.
    const llmFormats = llmFormatsFrom(values);
    const options: ScrapeOptions = {
      ...pageOptionsFrom(values),
      formats: [
        ...(format === 'json' ? (['markdown', 'links', 'images'] as const) : [format]),
        ...llmFormats,
      ],
    };

    const config = loadConfig({ env: io.env });
    const llm = llmFormats.length > 0 ? llmOf(config) : undefined;
    const store =
      values.cache || values.lockdown
        ? new SqliteStore({ path: join(config.dataDir, 'trawl.db') })
        : undefined;
    try {
      const document = await scrape(url, options, {
        config: config.engine,
        ...(store ? { store } : {}),
        ...(llm ? { llm } : {}),
      });
      if (document.warning && llmFormats.length > 0)
        io.stderr(`trawl scrape: warning: ${document.warning}\n`);
      if (llmFormats.length > 0 && format !== 'json') io.stdout(llmOutput(document));
      else if (format === 'json') io.stdout(`${JSON.stringify(document, null, 2)}\n`);
      else if (format === 'links' || format === 'images')
        io.stdout(`${(document[format] ?? []).join('\n')}\n`);
      else io.stdout(`${document[format] ?? ''}\n`);
      return 0;
    } finally {
      await store?.close();
    }
  },
};
