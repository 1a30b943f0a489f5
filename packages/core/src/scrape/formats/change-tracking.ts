/**
 * `changeTracking`: how this page compares with the last scrape of the same URL (and `tag`) by
 * the same team — `new`, `same`, `changed` or `removed` — with a git-style diff in `git-diff`
 * mode. Snapshots live in the call's Store (namespace `change-tracking`) and do not expire;
 * pages are compared as monitors compare them (normalised markdown: monitor/diff.ts; any text
 * change is `changed`). The scrape bypasses the page cache so the comparison is against the live page.
 *
 * The `json` mode needs a model to extract JSON from the page, which scrape has none of yet: it
 * is refused before any fetch (NOT_CONFIGURED). Monitors offer field-level JSON diffs.
 */
import { z } from 'zod';
import type { Document } from '../../document.ts';
import { NotConfiguredError, ValidationError } from '../../errors.ts';
import type { Store } from '../../interfaces/store.ts';
import { zodIssuesToFieldIssues } from '../../internal/zod.ts';
import { contentHash, gitDiff, normaliseContent } from '../../monitor/diff.ts';
import type { FormatSpec } from '../options.ts';
import type { FormatHandler } from './index.ts';

/** The object form of the format, as the reference gives it. */
const changeTrackingSchema = z.looseObject({
  type: z.literal('changeTracking'),
  modes: z.array(z.enum(['git-diff', 'json'])).default([]),
  schema: z.record(z.string(), z.unknown()).optional(),
  prompt: z.string().max(10_000).optional(),
  tag: z.string().max(256).nullable().default(null),
});

type ChangeTrackingFormat = z.output<typeof changeTrackingSchema>;

function settingsOf(format: FormatSpec): ChangeTrackingFormat {
  const parsed = changeTrackingSchema.safeParse(format);
  if (!parsed.success) {
    throw new ValidationError(
      `Invalid changeTracking format: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      { details: zodIssuesToFieldIssues(parsed.error.issues) },
    );
  }
  return parsed.data;
}

/** The handler: it validates; the comparison itself needs the store, after conversion. */
export const changeTrackingFormat: FormatHandler = {
  ensureAvailable(format) {
    if (settingsOf(format).modes.includes('json')) {
      throw new NotConfiguredError(
        "changeTracking's json mode needs an LLM provider to extract JSON, and scrape has none. Use modes ['git-diff'], or a monitor with a json format.",
        { details: [{ path: ['formats'], message: 'json mode needs an LLM provider' }] },
      );
    }
  },
};

/** The snapshot of one URL kept between scrapes. */
interface TrackedSnapshot {
  at: string;
  hash: string;
  content: string;
}

const namespace = 'change-tracking';

/** The `changeTracking` field of a document, as the reference shapes it. */
export interface ChangeTracking {
  previousScrapeAt: string | null;
  changeStatus: 'new' | 'same' | 'changed' | 'removed';
  visibility: 'visible' | 'hidden';
  diff?: { text: string; json: { files: unknown[] } };
  [key: string]: unknown;
}

/**
 * Compares the document with the URL's last snapshot and moves the snapshot on. Without a store
 * nothing can be remembered: the page is `new` every time, and the document says so.
 */
export async function trackChanges(
  store: Store | undefined,
  team: string,
  format: FormatSpec,
  document: Document,
): Promise<ChangeTracking> {
  const settings = settingsOf(format);
  if (!store) {
    document.warning = [
      document.warning,
      'changeTracking keeps its snapshots in a store; without one every page is new.',
    ]
      .filter(Boolean)
      .join(' ');
    return { previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' };
  }
  const key = `${encodeURIComponent(team)}/${encodeURIComponent(settings.tag ?? '')}/${document.metadata.url}`;
  const previous = await store.get<TrackedSnapshot>(namespace, key);
  const previousScrapeAt = previous?.at ?? null;
  // A page that now answers with an error is gone; its last good snapshot stays.
  if (document.metadata.statusCode >= 400) {
    return {
      previousScrapeAt,
      changeStatus: previous ? 'removed' : 'new',
      visibility: 'visible',
    };
  }
  const content = normaliseContent(document.markdown ?? '');
  const hash = contentHash(content);
  await store.set(namespace, key, { at: new Date().toISOString(), hash, content });
  if (!previous) return { previousScrapeAt, changeStatus: 'new', visibility: 'visible' };
  // The texts decide, not the hashes: snapshots taken before hashes stopped masking noise
  // carry a masked hash.
  if (previous.content === content)
    return { previousScrapeAt, changeStatus: 'same', visibility: 'visible' };
  return {
    previousScrapeAt,
    changeStatus: 'changed',
    visibility: 'visible',
    ...(settings.modes.includes('git-diff')
      ? { diff: gitDiff(previous.content, content, document.metadata.url) }
      : {}),
  };
}
