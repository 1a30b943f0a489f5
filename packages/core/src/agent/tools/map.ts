/**
 * `map`: the URLs of a site (sitemap and links), ranked by a search text when given, so the
 * model can pick the pages to read. A constrained run maps only inside its URLs and sees only
 * the URLs under them.
 */
import { z } from 'zod';
import { toTrawlError } from '../../errors.ts';
import { map } from '../../map/index.ts';
import { creditsRefusal, failed, refused, type AgentTool } from './types.ts';

const args = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(8192)
    .describe('The site or section to list, e.g. https://example.com/docs/'),
  search: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('Rank the URLs by relevance to this text.'),
  limit: z.number().int().min(1).max(200).default(50).describe('Most URLs (1-200).'),
});

const parameters = z.toJSONSchema(args, { io: 'input' });

export const mapTool: AgentTool<typeof args> = {
  name: 'map',
  description:
    "List the URLs of a site or section (from its sitemap and links), best matches of 'search' first. Use it to find the pages worth reading.",
  args,
  parameters: () => parameters,
  async run({ url, search, limit }, env) {
    if (!env.scope.allows(url)) return refused(env.scope.refusal(url));
    if (!env.budget.fits({ maps: 1 }, env.reserveTokens)) return creditsRefusal('A map');
    let links;
    try {
      ({ links } = await map(url, { limit, ...(search ? { search } : {}) }, env.engine));
    } catch (error) {
      return failed(`map ${url}: ${toTrawlError(error).message}`);
    }
    const inScope = links.filter((link) => env.scope.allows(link.url));
    const lines = inScope.map((link) => (link.title ? `${link.url} (${link.title})` : link.url));
    const left = links.length - inScope.length;
    return {
      ok: true,
      content: [
        lines.length ? lines.join('\n') : 'No URLs found.',
        left > 0 ? `${left} URL(s) outside the allowed URLs were left out.` : '',
      ]
        .filter(Boolean)
        .join('\n'),
      summary: `${url}: ${inScope.length} URL(s)`,
      pages: [url],
      spend: { maps: 1 },
    };
  },
};
