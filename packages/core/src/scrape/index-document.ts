/**
 * What goes into the built-in index for one scraped page. Called where documents are produced
 * (the scrape engine, which crawls also run through), so everything Trawl scrapes is searchable
 * — by the team it was scraped for, and only by that team.
 */
import type { Document } from '../document.ts';
import type { IndexEntry } from '../interfaces/search-index.ts';
import type { Store } from '../interfaces/store.ts';
import { withoutUserinfo } from '../internal/url.ts';
import { fetchedWithCredentials } from './cache.ts';
import type { ResolvedScrapeOptions } from './options.ts';

/** Main-content text kept per page: enough for ranking and snippets, bounded for huge pages. */
const maxBodyChars = 200_000;
/**
 * How much of a page's markdown (or HTML) is read for its headings and body text: the body keeps
 * 200,000 characters of text, and stripping the markup of a whole 12 MB markdown (a page whose
 * link is 6 MB long) held the request thread 1.4 s.
 */
const maxScannedChars = 4 * maxBodyChars;

/** Whose scrape a document came from, and how it was fetched. */
export interface IndexedScrape {
  team: string;
  /** The URL requested (its user name and password, if any, included). */
  target: URL;
  options: Pick<ResolvedScrapeOptions, 'headers' | 'actions' | 'profile' | 'zeroDataRetention'>;
}

/**
 * Indexes a scraped page for its team when the store has an index. Pages that failed (4xx/5xx)
 * are not worth finding; zeroDataRetention pages must leave no trace; pages fetched with the
 * caller's credentials are not indexed, by the page cache's own rule. Never fails a scrape.
 */
export async function indexDocument(
  store: Store | undefined,
  document: Document,
  scrape: IndexedScrape,
): Promise<void> {
  const index = store?.searchIndex;
  if (!index || scrape.options.zeroDataRetention || document.metadata.statusCode >= 400) return;
  if (fetchedWithCredentials(scrape.options, scrape.target)) return;
  const entry = indexEntryOf(document, scrape.team);
  if (!entry) return;
  try {
    await index.put(entry);
  } catch {
    // The page was delivered; a full disk or a busy index only loses its searchability.
  }
}

/** The index entry of a document for `team`, from whichever content format it carries. */
export function indexEntryOf(document: Document, team: string): IndexEntry | undefined {
  const { metadata } = document;
  let url: URL;
  try {
    url = new URL(withoutUserinfo(metadata.url));
  } catch {
    return undefined;
  }
  const markdown = (
    document.markdown ?? htmlToText((document.html ?? '').slice(0, maxScannedChars))
  ).slice(0, maxScannedChars);
  const headings = [...markdown.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => match[1]);
  const cachedAt = metadata.cachedAt ? Date.parse(metadata.cachedAt) : Number.NaN;
  return {
    team,
    url: url.href,
    title: stringOf(metadata.title ?? metadata.ogTitle),
    description: stringOf(metadata.description ?? metadata.ogDescription),
    headings: headings.join('\n'),
    body: markdownToText(markdown).slice(0, maxBodyChars),
    domain: url.hostname.toLowerCase(),
    language: stringOf(metadata.language).toLowerCase(),
    fetchedAt: Number.isNaN(cachedAt) ? Date.now() : cachedAt,
  };
}

function stringOf(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(' ');
  return typeof value === 'string' ? value : '';
}

/**
 * A link or image (its text kept, images inside a link's text included), or a run of markup
 * characters and line breaks. Line breaks go with the markup: collapsing every run of spaces
 * costs more than the index write itself on a long page, and neither the tokenizer nor a
 * snippet minds a double space.
 */
const markup = /!?\[((?:[^\]!]|!(?!\[)|!\[[^\]]*\]\([^)]*\))*)\]\([^)]*\)|[#*_`>|~\r\n]+/g;
const markupInLinkText = /[[#*_`>|~\r\n]/;

/**
 * Markdown without its markup: link targets, image tags, emphasis and heading marks. One pass:
 * a replace per kind of markup made four copies of every page's markdown on the crawl's thread,
 * a fifth of all it allocated.
 */
export function markdownToText(markdown: string): string {
  return withoutMarkup(markdown).trim();
}

function withoutMarkup(markdown: string): string {
  return markdown.replace(markup, (_match, linkText: string | undefined) => {
    if (linkText === undefined) return ' ';
    return markupInLinkText.test(linkText) ? withoutMarkup(linkText) : linkText;
  });
}

function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<h([1-6])[^>]*>/gi, (_tag, level: string) => `\n${'#'.repeat(Number(level))} `)
    .replace(/<\/h[1-6]>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}
