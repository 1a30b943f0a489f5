/**
 * Screenshots and PDFs that scrapes capture, kept in the store for a day and linked under this
 * server's `/media/` (routes/browser.ts serves them), as the hosted service's links last 24 h.
 */
import { randomUUID } from 'node:crypto';
import type { MediaSink, Store } from '@trawl/core';
import { dayMs } from '@trawl/core/server';

export const mediaNamespace = 'media';
/** How long a captured file stays reachable (the hosted service's links last 24 h). */
const mediaTtlMs = dayMs;
const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/pdf': 'pdf',
};

export interface StoredMedia {
  contentType: string;
  base64: string;
}

/** Stores captured files in the store and links them under this server's `/media/`. */
export function mediaLinks(store: Store, baseUrl: string): MediaSink {
  return {
    async save(bytes, contentType) {
      const name = `${randomUUID()}.${extensions[contentType] ?? 'bin'}`;
      const value: StoredMedia = { contentType, base64: Buffer.from(bytes).toString('base64') };
      await store.set(mediaNamespace, name, value, { ttlMs: mediaTtlMs });
      return `${baseUrl}/media/${name}`;
    },
  };
}
