/**
 * `search`: a query to ranked results from the built-in index (every page Trawl scraped) and
 * the configured web providers (SearXNG), without scraping them: the model picks what to read.
 * Results outside a constrained run's URLs are left out and counted.
 */
import { z } from 'zod';
import { toTrawlError } from '../../errors.ts';
import { search } from '../../search/index.ts';
import { creditsRefusal, failed, type AgentTool } from './types.ts';

const args = z.strictObject({
  query: z.string().trim().min(1).max(500).describe('What to search for.'),
  limit: z.number().int().min(1).max(10).default(5).describe('Most results (1-10).'),
});

const parameters = z.toJSONSchema(args, { io: 'input' });

export const searchTool: AgentTool<typeof args> = {
  name: 'search',
  description:
    'Search the web (and the pages already collected) for pages about a query. Returns titles, URLs and snippets; read a page with scrape.',
  args,
  parameters: () => parameters,
  async run({ query, limit }, env) {
    if (!env.budget.fits({ searches: 1 }, env.reserveTokens)) return creditsRefusal('A search');
    let result;
    try {
      result = await search(query, { limit }, env.engine);
    } catch (error) {
      return failed(`search '${query}': ${toTrawlError(error).message}`);
    }
    const found = result.web ?? [];
    const inScope = found.filter((hit) => env.scope.allows(hit.url));
    for (const hit of inScope) env.citable.add(hit.url);
    const lines = inScope.map(
      (hit, index) =>
        `${index + 1}. ${hit.title ?? '(no title)'}\n   ${hit.url}${hit.description ? `\n   ${hit.description}` : ''}`,
    );
    const left = found.length - inScope.length;
    const notes = [
      left > 0 ? `${left} result(s) outside the allowed URLs were left out.` : '',
      result.warning ? `Note: ${result.warning}` : '',
    ].filter(Boolean);
    return {
      ok: true,
      content: [lines.length ? lines.join('\n') : 'No results.', ...notes].join('\n'),
      summary: `'${query}': ${inScope.length} result(s)${left > 0 ? `, ${left} out of scope` : ''}`,
      spend: { searches: 1 },
    };
  },
};
