/**
 * Where captured files (screenshots, PDFs of actions) go when a caller wants links rather than
 * inline data: the server keeps them for a day and serves them by URL, as the hosted service
 * does (reference-behaviour (c): "URL valid 24 h; self-host may return data URI").
 */
export interface MediaSink {
  /** Stores one file and returns the absolute URL it is served at. Throws StoreError on failure. */
  save(bytes: Uint8Array, contentType: string): Promise<string>;
}
