/**
 * The built-in index as a SearchProvider: what Trawl scraped for one team, found by BM25 over
 * title, description, headings and main content. It answers web results only; news and images
 * are the web providers' (a warning says so).
 */
import type { SearchIndex } from '../interfaces/search-index.ts';
import type {
  ProviderAnswer,
  ProviderQuery,
  SearchProvider,
} from '../interfaces/search-provider.ts';
import { queryWords } from './words.ts';

/** Domains the categories narrow the built-in index to (`pdf` narrows by URL instead). */
const categoryDomains: Record<string, readonly string[]> = {
  github: ['github.com'],
  research: ['arxiv.org', 'pubmed.ncbi.nlm.nih.gov', 'biorxiv.org', 'medrxiv.org', 'nature.com'],
  developer: ['developer.mozilla.org', 'stackoverflow.com', 'github.com', 'docs.python.org'],
};

/** Searches a Store's SearchIndex for one team: the pages scraped for that team only. */
export class LocalSearchProvider implements SearchProvider {
  readonly name = 'local';
  readonly kind = 'local';
  readonly #index: SearchIndex;
  readonly #team: string;

  constructor(index: SearchIndex, team: string) {
    this.#index = index;
    this.#team = team;
  }

  async search(query: ProviderQuery): Promise<ProviderAnswer> {
    const answer: ProviderAnswer = {};
    const others = query.sources.filter((source) => source !== 'web');
    if (others.length > 0)
      answer.warnings = [`The built-in index holds web pages only, not ${others.join(' or ')}.`];
    if (!query.sources.includes('web')) return answer;
    const words = queryWords(query.query);
    const includeDomains = [
      ...query.includeDomains,
      ...query.categories.flatMap((category) => categoryDomains[category] ?? []),
    ];
    const wantsPdf = query.categories.includes('pdf');
    const hits = await this.#index.query({
      team: this.#team,
      words,
      // PDFs are told apart by URL after the query: ask for more so the limit still fills.
      limit: wantsPdf ? query.limit * 5 : query.limit,
      ...(includeDomains.length > 0 ? { includeDomains } : {}),
      ...(query.excludeDomains.length > 0 ? { excludeDomains: query.excludeDomains } : {}),
      ...(query.time?.from !== undefined ? { fetchedAfter: query.time.from } : {}),
      ...(query.time?.to !== undefined ? { fetchedBefore: query.time.to } : {}),
      ...(query.lang ? { language: query.lang } : {}),
    });
    answer.web = hits
      .filter((hit) => !wantsPdf || /\.pdf($|[?#])/i.test(hit.url))
      .slice(0, query.limit)
      .map((hit) => ({
        url: hit.url,
        title: hit.title,
        description: query.highlights && hit.snippet ? hit.snippet : hit.description,
        source: 'local',
      }));
    return answer;
  }
}
