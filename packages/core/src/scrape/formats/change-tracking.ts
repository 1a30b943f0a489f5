/**
 * `changeTracking`: how this page compares with the last scrape of the same URL (and `tag`) by
 * the same team — `new`, `same`, `changed` or `removed` — with a git-style diff in `git-diff`
 * mode. Snapshots live in the call's Store (namespace `change-tracking`) and do not expire;
 * pages are compared as monitors compare them (normalised markdown: monitor/diff.ts; any text
 * change is `changed`). The scrape bypasses the page cache so the comparison is against the live page.
 *
 * The `json` mode extracts JSON with the call's model (its `schema` and `prompt`)
 * and answers field-level changes against the last snapshot's JSON, as monitors do; without a
 * model it is refused before any fetch (NOT_CONFIGURED).
 */
import { z } from 'zod';
import type { Document } from '../../document.ts';
import { ValidationError } from '../../errors.ts';
import type { Store } from '../../interfaces/store.ts';
import { zodIssuesToFieldIssues } from '../../internal/zod.ts';
import { checkSchema, compileSchema } from '../../llm/schema.ts';
import { contentHash, gitDiff, jsonDiff, normaliseContent } from '../../diff/content-diff.ts';
import type { FormatSpec } from '../options.ts';
import type { FormatHandler } from './index.ts';
import { askForJson, requireLlm, warnOf } from './llm-settings.ts';

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

/** Where the json mode's extraction waits, on the document, until the comparison reads it. */
const extractedKey = 'extractedJson';

/** The handler: it validates, in json mode extracts, and compares with the store's snapshot. */
export const changeTrackingFormat: FormatHandler = {
  needsLivePage: true,
  async recall({ store, team, zeroDataRetention }, document, format) {
    // A ZDR page is neither kept as the next scrape's baseline nor compared with one: either
    // would keep (or reveal) what zero data retention promises to forget.
    document.changeTracking = await trackChanges(
      zeroDataRetention ? undefined : store,
      team,
      format,
      document,
      zeroDataRetention,
    );
  },
  ensureAvailable(format, services) {
    const settings = settingsOf(format);
    if (!settings.modes.includes('json')) return;
    // A bad schema is a 400 first; without a model nothing is compiled: then the 501.
    if (settings.schema) checkSchema(settings.schema, [...services.path, 'schema']);
    requireLlm('changeTracking json mode', services);
    if (settings.schema) compileSchema(settings.schema, [...services.path, 'schema']);
  },
  async enrich({ text, runner, warnings }, document, format) {
    const settings = settingsOf(format);
    if (!runner || !settings.modes.includes('json')) return;
    try {
      const answer = await askForJson(runner, text, settings);
      warnings.push(...answer.warnings);
      document.changeTracking = { [extractedKey]: answer.json ?? null };
    } catch (error) {
      warnings.push(warnOf('changeTracking', error));
    }
  },
};

/** The snapshot of one URL kept between scrapes. */
interface TrackedSnapshot {
  at: string;
  hash: string;
  content: string;
  /** The json mode's extraction. */
  json?: unknown;
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
async function trackChanges(
  store: Store | undefined,
  team: string,
  format: FormatSpec,
  document: Document,
  zeroDataRetention = false,
): Promise<ChangeTracking> {
  const settings = settingsOf(format);
  const extracted = document.changeTracking?.[extractedKey];
  const jsonMode = settings.modes.includes('json') && extracted !== undefined;
  if (!store) {
    document.warning = [
      document.warning,
      zeroDataRetention
        ? 'changeTracking keeps no snapshot of a zeroDataRetention scrape, nor compares it with one: the page is new.'
        : 'changeTracking keeps its snapshots in a store; without one every page is new.',
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
  await store.set(namespace, key, {
    at: new Date().toISOString(),
    hash,
    content,
    ...(jsonMode ? { json: extracted } : {}),
  });
  // Field-level changes of the extracted JSON, as monitors report them.
  const json =
    jsonMode && previous?.json !== undefined ? jsonDiff(previous.json, extracted) : undefined;
  if (!previous) return { previousScrapeAt, changeStatus: 'new', visibility: 'visible' };
  // The texts decide, not the hashes: snapshots taken before hashes stopped masking noise
  // carry a masked hash.
  if (previous.content === content)
    return {
      previousScrapeAt,
      changeStatus: 'same',
      visibility: 'visible',
      ...(json ? { json } : {}),
    };
  return {
    previousScrapeAt,
    changeStatus: 'changed',
    visibility: 'visible',
    ...(json ? { json } : {}),
    ...(settings.modes.includes('git-diff')
      ? { diff: gitDiff(previous.content, content, document.metadata.url) }
      : {}),
  };
}
