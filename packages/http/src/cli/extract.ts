/** `trawl extract <url...>`: one JSON answer over pages, with the configured LLM. */
import { extract } from '@trawl/core';
import { parseFlags, UsageError } from './args.ts';
import { loadConfig } from '../config.ts';
import type { Command } from './index.ts';
import { llmOf, readJsonFile } from './llm-flags.ts';
import { quietable, quietFlagOption, quietHelp } from './page-flags.ts';
import { openStore } from './store.ts';

const usage = `Usage: trawl extract <url...> --prompt <text> [--schema <file>] [options]

Reads the pages (a URL ending in /* maps the site and picks the pages the prompt is about)
and prints one merged JSON answer.

Options:
  --prompt <text>        what to extract, in words
  --schema <file>        JSON Schema file of the answer
  --show-sources         also print which pages each field came from
${quietHelp}
  -h, --help             show this help

Needs an LLM: TRAWL_LLM_BASE_URL and TRAWL_LLM_MODEL. Answers are cached in $TRAWL_DATA_DIR.

Examples:
  trawl extract 'https://example.com/*' --prompt 'the plans and their prices'
  trawl extract https://example.com/team --schema team.schema.json
`;

/** The extract command. */
export const extractCommand: Command = {
  usage,
  async run(args, cliIo) {
    const { values, positionals } = parseFlags(args, {
      prompt: { type: 'string' },
      schema: { type: 'string' },
      'show-sources': { type: 'boolean' },
      ...quietFlagOption,
    });
    const io = quietable(cliIo, values.quiet);
    if (positionals.length === 0) throw new UsageError('give at least one URL');
    const config = loadConfig({ role: 'cli', env: io.env });
    const llm = llmOf(config);
    const store = await openStore(config);
    try {
      const result = await extract(
        {
          urls: positionals,
          ...(values.prompt !== undefined ? { prompt: values.prompt } : {}),
          ...(values.schema !== undefined
            ? { schema: readJsonFile(values.schema, '--schema') }
            : {}),
          ...(values['show-sources'] !== undefined ? { showSources: values['show-sources'] } : {}),
        },
        { config: config.engine, store, ...(llm ? { llm } : {}) },
      );
      for (const warning of result.warnings) io.stderr(`trawl extract: warning: ${warning}\n`);
      const printed = result.sources ? { data: result.data, sources: result.sources } : result.data;
      io.stdout(`${JSON.stringify(printed, null, 2)}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
