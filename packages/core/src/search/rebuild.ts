/**
 * Rebuilding the built-in index from the page cache: after an upgrade that changes what is
 * indexed, or to recover a damaged index, without fetching anything again.
 */
import { NotConfiguredError } from '../errors.ts';
import { scanStore, type Store } from '../interfaces/store.ts';
import type { CachedPage } from '../scrape/cache.ts';
import { htmlToDocument } from '../scrape/convert.ts';
import { indexEntryOf } from '../scrape/index-document.ts';

/**
 * Empties the store's search index and fills it again from every page in the page cache, each
 * for the team it was fetched for; resolves with the number of pages indexed. Pages that fail to
 * convert are skipped, and so are cache entries without a team (written before the cache was
 * kept per team: whose they were is not known, and they expire with the cache's TTL).
 * @throws NOT_CONFIGURED when the store keeps no search index; STORE_UNAVAILABLE
 */
export async function rebuildSearchIndex(store: Store): Promise<number> {
  const index = store.searchIndex;
  if (!index) throw new NotConfiguredError('This store keeps no search index (use SqliteStore)');
  await index.clear();
  let indexed = 0;
  // 'page-cache' is the namespace scrape/cache.ts keeps responses in.
  for await (const { value: page } of scanStore<CachedPage>(store, 'page-cache')) {
    if (page.status >= 400 || page.team === undefined) continue;
    try {
      const document = htmlToDocument(page.text, {
        url: page.url,
        formats: ['markdown'],
        // A parsed file (PDF, DOCX) is all content: main-content extraction is for web pages.
        onlyMainContent: page.parsedFrom === undefined,
      });
      const entry = indexEntryOf(document, page.team);
      if (!entry) continue;
      await index.put({ ...entry, fetchedAt: page.fetchedAt });
      indexed += 1;
    } catch {
      // A page the converter refuses (not HTML) is left out; the rest of the rebuild goes on.
    }
  }
  return indexed;
}
