/** `trawl scrape <url>`: one page to stdout. */
import { scrape, type FormatName, type ScrapeOptions } from '@trawl/core';
import { loadConfig } from '../config.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import {
  checkPageSettings,
  formatsFrom,
  noteMissingScheme,
  outputFlagOptions,
  pageCacheHelp,
  pageFlagOptions,
  pageFlagsHelp,
  pageOptionsFrom,
  quietHelp,
} from './page-flags.ts';
import { llmFlagOptions, llmFlagsHelp, llmFormatsFrom, llmOf, llmOutput } from './llm-flags.ts';
import { openStore } from './store.ts';

const outputFormats = ['markdown', 'html', 'rawHtml', 'links', 'images', 'json'] as const;
/** What `json` (the whole document) holds. */
const jsonFormats: FormatName[] = ['markdown', 'links', 'images'];

const usage = `Usage: trawl scrape <url> [options]

Fetches one page and prints it.

Options:
  --format <f>           markdown (default), html, rawHtml, links, images, or json (the whole
                         document with metadata); several (--format markdown,links or the flag
                         repeated) print the document as JSON with those formats. --formats is
                         the same flag.
${pageFlagsHelp}
${llmFlagsHelp}
${quietHelp}
  -h, --help             show this help

${pageCacheHelp}

Examples:
  trawl scrape https://example.com/pricing
  trawl scrape https://example.com --format markdown,links > page.json
`;

/** The scrape command. */
export const scrapeCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      ...outputFlagOptions,
      ...pageFlagOptions,
      ...llmFlagOptions,
    });
    const [url, ...extra] = positionals;
    if (!url || extra.length > 0)
      throw new UsageError(`give exactly one URL (got ${positionals.length})`);
    noteMissingScheme(url, io, values.quiet);
    const formats = formatsFrom(values, outputFormats, 'markdown');
    // One plain format prints as it is; json, or several formats, print the document as JSON.
    const single = formats.length === 1 && formats[0] !== 'json' ? formats[0] : undefined;
    // The LLM flags print what the model answered, unless the whole document is asked for.
    const llmFormats = llmFormatsFrom(values);
    const options: ScrapeOptions = {
      ...pageOptionsFrom(values),
      formats: [
        ...formats.flatMap((format) => (format === 'json' ? jsonFormats : [format as FormatName])),
        ...llmFormats,
      ],
    };

    const config = loadConfig({ role: 'cli', env: io.env });
    checkPageSettings(options, config.engine);
    const llm = llmFormats.length > 0 ? llmOf(config) : undefined;
    const store = values.cache || values.lockdown ? await openStore(config) : undefined;
    try {
      const document = await scrape(url, options, {
        config: config.engine,
        ...(store ? { store } : {}),
        ...(llm ? { llm } : {}),
      });
      if (llmFormats.length > 0 && single !== undefined) io.stdout(llmOutput(document));
      else if (single === 'links' || single === 'images')
        io.stdout(`${(document[single] ?? []).join('\n')}\n`);
      else if (single === 'markdown' || single === 'html' || single === 'rawHtml')
        io.stdout(`${document[single] ?? ''}\n`);
      else io.stdout(`${JSON.stringify(document, null, 2)}\n`);
      if (document.warning && !values.quiet) io.stderr(`warning: ${document.warning}\n`);
      // The page is printed either way (an error page can be what was wanted), but a script
      // must be able to tell that the site answered with an error.
      const status = document.metadata.statusCode;
      if (status >= 400) {
        io.stderr(
          `trawl scrape: the site answered ${status} for ${document.metadata.url ?? url}\n`,
        );
        return 1;
      }
      return 0;
    } finally {
      await store?.close();
    }
  },
};
