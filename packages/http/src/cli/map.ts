/** `trawl map <url>`: the URLs of a site, one per line (or JSON), fast. */
import { parseArgs } from 'node:util';
import { map, ValidationError, type MapOptions } from '@trawl/core';
import { loadConfig } from '../config.ts';
import type { Command } from './index.ts';
import { toInteger } from './page-flags.ts';

const usage = `Usage: trawl map <url> [options]

Lists the URLs of a site from its sitemaps and the links of its pages, without converting
pages. Prints one URL per line, or the /v2/map links (url, title, description) with --json.

Options:
  --search <text>        rank URLs by relevance to this text, best first
  --limit <n>            most URLs (default 5000, at most 100000)
  --sitemap <mode>       include (default), skip (links only), or only (sitemap URLs only)
  --no-subdomains        leave out URLs on subdomains of the site
  --keep-query           keep query strings (by default a path is listed once)
  --timeout <ms>         return what was found after this long
  --json                 print {"links": [...]} as JSON
  -h, --help             show this help
`;

/** The map command. */
export const mapCommand: Command = {
  name: 'map',
  summary: 'List the URLs of a site from sitemaps and links',
  usage,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      allowNegative: true,
      options: {
        search: { type: 'string' },
        limit: { type: 'string' },
        sitemap: { type: 'string' },
        subdomains: { type: 'boolean', default: true },
        'keep-query': { type: 'boolean' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    const [url, ...extra] = positionals;
    if (!url || extra.length > 0)
      throw new ValidationError(
        `give exactly one URL (got ${positionals.length}); see 'trawl map --help'`,
      );
    const options: MapOptions = { includeSubdomains: values.subdomains };
    if (values.search !== undefined) options.search = values.search;
    if (values.limit !== undefined) options.limit = toInteger(values.limit, '--limit', 'URLs');
    if (values.sitemap !== undefined)
      options.sitemap = values.sitemap as MapOptions['sitemap'] & string;
    if (values['keep-query']) options.ignoreQueryParameters = false;
    if (values.timeout !== undefined) options.timeout = toInteger(values.timeout, '--timeout');
    const config = loadConfig({ env: io.env });
    const result = await map(url, options, {
      config: config.engine,
      ...(io.signal ? { signal: io.signal } : {}),
    });
    if (values.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    else io.stdout(result.links.map((link) => `${link.url}\n`).join(''));
    return 0;
  },
};
