/** `trawl map <url>`: the URLs of a site, one per line (or JSON), fast. */
import { map, type MapOptions } from '@trawl/core';
import { loadConfig } from '../config.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import {
  formatsFrom,
  outputFlagOptions,
  pageFlagOptions,
  noteMissingScheme,
  quietHelp,
  siteFlagOptions,
  toInteger,
} from './page-flags.ts';

const usage = `Usage: trawl map <url> [options]

Lists the URLs of a site from its sitemaps and the links of its pages, without converting
pages. Prints one URL per line, or the /v2/map links (url, title, description) with
--format json.

Options:
  --search <text>        rank URLs by relevance to this text, best first
  --limit <n>            most URLs (default 5000, at most 100000)
  --sitemap <mode>       include (default), skip (links only), or only (sitemap URLs only)
  --no-subdomains        leave out URLs on subdomains of the site
  --no-ignore-query      keep query strings (by default a path is listed once; also
                         --keep-query)
  --timeout <ms>         return what was found after this long
  --language <tag>       Accept-Language tag (repeatable)
  --country <code>       location country (two letters)
  --format <f>           urls (default: one per line) or json ({"links": [...]}; also --json)
${quietHelp}
  -h, --help             show this help

Examples:
  trawl map https://example.com --search pricing --limit 20
`;

const { timeout, language, country } = pageFlagOptions;

/** The map command. */
export const mapCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      search: { type: 'string' },
      ...siteFlagOptions,
      'keep-query': { type: 'boolean' },
      timeout,
      language,
      country,
      ...outputFlagOptions,
      json: { type: 'boolean' },
    });
    const [url, ...extra] = positionals;
    if (!url || extra.length > 0)
      throw new UsageError(`give exactly one URL (got ${positionals.length})`);
    noteMissingScheme(url, io, values.quiet);
    const [format] = values.json ? ['json'] : formatsFrom(values, ['urls', 'json'], 'urls');
    const options: MapOptions = {};
    if (values.subdomains !== undefined) options.includeSubdomains = values.subdomains;
    if (values.search !== undefined) options.search = values.search;
    if (values.limit !== undefined) options.limit = toInteger(values.limit, '--limit', 'URLs');
    if (values.sitemap !== undefined)
      options.sitemap = values.sitemap as MapOptions['sitemap'] & string;
    if (values['keep-query'] || values['ignore-query'] === false)
      options.ignoreQueryParameters = false;
    if (values.timeout !== undefined) options.timeout = toInteger(values.timeout, '--timeout');
    if (values.language || values.country) {
      options.location = {
        ...(values.country ? { country: values.country } : {}),
        ...(values.language ? { languages: values.language } : {}),
      };
    }
    const config = loadConfig({ role: 'cli', env: io.env });
    const result = await map(url, options, {
      config: config.engine,
      ...(io.signal ? { signal: io.signal } : {}),
    });
    if (format === 'json') io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    else io.stdout(result.links.map((link) => `${link.url}\n`).join(''));
    return 0;
  },
};
